// SwiGLU elementwise forward and backward (see swiglu.hpp).
#include "core/ops/swiglu.hpp"

#include <cmath>

namespace fp4lab {
namespace {
template <class T>
T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}
}  // namespace

template <class T>
void swiglu_forward(T* out, const T* gate, const T* up, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) out[i] = gate[i] * sigmoid(gate[i]) * up[i];
}

template <class T>
void swiglu_backward(T* dgate, T* dup, const T* dout, const T* gate, const T* up, int64_t n) {
  // d silu(g)/dg = σ(g)·(1 + g·(1 − σ(g)))
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const T g = gate[i], s = sigmoid(g);
    dgate[i] += dout[i] * up[i] * (s * (T(1) + g * (T(1) - s)));
    dup[i] += dout[i] * (g * s);
  }
}

template void swiglu_forward<float>(float*, const float*, const float*, int64_t);
template void swiglu_forward<double>(double*, const double*, const double*, int64_t);
template void swiglu_backward<float>(float*, float*, const float*, const float*, const float*,
                                     int64_t);
template void swiglu_backward<double>(double*, double*, const double*, const double*,
                                      const double*, int64_t);

}  // namespace fp4lab
