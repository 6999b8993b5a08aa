// Causal multi-head softmax attention core: per (batch, head), y = softmax(q·kᵀ/√hd + causal
// mask)·v. Not the q/k/v/o projections (linear) and not RoPE (rope). Forward overwrites its outputs;
// backward accumulates (+=) into dq, dk, dv. fp32 unless a recipe quantizes its products
// (AttentionQuant, as TransformerEngine's fp8_dpa).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/quant/quant_spec.hpp"

namespace fp4lab {

// Quantized attention products (TE fp8_dpa, FP8 current scaling by default in its recipes): each
// product's operands are fake-quantized as whole tensors with one per-tensor scale, the products
// are fp32 GEMMs of the dequantized operands.
//   forward   S = Q(q)·Q(k)ᵀ;  P = softmax(S/√hd) (fp32);  y = Q(P)·Q(v)            q, k, v, P: fwd
//   backward  dV += Q(P)ᵀ·Q(dy);  dP = Q(dy)·Q(v)ᵀ;  dS = P ⊙ (dP − rowsum(P ⊙ dP))/√hd (fp32 P);
//             dQ += Q(dS)·Q(k);  dK += Q(dS)ᵀ·Q(q)                                     dy, dS: bwd
// q, k, v and dy are quantized over [B, seq, heads·hd], P and dS over [B, heads, seq, seq] (their
// causal halves; the masked zeros stay zero). fwd/bwd none: that side's operands stay fp32.
struct AttentionQuant {
  QuantSpec fwd, bwd;
  bool quantized() const { return fwd.quantized() || bwd.quantized(); }
  bool operator==(const AttentionQuant&) const = default;
};

// Why an attention quantization cannot run, or "": per-tensor formats only (fp8_e4m3/e5m2 with an
// fp32 tensor scale, a raw cast, bf16), round to nearest, no RHT, current scaling.
std::string validate(const AttentionQuant& q);

// The max over data-parallel ranks of a rank's amax (nullptr: one process), so that a rank's slice
// of a token-sharded tensor gets the scale of the whole tensor.
using AmaxReduce = std::function<float(float)>;

// y [B, seq, heads·hd], att [B, heads, seq, seq] softmax probabilities (zero above the diagonal,
// saved for backward); q, k, v [B, seq, heads·hd] with the heads side by side.
// With `quant` (float only), the quantized products above.
template <class T>
void attention_forward(T* y, T* att, const T* q, const T* k, const T* v, int64_t B, int64_t seq,
                       int64_t heads, int64_t hd, const AttentionQuant* quant = nullptr,
                       const AmaxReduce* reduce_amax = nullptr);

// dq, dk, dv [B, seq, heads·hd] +=; dy [B, seq, heads·hd]; q, k, v, att as in forward.
template <class T>
void attention_backward(T* dq, T* dk, T* dv, const T* dy, const T* q, const T* k, const T* v,
                        const T* att, int64_t B, int64_t seq, int64_t heads, int64_t hd,
                        const AttentionQuant* quant = nullptr, const AmaxReduce* reduce_amax = nullptr);

}  // namespace fp4lab
