#!/usr/bin/env python3
"""One paired comparison of one grid run on several disjoint seed sets, side by side.

Usage: scripts/seed_sets.py [--compare K] [--power N,N,...] DIR [DIR ...]

Each DIR is the output folder of one `fp4lab run GRID --set seeds=[...] --out DIR` followed by
`fp4lab report DIR` (its analysis.json). Prints a Markdown table with one row per seed set: the
converged-regime, final and token gaps of comparison K (default 0, the grid's first `compare:`
pair) with their CIs, the per-seed sd of each, and whether the token gap's interval excludes zero;
then, over all the sets, the pooled per-seed sd and how many sets' token-gap intervals lie above
zero. With --power, for each N the chance that a fresh set of N paired seeds gives a token-gap
interval above zero, if per-seed token gaps are normal with the pooled mean and sd (Monte Carlo,
50,000 sets, a fixed generator seed). Reads nothing but the analysis.json files; writes nothing.
"""
import argparse
import json
import math
import os
import random
import statistics
import sys

# Student t 0.975 quantiles for 1..30 degrees of freedom; beyond, the Cornish-Fisher expansion.
T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
        2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
        2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]


def t975(dof):
    if dof <= len(T975):
        return T975[dof - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof ** 2)


def chance_above_zero(mean, sd, n, sets=50_000, seed=1):
    """P(mean_hat - t * sd_hat / sqrt(n) > 0) for n normal draws per set."""
    rng = random.Random(seed)
    t = t975(n - 1)
    hits = 0
    for _ in range(sets):
        xs = [rng.gauss(mean, sd) for _ in range(n)]
        hits += statistics.fmean(xs) - t * statistics.stdev(xs) / math.sqrt(n) > 0
    return hits / sets


def fmt(x, digits, scale=1.0, unit="", sign=True):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    return f"{x * scale:{'+' if sign else ''}.{digits}f}{unit}"


def gap_cell(g, digits, scale=1.0, unit=""):
    if g.get("ci_low") is None or not math.isfinite(g.get("ci_low", float("nan"))):
        return fmt(g.get("mean"), digits, scale, unit) + " (no CI)"
    return (f"{fmt(g['mean'], digits, scale, unit)} "
            f"[{fmt(g['ci_low'], digits, scale, unit)}, {fmt(g['ci_high'], digits, scale, unit)}]")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", help="grid output folders, each with analysis.json")
    ap.add_argument("--compare", type=int, default=0, help="index of the comparison (default 0)")
    ap.add_argument("--power", type=lambda v: [int(x) for x in v.split(",")], default=[], metavar="N,N,...",
                    help="seed-set sizes for which to estimate the chance of a token-gap interval above zero")
    args = ap.parse_args()

    rows, per_seed_tokens, per_seed_conv = [], [], []
    label = None
    for d in args.dirs:
        path = os.path.join(d, "analysis.json")
        try:
            with open(path) as f:
                a = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"seed_sets: {path}: {e} (run `fp4lab report {d}` first)")
        comps = a.get("comparisons", [])
        if args.compare >= len(comps):
            sys.exit(f"seed_sets: {path} has {len(comps)} comparisons; no comparison {args.compare}")
        c = comps[args.compare]
        label = label or f"{c['a']} − {c['b']}"
        conv, fin, tok = c["converged_gap"], c["final_gap"], c["token_gap"]
        above = tok.get("ci_low") is not None and math.isfinite(tok["ci_low"]) and tok["ci_low"] > 0
        seeds = c["seeds"]
        seed_text = f"{seeds[0]}–{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else ",".join(map(str, seeds))
        rows.append([seed_text, str(c["n_seeds"]), gap_cell(conv, 4), fmt(conv["sd"], 4, sign=False),
                     gap_cell(fin, 4), gap_cell(tok, 1, 100, "%"), fmt(tok["sd"], 1, 100, " pts", sign=False),
                     "yes" if above else "no"])
        per_seed_tokens += [x for x in tok["per_seed"] if x is not None and math.isfinite(x)]
        per_seed_conv += [x for x in conv["per_seed"] if x is not None and math.isfinite(x)]

    head = ["seeds", "n", "converged gap (nats), 95% CI", "per-seed sd", "final gap (nats), 95% CI",
            "token gap, 95% CI", "per-seed sd", "token-gap CI above 0"]
    print(f"{label}, one row per seed set:\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")

    def sd(xs):
        m = sum(xs) / len(xs)
        return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else float("nan")

    n_above = sum(r[-1] == "yes" for r in rows)
    mt, st = sd(per_seed_tokens)
    mc, sc = sd(per_seed_conv)
    print(f"\nToken-gap interval above zero in {n_above} of {len(rows)} sets. Over all {len(per_seed_tokens)} "
          f"seeds: token gap mean {100 * mt:+.1f}%, per-seed sd {100 * st:.1f} pts; converged gap mean "
          f"{mc:+.4f} nats, per-seed sd {sc:.4f}.")
    for n in args.power:
        if n < 2:
            sys.exit("seed_sets: --power needs sets of at least 2 seeds")
        print(f"A fresh set of {n} seeds at that mean and sd: token-gap interval above zero with chance "
              f"{chance_above_zero(mt, st, n):.2f}.")


if __name__ == "__main__":
    main()
