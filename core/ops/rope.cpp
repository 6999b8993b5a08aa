// RoPE forward and backward (see rope.hpp).
#include "core/ops/rope.hpp"

#include <cmath>

#include "core/profile/op_timer.hpp"

namespace fp4lab {

template <class T>
void rope_tables(T* cos, T* sin, int64_t seq, int64_t head_dim, double theta) {
  const int64_t half = head_dim / 2;
  for (int64_t t = 0; t < seq; ++t) {
    for (int64_t i = 0; i < half; ++i) {
      const double angle = double(t) * std::pow(theta, -2.0 * double(i) / double(head_dim));
      cos[t * half + i] = T(std::cos(angle));
      sin[t * half + i] = T(std::sin(angle));
    }
  }
}

template <class T>
void rope_forward(T* out, const T* in, const T* cos, const T* sin, int64_t B, int64_t seq,
                  int64_t heads, int64_t head_dim) {
  const OpScope op_scope(OpGroup::attention);
  const int64_t half = head_dim / 2, width = heads * head_dim;
#pragma omp parallel for schedule(static)
  for (int64_t bt = 0; bt < B * seq; ++bt) {
    const T* c = cos + (bt % seq) * half;  // [half]
    const T* s = sin + (bt % seq) * half;
    for (int64_t h = 0; h < heads; ++h) {
      const T* x = in + bt * width + h * head_dim;  // [head_dim]
      T* y = out + bt * width + h * head_dim;
      for (int64_t i = 0; i < half; ++i) {
        const T x1 = x[i], x2 = x[i + half];
        y[i] = x1 * c[i] - x2 * s[i];
        y[i + half] = x2 * c[i] + x1 * s[i];
      }
    }
  }
}

template <class T>
void rope_backward(T* din, const T* dout, const T* cos, const T* sin, int64_t B, int64_t seq,
                   int64_t heads, int64_t head_dim) {
  const OpScope op_scope(OpGroup::attention);
  const int64_t half = head_dim / 2, width = heads * head_dim;
#pragma omp parallel for schedule(static)
  for (int64_t bt = 0; bt < B * seq; ++bt) {
    const T* c = cos + (bt % seq) * half;
    const T* s = sin + (bt % seq) * half;
    for (int64_t h = 0; h < heads; ++h) {
      const T* dy = dout + bt * width + h * head_dim;
      T* dx = din + bt * width + h * head_dim;
      for (int64_t i = 0; i < half; ++i) {
        const T d1 = dy[i], d2 = dy[i + half];
        dx[i] += d1 * c[i] + d2 * s[i];
        dx[i + half] += d2 * c[i] - d1 * s[i];
      }
    }
  }
}

template void rope_tables<float>(float*, float*, int64_t, int64_t, double);
template void rope_tables<double>(double*, double*, int64_t, int64_t, double);
template void rope_forward<float>(float*, const float*, const float*, const float*, int64_t,
                                  int64_t, int64_t, int64_t);
template void rope_forward<double>(double*, const double*, const double*, const double*, int64_t,
                                   int64_t, int64_t, int64_t);
template void rope_backward<float>(float*, const float*, const float*, const float*, int64_t,
                                   int64_t, int64_t, int64_t);
template void rope_backward<double>(double*, const double*, const double*, const double*, int64_t,
                                    int64_t, int64_t, int64_t);

}  // namespace fp4lab
