// Rotary position embedding, rotate-half convention (Hugging Face Llama): in each head of width hd the
// pair (i, i + hd/2) at position t is rotated by the angle t · theta^(−2i/hd).
// Applied to q and k; not to v. Backward applies the inverse rotation and accumulates (+=).
#pragma once
#include <cstdint>

namespace fp4lab {

// cos, sin [seq, head_dim/2]: angles computed in double, then rounded to T.
template <class T>
void rope_tables(T* cos, T* sin, int64_t seq, int64_t head_dim, double theta);

// out, in [B, seq, heads·head_dim] (heads side by side); out may alias in.
template <class T>
void rope_forward(T* out, const T* in, const T* cos, const T* sin, int64_t B, int64_t seq,
                  int64_t heads, int64_t head_dim);

// din [B, seq, heads·head_dim] +=  Rᵀ·dout; din must not alias dout.
template <class T>
void rope_backward(T* din, const T* dout, const T* cos, const T* sin, int64_t B, int64_t seq,
                   int64_t heads, int64_t head_dim);

}  // namespace fp4lab
