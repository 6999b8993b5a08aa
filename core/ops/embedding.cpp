// Embedding forward and backward (see embedding.hpp). The backward splits the columns across threads
// so each table element still sums its tokens in order.
#include "core/ops/embedding.hpp"

#include <algorithm>
#include <cstring>

#include "core/profile/op_timer.hpp"

namespace fp4lab {
namespace {
constexpr int64_t kColumnChunk = 64;
}

template <class T>
void embedding_forward(T* out, const int32_t* tokens, const T* table, int64_t n, int64_t dim) {
  const OpScope op_scope(OpGroup::embedding_loss);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out + i * dim, table + int64_t(tokens[i]) * dim, sizeof(T) * dim);
  }
}

template <class T>
void embedding_backward(T* dtable, const T* dout, const int32_t* tokens, int64_t n, int64_t dim) {
  const OpScope op_scope(OpGroup::embedding_loss);
  const int64_t chunks = (dim + kColumnChunk - 1) / kColumnChunk;
#pragma omp parallel for schedule(static)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    const int64_t c0 = ch * kColumnChunk, c1 = std::min(dim, c0 + kColumnChunk);
    for (int64_t i = 0; i < n; ++i) {
      T* row = dtable + int64_t(tokens[i]) * dim;
      const T* d = dout + i * dim;
      for (int64_t c = c0; c < c1; ++c) row[c] += d[c];
    }
  }
}

template void embedding_forward<float>(float*, const int32_t*, const float*, int64_t, int64_t);
template void embedding_forward<double>(double*, const int32_t*, const double*, int64_t, int64_t);
template void embedding_backward<float>(float*, const float*, const int32_t*, int64_t, int64_t);
template void embedding_backward<double>(double*, const double*, const int32_t*, int64_t, int64_t);

}  // namespace fp4lab
