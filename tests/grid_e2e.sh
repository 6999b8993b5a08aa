#!/usr/bin/env bash
# End to end for grids: a 4-cell reference run; the same grid after SIGKILL + resume, SIGINT + resume,
# two concurrent runs, and mpirun -np 3 -- each cell done once, run files bit-identical to the
# reference (except the timings: step_seconds, tokens_per_second, model_tflops); --cell, the Slurm script, status, a diverging cell.
# Usage: grid_e2e.sh FP4LAB_BINARY SOURCE_DIR
set -euo pipefail
FP4LAB=$1
SRC=$2
PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_status() {  # expect_status CODE COMMAND...: runs it (2 minute limit), checks the exit status
  local want=$1; shift
  local got=0
  timeout 120 "$@" || got=$?
  [ "$got" -eq "$want" ] || fail "exit status $got (expected $want): $*"
}
wait_for_checkpoint() {  # wait_for_checkpoint DIR PID: until a checkpoint exists (the run is mid-way)
  for _ in $(seq 1 600); do
    ls "$1"/*.ckpt.h5 2> /dev/null | grep -qv '\.final\.ckpt\.h5$' && return 0
    kill -0 "$2" 2> /dev/null || fail "the run in $1 ended before writing a checkpoint"
    sleep 0.1
  done
  fail "no checkpoint appeared in $1"
}
# Every run file of the reference folder exists in $2, is done, has steps 1..N once each, and
# matches the reference bit for bit except for step_seconds. No checkpoint is left behind.
same_as_reference() {
  "$PY" - "$1" "$2" << 'EOF'
import glob, os, sys
import h5py, numpy as np
ref, other = sys.argv[1], sys.argv[2]
names = sorted(os.path.basename(p) for p in glob.glob(ref + "/*.h5") if not p.endswith(".ckpt.h5"))
got = sorted(os.path.basename(p) for p in glob.glob(other + "/*.h5") if not p.endswith(".ckpt.h5"))
assert names == got, f"{other}: run files {got}, expected {names}"
left = [p for p in glob.glob(other + "/*.ckpt.h5") if not p.endswith(".final.ckpt.h5")]
assert not left, f"{other}: resume checkpoints left: {left}"
for name in names:
    with h5py.File(f"{ref}/{name}", "r") as a, h5py.File(f"{other}/{name}", "r") as b:
        assert b.attrs["status"] == "done", f"{other}/{name}: status {b.attrs['status']}"
        steps = b["steps/step"][:]
        assert (steps == np.arange(1, len(steps) + 1)).all(), f"{other}/{name}: steps not 1..N once each: {steps}"
        datasets = []
        a.visititems(lambda n, o: datasets.append(n) if isinstance(o, h5py.Dataset) else None)
        for d in datasets:
            if d in ("steps/step_seconds", "steps/tokens_per_second", "steps/model_tflops"):  # wall-clock timings
                continue
            x, y = a[d][()], b[d][()]
            if x.shape != y.shape or x.tobytes() != y.tobytes():
                diff = np.flatnonzero(x != y) if x.shape == y.shape else []
                raise AssertionError(f"{other}/{name}: {d} differs from the reference (shapes {x.shape} vs "
                                     f"{y.shape}, first differing index {diff[:1]})")
print(f"{other}: {len(names)} run files identical to the reference")
EOF
}
# Each cell was started (or resumed) exactly once over the given logs.
started_once() {
  local n=$1; shift
  for i in $(seq 0 $((n - 1))); do
    local c
    c=$(cat "$@" | grep -cE "\] cell $i [0-9a-f]{12} .*(started|resumed)") || true
    [ "$c" -eq 1 ] || fail "cell $i started $c times in $*"
  done
}

cat > grid.yaml << EOF
name: e2e
base: $SRC/experiments/base/default.yaml
overrides:
  model: tiny
  model.seq_len: 32
  train.batch_size: 4
  train.tokens: 12288            # 96 steps
  train.checkpoint_interval: 8
  train.val_interval_tokens: 2048
  train.val_tokens: 1024
  train.telemetry_interval: 16
  data.synthetic_tokens: 65536
  data.synthetic_vocab: 8
seeds: [0, 1]
axes:
  recipe: [nvfp4, bf16]
baseline: {recipe: bf16}
EOF
RUN=("$FP4LAB" run grid.yaml --threads 1)

echo "== reference run"
expect_status 0 "${RUN[@]}" --jobs 2 --out ref > ref.log
grep -q "4/4 cells done" ref.log || fail "reference summary: $(tail -1 ref.log)"
"$FP4LAB" status ref > status.txt
[ "$(grep -c ' done ' status.txt)" -eq 4 ] || fail "status after the reference run: $(cat status.txt)"
[ -f ref/manifest.yaml ] && [ -f ref/grid.yaml ] || fail "no manifest.yaml or grid.yaml in ref"

echo "== SIGKILL mid-run, then resume"
setsid "${RUN[@]}" --jobs 2 --out killed > killed1.log 2>&1 &
pid=$!
wait_for_checkpoint killed "$pid"
kill -KILL -- -"$pid"
wait "$pid" 2> /dev/null || true
"$FP4LAB" status killed > status.txt
grep -qE ' (interrupted|pending) ' status.txt || fail "nothing left to resume after SIGKILL: $(cat status.txt)"
expect_status 0 "${RUN[@]}" --jobs 2 --out killed > killed2.log
grep -q "resumed from its checkpoint" killed2.log || fail "no cell resumed: $(cat killed2.log)"
same_as_reference ref killed

echo "== SIGINT stops cleanly (exit 130), then resume"
"${RUN[@]}" --jobs 2 --out stopped > stopped1.log 2>&1 &
pid=$!
wait_for_checkpoint stopped "$pid"
kill -INT "$pid"
got=0
wait "$pid" || got=$?
[ "$got" -eq 130 ] || fail "SIGINT: exit status $got (expected 130): $(cat stopped1.log)"
"$FP4LAB" status stopped | grep -q ' interrupted ' || fail "SIGINT left no interrupted cell"
expect_status 0 "${RUN[@]}" --jobs 2 --out stopped > stopped2.log
same_as_reference ref stopped

echo "== two concurrent runs on one folder"
"${RUN[@]}" --out shared > shared1.log 2>&1 &
p1=$!
"${RUN[@]}" --out shared > shared2.log 2>&1 &
p2=$!
s1=0; s2=0
wait "$p1" || s1=$?
wait "$p2" || s2=$?
[ "$s1" -eq 0 ] && [ "$s2" -eq 0 ] || fail "concurrent runs exited $s1 and $s2"
started_once 4 shared1.log shared2.log
grep -q "started" shared1.log && grep -q "started" shared2.log || fail "one of the two runs ran nothing"
same_as_reference ref shared

echo "== mpirun -np 3"
# OpenMPI's own allocations at exit are not ours: no leak check under the sanitizer preset here.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  expect_status 0 mpirun --oversubscribe -np 3 -x ASAN_OPTIONS "${RUN[@]}" --out mpi > mpi.log
[ "$(grep -c 'started on rank [12]' mpi.log)" -eq 4 ] || fail "MPI: cells not started once each: $(cat mpi.log)"
started_once 4 mpi.log
same_as_reference ref mpi

echo "== --cell and the Slurm script"
expect_status 0 "${RUN[@]}" --cell 1 --out array > /dev/null
expect_status 2 "${RUN[@]}" --cell 4 --out array
expect_status 0 "$FP4LAB" slurm grid.yaml --out array --threads 1 --time 00:10:00 --partition cpu > /dev/null
grep -q '^#SBATCH --array=0-3$' array/slurm.sbatch || fail "slurm script: $(cat array/slurm.sbatch)"
grep -q '^#SBATCH --partition=cpu$' array/slurm.sbatch || fail "slurm script has no partition"
expect_status 0 env SLURM_ARRAY_TASK_ID=2 bash array/slurm.sbatch > /dev/null
"$FP4LAB" status array > status.txt
[ "$(grep -c ' done ' status.txt)" -eq 2 ] && grep -qE '^1 .* done ' status.txt && grep -qE '^2 .* done ' status.txt ||
  fail "--cell / slurm: $(cat status.txt)"

echo "== a diverging cell does not stop the others"
sed -e 's/^name: e2e/name: diverge/' -e '/^seeds:/d' -e 's/recipe: \[nvfp4, bf16\]/optim.lr: [1.0e-2, 1.0e+4]/' \
  -e '/^baseline:/d' grid.yaml > diverge.yaml
expect_status 1 "$FP4LAB" run diverge.yaml --threads 1 --jobs 2 --out diverge > diverge1.log
"$FP4LAB" status diverge > status.txt
grep -qE '^0 .* done ' status.txt && grep -qE '^1 .* diverged ' status.txt || fail "divergence: $(cat status.txt)"
expect_status 1 "$FP4LAB" run diverge.yaml --threads 1 --out diverge > diverge2.log
grep -q "diverged earlier" diverge2.log && ! grep -q "started" diverge2.log || fail "rerun repeated a finished cell"
expect_status 1 "$FP4LAB" run diverge.yaml --threads 1 --out diverge --retry-failed > diverge3.log
grep -qE "cell 1 .* started" diverge3.log && ! grep -qE "cell 0 .* started" diverge3.log || fail "--retry-failed: $(cat diverge3.log)"

echo "grid_e2e: all checks passed"
