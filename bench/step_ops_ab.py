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
"""
import argparse
import os
import statistics

from scaling import GROUPS, ROOT, bench_json


def run(binary, pattern, min_time):
    """{"model recipe": StepOps counters (GROUP_ms, ...) plus "step" (ms)} of one run at one thread."""
    out = {}
    for b in bench_json(binary, pattern, 1, min_time)["benchmarks"]:
        out[b["label"].rsplit(" ", 1)[0]] = dict(b, step=b["real_time"])  # label: model recipe threads
    return out


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
    os.environ.setdefault("FP4LAB_PRESETS", str(ROOT / "experiments"))  # for a build whose tree moved
    reference = args.reference.split(",")
    runs = {"A": [], "B": []}
    for r in range(args.rounds):
        for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
            runs[name].append(run(args.a if name == "A" else args.b, args.filter, args.min_time))
    per_ref = lambda x, label: x[label][args.group + "_ms"] / sum(x[label][g + "_ms"] for g in reference)
    for label in runs["A"][0]:
        for name in ("A", "B"):
            med = {k: statistics.median(x[label][k] for x in runs[name]) for k in ["step"] + [g + "_ms" for g in GROUPS]}
            share = statistics.median(x[label][args.group + "_ms"] / x[label]["step"] for x in runs[name])
            print(f"{label:18s} {name}: step {med['step']:7.1f} ms  " +
                  "  ".join(f"{g} {med[g + '_ms']:6.1f}" for g in GROUPS) + f"  {args.group} share {100 * share:.1f} %")
        ratios = [per_ref(rb, label) / per_ref(ra, label) for ra, rb in zip(runs["A"], runs["B"])]
        print(f"{label:18s} B / A {args.group} (per reference): " + " ".join(f"{x:.2f}" for x in ratios) +
              f"  median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
