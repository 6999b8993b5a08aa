#!/usr/bin/python3
"""Data-parallel speed-up of one run, side by side in one run of this script.

Trains the same config (default: the `medium` model, nvfp4, batch 16 = 4 shards) with
`fp4lab train --threads 1` on one rank and with `mpirun -np K` ranks of one thread each, and prints
the median step time of each and the speed-up one rank / K ranks (target for K = 2 on 2 cores:
>= 1.8). It also measures what the machine allows: K independent one-rank runs of 1/K of the batch
(the work of one rank, without communication) started at once, each pinned to its own core as
mpirun pins the ranks. Their slowest median step time gives the ceiling = one rank / that, and
DP efficiency = speed-up / ceiling isolates what data parallelism itself costs (collectives and
waiting for the slower rank) from what running K processes at once costs (shared caches, memory
bandwidth, a busy core). The three configurations run in --rounds interleaved rounds (rotated
order, since shared machines drift), and every ratio is printed per round and as the median of the
rounds. The first WARMUP steps of each run are dropped. Also checks that the one-rank and K-rank
runs' losses are bit-identical, as they must be.

    bench/data_parallel.py [--binary build/release/fp4lab] [--ranks 2] [--model medium] [--steps 6]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

from timed_run import ROOT, model_config, read_run, train_command

WARMUP = 1
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def train_cmd(binary, out, batch, shards, args):
    return train_command(binary, out, args.model, args.recipe, 1, batch, args.steps, f"train.batch_shards={shards}")


def run(binary, mode, args):
    """Median step seconds of one configuration: 'one' rank, 'dp' (K ranks), 'solo' (K independent runs)."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "run.h5"
        if mode == "one":
            subprocess.run(train_cmd(binary, out, args.batch, args.shards, args), check=True,
                           stdout=subprocess.DEVNULL, env=ENV)
        elif mode == "dp":
            cmd = ["mpirun", "--oversubscribe", "-np", str(args.ranks)] + train_cmd(binary, out, args.batch,
                                                                                   args.shards, args)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=ENV)
        else:
            outs = [Path(d) / f"solo{i}.h5" for i in range(args.ranks)]
            procs = [subprocess.Popen(["taskset", "-c", str(i % os.cpu_count())]
                                      + train_cmd(binary, o, args.batch // args.ranks, args.shards // args.ranks,
                                                  args), stdout=subprocess.DEVNULL, env=ENV)
                     for i, o in enumerate(outs)]
            if any(p.wait() != 0 for p in procs):
                raise SystemExit("an independent run failed")
            runs = [read_run(o, WARMUP) for o in outs]
            return max(statistics.median(r[0]) for r in runs), None, runs[0][2]
        secs, loss, engine = read_run(out, WARMUP)
        return statistics.median(secs), loss, engine


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=str(ROOT / "build/release/fp4lab"))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--model", default="medium")
    ap.add_argument("--recipe", default="nvfp4")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--shards", type=int, default=4, help="train.batch_shards (a multiple of --ranks)")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    args.seq = model_config(args.model)["seq_len"]
    modes = ["one", "dp", "solo"]
    times = {m: [] for m in modes}
    losses, engines = {}, set()
    for r in range(args.rounds):
        for m in modes[r % 3:] + modes[:r % 3]:
            t, loss, engine = run(args.binary, m, args)
            times[m].append(t)
            engines.add(engine)
            if loss is not None:
                losses.setdefault(m, loss)
        one, dp, solo = (times[m][-1] for m in modes)
        print(f"round {r + 1}: 1 rank {one:.3f} s/step, {args.ranks} ranks {dp:.3f}, {args.ranks} independent "
              f"runs of 1/{args.ranks} batch {solo:.3f}: speed-up {one / dp:.2f}x, ceiling {one / solo:.2f}x, "
              f"DP efficiency {solo / dp:.2f}", flush=True)
    speedup = statistics.median(o / d for o, d in zip(times["one"], times["dp"]))
    ceiling = statistics.median(o / s for o, s in zip(times["one"], times["solo"]))
    efficiency = statistics.median(s / d for s, d in zip(times["solo"], times["dp"]))
    print(f"{args.model} {args.recipe}, batch {args.batch} x {args.seq} tokens, {args.shards} shards, 1 thread per "
          f"rank, GEMM engine {', '.join(sorted(engines))}; medians of {args.rounds} rounds:")
    print(f"  1 rank  {statistics.median(times['one']):.3f} s/step, {args.ranks} ranks "
          f"{statistics.median(times['dp']):.3f} s/step")
    print(f"  speed-up {speedup:.2f}x (target >= {0.9 * args.ranks:.1f}x); ceiling from {args.ranks} independent "
          f"runs {ceiling:.2f}x; DP efficiency {efficiency:.2f}; losses bit-identical: "
          f"{losses['one'] == losses['dp']}")


if __name__ == "__main__":
    main()
