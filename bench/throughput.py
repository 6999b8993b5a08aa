#!/usr/bin/python3
"""End-to-end training throughput, side by side in one run (issue: trainer benchmark).

For each model size (small, medium) it trains fp4lab with the fp32, bf16 and nvfp4 recipes and the
same model in PyTorch (fp32, AdamW, eager; the functional Llama of tests/torch_crosscheck.py) at 1
and at --threads threads, and prints tokens/s and the ratios the targets are stated in:
  nvfp4 step time / bf16 step time   (target <= 1.3)
  fp4lab fp32 tokens/s / PyTorch fp32 tokens/s at its fastest thread setting   (target >= 1.2)
Shared machines drift by tens of percent over a minute, so the engines run in --rounds interleaved
rounds (each round runs every engine once, in a rotated order). An engine's figure is the median
step time over all its measured steps (the first WARMUP steps of each run are dropped); the
ratios are also printed per round, so their spread is visible.
"""
import argparse
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


def fp4lab_step_seconds(binary, model, recipe, steps, batch, threads):
    """Measured step times of one fp4lab training run."""
    return timed_run(binary, model, recipe, threads, batch, steps, WARMUP)[0]


def torch_step_seconds(model, steps, batch, threads):
    """Measured step times of the same model trained by PyTorch."""
    cfg = model_config(model)
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
    return times[WARMUP:]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fp4lab", default=str(ROOT / "build/release/fp4lab"))
    ap.add_argument("--steps", type=int, default=10, help="steps per run, WARMUP of them dropped")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--models", default="small,medium")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    engines = ["fp4lab fp32", "fp4lab bf16", "fp4lab nvfp4", "pytorch fp32 1 thr", f"pytorch fp32 {a.threads} thr"]
    ok = True
    for model in a.models.split(","):
        tokens_per_step = a.batch * model_config(model)["seq_len"]
        secs = {e: [] for e in engines}
        per_round = []
        for r in range(a.rounds):
            median = {}
            for e in engines[r % len(engines):] + engines[:r % len(engines)]:
                kind, what = e.split(" ", 1)
                if kind == "fp4lab":
                    s = fp4lab_step_seconds(a.fp4lab, model, what, a.steps, a.batch, a.threads)
                else:
                    s = torch_step_seconds(model, a.steps, a.batch, int(what.split()[1]))
                secs[e] += s
                median[e] = statistics.median(s)
            peer = min(median[e] for e in engines[3:])
            per_round.append((median["fp4lab nvfp4"] / median["fp4lab bf16"], peer / median["fp4lab fp32"]))
        step = {e: statistics.median(v) for e, v in secs.items()}
        best_peer = min(engines[3:], key=step.get)
        print(f"{model}: {a.rounds} interleaved rounds x {a.steps - WARMUP} measured steps, batch {a.batch}")
        print(f"  {'engine':22s} {'tokens/s':>9s} {'step ms':>8s}")
        for e in engines:
            print(f"  {e:22s} {tokens_per_step / step[e]:9.0f} {1e3 * step[e]:8.1f}")
        step_ratio = step["fp4lab nvfp4"] / step["fp4lab bf16"]
        peer_ratio = step[best_peer] / step["fp4lab fp32"]
        rounds = lambda i: " ".join(f"{x[i]:.2f}" for x in per_round)
        print(f"  nvfp4/bf16 step time      {step_ratio:5.2f}  (target <= 1.3; per round: {rounds(0)})")
        print(f"  fp4lab/pytorch fp32 tok/s {peer_ratio:5.2f}  (target >= 1.2; per round: {rounds(1)})")
        ok &= step_ratio <= 1.3 and peer_ratio >= 1.2
    print("targets met" if ok else "targets NOT met")


if __name__ == "__main__":
    main()
