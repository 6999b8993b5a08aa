#!/usr/bin/env bash
# End to end for `fp4lab train` and `fp4lab eval`: --help-config, --print-config, a short run and
# its summary, skipping a finished run, a misspelt --set (exit 2), SIGINT (exit 130, checkpoint)
# then resume to the same run file as an uninterrupted run, and eval of the checkpoint.
# Usage: train_cli.sh FP4LAB_BINARY SOURCE_DIR
set -euo pipefail
FP4LAB=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > run.yaml << EOF
base: $SRC/experiments/base/default.yaml
model.seq_len: 32
train: {batch_size: 4, tokens: 16384, checkpoint_interval: 8, val_interval_tokens: 4096, val_tokens: 1024}
data: {synthetic_tokens: 65536, synthetic_vocab: 8}
EOF

"$FP4LAB" train --help-config > help.txt
grep -qE '^  optim\.lr +float = 0\.001  # peak learning rate$' help.txt || fail "--help-config: $(head -5 help.txt)"
grep -q '^recipe presets:.* nvfp4' help.txt || fail "--help-config lists no recipe presets"

"$FP4LAB" train run.yaml --print-config > config.txt
id=$(sed -n 's/^# resolved config of run.yaml, id \([0-9a-f]\{12\}\)$/\1/p' config.txt)
[ -n "$id" ] || fail "--print-config: $(head -2 config.txt)"
grep -q '^  seq_len: 32$' config.txt || fail "--print-config does not show model.seq_len 32"
[ ! -e results ] || fail "--print-config wrote results/"

"$FP4LAB" train run.yaml --threads 1 > train.log || fail "train: $(cat train.log)"
[ -f "results/runs/$id.h5" ] || fail "no run file results/runs/$id.h5"
grep -q "^done: 128 steps, 16384 tokens" train.log || fail "summary: $(tail -1 train.log)"
"$FP4LAB" train run.yaml --threads 1 | grep -q "already finished" || fail "a finished run was trained again"

code=0
"$FP4LAB" train run.yaml --set optim.lrr=1 2> err.txt || code=$?
[ "$code" -eq 2 ] && grep -q "did you mean 'optim.lr'" err.txt || fail "misspelt --set: exit $code, $(cat err.txt)"

"$FP4LAB" train run.yaml --threads 1 --out stopped.h5 > stopped.log 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -f stopped.ckpt.h5 ] && break; sleep 0.05; done
kill -INT "$pid"
code=0
wait "$pid" || code=$?
[ "$code" -eq 130 ] && [ -f stopped.ckpt.h5 ] || fail "SIGINT: exit $code, $(cat stopped.log)"

cat "$SRC"/experiments/recipes/*.yaml > text.txt
"$FP4LAB" eval stopped.ckpt.h5 --text text.txt --batch 4 > eval.txt || fail "eval: $(cat eval.txt)"
grep -qE '^loss [0-9.]+ nats/token = [0-9.]+ bits/byte' eval.txt || fail "eval output: $(cat eval.txt)"

"$FP4LAB" train run.yaml --threads 1 --out stopped.h5 > resumed.log || fail "resume: $(cat resumed.log)"
[ ! -f stopped.ckpt.h5 ] || fail "the resume checkpoint outlived the finished run"
[ -f stopped.final.ckpt.h5 ] || fail "no final checkpoint"
"$FP4LAB" eval stopped.final.ckpt.h5 --text text.txt --batch 4 > eval.txt || fail "eval of the final checkpoint: $(cat eval.txt)"
/usr/bin/python3 - "results/runs/$id.h5" stopped.h5 << 'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    for d in ("steps/step", "steps/train_loss", "steps/grad_norm", "val/loss"):
        assert a[d][()].tobytes() == b[d][()].tobytes(), f"{d} differs after SIGINT and resume"
EOF
# A bad FP4LAB_GEMM is an error before any file is written.
got=0
FP4LAB_GEMM=bogus "$FP4LAB" train run.yaml --threads 1 --out bogus.h5 > bogus.log 2>&1 || got=$?
[ "$got" -eq 1 ] && grep -q "FP4LAB_GEMM=bogus" bogus.log && [ ! -e bogus.h5 ] || fail "FP4LAB_GEMM=bogus: exit $got, $(cat bogus.log)"
got=0
FP4LAB_FP4_KERNEL=bogus "$FP4LAB" train run.yaml --threads 1 --out bogus.h5 > bogus.log 2>&1 || got=$?
[ "$got" -eq 1 ] && grep -q "FP4LAB_FP4_KERNEL=bogus" bogus.log && [ ! -e bogus.h5 ] || fail "FP4LAB_FP4_KERNEL=bogus: exit $got, $(cat bogus.log)"
# Every block_exact kernel trains the same bits (nvfp4 and mxfp4 presets run block_exact).
SHORT=(--threads 2 --set train.tokens=2048 --set train.val_interval_tokens=1024 --set train.checkpoint_interval=0)
for recipe in nvfp4 mxfp4; do
  FP4LAB_FP4_KERNEL=scalar "$FP4LAB" train run.yaml "${SHORT[@]}" --set recipe=$recipe --out k_scalar.h5 > /dev/null
  "$FP4LAB" train run.yaml "${SHORT[@]}" --set recipe=$recipe --out k_default.h5 > /dev/null
  /usr/bin/python3 - k_scalar.h5 k_default.h5 << 'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    assert a.attrs["fp4_kernel"] == "scalar", a.attrs["fp4_kernel"]
    for d in ("steps/train_loss", "steps/grad_norm", "val/loss"):
        assert a[d][()].tobytes() == b[d][()].tobytes(), f"{d}: the scalar and {b.attrs['fp4_kernel']} kernels differ"
EOF
  rm -f k_scalar.h5 k_default.h5
done
echo "train_cli: all checks passed"
