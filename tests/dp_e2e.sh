#!/usr/bin/env bash
# Data parallelism of one run (`mpirun -np K fp4lab train`): 1, 2 and 4 ranks give bit-identical
# run files (every step's loss, gradient norm and learning rate, every validation loss; timings and
# rank 0's telemetry aside) for nvfp4 (SR streams by global position, global amaxes; block_exact
# FP4 GEMMs, and dequant_fp32), mxfp4 (block_exact, 32-blocks) and fp8_delayed (amax histories);
# rank 0 alone writes; SIGKILL of one rank makes the others stop (collective timeout, exit 1)
# instead of hanging, and the rerun resumes bit for bit. Both GEMM engines
# (FP4LAB_GEMM=eigen|openblas) keep the rank count out of the bits.
# Usage: dp_e2e.sh FP4LAB_BINARY SOURCE_DIR
set -euo pipefail
FP4LAB=$1
SRC=$2
PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI's own allocations at exit are not ours: no leak check under the sanitizer preset.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
MPIRUN=(mpirun --oversubscribe -x ASAN_OPTIONS -x FP4LAB_GEMM)

same_runs() {  # same_runs A.h5 B.h5...: steps and validation equal bit for bit, both done
  "$PY" - "$@" << 'EOF'
import sys
import h5py, numpy as np
ref = h5py.File(sys.argv[1], "r")
for other in sys.argv[2:]:
    f = h5py.File(other, "r")
    assert f.attrs["status"] == "done", (other, f.attrs["status"])
    for group, keys in (("steps", ("step", "tokens", "train_loss", "grad_norm", "lr")), ("val", ("step", "loss"))):
        for k in keys:
            a, b = ref[group][k][:], f[group][k][:]
            assert a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8)), \
                f"{other}: {group}/{k} differs from {sys.argv[1]} (first at index {np.flatnonzero(a != b)[:1]})"
print("same:", " ".join(sys.argv[1:]))
EOF
}

TINY=("$SRC/experiments/base/default.yaml" --set model.seq_len=32 --set train.batch_size=8 --set train.tokens=4096
      --set train.val_interval_tokens=1024 --set train.val_tokens=512 --set train.checkpoint_interval=4
      --set recipe.amax_history_len=4 --threads 1)
# engine:recipe[:gemm numerics]; the FP4 presets run block_exact unless told otherwise
for case in eigen:nvfp4 openblas:nvfp4 openblas:mxfp4 eigen:nvfp4:dequant_fp32 openblas:fp8_delayed eigen:te_nvfp4_fp8_dpa; do
  IFS=: read -r FP4LAB_GEMM recipe numerics <<< "$case"
  export FP4LAB_GEMM
  RECIPE=(--set recipe=$recipe ${numerics:+--set recipe.gemm_numerics=$numerics})
  echo "== $recipe ${numerics:-}, GEMM engine $FP4LAB_GEMM: 1, 2 and 4 ranks"
  mkdir "$WORK/$FP4LAB_GEMM.$recipe.${numerics:-}" && cd "$WORK/$FP4LAB_GEMM.$recipe.${numerics:-}"
  "$FP4LAB" train "${TINY[@]}" "${RECIPE[@]}" --out $recipe.1.h5 > /dev/null
  for k in 2 4; do
    timeout 120 "${MPIRUN[@]}" -np $k "$FP4LAB" train "${TINY[@]}" "${RECIPE[@]}" --out $recipe.$k.h5 > $recipe.$k.log 2>&1 ||
      fail "mpirun -np $k: $(tail -3 $recipe.$k.log)"
    grep -q "on $k ranks" $recipe.$k.log || fail "mpirun -np $k did not train on $k ranks: $(cat $recipe.$k.log)"
    [ "$(grep -c '^done:' $recipe.$k.log)" -eq 1 ] || fail "more than one rank reported: $(cat $recipe.$k.log)"
  done
  same_runs $recipe.1.h5 $recipe.2.h5 $recipe.4.h5
  timeout 60 "${MPIRUN[@]}" -np 2 "$FP4LAB" train "${TINY[@]}" "${RECIPE[@]}" --out $recipe.2.h5 > again.log 2>&1 ||
    fail "rerunning a finished run on 2 ranks: $(cat again.log)"
  [ "$(grep -c 'already finished' again.log)" -eq 1 ] || fail "a finished run was not skipped once: $(cat again.log)"
  [ -z "$(ls | grep -E '\.ckpt\.h5$' | grep -v final)" ] || fail "a resume checkpoint was left behind: $(ls)"
  cd "$WORK"
