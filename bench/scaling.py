#!/usr/bin/python3
"""Parallel scaling of one training run, measured side by side in one run.

1. Trains fp4lab (`fp4lab train`) for each model (small, medium) and recipe (fp32, bf16, nvfp4) at
   1, 2, 4, ... nproc threads and prints tokens/s and the parallel efficiency
       E(t) = tokens/s(t) / (t * tokens/s(1))      (targets at 16 threads: medium >= 0.70, small >= 0.50)
   The runs go in --rounds interleaved rounds (each round runs every cell once, in a rotated order),
   because shared machines drift by tens of percent within a minute: tokens/s is the median step
   time over all a cell's measured steps (the first WARMUP steps of each run are dropped), E the
   median of the per-round E (each from one round's median step times), which are printed too.
2. Runs fp4lab_bench's GEMM comparison at each thread count: matmul's Eigen engine against OpenBLAS
   sgemm, both one single-threaded sgemm per tile of matmul's grid (matmul's OpenBLAS engine,
   "tiled") and OpenBLAS's own threading, at the GEMM shapes of the same training steps;
   x = Eigen time / OpenBLAS time, so x > 1 means OpenBLAS is faster.
   On an AVX-512 machine every process here gets OpenBLAS's AVX-512 kernels (OPENBLAS_CORETYPE=
   SkylakeX, see --openblas-coretype), so the training runs use the OpenBLAS engine: Debian's
   OpenBLAS 0.3.21 runs CPUs it does not know (this VM's AMD Zen 5) on its AVX2 (Haswell) kernels,
   and then fp4lab uses Eigen. The engine the runs used is printed.
3. Runs fp4lab_bench's per-op-group step breakdown at each thread count, in --rounds interleaved
   rounds: ms per step in GEMMs, quantizer, attention, norms/elementwise, embedding+loss, AdamW
   (medians over rounds), and each group's efficiency (the median of the per-round E, each printed).
Each measurement is a few dozen steps; the defaults take about 7 minutes on 2 cores.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timed_run import model_config, timed_run

ROOT = Path(__file__).resolve().parent.parent
WARMUP = 2
GROUPS = ["gemm", "quantizer", "attention", "norm_elementwise", "embedding_loss", "optimizer", "other"]
TARGETS = {"medium": 0.70, "small": 0.50}  # E at 16 threads
TARGET_THREADS = 16


def blas_env(threads, coretype):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    return env


def step_seconds(binary, model, recipe, threads, steps, batch, coretype):
    """Measured step times of one training run, and its GEMM engine."""
    secs, _, engine = timed_run(binary, model, recipe, threads, batch, steps, WARMUP, env=blas_env(threads, coretype))
    return secs, engine


def bench_json(binary, bench_filter, threads, min_time, coretype=""):
    """fp4lab_bench's results for one filter at one thread count (JSON file reporter)."""
    env = blas_env(threads, coretype)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "bench.json"
        p = subprocess.run([binary, f"--benchmark_filter={bench_filter}", f"--benchmark_min_time={min_time}",
                            f"--benchmark_out={out}", "--benchmark_out_format=json"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env=env)
        if p.returncode != 0:
            raise SystemExit(f"{binary} failed:\n{p.stderr}")
        res = json.loads(out.read_text())
        for b in res["benchmarks"]:
            if b.get("error_occurred"):
                raise SystemExit(f"{b['name']}: {b.get('error_message')}")
        res["benchmarks"].sort(key=lambda b: name_and_args(b["name"]))
        return res


def name_and_args(name):
    """("BM_X", [0, 1, 2]) of "BM_X/model:0/kind:1/role:2/manual_time": sorts the cases by model first."""
    parts = name.split("/")
    return parts[0], [int(v) for k, _, v in (p.partition(":") for p in parts[1:]) if v.isdigit() and k != "min_time"]


def scaling(a, threads):
    cells = [(m, r, t) for m in a.models for r in a.recipes for t in threads]
    secs = {c: [] for c in cells}
    round_median = {c: [] for c in cells}
    engines = set()
    for rnd in range(a.rounds):
        shift = rnd * len(cells) // a.rounds
        for c in cells[shift:] + cells[:shift]:
            s, engine = step_seconds(a.fp4lab, *c, a.steps, a.batch, a.openblas_coretype)
            engines.add(engine)
            secs[c] += s
            round_median[c].append(statistics.median(s))
    print(f"Training throughput: {a.rounds} interleaved rounds x {a.steps - WARMUP} measured steps, "
          f"batch {a.batch}, median step time; GEMM engine {', '.join(sorted(engines))}")
    print(f"  {'model':7s} {'recipe':6s} {'threads':>7s} {'tokens/s':>9s} {'step ms':>8s} {'efficiency':>10s}  per round")
    efficiency = {}
    for m, r, t in cells:
        tokens = a.batch * model_config(m)["seq_len"]
        step = statistics.median(secs[(m, r, t)])
        per_round = [b * threads[0] / (t * x) for x, b in zip(round_median[(m, r, t)], round_median[(m, r, threads[0])])]
        e = efficiency[(m, r, t)] = statistics.median(per_round)
        print(f"  {m:7s} {r:6s} {t:7d} {tokens / step:9.0f} {1e3 * step:8.1f} {e:10.2f}  "
              + " ".join(f"{x:.2f}" for x in per_round))
    return efficiency


def gemm_comparison(a, threads):
    print("\nfp32 GEMM at the training step's shapes (fp4lab_bench GemmVsOpenBlas; x = Eigen time / OpenBLAS time)")
    for t in threads:
        res = bench_json(a.bench, "GemmVsOpenBlas|StepGemmsVsOpenBlas", t, a.min_time, a.openblas_coretype)
        core = res["context"].get("openblas", "?")
        print(f"  {t} thread{'s' if t > 1 else ''} (OpenBLAS: {core})")
        print(f"    {'model':7s} {'gemm':16s} {'m x n x k':16s} {'tiles':>5s} {'eigen':>7s} {'openblas':>8s} "
              f"{'tiled':>7s} {'x_openblas':>10s} {'x_tiled':>7s}  same bits 1/{t} thr: openblas tiled   (GFLOP/s)")
        for b in res["benchmarks"]:
            label = b["label"].rsplit(" ", 1)[0].split(" ")  # model kind role mxnxk | model step
            model, what = label[0], " ".join(label[1:3]) if len(label) > 3 else "whole step"
            shape = label[3] if len(label) > 3 else ""
            tiles = f"{b['tiles']:.0f}" if "tiles" in b else ""
            same = (f"{'yes' if b['openblas_same_bits'] else 'no':>8s} {'yes' if b['tiled_same_bits'] else 'no':>5s}"
                    if "tiled_same_bits" in b else "")
            print(f"    {model:7s} {what:16s} {shape:16s} {tiles:>5s} {b['eigen_GF/s']:7.1f} {b['openblas_GF/s']:8.1f} "
                  f"{b['tiled_GF/s']:7.1f} {b['x_openblas']:10.2f} {b['x_tiled']:7.2f}  {same}")


# StepOps' argument values (bench/bench_step_ops.cpp, kModels and kRecipes), to run only the cases asked for.
STEP_OPS_MODELS = ["small", "medium"]
STEP_OPS_RECIPES = ["fp32", "bf16", "nvfp4", "nvfp4+dequant", "te_nvfp4", "te_nvfp4+dequant", "mxfp4",
                    "mxfp4+dequant", "te_nvfp4_4over6"]


def op_breakdown(a, threads):
    """StepOps at each thread count in --rounds interleaved rounds (thread counts rotated per round):
    ms per group are medians over rounds, and each E(t) is the median of the per-round E, printed
    too, so a round caught by a slow spell of a shared machine shows as an outlier, not as the result."""
    print(f"\nWhere a step's time goes (fp4lab_bench StepOps: forward, backward, AdamW; batch 4; ms per step;"
          f" {a.rounds} interleaved rounds, medians; E per round in brackets)")
    models = "|".join(str(STEP_OPS_MODELS.index(m)) for m in a.models if m in STEP_OPS_MODELS)
    recipes = "|".join(str(STEP_OPS_RECIPES.index(r)) for r in a.recipes if r in STEP_OPS_RECIPES)
    pattern = f"StepOps/model:({models})/recipe:({recipes})/"
    runs = {t: [] for t in threads}  # per thread count, one {label: counters} per round
    for rnd in range(a.rounds):
        shift = rnd % len(threads)
        for t in threads[shift:] + threads[:shift]:
            res = bench_json(a.bench, pattern, t, a.ops_min_time, a.openblas_coretype)
            runs[t].append({b["label"].rsplit(" ", 1)[0]: b for b in res["benchmarks"]})
    t0 = threads[0]
    for name in runs[t0][0]:
        med = lambda t, key: statistics.median(r[name][key] for r in runs[t])
        print(f"  {name}:  " + "  ".join(f"{t} thr {med(t, 'tokens/s'):.0f} tokens/s" for t in threads))
        print(f"    {'group':18s}" + "".join(f" {str(t) + ' thr ms':>10s} {'share':>6s}" for t in threads)
              + "".join(f" {'E(' + str(t) + ')':>6s}" for t in threads[1:]))
        total = {t: sum(med(t, g + "_ms") for g in GROUPS) for t in threads}
        for g in GROUPS:
            ms = {t: med(t, g + "_ms") for t in threads}
            row = "".join(f" {ms[t]:10.2f} {100 * ms[t] / total[t]:5.1f}%" for t in threads)
            for t in threads[1:]:
                per_round = [r0[name][g + "_ms"] * t0 / (t * r[name][g + "_ms"])
                             for r0, r in zip(runs[t0], runs[t]) if r[name][g + "_ms"] > 0]
                row += (f" {statistics.median(per_round):6.2f} [" + " ".join(f"{e:.2f}" for e in per_round) + "]"
                        if per_round else f" {'':6s}")
            print(f"    {g:18s}{row}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fp4lab", default=str(ROOT / "build/release/fp4lab"))
    ap.add_argument("--bench", default=str(ROOT / "build/release/fp4lab_bench"))
    ap.add_argument("--models", default="small,medium")
    ap.add_argument("--recipes", default="fp32,bf16,nvfp4")
    nproc = os.cpu_count() or 1
    powers = [1 << i for i in range(nproc.bit_length()) if 1 << i <= nproc]
    ap.add_argument("--threads", default=",".join(map(str, sorted(set(powers + [nproc])))),
                    help="comma-separated thread counts (default: 1, 2, 4, ... and nproc); the first is the baseline")
    ap.add_argument("--steps", type=int, default=14, help=f"steps per training run, the first {WARMUP} dropped")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=4, help="sequences per step (4: the benchmarks' steps)")
    ap.add_argument("--min-time", type=float, default=0.3, help="fp4lab_bench --benchmark_min_time per GEMM case")
    ap.add_argument("--ops-min-time", type=float, default=1.5, help="the same per step-breakdown case and round")
    avx512 = any("avx512f" in line for line in open("/proc/cpuinfo") if line.startswith("flags"))
    ap.add_argument("--openblas-coretype", default="SkylakeX" if avx512 else "",
                    help="OPENBLAS_CORETYPE for every process ('' leaves the environment's; default: "
                         "SkylakeX on AVX-512 machines)")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: train, gemm, ops")
    a = ap.parse_args()
    a.models, a.recipes = a.models.split(","), a.recipes.split(",")
    threads = [int(t) for t in a.threads.split(",")]
    skip = set(filter(None, a.skip.split(",")))
    start = time.monotonic()
    print(f"{nproc} cores; threads {threads}")
    if "train" not in skip:
        eff = scaling(a, threads)
        print(f"  targets at {TARGET_THREADS} threads: " + ", ".join(f"{m} E >= {v:.2f}" for m, v in TARGETS.items()))
        if max(threads) < TARGET_THREADS:
            print(f"  not measurable here: the largest thread count measured is {max(threads)} ({nproc} cores)")
        else:
            ok = all(eff[(m, r, TARGET_THREADS)] >= TARGETS[m] for m in a.models for r in a.recipes if m in TARGETS)
            print("  targets met" if ok else "  targets NOT met")
    if "gemm" not in skip:
        gemm_comparison(a, threads)
    if "ops" not in skip:
        op_breakdown(a, threads)
    print(f"\n({time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    sys.exit(main())
