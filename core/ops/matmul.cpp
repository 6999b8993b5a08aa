// Deterministic tiled products (each tile Eigen or OpenBLAS) and a cache-blocked transpose (see
// matmul.hpp). The one file that talks to OpenBLAS.
#include "core/ops/matmul.hpp"

#include <cblas.h>
#include <immintrin.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/profile/op_timer.hpp"

namespace fp4lab {
namespace {

using MatR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using CMapR = Eigen::Map<const MatR>;
using TileR = Eigen::Map<MatR, 0, Eigen::OuterStride<>>;

// C is cut into a grid of tiles that threads take in any order; the grid is a function of the
// shape only (never of the thread count), so results do not depend on it. Each tile is one
// single-threaded product over the whole K (Eigen's, or OpenBLAS's sgemm). Such a kernel may sum
// an element's products in an order that depends on where the element sits in its tile (rows and
// columns left over from its register blocks take other paths; Eigen's do), so tiles have a fixed
// height and widths that depend on n alone: a row's result then depends only on its index modulo
// kTileRows, and a data-parallel rank's rows (a multiple of kTileRows) come out exactly as in the
// whole batch.
constexpr int64_t kTileRows = matmul_row_tile;
constexpr int64_t kMaxTileCols = 128;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

MatmulTiles matmul_tiles(int64_t m, int64_t n) {
  MatmulTiles g;
  g.rows = kTileRows;
  g.row_parts = ceil_div(m, g.rows);
  g.cols = ceil_div(ceil_div(n, ceil_div(n, kMaxTileCols)), 8) * 8;  // whole register columns
  g.col_parts = ceil_div(n, g.cols);
  return g;
}

namespace {

constexpr int64_t kTransposeBand = 256;  // input rows per work item; a multiple of 8 (8×8 register transposes)
constexpr int64_t kTransposeStrip = 64;  // input columns per work item; a multiple of 8

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

CBLAS_TRANSPOSE blas_trans(Trans t) { return t == Trans::n ? CblasNoTrans : CblasTrans; }

template <class Lhs, class Rhs>
void assign(TileR& c, const Lhs& lhs, const Rhs& rhs, bool accumulate) {
  if (accumulate) {
    c.noalias() += lhs * rhs;
  } else {
    c.noalias() = lhs * rhs;
  }
}

// OpenBLAS's kernels for AVX-512 (0.3.21's names). Its AVX2 ones are slower per tile than Eigen's.
bool avx512_blas() {
  const std::string core = openblas_get_corename();
  return core == "SkylakeX" || core == "Cooperlake" || core == "SapphireRapids";
}

GemmEngine choose_engine() {
  const char* forced = std::getenv("FP4LAB_GEMM");
  if (!forced || !*forced) return avx512_blas() ? GemmEngine::openblas : GemmEngine::eigen;
  if (std::strcmp(forced, "eigen") == 0) return GemmEngine::eigen;
  if (std::strcmp(forced, "openblas") == 0) return GemmEngine::openblas;
  throw std::invalid_argument(std::string("FP4LAB_GEMM=") + forced + ": expected eigen or openblas");
}

}  // namespace

GemmEngine gemm_engine() {
  static const GemmEngine engine = choose_engine();
  return engine;
}

std::string gemm_engine_name(GemmEngine e) {
  return e == GemmEngine::eigen ? "eigen" : std::string("openblas ") + openblas_get_corename();
}

void matmul(float* c, const float* a, Trans ta, const float* b, Trans tb, int64_t m, int64_t n,
            int64_t k, bool accumulate) {
  matmul(gemm_engine(), c, a, ta, b, tb, m, n, k, accumulate);
}

void matmul(GemmEngine engine, float* c, const float* a, Trans ta, const float* b, Trans tb, int64_t m, int64_t n,
            int64_t k, bool accumulate) {
  const OpScope op_scope(OpGroup::gemm);
  if (m == 0 || n == 0) return;
  const MatmulTiles g = matmul_tiles(m, n);
  const int64_t lda = ta == Trans::n ? k : m, ldb = tb == Trans::n ? n : k;  // as stored
  const CMapR a_nn(a, m, k), a_tt(a, k, m);
  const CMapR b_nn(b, k, n), b_tt(b, n, k);
  // OpenBLAS's OpenMP build runs a call single-threaded inside an active parallel region, and at
  // one thread (omp_get_max_threads() = 1) too: each tile is one thread's product.
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t t = 0; t < g.row_parts * g.col_parts; ++t) {
    const int64_t r0 = (t / g.col_parts) * g.rows, c0 = (t % g.col_parts) * g.cols;
    const int64_t rows = std::min(g.rows, m - r0), cols = std::min(g.cols, n - c0);
    if (engine == GemmEngine::openblas) {
      const float* at = ta == Trans::n ? a + r0 * lda : a + r0;  // rows r0.. of op(A)
      const float* bt = tb == Trans::n ? b + c0 : b + c0 * ldb;  // columns c0.. of op(B)
      cblas_sgemm(CblasRowMajor, blas_trans(ta), blas_trans(tb), int(rows), int(cols), int(k), 1.0f, at, int(lda),
                  bt, int(ldb), accumulate ? 1.0f : 0.0f, c + r0 * n + c0, int(n));
      continue;
    }
    TileR cc(c + r0 * n + c0, rows, cols, Eigen::OuterStride<>(n));
    auto times_b = [&](const auto& aa) {  // aa: the tile's rows of op(A), [rows, k]
      if (tb == Trans::n) assign(cc, aa, b_nn.middleCols(c0, cols), accumulate);
      else assign(cc, aa, b_tt.middleRows(c0, cols).transpose(), accumulate);
    };
    if (ta == Trans::n) times_b(a_nn.middleRows(r0, rows));
    else times_b(a_tt.middleCols(r0, rows).transpose());
  }
}

void transpose(float* out, const float* in, int64_t rows, int64_t cols) {
  const OpScope op_scope(OpGroup::quantizer);
  // Work items of a band of input rows by a strip of 64 input columns (enough items for many
  // threads when there are few rows); within one, 8 input columns at a time, so only 8 output rows
  // are written at a time, each sequentially. (Wider tiles write as many output rows at once, and
  // with a power-of-two row length those rows fall into the same L1 sets and evict each other.)
  const int64_t bands = (rows + kTransposeBand - 1) / kTransposeBand;
  const int64_t strips = (cols + kTransposeStrip - 1) / kTransposeStrip;
#pragma omp parallel for schedule(static)
  for (int64_t item = 0; item < bands * strips; ++item) {
    const int64_t r0 = item / strips * kTransposeBand, r1 = std::min(rows, r0 + kTransposeBand);
    const int64_t c0 = item % strips * kTransposeStrip, c1 = std::min(cols, c0 + kTransposeStrip);
    int64_t c = c0;
    for (; c + 8 <= c1; c += 8) {
      int64_t r = r0;
      for (; r + 8 <= r1; r += 8) transpose8x8(out + c * rows + r, rows, in + r * cols + c, cols);
      for (; r < r1; ++r)
        for (int64_t j = c; j < c + 8; ++j) out[j * rows + r] = in[r * cols + j];
    }
    for (; c < c1; ++c)
      for (int64_t r = r0; r < r1; ++r) out[c * rows + r] = in[r * cols + c];
  }
}

}  // namespace fp4lab
