// RMSNorm forward and backward (see rmsnorm.hpp). Row sums accumulate in double.
#include "core/ops/rmsnorm.hpp"

#include <algorithm>
#include <cmath>

#include "core/profile/op_timer.hpp"

namespace fp4lab {
namespace {
constexpr int64_t kColumnChunk = 64;  // dw columns per task: each column sums its rows in order
}

template <class T>
void rmsnorm_forward(T* out, T* rstd, const T* x, const T* w, int64_t rows, int64_t cols,
                     double eps) {
  const OpScope op_scope(OpGroup::norm_elementwise);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;  // [cols]
    double ss = 0.0;
    for (int64_t c = 0; c < cols; ++c) ss += double(xr[c]) * double(xr[c]);
    const T s = T(1.0 / std::sqrt(ss / double(cols) + eps));
    rstd[r] = s;
    T* o = out + r * cols;
    for (int64_t c = 0; c < cols; ++c) o[c] = xr[c] * s * w[c];
  }
}

template <class T>
void rmsnorm_backward(T* dx, T* dw, const T* dout, const T* x, const T* w, const T* rstd,
                      int64_t rows, int64_t cols) {
  const OpScope op_scope(OpGroup::norm_elementwise);
  // With n = x·s (s = rstd) and out = n·w:
  //   dx_c = s·w_c·dout_c − s³/cols · x_c · Σ_j w_j·dout_j·x_j,   dw_c = Σ_rows dout_c·n_c.
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    const T* dr = dout + r * cols;
    const T s = rstd[r];
    double dot = 0.0;
    for (int64_t c = 0; c < cols; ++c) dot += double(w[c]) * double(dr[c]) * double(xr[c]);
    const T k = T(double(s) * double(s) * double(s) * dot / double(cols));
    T* dxr = dx + r * cols;
    for (int64_t c = 0; c < cols; ++c) dxr[c] += s * w[c] * dr[c] - k * xr[c];
  }
  const int64_t chunks = (cols + kColumnChunk - 1) / kColumnChunk;
#pragma omp parallel for schedule(static)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    const int64_t c0 = ch * kColumnChunk, c1 = std::min(cols, c0 + kColumnChunk);
    for (int64_t r = 0; r < rows; ++r) {
      const T s = rstd[r];
      for (int64_t c = c0; c < c1; ++c) dw[c] += dout[r * cols + c] * (x[r * cols + c] * s);
    }
  }
}

template void rmsnorm_forward<float>(float*, float*, const float*, const float*, int64_t, int64_t,
                                     double);
template void rmsnorm_forward<double>(double*, double*, const double*, const double*, int64_t,
                                      int64_t, double);
template void rmsnorm_backward<float>(float*, float*, const float*, const float*, const float*,
                                      const float*, int64_t, int64_t);
template void rmsnorm_backward<double>(double*, double*, const double*, const double*,
                                       const double*, const double*, int64_t, int64_t);

}  // namespace fp4lab
