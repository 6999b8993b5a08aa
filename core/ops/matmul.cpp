// Deterministic row-chunked Eigen products and a cache-blocked transpose (see matmul.hpp).
#include "core/ops/matmul.hpp"

#include <Eigen/Core>
#include <algorithm>

namespace fp4lab {
namespace {

using MatR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapR = Eigen::Map<MatR>;
using CMapR = Eigen::Map<const MatR>;

// Rows of C per task. Fixed (never derived from the thread count) so results do not depend on it;
// large enough that re-packing B per chunk costs little, small enough to balance two cores.
constexpr int64_t kRowChunk = 64;
constexpr int64_t kTransposeTile = 32;

template <class Lhs, class Rhs>
void assign(MapR& c, const Lhs& lhs, const Rhs& rhs, bool accumulate) {
  if (accumulate) {
    c.noalias() += lhs * rhs;
  } else {
    c.noalias() = lhs * rhs;
  }
}

}  // namespace

void matmul(float* c, const float* a, Trans ta, const float* b, Trans tb, int64_t m, int64_t n,
            int64_t k, bool accumulate) {
  if (m == 0 || n == 0) return;
  const int64_t chunks = (m + kRowChunk - 1) / kRowChunk;
  // op(B) is shared by every chunk.
  const CMapR b_nn(b, k, n);  // B stored [k, n]
  const CMapR b_tt(b, n, k);  // B stored [n, k]
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t ci = 0; ci < chunks; ++ci) {
    const int64_t r0 = ci * kRowChunk;
    const int64_t rows = std::min(kRowChunk, m - r0);
    MapR cc(c + r0 * n, rows, n);  // [rows, n]
    if (ta == Trans::n) {
      const CMapR aa(a + r0 * k, rows, k);  // [rows, k]
      if (tb == Trans::n) {
        assign(cc, aa, b_nn, accumulate);
      } else {
        assign(cc, aa, b_tt.transpose(), accumulate);
      }
    } else {
      const auto aa = CMapR(a, k, m).middleCols(r0, rows).transpose();  // [rows, k]
      if (tb == Trans::n) {
        assign(cc, aa, b_nn, accumulate);
      } else {
        assign(cc, aa, b_tt.transpose(), accumulate);
      }
    }
  }
}

void transpose(float* out, const float* in, int64_t rows, int64_t cols) {
  const int64_t row_tiles = (rows + kTransposeTile - 1) / kTransposeTile;
#pragma omp parallel for schedule(static)
  for (int64_t rt = 0; rt < row_tiles; ++rt) {
    const int64_t r0 = rt * kTransposeTile, r1 = std::min(rows, r0 + kTransposeTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTransposeTile) {
      const int64_t c1 = std::min(cols, c0 + kTransposeTile);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t cc = c0; cc < c1; ++cc) out[cc * rows + r] = in[r * cols + cc];
      }
    }
  }
}

}  // namespace fp4lab
