// The random Hadamard transform (core/quant/NUMERICS.md, Random Hadamard transform): y = x · H on
// each contiguous n-vector of a row, with H = (1/sqrt(n)) · diag(s) · H_n (Sylvester,
// H_n[i][j] = (-1)^popcount(i&j)), each output the exact sum rounded once to bf16 (RNE). Reference
// (scalar, exact integer sum) and fast (fp64 butterflies when they are provably exact, AVX-512 or AVX2
// for n = 16) paths. Not the quantizer.
#pragma once
#include <immintrin.h>

#include <cstdint>
#include <vector>

namespace fp4lab {

// TE's fixed sign vector for n = 16 (bit i set => s_i = -1): + + + - + - - - - - - + - + - -.
constexpr uint32_t kTeRhtSignMask = 0xD7E8u;

struct Rht {
  int size = 16;
  std::vector<float> signs;  // s_i, +1 or -1
  // 1/sqrt(n) in fp64: an exact power of two when n is a power of 4 (4, 16, 64, ...), so the bf16
  // outputs are the exactly rounded sums; for other n it is RN(1/sqrt(n)) applied to the sum
  // (rounded to odd at 53 bits) in fp64 before the bf16 rounding: deterministic, not exact.
  double normalisation = 0.25;
#ifdef __AVX2__
  __m256d sign_bits[4] = {};  // n = 16: the signs as fp64 sign-bit masks, four lanes per register
  __m256 sign_bits8[2] = {};   // n = 16: the signs as fp32 sign-bit masks, eight lanes per register
#endif
#ifdef __AVX512F__
  __m512 sign_bits_fp32 = {};  // n = 16: the signs as fp32 sign-bit masks, sixteen lanes
#endif
};

// sign_seed 0: TE's 0xD7E8 mask for n = 16, and philox_sign_vector(0, n) for other n;
// otherwise philox_sign_vector(sign_seed, n). n must be a power of two >= 2.
Rht make_rht(int size, uint64_t sign_seed);

// H as a row-major n x n fp64 matrix (y_j = sum_i x_i H[i][j]), for tests and inspection.
std::vector<double> rht_matrix(const Rht& rht);

// One n-vector by the definition: exact sum, NaN if any input is NaN or +Inf and -Inf meet,
// +-Inf otherwise for infinite inputs, -0 only when every term is -0. NaN outputs are +qNaN.
void rht_vector_reference(const Rht& rht, const float* x, float* y);

// Every n-vector of one row of `cols` values (cols % n == 0); out may alias in. Bit-identical to
// rht_vector_reference. Returns max |y| over the row and, if vector_amax is given, writes max |y|
// of each n-vector to vector_amax[0 .. cols / n) (NaN ignored).
float rht_row(const Rht& rht, const float* in, float* out, int64_t cols, float* vector_amax = nullptr);

#ifdef __AVX2__
// rht.size == 16: the 16-vectors running down the eight columns of a [16, 8] tile (x_i of column j
// at in[i · ld + j]: sixteen consecutive rows of a row-major tensor), each rounded to bf16 first
// when `bf16_input`, transformed into `tile` ([16, 8], row stride 8), bit-identical to
// rht_vector_reference. Returns max |y| of each column, or NaN for a column that holds a NaN (only
// the per-column fallback, which every column with a NaN or Inf input takes, can make one). The
// quantizer's transform of wgrad's operands as stored (their 16-vectors run along the tokens, down
// the columns of X and dY): the butterfly runs across registers, one column per lane.
__m256 rht16_down8(const Rht& rht, const float* in, int64_t ld, bool bf16_input, float* tile);
#endif

#ifdef __AVX512F__
// rht16_down8 on sixteen columns ([16, 16] tile, row stride 16; sixteen maxima): the slab path's
// transform on AVX-512 builds.
__m512 rht16_down16(const Rht& rht, const float* in, int64_t ld, bool bf16_input, float* tile);
#endif

}  // namespace fp4lab
