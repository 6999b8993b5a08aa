// SwiGLU elementwise forward and backward (see swiglu.hpp).
#include "core/ops/swiglu.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/ops/vexp.hpp"
#include "core/profile/op_timer.hpp"

namespace fp4lab {
namespace {

constexpr int64_t kChunk = 512;  // elements per task; σ of a chunk is computed into a stack buffer

// s[i] = σ(g[i]) = 1 / (1 + exp(−g[i])) for i < n (n <= kChunk); fp32 through the vector exp.
template <class T>
void sigmoid(T* s, const T* g, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    for (int64_t i = 0; i < n; ++i) s[i] = -g[i];
    exp_array(s, s, n);
    for (int64_t i = 0; i < n; ++i) s[i] = 1.0f / (1.0f + s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) s[i] = T(1) / (T(1) + std::exp(-g[i]));
  }
}

}  // namespace

template <class T>
void swiglu_forward(T* out, const T* gate, const T* up, int64_t n) {
  const OpScope op_scope(OpGroup::norm_elementwise);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t len = std::min(kChunk, n - c);
    T s[kChunk];
    sigmoid(s, gate + c, len);
    for (int64_t i = 0; i < len; ++i) out[c + i] = gate[c + i] * s[i] * up[c + i];
  }
}

template <class T>
void swiglu_backward(T* dgate, T* dup, const T* dout, const T* gate, const T* up, int64_t n) {
  const OpScope op_scope(OpGroup::norm_elementwise);
  // d silu(g)/dg = σ(g)·(1 + g·(1 − σ(g)))
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t len = std::min(kChunk, n - c);
    T s[kChunk];
    sigmoid(s, gate + c, len);
    for (int64_t i = 0; i < len; ++i) {
      const T g = gate[c + i];
      dgate[c + i] += dout[c + i] * up[c + i] * (s[i] * (T(1) + g * (T(1) - s[i])));
      dup[c + i] += dout[c + i] * (g * s[i]);
    }
  }
}

template void swiglu_forward<float>(float*, const float*, const float*, int64_t);
template void swiglu_forward<double>(double*, const double*, const double*, int64_t);
template void swiglu_backward<float>(float*, float*, const float*, const float*, const float*,
                                     int64_t);
template void swiglu_backward<double>(double*, double*, const double*, const double*,
                                      const double*, int64_t);

}  // namespace fp4lab
