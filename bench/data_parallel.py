#!/usr/bin/python3
"""Data-parallel speed-up of one run (issue 12 §2), side by side in one run of this script.

Trains the same config (default: the `medium` model, nvfp4, batch 16 = 4 shards) with
`fp4lab train --threads 1` on one rank and with `mpirun -np K` ranks of one thread each, in --rounds
interleaved rounds (each round runs both, in a rotated order, since shared machines drift), and
prints the median step time of each and the speed-up one rank / K ranks (target for K = 2 on 2
cores: >= 1.8). The first WARMUP steps of each run are dropped. Also checks that the two runs'
losses are bit-identical, as they must be.

    bench/data_parallel.py [--binary build/release/fp4lab] [--ranks 2] [--model medium] [--steps 6]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

import h5py

ROOT = Path(__file__).resolve().parent.parent
WARMUP = 1


def run(binary, ranks, args):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "run.h5"
        cmd = [binary, "train", str(ROOT / "experiments/base/default.yaml"), "--out", str(path), "--threads", "1",
               "--set", f"model={args.model}", "--set", f"recipe={args.recipe}",
               "--set", f"train.batch_size={args.batch}", "--set", f"train.tokens={args.tokens}",
               "--set", "train.telemetry_interval=0", "--set", "train.checkpoint_interval=0",
               "--set", f"train.val_interval_tokens={10 * args.tokens}", "--set", "train.val_tokens=1"]
        if ranks > 1:
            cmd = ["mpirun", "--oversubscribe", "-np", str(ranks)] + cmd
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
        with h5py.File(path, "r") as f:
            return list(f["steps/step_seconds"][WARMUP:]), f["steps/train_loss"][:].tobytes()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=str(ROOT / "build/release/fp4lab"))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--model", default="medium")
    ap.add_argument("--recipe", default="nvfp4")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    seq = {"tiny": 64, "mini": 128, "small": 128, "medium": 256}.get(args.model, 256)
    args.tokens = args.steps * args.batch * seq
    times = {1: [], args.ranks: []}
    losses = {}
    for r in range(args.rounds):
        order = [1, args.ranks] if r % 2 == 0 else [args.ranks, 1]
        for k in order:
            t, loss = run(args.binary, k, args)
            times[k] += t
            losses.setdefault(k, loss)
        print(f"round {r + 1}: 1 rank {statistics.median(times[1]):.3f} s/step, {args.ranks} ranks "
              f"{statistics.median(times[args.ranks]):.3f} s/step", flush=True)
    one, many = statistics.median(times[1]), statistics.median(times[args.ranks])
    print(f"{args.model} {args.recipe}, batch {args.batch} x {seq} tokens, 1 thread per rank:")
    print(f"  1 rank  {one:.3f} s/step ({args.batch * seq / one:.0f} tok/s)")
    print(f"  {args.ranks} ranks {many:.3f} s/step ({args.batch * seq / many:.0f} tok/s)")
    print(f"  speed-up {one / many:.2f}x (target >= {0.9 * args.ranks:.1f}x); losses bit-identical: "
          f"{losses[1] == losses[args.ranks]}")


if __name__ == "__main__":
    main()
