// Cross-entropy forward and backward (see cross_entropy.hpp).
#include "core/ops/cross_entropy.hpp"

#include <algorithm>
#include <cmath>

#include "core/profile/op_timer.hpp"

namespace fp4lab {

template <class T>
double cross_entropy_forward(T* probs, T* losses, const T* logits, const int32_t* targets,
                             int64_t rows, int64_t vocab) {
  const OpScope op_scope(OpGroup::embedding_loss);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* l = logits + r * vocab;  // [vocab]
    T* p = probs + r * vocab;
    T mx = l[0];
    for (int64_t i = 1; i < vocab; ++i) mx = std::max(mx, l[i]);
    double sum = 0.0;
    for (int64_t i = 0; i < vocab; ++i) {
      p[i] = std::exp(l[i] - mx);
      sum += double(p[i]);
    }
    const T inv = T(1.0 / sum);
    for (int64_t i = 0; i < vocab; ++i) p[i] *= inv;
    losses[r] = T(std::log(sum) - double(l[targets[r]] - mx));
  }
  double total = 0.0;
  for (int64_t r = 0; r < rows; ++r) total += double(losses[r]);
  return total / double(rows);
}

template <class T>
void cross_entropy_backward(T* dlogits, const T* probs, const int32_t* targets, int64_t rows,
                            int64_t vocab, int64_t mean_over) {
  const OpScope op_scope(OpGroup::embedding_loss);
  const T inv_rows = T(1.0 / double(mean_over > 0 ? mean_over : rows));
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* p = probs + r * vocab;
    T* d = dlogits + r * vocab;
    for (int64_t i = 0; i < vocab; ++i) d[i] += (p[i] - T(i == targets[r] ? 1 : 0)) * inv_rows;
  }
}

template double cross_entropy_forward<float>(float*, float*, const float*, const int32_t*, int64_t,
                                             int64_t);
template double cross_entropy_forward<double>(double*, double*, const double*, const int32_t*,
                                              int64_t, int64_t);
template void cross_entropy_backward<float>(float*, const float*, const int32_t*, int64_t,
                                            int64_t, int64_t);
template void cross_entropy_backward<double>(double*, const double*, const int32_t*, int64_t,
                                             int64_t, int64_t);

}  // namespace fp4lab
