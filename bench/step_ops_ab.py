"""Where a change moved a training step's time: two fp4lab_bench binaries' StepOps op groups, interleaved.

Runs `fp4lab_bench --benchmark_filter=StepOps/...` with binary A and binary B alternately (the order
flipping each round), `--rounds` times, at one thread, and prints per model and recipe the median
ms per step of each op group and the ratio B / A of one group (`--group`, default quantizer) per
round and its median. The ratio is taken against a reference clock inside each run, the groups
neither binary's change touches (`--reference`, default attention + norm_elementwise + optimizer +
embedding_loss): the VM's speed drifts by tens of percent between runs, and a group's share of its
own run's reference moves with the code only. Not a test: a comparison for a change's notes.

    /usr/bin/python3 bench/step_ops_ab.py OLD/fp4lab_bench build/release/fp4lab_bench \\
        --filter 'StepOps/model:[01]/recipe:(2|4)/' --rounds 6 --min-time 0.5

An old build needs FP4LAB_PRESETS when its source tree has moved; this script sets it to this
checkout's experiments/.
"""
import argparse
import os
import re
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ["attention", "embedding_loss", "gemm", "norm_elementwise", "optimizer", "other", "quantizer"]


def run(binary, pattern, min_time):
    """{label: {group: ms per step, 'step': ms}} of one StepOps run."""
    env = dict(os.environ, OMP_NUM_THREADS="1", FP4LAB_PRESETS=str(ROOT / "experiments"))
    out = subprocess.run([binary, f"--benchmark_filter={pattern}", f"--benchmark_min_time={min_time}"],
                         env=env, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in re.sub(r"\x1b\[[0-9;]*m", "", out).splitlines():
        if not line.startswith("BM_StepOps"):
            continue
        f = line.split()
        # name, time, unit, cpu, unit, iterations, the counters in name order, scopes/step, tokens/s, label
        values = dict(zip(GROUPS, map(float, f[6:6 + len(GROUPS)])))
        values["step"] = float(f[1])
        rows[" ".join(f[-3:-1])] = values  # label: model recipe (threads dropped)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="binary A (the baseline)")
    ap.add_argument("b", help="binary B (the change)")
    ap.add_argument("--filter", default="StepOps/model:[01]/recipe:(2|4)/", help="benchmark filter")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--min-time", default="0.5", help="--benchmark_min_time per run (seconds)")
    ap.add_argument("--group", default="quantizer", choices=GROUPS)
    ap.add_argument("--reference", default="attention,norm_elementwise,optimizer,embedding_loss",
                    help="comma-separated groups the change does not touch")
    args = ap.parse_args()
    reference = args.reference.split(",")
    runs = {"A": [], "B": []}
    for r in range(args.rounds):
        for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
            runs[name].append(run(args.a if name == "A" else args.b, args.filter, args.min_time))
    for label in runs["A"][0]:
        ratios = []
        for ra, rb in zip(runs["A"], runs["B"]):
            rel = [x[label][args.group] / sum(x[label][g] for g in reference) for x in (ra, rb)]
            ratios.append(rel[1] / rel[0])
        for name in ("A", "B"):
            med = {k: statistics.median(x[label][k] for x in runs[name]) for k in ["step"] + GROUPS}
            share = statistics.median(x[label][args.group] / x[label]["step"] for x in runs[name])
            print(f"{label:18s} {name}: step {med['step']:7.1f} ms  " +
                  "  ".join(f"{g} {med[g]:6.1f}" for g in GROUPS) + f"  {args.group} share {100 * share:.1f} %")
        print(f"{label:18s} B / A {args.group} (per reference): " + " ".join(f"{x:.2f}" for x in ratios) +
              f"  median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
