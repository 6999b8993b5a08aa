#!/usr/bin/python3
"""End-to-end training throughput, side by side in one run.

For each model size (small, medium) and vocabulary (--vocab: 256, the byte vocabulary, and 2048, the
BPE ladder's; the model's embedding and LM head follow it, the data stays synthetic) it trains fp4lab with the fp32, bf16, nvfp4, mxfp4, te_nvfp4 and
te_nvfp4_4over6 recipes (the FP4 presets run their default block_exact GEMMs; "nvfp4 dequant" is nvfp4 with
recipe.gemm_numerics=dequant_fp32) and the same model in PyTorch (fp32, AdamW, eager; the functional
Llama of tests/torch_crosscheck.py) at 1 and at --threads threads, and prints tokens/s and the
ratios the targets are stated in:
  nvfp4 step time / bf16 step time   (target <= 1.3)
  FP4 step time / fp32 step time     (nvfp4 and mxfp4: target <= 1.0; te_nvfp4: <= 1.1)
  te_nvfp4_4over6 step time / te_nvfp4 step time   (the price of 4over6's two candidates; no target)
  fp4lab fp32 tokens/s / PyTorch fp32 tokens/s at its fastest thread setting   (target >= 1.2)
Shared machines drift by tens of percent over a minute, so the engines run in --rounds interleaved
rounds (each round runs every engine once, in a rotated order). An engine's figure is the median
step time over all its measured steps (the first WARMUP steps of each run are dropped); the
ratios are also printed per round, so their spread is visible. Peak memory is each engine's largest
resident set (fp4lab: the run file's peak_rss_mib; PyTorch: this process's, which also holds PyTorch's
libraries, about 0.5 GiB before any model).
"""
import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from torch_crosscheck import llama_loss  # noqa: E402  (the one PyTorch Llama of the project)
from timed_run import model_config, timed_run  # noqa: E402

WARMUP = 2


def fp4lab_step_seconds(binary, model, what, steps, batch, threads, vocab, peak_rss):
    """Measured step times of one fp4lab training run; `what` is a recipe, or "RECIPE dequant"."""
    recipe, *variant = what.split()
    sets = (f"model.vocab={vocab}",) + (("recipe.gemm_numerics=dequant_fp32",) if variant == ["dequant"] else ())
    return timed_run(binary, model, recipe, threads, batch, steps, WARMUP, *sets, peak_rss=peak_rss)[0]


def torch_step_seconds(model, steps, batch, threads, vocab, peak_rss):
    """Measured step times of the same model trained by PyTorch."""
    cfg = dict(model_config(model), vocab=vocab)
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    C, F, V, L = cfg["d_model"], cfg["d_ff"], cfg["vocab"], cfg["n_layers"]
    shapes = {"embed_tokens": (V, C), "norm": (C,), "lm_head": (V, C)}
    for i in range(L):
        pre = f"layers.{i}."
        shapes.update({pre + "input_layernorm": (C,), pre + "post_attention_layernorm": (C,),
                       pre + "self_attn.q_proj": (C, C), pre + "self_attn.k_proj": (C, C),
                       pre + "self_attn.v_proj": (C, C), pre + "self_attn.o_proj": (C, C),
                       pre + "mlp.gate_proj": (F, C), pre + "mlp.up_proj": (F, C),
                       pre + "mlp.down_proj": (C, F)})
    p = {k: (torch.randn(s) * 0.02).requires_grad_(True) for k, s in shapes.items()}
    opt = torch.optim.AdamW(p.values(), lr=1e-3, weight_decay=0.1)
    tokens = torch.randint(0, V, (batch, cfg["seq_len"] + 1))
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss, _ = llama_loss(p, tokens, cfg, torch.float32)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(p.values(), 1.0)
        opt.step()
        times.append(time.perf_counter() - t0)
    peak_rss.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return times[WARMUP:]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fp4lab", default=str(ROOT / "build/release/fp4lab"))
    ap.add_argument("--steps", type=int, default=10, help="steps per run, WARMUP of them dropped")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--models", default="small,medium")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--vocab", default="256,2048", help="vocabulary sizes (comma-separated)")
    a = ap.parse_args()
    fp4 = ["fp4lab nvfp4", "fp4lab nvfp4 dequant", "fp4lab mxfp4", "fp4lab te_nvfp4", "fp4lab te_nvfp4_4over6"]
    engines = ["fp4lab fp32", "fp4lab bf16", *fp4, "pytorch fp32 1 thr", f"pytorch fp32 {a.threads} thr"]
    peers = engines[-2:]
    # (label, numerator, denominator, target) of each printed ratio of step times
    ratios = [("nvfp4/bf16 step time", "fp4lab nvfp4", "fp4lab bf16", 1.3),
              ("nvfp4/fp32 step time", "fp4lab nvfp4", "fp4lab fp32", 1.0),
              ("nvfp4 dequant/fp32", "fp4lab nvfp4 dequant", "fp4lab fp32", None),
              ("mxfp4/fp32 step time", "fp4lab mxfp4", "fp4lab fp32", 1.0),
              ("te_nvfp4/fp32 step time", "fp4lab te_nvfp4", "fp4lab fp32", 1.1),
              ("4over6/te_nvfp4 step", "fp4lab te_nvfp4_4over6", "fp4lab te_nvfp4", None)]
    ok = True
    for model, vocab in ((m, int(v)) for m in a.models.split(",") for v in a.vocab.split(",")):
        tokens_per_step = a.batch * model_config(model)["seq_len"]
        secs = {e: [] for e in engines}
        peak = {e: [] for e in engines}
        per_round = []
        for r in range(a.rounds):
            median = {}
            for e in engines[r % len(engines):] + engines[:r % len(engines)]:
                kind, what = e.split(" ", 1)
                if kind == "fp4lab":
                    s = fp4lab_step_seconds(a.fp4lab, model, what, a.steps, a.batch, a.threads, vocab, peak[e])
                else:
                    s = torch_step_seconds(model, a.steps, a.batch, int(what.split()[1]), vocab, peak[e])
                secs[e] += s
                median[e] = statistics.median(s)
            peer = min(median[e] for e in peers)
            per_round.append([median[n] / median[d] for _, n, d, _ in ratios] + [peer / median["fp4lab fp32"]])
        step = {e: statistics.median(v) for e, v in secs.items()}
        best_peer = min(peers, key=step.get)
        print(f"{model}, vocabulary {vocab}: {a.rounds} interleaved rounds x {a.steps - WARMUP} measured steps, "
              f"batch {a.batch}")
        print(f"  {'engine':22s} {'tokens/s':>9s} {'step ms':>8s} {'peak MiB':>9s}")
        for e in engines:
            print(f"  {e:22s} {tokens_per_step / step[e]:9.0f} {1e3 * step[e]:8.1f} {max(peak[e]):9.0f}")
        rounds = lambda i: " ".join(f"{x[i]:.2f}" for x in per_round)
        for i, (label, n, d, target) in enumerate(ratios):
            value = step[n] / step[d]
            goal = f"target <= {target}; " if target else ""
            print(f"  {label:25s} {value:5.2f}  ({goal}per round: {rounds(i)})")
            ok &= target is None or value <= target
        peer_ratio = step[best_peer] / step["fp4lab fp32"]
        print(f"  {'fp4lab/pytorch fp32 tok/s':25s} {peer_ratio:5.2f}  (target >= 1.2; per round: {rounds(len(ratios))})")
        ok &= peer_ratio >= 1.2
    print("targets met" if ok else "targets NOT met")


if __name__ == "__main__":
    main()
