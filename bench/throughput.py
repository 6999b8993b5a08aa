#!/usr/bin/python3
"""End-to-end training throughput, side by side in one run (issue: trainer benchmark).

For each model size (small, medium) it trains fp4lab with the fp32, bf16 and nvfp4 recipes and the
same model in PyTorch (fp32, AdamW, eager; the functional Llama of tests/torch_crosscheck.py) at its
fastest thread setting, and prints tokens/s and the ratios the targets are stated in:
  nvfp4 step time / bf16 step time   (target <= 1.3)
  fp4lab fp32 tokens/s / PyTorch fp32 tokens/s   (target >= 1.2)
Step times are medians over the measured steps (the first WARMUP steps are dropped).

Usage: /usr/bin/python3 bench/throughput.py [--fp4lab build/release/fp4lab] [--steps 12]
                                            [--models small,medium] [--threads 2]
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import h5py
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from torch_crosscheck import llama_loss  # noqa: E402  (the one PyTorch Llama of the project)

WARMUP = 2


def model_config(name):
    """d_model etc. of a preset, read from experiments/models/NAME.yaml (flat key: value lines)."""
    cfg = {"vocab": 256, "rope_theta": 10000.0, "norm_eps": 1e-5}
    for line in (ROOT / "experiments" / "models" / f"{name}.yaml").read_text().splitlines():
        line = line.split("#")[0].strip()
        if ":" in line:
            k, v = (s.strip() for s in line.split(":", 1))
            cfg[k] = int(v)
    return cfg


def fp4lab_tokens_per_second(binary, model, recipe, steps, batch, threads):
    cfg = model_config(model)
    tokens = steps * batch * cfg["seq_len"]
    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run.h5"
        cmd = [binary, "train", str(ROOT / "experiments/base/default.yaml"), "--out", str(run),
               "--threads", str(threads), "--set", f"model={model}", "--set", f"recipe={recipe}",
               "--set", f"train.batch_size={batch}", "--set", f"train.tokens={tokens}",
               "--set", "train.telemetry_interval=0", "--set", "train.checkpoint_interval=0",
               "--set", f"train.val_interval_tokens={10 * tokens}", "--set", "train.val_tokens=1"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with h5py.File(run, "r") as f:
            secs = f["steps/step_seconds"][WARMUP:]
    return batch * cfg["seq_len"] / statistics.median(secs)


def torch_tokens_per_second(model, steps, batch, threads):
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
    return batch * cfg["seq_len"] / statistics.median(times[WARMUP:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fp4lab", default=str(ROOT / "build/release/fp4lab"))
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--models", default="small,medium")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    print(f"{'model':8s} {'engine':22s} {'tokens/s':>10s}")
    ok = True
    for model in a.models.split(","):
        tps = {r: fp4lab_tokens_per_second(a.fp4lab, model, r, a.steps, a.batch, a.threads)
               for r in ("fp32", "bf16", "nvfp4")}
        peer = {t: torch_tokens_per_second(model, a.steps, a.batch, t) for t in (1, a.threads)}
        best_t = max(peer, key=peer.get)
        for r, v in tps.items():
            print(f"{model:8s} {'fp4lab ' + r:22s} {v:10.0f}")
        print(f"{model:8s} {f'pytorch fp32 ({best_t} thr)':22s} {peer[best_t]:10.0f}")
        step_ratio = tps["bf16"] / tps["nvfp4"]
        peer_ratio = tps["fp32"] / peer[best_t]
        print(f"{model:8s} nvfp4/bf16 step time  {step_ratio:6.2f}  (target <= 1.3)")
        print(f"{model:8s} fp4lab/pytorch fp32   {peer_ratio:6.2f}  (target >= 1.2)")
        ok &= step_ratio <= 1.3 and peer_ratio >= 1.2
    print("targets met" if ok else "targets NOT met")


if __name__ == "__main__":
    main()
