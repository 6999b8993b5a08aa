// Dense fp32 products for the linear layers, C (+)= op(A)·op(B) on row-major buffers, and a blocked
// transpose. C is cut into a grid of tiles fixed by the shape, which OpenMP threads take in any
// order; each tile is one single-threaded product (Eigen's or OpenBLAS's sgemm, see GemmEngine), so
// every element's reduction order is independent of the thread count. The engine and OpenBLAS's
// kernels (chosen by CPU when the process starts) are part of the numerics, as -march=native is:
// the same config, seed and thread count give the same bits on one machine with one engine. Not a
// quantizer and not a batched product (attention multiplies its heads itself).
#pragma once
#include <cstdint>
#include <string>

namespace fp4lab {

enum class Trans : uint8_t {
  n,  // operand used as stored
  t,  // operand used transposed
};

// Rows of C are computed in tiles of this many: row i's result depends only on i modulo it (and
// on A's row i, B and the shapes n, k), so the rows of a batch split at multiples of it across
// data-parallel ranks are bit-identical to the whole batch's.
constexpr int64_t matmul_row_tile = 64;

// What computes each tile. OpenBLAS's AVX-512 kernels are 1.2-1.3x faster per tile than Eigen's
// (bench/bench_gemm.cpp), its AVX2 ones slower; so a process uses OpenBLAS when OpenBLAS runs
// AVX-512 kernels, else Eigen. FP4LAB_GEMM=eigen|openblas overrides. OpenBLAS 0.3.21 runs CPUs it
// does not know (AMD Zen 5) on its AVX2 kernels: OPENBLAS_CORETYPE=SkylakeX gives them AVX-512.
enum class GemmEngine : uint8_t { eigen, openblas };
GemmEngine gemm_engine();                  // this process's, chosen once
std::string gemm_engine_name(GemmEngine);  // "eigen", "openblas SkylakeX", ...

// C [m, n] (+)= op(A) [m, k] · op(B) [k, n], on gemm_engine().
// A is stored [m, k] (Trans::n) or [k, m] (Trans::t); B is stored [k, n] (Trans::n) or [n, k] (Trans::t).
// accumulate = false overwrites C. C must not alias A or B.
void matmul(float* c, const float* a, Trans ta, const float* b, Trans tb, int64_t m, int64_t n,
            int64_t k, bool accumulate);
void matmul(GemmEngine engine, float* c, const float* a, Trans ta, const float* b, Trans tb, int64_t m, int64_t n,
            int64_t k, bool accumulate);

// The grid of tiles matmul cuts C [m, n] into: row_parts × col_parts tiles of rows × cols (edge
// tiles smaller), a function of the shape only. For benchmarks that run another kernel per tile.
struct MatmulTiles {
  int64_t row_parts = 1, col_parts = 1, rows = 0, cols = 0;
};
MatmulTiles matmul_tiles(int64_t m, int64_t n);

// out [cols, rows] = in [rows, cols]ᵀ.
void transpose(float* out, const float* in, int64_t rows, int64_t cols);

}  // namespace fp4lab
