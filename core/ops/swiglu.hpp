// The elementwise part of the SwiGLU MLP: out = silu(gate) ⊙ up with silu(g) = g·σ(g).
// The gate/up/down projections are linears (linear.hpp). Backward accumulates (+=).
#pragma once
#include <cstdint>

namespace fp4lab {

// out, gate, up [n] (the [B·T, d_ff] activations, flattened)
template <class T>
void swiglu_forward(T* out, const T* gate, const T* up, int64_t n);

// dgate, dup [n] +=; dout, gate, up [n]
template <class T>
void swiglu_backward(T* dgate, T* dup, const T* dout, const T* gate, const T* up, int64_t n);

}  // namespace fp4lab