done

echo "== 3 ranks do not divide 4 shards: a config error before anything runs"
got=0
timeout 60 "${MPIRUN[@]}" -np 3 "$FP4LAB" train "${TINY[@]}" --out three.h5 > three.log 2>&1 || got=$?
[ "$got" -ne 0 ] || fail "3 ranks over 4 shards ran"
grep -q "train.batch_shards" three.log || fail "no message naming train.batch_shards: $(cat three.log)"
[ ! -e three.h5 ] || fail "three.h5 was written"

echo "== SIGKILL of rank 1: the others stop (exit 1 after the collective timeout); the rerun resumes"
LONG=("${TINY[@]}" --set recipe=nvfp4 --set train.tokens=65536)
"$FP4LAB" train "${LONG[@]}" --out ref.h5 > /dev/null
"${MPIRUN[@]}" -np 2 "$FP4LAB" train "${LONG[@]}" --out cut.h5 --collective-timeout 5 > cut.log 2>&1 &
launcher=$!
for _ in $(seq 1 600); do [ -e cut.ckpt.h5 ] && break; sleep 0.1; done
[ -e cut.ckpt.h5 ] || fail "no checkpoint before the kill"
# Rank 1 is the fp4lab process whose OMPI_COMM_WORLD_RANK is 1.
victim=""
for pid in $(pgrep -f "fp4lab train .*cut.h5" || true); do
  if tr '\0' '\n' < /proc/$pid/environ 2> /dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then victim=$pid; fi
done
[ -n "$victim" ] || fail "rank 1 not found"
kill -9 "$victim"
for _ in $(seq 1 600); do kill -0 "$launcher" 2> /dev/null || break; sleep 0.1; done
kill -0 "$launcher" 2> /dev/null && fail "rank 0 still runs 60 s after rank 1 died: $(tail -3 cut.log)"
status=0
wait "$launcher" || status=$?
[ "$status" -ne 0 ] || fail "the run survived the loss of a rank"
timeout 400 "${MPIRUN[@]}" -np 2 "$FP4LAB" train "${LONG[@]}" --out cut.h5 > resume.log 2>&1 || fail "resume: $(tail -3 resume.log)"
same_runs ref.h5 cut.h5
echo "== a grid cell with train.ranks 2: fp4lab run starts it under mpirun; the Slurm script under srun"
printf '%s\n' "name: dp" "base: $SRC/experiments/base/default.yaml" \
  "overrides: {model.seq_len: 32, train.batch_size: 8, train.tokens: 4096, train.val_interval_tokens: 1024, train.val_tokens: 512, recipe: nvfp4}" \
  "axes:" "  train.ranks: [1, 2]" > grid.yaml
timeout 300 "$FP4LAB" run grid.yaml --jobs 1 --threads 1 --out grid > grid.log 2>&1 || fail "grid run: $(tail -5 grid.log)"
runs=($("$FP4LAB" plan grid.yaml | awk '$1 ~ /^[0-9]+$/ {print $2}'))
same_runs "grid/${runs[0]}.h5" "grid/${runs[1]}.h5"
echo "== two 2-rank cells under --jobs 2 run one after the other (each fills both slots)"
printf '%s\n' "name: dp2" "base: $SRC/experiments/base/default.yaml" "seeds: [0, 1]" \
  "overrides: {model.seq_len: 32, train.batch_size: 8, train.tokens: 2048, train.val_interval_tokens: 1024, train.val_tokens: 512, train.ranks: 2}" > grid2.yaml
timeout 300 "$FP4LAB" run grid2.yaml --jobs 2 --threads 1 --out grid2 > grid2.log 2>&1 || fail "grid run: $(tail -5 grid2.log)"
"$PY" - grid2.log << 'EOF'
import sys
lines = [l for l in open(sys.argv[1]) if " started" in l or " done:" in l]
kinds = ["started" if " started" in l else "done" for l in lines]
assert kinds == ["started", "done", "started", "done"], "".join(lines)
EOF
"$FP4LAB" slurm grid.yaml --out slurm --threads 2 > /dev/null
grep -q '^#SBATCH --ntasks=2$' slurm/slurm.sbatch || fail "slurm script: $(cat slurm/slurm.sbatch)"
grep -q '^ranks=(1 2)$' slurm/slurm.sbatch && grep -qF 'exec srun --ntasks="${ranks[$SLURM_ARRAY_TASK_ID]}"' slurm/slurm.sbatch ||
  fail "slurm script does not srun the cells' ranks: $(cat slurm/slurm.sbatch)"
echo "dp e2e: ok"
