// Deterministic row-chunked Eigen products and a cache-blocked transpose (see matmul.hpp).
#include "core/ops/matmul.hpp"

#include <immintrin.h>

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
constexpr int64_t kTransposeTile = 64;  // multiple of 8: full tiles are 8×8 register transposes

// out[c·ld_out + r] = in[r·ld_in + c] for an 8×8 block, in AVX registers.
void transpose8x8(float* out, int64_t ld_out, const float* in, int64_t ld_in) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + i * ld_in);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(out + i * ld_out, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(out + (i + 4) * ld_out, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

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
      int64_t r = r0;
      for (; r + 8 <= r1; r += 8) {
        int64_t c = c0;
        for (; c + 8 <= c1; c += 8) transpose8x8(out + c * rows + r, rows, in + r * cols + c, cols);
        for (; c < c1; ++c) {
          for (int64_t i = r; i < r + 8; ++i) out[c * rows + i] = in[i * cols + c];
        }
      }
      for (; r < r1; ++r) {
        for (int64_t c = c0; c < c1; ++c) out[c * rows + r] = in[r * cols + c];
      }
    }
  }
}

}  // namespace fp4lab
