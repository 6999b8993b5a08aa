#!/usr/bin/env bash
# The findings suite: every grid of ablations/findings/ (one per published claim), then one
# FINDINGS.md. Resumable: rerunning skips finished cells and resumes interrupted ones.
#   run files (HDF5, git-ignored):           results/findings/runs/<grid>/
#   each grid's report (md, csv, json, plots): results/findings/<grid>/
#   the claims table:                         results/findings/FINDINGS.md, findings.json
#   (and the transfer table of the subword ladder's joint law, from results/scaling_bpe)
# Usage: scripts/findings.sh [--jobs N] [--report-only] [GRID.yaml ...]   (default: all, --jobs 2)
#   --report-only regenerates the reports, packs and FINDINGS.md from the run files without training
#   (FINDINGS.md from the committed curves packs where the run files are not here).
set -uo pipefail
cd "$(dirname "$0")/.."
FP4LAB=${FP4LAB:-build/release/fp4lab}
jobs=2
report_only=0
grids=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --report-only) report_only=1; shift ;;
    -h|--help) sed -n 2,9p "$0"; exit 0 ;;
    *) grids+=("$1"); shift ;;
  esac
done
[ ${#grids[@]} -eq 0 ] && grids=(ablations/findings/*.yaml)
status=0
for g in "${grids[@]}"; do
  name=$(basename "$g" .yaml)
  runs=results/findings/runs/$name
  if [ $report_only -eq 0 ]; then
    echo "== $name: $("$FP4LAB" plan "$g" | head -1)"
    "$FP4LAB" run "$g" --jobs "$jobs" --out "$runs" || status=1   # a failed cell does not stop the suite
  fi
  if [ -d "$runs" ]; then   # the report, and the curves pack that re-analyses it without the run files
    "$FP4LAB" report "$runs" --out "results/findings/$name" > /dev/null || status=1
    "$FP4LAB" pack "$runs" "results/findings/$name/curves.h5" > /dev/null || status=1
  fi
done
dirs=()   # each grid's run files, or its committed curves pack when the run files are not here
for g in ablations/findings/*.yaml; do
  name=$(basename "$g" .yaml)
  if [ -d "results/findings/runs/$name" ]; then dirs+=("results/findings/runs/$name")
  elif [ -f "results/findings/$name/curves.h5" ]; then dirs+=("results/findings/$name/curves.h5"); fi
done
# the model-size ladder's trend claims (ablations/scaling/ladder.yaml)
if [ -d results/scaling/runs ]; then dirs+=(results/scaling/runs)
elif [ -f results/scaling/curves.h5 ]; then dirs+=(results/scaling/curves.h5); fi
# the subword ladder's joint law against every published size (ablations/scaling/ladder_bpe.yaml)
transfer=()
# (its sizes; tiny_wide, tiny's N in one wider block, is a shape check, not a size)
where=(--transfer-where size=micro,tiny,mini,midi,small)
if [ -d results/scaling_bpe/runs ]; then transfer=(--transfer results/scaling_bpe/runs "${where[@]}")
elif [ -f results/scaling_bpe/curves.h5 ]; then transfer=(--transfer results/scaling_bpe/curves.h5 "${where[@]}"); fi
[ ${#dirs[@]} -gt 0 ] && "$FP4LAB" findings "${dirs[@]}" "${transfer[@]}" --out results/findings
exit $status
