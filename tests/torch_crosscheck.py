#!/usr/bin/python3
"""PyTorch cross-check of fp4lab's Llama model (llm.c's test_gpt2 idea, but failing loudly).

Reads a directory written by the gtest TorchCrossCheck.LogitsLossAndGradients (meta.txt, manifest.txt,
params.bin, grads.bin, logits.bin, tokens.bin; raw little-endian float32/int32), rebuilds the same
Hugging Face-style Llama in PyTorch, runs it in float64 from the same fp32 parameters, and compares
fp4lab's fp32 logits, loss and every gradient tensor. Exits 0 when all match, 1 otherwise.
Not a test of quantization: the C++ side runs the fp32 recipe.

Usage: /usr/bin/python3 tests/torch_crosscheck.py DIR
"""
import sys
from pathlib import Path

import numpy as np
import torch

# fp4lab computes in fp32; the reference is float64, so every difference is fp4lab's fp32 rounding.
LOGITS_RTOL = 1e-4
LOSS_RTOL = 1e-5
GRAD_RTOL = 1e-4
ATOL_FRACTION = 1e-4  # absolute tolerance as a fraction of the tensor's largest reference magnitude


def read_meta(d):
    meta = {}
    for line in (d / "meta.txt").read_text().splitlines():
        key, value = line.split()
        meta[key] = float(value) if any(c in value for c in ".e") else int(value)
    return meta


def read_manifest(d):
    rows = []
    for line in (d / "manifest.txt").read_text().splitlines():
        name, offset, r, c = line.split()
        rows.append((name, int(offset), int(r), int(c)))
    return rows


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope(x, cos, sin):
    """x [B, H, T, hd]; rotate-half (Hugging Face Llama)."""
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


def llama_loss(p, tokens, m, dtype):
    """Mean next-token cross-entropy and logits [B*T, V] of the model with parameters p."""
    B, T1 = tokens.shape
    T = T1 - 1
    C, H, L = m["d_model"], m["n_heads"], m["n_layers"]
    hd = C // H
    eps = m["norm_eps"]
    inputs, targets = tokens[:, :T], tokens[:, 1:]

    inv_freq = m["rope_theta"] ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
    angles = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)  # [T, hd/2]
    emb = torch.cat((angles, angles), dim=-1)
    cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)

    x = p["embed_tokens"][inputs]  # [B, T, C]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    for i in range(L):
        pre = f"layers.{i}."
        h = rms_norm(x, p[pre + "input_layernorm"], eps)
        heads = lambda t: t.view(B, T, H, hd).transpose(1, 2)  # [B, H, T, hd]
        q = rope(heads(h @ p[pre + "self_attn.q_proj"].T), cos, sin)
        k = rope(heads(h @ p[pre + "self_attn.k_proj"].T), cos, sin)
        v = heads(h @ p[pre + "self_attn.v_proj"].T)
        scores = (q @ k.transpose(-1, -2)) / (hd ** 0.5)
        att = scores.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + y @ p[pre + "self_attn.o_proj"].T
        h = rms_norm(x, p[pre + "post_attention_layernorm"], eps)
        gate = h @ p[pre + "mlp.gate_proj"].T
        up = h @ p[pre + "mlp.up_proj"].T
        x = x + (torch.nn.functional.silu(gate) * up) @ p[pre + "mlp.down_proj"].T
    x = rms_norm(x, p["norm"], eps)
    logits = (x @ p["lm_head"].T).reshape(B * T, -1)
    loss = torch.nn.functional.cross_entropy(logits, targets.reshape(-1))
    return loss, logits


def compare(name, ours, ref, rtol):
    """Prints a one-line verdict; returns True when |ours - ref| <= atol + rtol |ref| everywhere."""
    ref = ref.detach().numpy().astype(np.float64)
    ours = ours.astype(np.float64).reshape(ref.shape)
    atol = ATOL_FRACTION * max(np.abs(ref).max(), np.finfo(np.float32).tiny)
    err = np.abs(ours - ref)
    bad = err > atol + rtol * np.abs(ref)
    worst = int(np.argmax(err - rtol * np.abs(ref)))
    status = "ok  " if not bad.any() else "FAIL"
    print(f"{status} {name:40s} max|err| {err.max():.3e}  max|ref| {np.abs(ref).max():.3e}  "
          f"misses {int(bad.sum())}/{bad.size}  worst@{worst}: ref {ref.flat[worst]:.9g} "
          f"ours {ours.flat[worst]:.9g}")
    return not bad.any()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    d = Path(sys.argv[1])
    m = read_meta(d)
    manifest = read_manifest(d)
    params = np.fromfile(d / "params.bin", dtype="<f4")
    grads = np.fromfile(d / "grads.bin", dtype="<f4")
    logits = np.fromfile(d / "logits.bin", dtype="<f4")
    tokens = torch.from_numpy(
        np.fromfile(d / "tokens.bin", dtype="<i4").reshape(m["B"], m["T"] + 1).astype(np.int64))

    ok = True
    p = {}
    for name, offset, r, c in manifest:
        t = torch.from_numpy(params[offset:offset + r * c].reshape(r, c).astype(np.float64))
        p[name] = t.squeeze(0) if r == 1 else t  # norms [1, d] -> [d]
        p[name].requires_grad_(True)
    loss, ref_logits = llama_loss(p, tokens, m, torch.float64)
    loss.backward()

    ok &= compare("logits", logits, ref_logits, LOGITS_RTOL)
    ok &= compare("loss", np.array([m["loss"]]), loss.reshape(1), LOSS_RTOL)
    for name, offset, r, c in manifest:
        ok &= compare("grad " + name, grads[offset:offset + r * c], p[name].grad.reshape(r, c),
                      GRAD_RTOL)
    print("torch cross-check:", "PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
