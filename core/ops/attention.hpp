// Causal multi-head softmax attention core (kept in high precision by every recipe):
// per (batch, head), y = softmax(q·kᵀ/√hd + causal mask)·v. Not the q/k/v/o projections (linear)
// and not RoPE (rope). Forward overwrites its outputs; backward accumulates (+=) into dq, dk, dv.
#pragma once
#include <cstdint>

namespace fp4lab {

// y [B, seq, heads·hd], att [B, heads, seq, seq] softmax probabilities (zero above the diagonal,
// saved for backward); q, k, v [B, seq, heads·hd] with the heads side by side.
template <class T>
void attention_forward(T* y, T* att, const T* q, const T* k, const T* v, int64_t B, int64_t seq,
                       int64_t heads, int64_t hd);

// dq, dk, dv [B, seq, heads·hd] +=; dy [B, seq, heads·hd]; q, k, v, att as in forward.
template <class T>
void attention_backward(T* dq, T* dk, T* dv, const T* dy, const T* q, const T* k, const T* v,
                        const T* att, int64_t B, int64_t seq, int64_t heads, int64_t hd);

}  // namespace fp4lab
