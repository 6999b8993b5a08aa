// exp of fp32 arrays, eight lanes at a time (AVX2): Cephes' expf (range reduction by n·ln 2 in two
// parts, a degree-6 polynomial, scaling by 2^n), max error about 1 ulp. Every element, the tail
// included, goes through the same lane arithmetic, so a value's result never depends on its
// position or alignment. exp(NaN) = NaN, exp(x > 88.376) = +Inf, exp(x < -87.336) = 0
// (no subnormal results). For the model's elementwise ops (softmax, SiLU); not a quantizer.
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace fp4lab {

inline __m256 exp8(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.3762626647949f), lo = _mm256_set1_ps(-87.3365447504f);
  const __m256 overflow = _mm256_cmp_ps(x, hi, _CMP_GT_OQ), underflow = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
  const __m256 c = _mm256_min_ps(hi, _mm256_max_ps(lo, x));  // NaN stays NaN (second operand)
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(c, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_sub_ps(c, _mm256_mul_ps(n, _mm256_set1_ps(0.693359375f)));
  r = _mm256_sub_ps(r, _mm256_mul_ps(n, _mm256_set1_ps(-2.12194440e-4f)));
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  for (float k : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(k));
  const __m256 y = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p, _mm256_mul_ps(r, r)), r), _mm256_set1_ps(1.0f));
  const __m256i n_int = _mm256_cvtps_epi32(n);  // NaN lanes: y is NaN, the scale does not matter
  const __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n_int, _mm256_set1_epi32(127)), 23));
  const __m256 e = _mm256_mul_ps(y, scale);
  return _mm256_andnot_ps(underflow, _mm256_blendv_ps(e, _mm256_set1_ps(std::numeric_limits<float>::infinity()), overflow));
}

// out[i] = exp(in[i]) for i < n; out may alias in.
inline void exp_array(float* out, const float* in, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, exp8(_mm256_loadu_ps(in + i)));
  if (i < n) {
    alignas(32) float lanes[8] = {};
    std::copy(in + i, in + n, lanes);
    _mm256_store_ps(lanes, exp8(_mm256_load_ps(lanes)));
    std::copy(lanes, lanes + (n - i), out + i);
  }
}

}  // namespace fp4lab
