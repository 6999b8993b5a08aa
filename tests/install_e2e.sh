#!/usr/bin/env bash
# `cmake --install` into a temporary prefix: the installed fp4lab runs from another directory and
# finds its presets and shipped grids relative to itself (no compiled-in source path).
# Usage: install_e2e.sh FP4LAB_BINARY SOURCE_DIR
set -euo pipefail
FP4LAB=$1
BUILD=$(dirname "$FP4LAB")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$WORK/prefix" > "$WORK/install.log" || fail "cmake --install: $(tail -3 "$WORK/install.log")"
P=$WORK/prefix
[ -x "$P/bin/fp4lab" ] || fail "no $P/bin/fp4lab"
[ -f "$P/share/fp4lab/experiments/recipes/nvfp4.yaml" ] || fail "recipes not installed"
[ -f "$P/share/fp4lab/ablations/quickstart.yaml" ] || fail "grids not installed"
[ -f "$P/share/fp4lab/ablations/findings/01_mxfp4_vs_nvfp4.yaml" ] || fail "findings grids not installed"

mkdir "$WORK/elsewhere" && cd "$WORK/elsewhere"
unset FP4LAB_PRESETS
printf 'model: mini\nrecipe: nvfp4\n' > run.yaml
"$P/bin/fp4lab" train run.yaml --print-config > config.txt || fail "installed train --print-config"
grep -q '^  d_model: 96$' config.txt || fail "the installed binary did not expand model: mini"
"$P/bin/fp4lab" train --help-config | grep -q '^recipe presets:.* nvfp4' || fail "installed --help-config lists no presets"
"$P/bin/fp4lab" plan "$P/share/fp4lab/ablations/quickstart.yaml" | grep -q '^30 cells$' || fail "installed plan of the quickstart"
# The Python module, when built: importable from the prefix, finding the installed presets.
if grep -q '_fp4lab' "$BUILD/install_manifest.txt" 2>/dev/null; then
  module=$(grep '/fp4lab/__init__.py$' "$BUILD/install_manifest.txt")
  PYTHONPATH=$(dirname "$(dirname "$module")") /usr/bin/python3 -c '
import fp4lab, numpy as np
assert fp4lab.__file__.startswith("'"$P"'"), fp4lab.__file__
assert fp4lab.recipe("te_nvfp4")["quantized"]["fprop_w"]["tile"] == "2d"
q = fp4lab.quantize(np.ones((16, 16), np.float32), "nvfp4")
assert float(q.dequant[0, 0]) == 1.0
' || fail "import fp4lab from the install prefix"
fi
[ -z "$(ls -A | grep -v -e run.yaml -e config.txt)" ] || fail "wrote into the working directory: $(ls)"
echo "install e2e: ok"
