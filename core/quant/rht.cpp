// Random Hadamard transform. Reference: the exact sum in a wide integer, rounded to odd at 53 bits
// (so the one later bf16 rounding rounds the exact sum). Fast: the fp64 butterfly, exact when the
// inputs span at most 29 - log2(n) binades (partial sums fit 53 bits); other, all-zero and
// non-finite vectors take the reference path.
#include "core/quant/rht.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/formats/bf16.hpp"
#include "core/quant/encode_kernels.hpp"
#include "core/quant/philox.hpp"

namespace fp4lab {
namespace {

// ---- exact signed sum, rounded to odd at 53 bits ----

constexpr int kLimbs = 6;  // 384 bits: 24-bit significands shifted by up to 253, plus 2^16 terms

struct Wide {
  uint64_t limb[kLimbs] = {};
};

void add_shifted(Wide& acc, uint64_t value, int shift) {
  int index = shift / 64;
  const int offset = shift % 64;
  unsigned __int128 carry = static_cast<unsigned __int128>(value) << offset;
  while (carry != 0 && index < kLimbs) {
    const unsigned __int128 sum = static_cast<unsigned __int128>(acc.limb[index]) + static_cast<uint64_t>(carry);
    acc.limb[index] = static_cast<uint64_t>(sum);
    carry = (carry >> 64) + (sum >> 64);
    ++index;
  }
}

bool less(const Wide& a, const Wide& b) {
  for (int i = kLimbs - 1; i >= 0; --i)
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
  return false;
}

Wide subtract(const Wide& a, const Wide& b) {  // a - b, a >= b
  Wide r;
  uint64_t borrow = 0;
  for (int i = 0; i < kLimbs; ++i) {
    const uint64_t d = a.limb[i] - b.limb[i];
    const uint64_t out = d - borrow;
    borrow = (a.limb[i] < b.limb[i]) || (d < borrow) ? 1 : 0;
    r.limb[i] = out;
  }
  return r;
}

int highest_bit(const Wide& w) {  // -1 for zero
  for (int i = kLimbs - 1; i >= 0; --i)
    if (w.limb[i]) return 64 * i + 63 - std::countl_zero(w.limb[i]);
  return -1;
}

uint64_t bits_at(const Wide& w, int lo, int count) {  // bits [lo, lo + count), count <= 64
  uint64_t out = 0;
  for (int k = 0; k < count; ++k) {
    const int bit = lo + k;
    out |= ((w.limb[bit / 64] >> (bit % 64)) & 1u) << k;
  }
  return out;
}

bool any_below(const Wide& w, int lo) {
  for (int bit = 0; bit < lo; ++bit)
    if ((w.limb[bit / 64] >> (bit % 64)) & 1u) return true;
  return false;
}

// sum_i sign_i * x_i for finite x, rounded to odd at 53 bits.
double exact_signed_sum_round_to_odd(const float* x, const float* sign, int n) {
  int min_quantum = std::numeric_limits<int>::max();
  bool all_negative_zero = true;
  for (int i = 0; i < n; ++i) {
    const uint32_t bits = std::bit_cast<uint32_t>(x[i]);
    const bool term_negative = ((bits >> 31) != 0) != (sign[i] < 0);
    if ((bits & 0x7FFFFFFFu) != 0) {
      min_quantum = std::min(min_quantum, std::max<int>(bits >> 23 & 0xFF, 1) - 150);
      all_negative_zero = false;
    } else if (!term_negative) {
      all_negative_zero = false;
    }
  }
  if (min_quantum == std::numeric_limits<int>::max()) return all_negative_zero ? -0.0 : 0.0;
  Wide positive, negative;
  for (int i = 0; i < n; ++i) {
    const uint32_t bits = std::bit_cast<uint32_t>(x[i]);
    const uint32_t abs_bits = bits & 0x7FFFFFFFu;
    if (abs_bits == 0) continue;
    const int field = static_cast<int>(abs_bits >> 23);
    const uint64_t significand = field ? ((abs_bits & 0x7FFFFFu) | 0x800000u) : abs_bits;
    const int shift = std::max(field, 1) - 150 - min_quantum;
    const bool term_negative = ((bits >> 31) != 0) != (sign[i] < 0);
    add_shifted(term_negative ? negative : positive, significand, shift);
  }
  const bool result_negative = less(positive, negative);
  const Wide magnitude = result_negative ? subtract(negative, positive) : subtract(positive, negative);
  const int top = highest_bit(magnitude);
  if (top < 0) return 0.0;  // exact cancellation of nonzero terms gives +0
  double value;
  if (top <= 52) {
    value = std::ldexp(static_cast<double>(bits_at(magnitude, 0, top + 1)), min_quantum);
  } else {
    uint64_t significand = bits_at(magnitude, top - 52, 53);
    if (any_below(magnitude, top - 52)) significand |= 1u;  // round to odd
    value = std::ldexp(static_cast<double>(significand), min_quantum + top - 52);
  }
  return result_negative ? -value : value;
}

float to_bf16_value(double v) { return bf16_decode(bf16_encode_rne_from_double(v)); }

// ---- fast fp64 butterfly ----

// Largest exponent span (in binades, from fp32 exponent fields) for which every partial sum of
// n = 2^log2n signed fp32 inputs is exact in fp64: span + 24 + log2n <= 53.
int max_exact_span(int log2n) { return 29 - log2n; }

// fp32 exponent fields (subnormals as 1) of a vector: max minus min over the nonzero entries;
// false if any entry is NaN or Inf, or if all are zero (the sign of an all-zero sum follows the
// reference's rule, which the butterfly's a - b does not).
bool exponent_span(const float* x, int n, int& span) {
  int lo = 255, hi = 1;
  for (int i = 0; i < n; ++i) {
    const uint32_t abs_bits = std::bit_cast<uint32_t>(x[i]) & 0x7FFFFFFFu;
    const int field = static_cast<int>(abs_bits >> 23);
    if (field == 255) return false;
    if (abs_bits == 0) continue;
    lo = std::min(lo, std::max(field, 1));
    hi = std::max(hi, std::max(field, 1));
  }
  span = hi - lo;
  return lo != 255;
}

// Generic n: fp64 butterfly when exact. Returns false to request the reference path.
bool rht_vector_butterfly(const Rht& rht, const float* x, float* y, double* work) {
  const int n = rht.size;
  int span = 0;
  if (!exponent_span(x, n, span) || span > max_exact_span(std::countr_zero(static_cast<unsigned>(n))))
    return false;
  for (int i = 0; i < n; ++i) work[i] = static_cast<double>(x[i]) * rht.signs[i];
  for (int h = 1; h < n; h *= 2)
    for (int i = 0; i < n; i += 2 * h)
      for (int j = i; j < i + h; ++j) {
        const double a = work[j], b = work[j + h];
        work[j] = a + b;
        work[j + h] = a - b;
      }
  // + 0.0: an exact zero sum of nonzero terms is +0, whatever signs the butterfly gave it.
  for (int i = 0; i < n; ++i) y[i] = to_bf16_value((work[i] + 0.0) * rht.normalisation);
  return true;
}

#ifdef __AVX2__
// The sign flip, the four butterfly stages and the normalisation of one 16-vector in fp64 (exact
// for the vectors rht16_avx2 and row_path16 admit): outputs 4k .. 4k + 3 in v[k].
inline void rht16_fp64_avx2(const __m256d sign_bits[4], const float* x, __m256d v[4]) {
  const __m256 a = _mm256_loadu_ps(x), b = _mm256_loadu_ps(x + 8);
  __m256d d0 = _mm256_xor_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), sign_bits[0]);
  __m256d d1 = _mm256_xor_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), sign_bits[1]);
  __m256d d2 = _mm256_xor_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(b)), sign_bits[2]);
  __m256d d3 = _mm256_xor_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)), sign_bits[3]);
  // h = 8 (registers 0,1 with 2,3) and h = 4 (register 0 with 1, 2 with 3).
  __m256d t0 = _mm256_add_pd(d0, d2), t2 = _mm256_sub_pd(d0, d2);
  __m256d t1 = _mm256_add_pd(d1, d3), t3 = _mm256_sub_pd(d1, d3);
  d0 = _mm256_add_pd(t0, t1);
  d1 = _mm256_sub_pd(t0, t1);
  d2 = _mm256_add_pd(t2, t3);
  d3 = _mm256_sub_pd(t2, t3);
  // h = 2 (lanes 0,1 with 2,3) and h = 1 (lane 0 with 1, 2 with 3) inside each register.
  auto stage2 = [](__m256d v) {
    const __m256d swapped = _mm256_permute2f128_pd(v, v, 1);
    return _mm256_blend_pd(_mm256_add_pd(v, swapped), _mm256_sub_pd(swapped, v), 0b1100);
  };
  auto stage1 = [](__m256d v) {
    const __m256d swapped = _mm256_permute_pd(v, 0b0101);
    return _mm256_blend_pd(_mm256_add_pd(v, swapped), _mm256_sub_pd(swapped, v), 0b1010);
  };
  // (sum + 0.0) * 1/4: exact zero sums become +0 (see rht_vector_butterfly).
  const __m256d quarter = _mm256_set1_pd(0.25), plus_zero = _mm256_setzero_pd();
  auto finish = [&](__m256d v) { return _mm256_mul_pd(_mm256_add_pd(stage1(stage2(v)), plus_zero), quarter); };
  v[0] = finish(d0);
  v[1] = finish(d1);
  v[2] = finish(d2);
  v[3] = finish(d3);
}

// bf16 RNE of four normal (or zero) fp64 values, keeping 7 of 52 fraction bits, as fp32 (exact;
// >= 2^128 gives Inf, as bf16 does).
inline __m128 bf16_from_fp64(__m256d v) {
  __m256i bits = _mm256_castpd_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi64(bits, 45), _mm256_set1_epi64x(1));
  bits = _mm256_and_si256(_mm256_add_epi64(bits, _mm256_add_epi64(_mm256_set1_epi64x((int64_t{1} << 44) - 1), lsb)),
                          _mm256_set1_epi64x(~((int64_t{1} << 45) - 1)));
  return _mm256_cvtpd_ps(_mm256_castsi256_pd(bits));
}

#ifdef __AVX512F__
// The same, eight values.
inline __m256 bf16_from_fp64(__m512d v) {
  __m512i bits = _mm512_castpd_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi64(bits, 45), _mm512_set1_epi64(1));
  bits = _mm512_and_si512(_mm512_add_epi64(bits, _mm512_add_epi64(_mm512_set1_epi64((int64_t{1} << 44) - 1), lsb)),
                          _mm512_set1_epi64(~((int64_t{1} << 45) - 1)));
  return _mm512_cvtpd_ps(_mm512_castsi512_pd(bits));
}
#endif

// n = 16 with AVX2: same arithmetic as rht_vector_butterfly (exactness test, sign flip, four
// butterfly stages, the power-of-two normalisation, bf16 RNE on the fp64 bits). Also defers to
// the reference when an output lands in the bf16 subnormal range (the bit trick covers normals).
// x and y may alias: every load happens before the first store. Sets amax = max |y|.
bool rht16_avx2(const __m256d sign_bits[4], const float* x, float* y, float& amax) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i x_lo = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), abs_mask);
  const __m256i x_hi = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 8)), abs_mask);
  const __m256i f_lo = _mm256_max_epi32(_mm256_srli_epi32(x_lo, 23), one);
  const __m256i f_hi = _mm256_max_epi32(_mm256_srli_epi32(x_hi, 23), one);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i none = _mm256_set1_epi32(255);
  __m256i hi = _mm256_max_epi32(f_lo, f_hi);
  __m256i lo = _mm256_min_epi32(_mm256_blendv_epi8(f_lo, none, _mm256_cmpeq_epi32(x_lo, zero)),
                                _mm256_blendv_epi8(f_hi, none, _mm256_cmpeq_epi32(x_hi, zero)));
  hi = _mm256_max_epi32(hi, _mm256_permute2x128_si256(hi, hi, 1));
  lo = _mm256_min_epi32(lo, _mm256_permute2x128_si256(lo, lo, 1));
  hi = _mm256_max_epi32(hi, _mm256_shuffle_epi32(hi, 0x4E));
  lo = _mm256_min_epi32(lo, _mm256_shuffle_epi32(lo, 0x4E));
  hi = _mm256_max_epi32(hi, _mm256_shuffle_epi32(hi, 0xB1));
  lo = _mm256_min_epi32(lo, _mm256_shuffle_epi32(lo, 0xB1));
  const int field_hi = _mm256_cvtsi256_si32(hi), field_lo = _mm256_cvtsi256_si32(lo);
  if (field_hi == 255 || field_lo == 255 || field_hi - field_lo > max_exact_span(4)) return false;

  __m256d v[4];
  rht16_fp64_avx2(sign_bits, x, v);
  // bf16 RNE of the exact fp64 values: keep 7 of 52 fraction bits; subnormal bf16 -> reference.
  const __m256d abs_pd = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  const __m256d min_normal = _mm256_set1_pd(0x1p-126);
  __m128 f[4];
  for (int k = 0; k < 4; ++k) {
    const __m256d magnitude = _mm256_and_pd(v[k], abs_pd);
    const __m256d tiny = _mm256_and_pd(_mm256_cmp_pd(magnitude, min_normal, _CMP_LT_OQ),
                                       _mm256_cmp_pd(magnitude, _mm256_setzero_pd(), _CMP_NEQ_OQ));
    if (_mm256_movemask_pd(tiny)) return false;
    f[k] = bf16_from_fp64(v[k]);
  }
  const __m256 y_lo = _mm256_set_m128(f[1], f[0]), y_hi = _mm256_set_m128(f[3], f[2]);
  const __m256 abs_ps = _mm256_castsi256_ps(abs_mask);
  const __m256 m8 = _mm256_max_ps(_mm256_and_ps(y_lo, abs_ps), _mm256_and_ps(y_hi, abs_ps));  // no NaN
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(m8), _mm256_extractf128_ps(m8, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  amax = _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
  _mm256_storeu_ps(y, y_lo);
  _mm256_storeu_ps(y + 8, y_hi);
  return true;
}
#endif

#ifdef __AVX2__
// Which whole-row path a row of 16-vectors can take. All need: no all-zero vector (the sign of an
// all-zero sum follows the reference's rule), no NaN or Inf, and nonzero exponent fields
// (subnormals as 1) of at least 26, so a nonzero output, a multiple of 2^(field - 152), is never
// a bf16 subnormal. fp64 (rht16_avx512, rht16_fp64_avx2): fields spanning at most max_exact_span(4) binades across
// the row. fp32 (rht16_fp32, rht16_fp32_avx2): every value a bf16 (low 16 bits clear), a span of at most 12 (8
// significant bits, 4 of growth: every partial sum is a multiple of the smallest quantum below
// 2^24 of them) and fields of at most 250 (partial sums below 2^128).
enum class RowPath16 { per_vector, fp64, fp32 };
#endif

#ifdef __AVX512F__
// n = 16 on one AVX-512 register, for rows that row_path16 admitted (RowPath16::fp64):
// rht16_avx2's arithmetic (sign flip, the four butterfly stages, normalisation, bf16 RNE on the
// fp64 bits) with eight fp64 lanes per half. The signs flip in fp32 before the exact widening.
// The vector is not all zeros (row_path16). x and y may alias.
void rht16_avx512(__m512 sign_bits, const float* x, float* y) {
  const __m512 v = _mm512_xor_ps(_mm512_loadu_ps(x), sign_bits);
  const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
  const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  // One stage within a register: lanes whose `sign` is -1 take (partner - lane), the others
  // (lane + partner), each as one fused multiply-add whose product (lane · ±1) is exact, so it
  // rounds as the add or subtract would (and is exact here anyway).
  auto stage = [](__m512d d, __m512d partner, __m512d sign) { return _mm512_fmadd_pd(d, sign, partner); };
  const __m512d plus = _mm512_set1_pd(1.0), minus = _mm512_set1_pd(-1.0);
  const __m512d sign4 = _mm512_mask_blend_pd(0xF0, plus, minus), sign2 = _mm512_mask_blend_pd(0xCC, plus, minus),
                sign1 = _mm512_mask_blend_pd(0xAA, plus, minus);
  auto finish = [&](__m512d d) {
    d = stage(d, _mm512_shuffle_f64x2(d, d, 0b01001110), sign4);  // h = 4
    d = stage(d, _mm512_shuffle_f64x2(d, d, 0b10110001), sign2);  // h = 2
    d = stage(d, _mm512_permute_pd(d, 0x55), sign1);              // h = 1
    d = _mm512_mul_pd(_mm512_add_pd(d, _mm512_setzero_pd()), _mm512_set1_pd(0.25));
    return bf16_from_fp64(d);  // a normal (row_path16: no subnormal output)
  };
  // h = 8 across the halves; outputs 0..7 come from lo + hi, 8..15 from lo - hi.
  const __m256 first = finish(_mm512_add_pd(lo, hi)), second = finish(_mm512_sub_pd(lo, hi));
  const __m512 result = _mm512_insertf32x8(_mm512_castps256_ps512(first), second, 1);
  _mm512_storeu_ps(y, result);
}

// n = 16 in fp32, for rows of bf16 values that row_path16 admitted (RowPath16::fp32): every
// partial sum is exact in fp32, so the butterfly's result is the exact sum, rounded once to bf16.
// Same stages as rht16_avx512 on sixteen fp32 lanes. x and y may alias.
void rht16_fp32(__m512 sign_bits, const float* x, float* y) {
  __m512 d = _mm512_xor_ps(_mm512_loadu_ps(x), sign_bits);
  const __m512 plus = _mm512_set1_ps(1.0f), minus = _mm512_set1_ps(-1.0f);
  d = _mm512_fmadd_ps(d, _mm512_mask_blend_ps(0xFF00, plus, minus), _mm512_shuffle_f32x4(d, d, 0x4E));  // h = 8
  d = _mm512_fmadd_ps(d, _mm512_mask_blend_ps(0xF0F0, plus, minus), _mm512_shuffle_f32x4(d, d, 0xB1));  // h = 4
  d = _mm512_fmadd_ps(d, _mm512_mask_blend_ps(0xCCCC, plus, minus), _mm512_permute_ps(d, 0x4E));        // h = 2
  d = _mm512_fmadd_ps(d, _mm512_mask_blend_ps(0xAAAA, plus, minus), _mm512_permute_ps(d, 0xB1));        // h = 1
  d = _mm512_mul_ps(_mm512_add_ps(d, _mm512_setzero_ps()), _mm512_set1_ps(0.25f));
  _mm512_storeu_ps(y, detail::bf16_round16(d));
}

RowPath16 row_path16(const float* x, int64_t cols) {
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF), one = _mm512_set1_epi32(1);
  __m512i hi = one, lo = _mm512_set1_epi32(255), low_bits = _mm512_setzero_si512();
  bool zero_vector = false;
  for (int64_t c = 0; c < cols; c += 16) {
    const __m512i bits = _mm512_loadu_si512(x + c), abs_bits = _mm512_and_si512(bits, abs_mask);
    const __m512i field = _mm512_max_epi32(_mm512_srli_epi32(abs_bits, 23), one);
    const __mmask16 nonzero = _mm512_test_epi32_mask(abs_bits, abs_bits);
    zero_vector = zero_vector || nonzero == 0;
    hi = _mm512_max_epi32(hi, field);
    lo = _mm512_mask_min_epi32(lo, nonzero, lo, field);
    low_bits = _mm512_or_si512(low_bits, bits);
  }
  const int field_hi = _mm512_reduce_max_epi32(hi), field_lo = _mm512_reduce_min_epi32(lo);
  if (zero_vector || field_hi == 255 || field_lo < 26) return RowPath16::per_vector;
  const bool bf16 = (_mm512_reduce_or_epi32(low_bits) & 0xFFFF) == 0;
  if (bf16 && field_hi - field_lo <= 12 && field_hi <= 250) return RowPath16::fp32;
  return field_hi - field_lo <= max_exact_span(4) ? RowPath16::fp64 : RowPath16::per_vector;
}
#elif defined(__AVX2__)
// n = 16 in fp32 for RowPath16::fp32 rows: rht16_fp32's stages on two registers of eight lanes
// (h = 8 across them). x and y may alias.
void rht16_fp32_avx2(const __m256 sign_bits[2], const float* x, float* y) {
  const __m256 lo = _mm256_xor_ps(_mm256_loadu_ps(x), sign_bits[0]);
  const __m256 hi = _mm256_xor_ps(_mm256_loadu_ps(x + 8), sign_bits[1]);
  const __m256 plus = _mm256_set1_ps(1.0f), minus = _mm256_set1_ps(-1.0f);
  const __m256 sign4 = _mm256_blend_ps(plus, minus, 0xF0), sign2 = _mm256_blend_ps(plus, minus, 0xCC),
               sign1 = _mm256_blend_ps(plus, minus, 0xAA);
  auto finish = [&](__m256 d) {
    d = _mm256_fmadd_ps(d, sign4, _mm256_permute2f128_ps(d, d, 1));  // h = 4
    d = _mm256_fmadd_ps(d, sign2, _mm256_permute_ps(d, 0x4E));       // h = 2
    d = _mm256_fmadd_ps(d, sign1, _mm256_permute_ps(d, 0xB1));       // h = 1
    return detail::bf16_round8(_mm256_mul_ps(_mm256_add_ps(d, _mm256_setzero_ps()), _mm256_set1_ps(0.25f)));
  };
  const __m256 first = finish(_mm256_add_ps(lo, hi)), second = finish(_mm256_sub_ps(lo, hi));  // h = 8
  _mm256_storeu_ps(y, first);
  _mm256_storeu_ps(y + 8, second);
}

// n = 16 in fp64 for RowPath16::fp64 rows (no subnormal output: no checks per vector).
void rht16_fp64_row_avx2(const __m256d sign_bits[4], const float* x, float* y) {
  __m256d v[4];
  rht16_fp64_avx2(sign_bits, x, v);
  _mm256_storeu_ps(y, _mm256_set_m128(bf16_from_fp64(v[1]), bf16_from_fp64(v[0])));
  _mm256_storeu_ps(y + 8, _mm256_set_m128(bf16_from_fp64(v[3]), bf16_from_fp64(v[2])));
}

// row_path16 on eight lanes.
RowPath16 row_path16(const float* x, int64_t cols) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF), one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
  __m256i hi = one, lo = _mm256_set1_epi32(255), low_bits = zero;
  bool zero_vector = false;
  for (int64_t c = 0; c < cols; c += 16) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + c));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + c + 8));
    const __m256i a0 = _mm256_and_si256(b0, abs_mask), a1 = _mm256_and_si256(b1, abs_mask);
    const __m256i f0 = _mm256_max_epi32(_mm256_srli_epi32(a0, 23), one), f1 = _mm256_max_epi32(_mm256_srli_epi32(a1, 23), one);
    const __m256i z0 = _mm256_cmpeq_epi32(a0, zero), z1 = _mm256_cmpeq_epi32(a1, zero);
    zero_vector = zero_vector || _mm256_movemask_epi8(_mm256_and_si256(z0, z1)) == -1;
    hi = _mm256_max_epi32(hi, _mm256_max_epi32(f0, f1));
    const __m256i none = _mm256_set1_epi32(255);  // zeros take no part in the minimum
    lo = _mm256_min_epi32(lo, _mm256_min_epi32(_mm256_blendv_epi8(f0, none, z0), _mm256_blendv_epi8(f1, none, z1)));
    low_bits = _mm256_or_si256(low_bits, _mm256_or_si256(b0, b1));
  }
  alignas(32) int32_t his[8], los[8], lows[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(his), hi);
  _mm256_store_si256(reinterpret_cast<__m256i*>(los), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lows), low_bits);
  int field_hi = 1, field_lo = 255, low = 0;
  for (int l = 0; l < 8; ++l) field_hi = std::max(field_hi, his[l]), field_lo = std::min(field_lo, los[l]), low |= lows[l];
  if (zero_vector || field_hi == 255 || field_lo < 26) return RowPath16::per_vector;
  const bool bf16 = (low & 0xFFFF) == 0;
  if (bf16 && field_hi - field_lo <= 12 && field_hi <= 250) return RowPath16::fp32;
  return field_hi - field_lo <= max_exact_span(4) ? RowPath16::fp64 : RowPath16::per_vector;
}
#endif

#ifdef __AVX2__
// The last three butterfly stages (h = 4, 2, 1) of a 16-point transform on one half of it, eight
// registers (element i of every column in v[i]), any lane type: in place, Sylvester order.
template <class V, class Add, class Sub>
inline void butterfly8(V (&v)[8], Add add, Sub sub) {
  auto pair = [&](int j, int k) {
    const V a = v[j], b = v[k];
    v[j] = add(a, b);
    v[k] = sub(a, b);
  };
  pair(0, 4), pair(1, 5), pair(2, 6), pair(3, 7);  // h = 4
  pair(0, 2), pair(1, 3), pair(4, 6), pair(5, 7);  // h = 2
  pair(0, 1), pair(2, 3), pair(4, 5), pair(6, 7);  // h = 1
}
#endif

}  // namespace

#ifdef __AVX2__
namespace {

// The vector operations of rht16_down on eight lanes (AVX2) and sixteen (AVX-512): F holds one
// fp32 per column, I its bits, D fp64 values of half the columns (Half as fp32); masks are ints,
// bit j for column j.
struct Lanes8 {
  static constexpr int n = 8;
  using F = __m256;
  using I = __m256i;
  using D = __m256d;
  using Half = __m128;
  static F load(const float* p) { return _mm256_loadu_ps(p); }
  static F load_aligned(const float* p) { return _mm256_load_ps(p); }
  static void store(float* p, F v) { _mm256_storeu_ps(p, v); }
  static void store_aligned(float* p, F v) { _mm256_store_ps(p, v); }
  static F zero() { return _mm256_setzero_ps(); }
  static F set1(float v) { return _mm256_set1_ps(v); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F abs_max(F v, F acc) { return _mm256_max_ps(detail::abs_ps(v), acc); }
  static F abs_max_bits(F v, F acc) { return detail::abs_max_bits(v, acc); }  // NaN kept
  static F bf16_round(F v) { return detail::bf16_round_finite8(v); }
  static I bits(F v) { return _mm256_castps_si256(v); }
  static I abs_bits(F v) { return _mm256_and_si256(bits(v), _mm256_set1_epi32(0x7FFFFFFF)); }
  static I ones() { return _mm256_set1_epi32(-1); }
  static I izero() { return _mm256_setzero_si256(); }
  static I max_i32(I a, I b) { return _mm256_max_epi32(a, b); }
  static I min_u32(I a, I b) { return _mm256_min_epu32(a, b); }
  static I or_(I a, I b) { return _mm256_or_si256(a, b); }
  static I add_i32(I a, int b) { return _mm256_add_epi32(a, _mm256_set1_epi32(b)); }
  static I sub_i32(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I field(I bits) { return _mm256_srli_epi32(bits, 23); }
  static int mask(I m) { return _mm256_movemask_ps(_mm256_castsi256_ps(m)); }
  static int at_most(I a, int limit) { return mask(_mm256_cmpgt_epi32(_mm256_set1_epi32(limit + 1), a)); }
  static int above(I a, int limit) { return mask(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(limit))); }
  static int low16_equal(I a, int v) {
    return mask(_mm256_cmpeq_epi32(_mm256_and_si256(a, _mm256_set1_epi32(0xFFFF)), _mm256_set1_epi32(v)));
  }
  static D add(D a, D b) { return _mm256_add_pd(a, b); }
  static D sub(D a, D b) { return _mm256_sub_pd(a, b); }
  static D half_fp64(const float* p) { return _mm256_cvtps_pd(_mm_load_ps(p)); }
  static Half fp32(D v) { return _mm256_cvtpd_ps(v); }
  static Half bf16(D v) { return bf16_from_fp64(v); }
  static F join(Half lo, Half hi) { return _mm256_set_m128(hi, lo); }
};

#ifdef __AVX512F__
// (the masked forms with every lane set: GCC 12 warns that the plain ones' undefined source is
// uninitialized here)
struct Lanes16 {
  static constexpr int n = 16;
  using F = __m512;
  using I = __m512i;
  using D = __m512d;
  using Half = __m256;
  static F load(const float* p) { return _mm512_loadu_ps(p); }
  static F load_aligned(const float* p) { return _mm512_load_ps(p); }
  static void store(float* p, F v) { _mm512_storeu_ps(p, v); }
  static void store_aligned(float* p, F v) { _mm512_store_ps(p, v); }
  static F zero() { return _mm512_setzero_ps(); }
  static F set1(float v) { return _mm512_set1_ps(v); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F abs_max(F v, F acc) { return _mm512_max_ps(_mm512_abs_ps(v), acc); }
  static F abs_max_bits(F v, F acc) {  // NaN kept
    return _mm512_castsi512_ps(_mm512_max_epi32(_mm512_castps_si512(acc), abs_bits(v)));
  }
  static F bf16_round(F v) { return detail::bf16_round_finite16(v); }
  static I bits(F v) { return _mm512_castps_si512(v); }
  static I abs_bits(F v) { return _mm512_and_si512(bits(v), _mm512_set1_epi32(0x7FFFFFFF)); }
  static I ones() { return _mm512_set1_epi32(-1); }
  static I izero() { return _mm512_setzero_si512(); }
  static I max_i32(I a, I b) { return _mm512_mask_max_epi32(a, 0xFFFF, a, b); }
  static I min_u32(I a, I b) { return _mm512_mask_min_epu32(a, 0xFFFF, a, b); }
  static I or_(I a, I b) { return _mm512_or_si512(a, b); }
  static I add_i32(I a, int b) { return _mm512_add_epi32(a, _mm512_set1_epi32(b)); }
  static I sub_i32(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I field(I bits) { return _mm512_maskz_srli_epi32(0xFFFF, bits, 23); }
  static int at_most(I a, int limit) { return _mm512_cmple_epi32_mask(a, _mm512_set1_epi32(limit)); }
  static int above(I a, int limit) { return _mm512_cmpgt_epi32_mask(a, _mm512_set1_epi32(limit)); }
  static int low16_equal(I a, int v) {
    return _mm512_cmpeq_epi32_mask(_mm512_and_si512(a, _mm512_set1_epi32(0xFFFF)), _mm512_set1_epi32(v));
  }
  static D add(D a, D b) { return _mm512_add_pd(a, b); }
  static D sub(D a, D b) { return _mm512_sub_pd(a, b); }
  static D half_fp64(const float* p) { return _mm512_cvtps_pd(_mm256_load_ps(p)); }
  static Half fp32(D v) { return _mm512_cvtpd_ps(v); }
  static Half bf16(D v) { return bf16_from_fp64(v); }
  static F join(Half lo, Half hi) { return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1); }
};
#endif

// rht16_down8 / rht16_down16 on L::n columns (rht.hpp).
template <class L>
typename L::F rht16_down(const Rht& rht, const float* in, int64_t ld, bool bf16_input, float* tile) {
  using F = typename L::F;
  using I = typename L::I;
  using D = typename L::D;
  using Half = typename L::Half;
  constexpr int n = L::n, all = (1 << n) - 1;
  // Copy in times s_i / 4 (exact in the lanes the butterflies take: no subnormal results), rounded
  // to bf16 first if asked, gathering row_path16's tests per column (lane) on the raw inputs: no
  // NaN or Inf, no all-zero column, nonzero fields >= 26; the bf16 rounding can raise a field by
  // one, so the spans and the fp32 path's top field allow one less then. Lanes that fail take the
  // per-column fallback below, so the rounding here need not treat NaN.
  I hi = L::izero(), lo = L::ones(), low_bits = L::izero();
  alignas(64) float x[16][n];  // the inputs times s_i / 4
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) {
    F e = L::load(in + i * ld);
    const I abs_bits = L::abs_bits(e);
    hi = L::max_i32(hi, abs_bits);
    lo = L::min_u32(lo, L::add_i32(abs_bits, -1));  // a zero wraps to the largest value
    if (bf16_input) e = L::bf16_round(e);
    else low_bits = L::or_(low_bits, abs_bits);
    L::store_aligned(x[i], L::mul(e, L::set1(0.25f * rht.signs[size_t(i)])));
  }
  const int rounding = bf16_input ? 1 : 0;
  const I field_hi = L::field(hi);
  const I field_lo = L::field(L::add_i32(lo, 1));  // 0 for an all-zero column
  const I span = L::sub_i32(field_hi, field_lo);
  const int common = L::at_most(field_hi, 254) & L::above(field_lo, 25);
  const int fp64_ok = common & L::at_most(span, max_exact_span(4) - rounding);
  const int bf16_lanes = L::low16_equal(low_bits, 0);
  const int fp32_ok = common & bf16_lanes & L::at_most(span, 12 - rounding) & L::at_most(field_hi, 250 - rounding);

  // Stage h = 8 as the halves are formed (outputs 0-7 from x_i + x_(i+8), 8-15 from x_i - x_(i+8)),
  // then butterfly8 on each half; the sums (the 1/4 taken above) rounded to bf16, plus 0.0, which
  // turns exact zero sums into +0 (see rht_vector_butterfly).
  F m = L::zero();
  auto finish = [&](F y, int row) {
    y = L::add(y, L::zero());
    m = L::abs_max(y, m);
    L::store(tile + n * row, y);
  };
  const auto add = [](auto a, auto b) { return L::add(a, b); };
  const auto sub = [](auto a, auto b) { return L::sub(a, b); };
  if (fp32_ok == all) {  // every partial sum exact in fp32
    for (int half = 0; half < 2; ++half) {
      F v[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i)
        v[i] = half ? L::sub(L::load_aligned(x[i]), L::load_aligned(x[i + 8]))
                    : L::add(L::load_aligned(x[i]), L::load_aligned(x[i + 8]));
      butterfly8(v, add, sub);
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) finish(L::bf16_round(v[i]), 8 * half + i);
    }
  } else {
    // fp64, half the columns at a time, each input converted once. The exact sums go to fp32 (RNE)
    // and are rounded to bf16 there: bf16's rounding boundaries are fp32 values and RNE is
    // monotone, so that double rounding gives the bf16 RNE of the exact sum unless the fp32 value
    // is itself a boundary (low half 0x8000); a tile with such a lane (fp64_ok lanes only matter)
    // is redone with bf16_from_fp64, which rounds the fp64 bits once. Tiles of bf16 inputs, whose
    // sums land on boundaries often, take bf16_from_fp64 at once.
    auto fp64_tile = [&](auto exact) {
      constexpr bool once = decltype(exact)::value;  // bf16 straight from the fp64 bits
      Half y[2][16];
      for (int g = 0; g < 2; ++g) {
        D sum[8], diff[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) {
          const D a = L::half_fp64(x[i] + n / 2 * g), b = L::half_fp64(x[i + 8] + n / 2 * g);
          sum[i] = L::add(a, b);
          diff[i] = L::sub(a, b);
        }
        butterfly8(sum, add, sub);
        butterfly8(diff, add, sub);
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) {
          y[g][i] = once ? L::bf16(sum[i]) : L::fp32(sum[i]);
          y[g][8 + i] = once ? L::bf16(diff[i]) : L::fp32(diff[i]);
        }
      }
      m = L::zero();
      int boundary = 0;
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) {
        F f = L::join(y[0][i], y[1][i]);
        if constexpr (!once) {
          boundary |= L::low16_equal(L::bits(f), 0x8000);
          f = L::bf16_round(f);
        }
        finish(f, i);
      }
      return boundary & fp64_ok;
    };
    if (bf16_input) fp64_tile(std::true_type{});  // sums of bf16 values land on boundaries often
    else if (fp64_tile(std::false_type{})) fp64_tile(std::true_type{});
  }
  const int fallback = ~fp64_ok & all;
  if (fallback) {  // those columns one by one through rht_row (the per-vector paths and the reference)
    for (int j = 0; j < n; ++j) {
      if (!(fallback >> j & 1)) continue;
      float column[16];
      for (int i = 0; i < 16; ++i) column[i] = bf16_input ? bf16_round(in[i * ld + j]) : in[i * ld + j];
      rht_row(rht, column, column, 16);
      for (int i = 0; i < 16; ++i) tile[n * i + j] = column[i];
    }
    m = L::zero();
    for (int i = 0; i < 16; ++i) m = L::abs_max_bits(L::load(tile + n * i), m);
  }
  return m;
}

}  // namespace

__m256 rht16_down8(const Rht& rht, const float* in, int64_t ld, bool bf16_input, float* tile) {
  return rht16_down<Lanes8>(rht, in, ld, bf16_input, tile);
}

#ifdef __AVX512F__
__m512 rht16_down16(const Rht& rht, const float* in, int64_t ld, bool bf16_input, float* tile) {
  return rht16_down<Lanes16>(rht, in, ld, bf16_input, tile);
}
#endif
#endif

Rht make_rht(int size, uint64_t sign_seed) {
  Rht rht;
  rht.size = size;
  if (size == 16 && sign_seed == 0) {
    rht.signs.resize(16);
    for (int i = 0; i < 16; ++i) rht.signs[i] = (kTeRhtSignMask >> i) & 1u ? -1.0f : 1.0f;
  } else {
    rht.signs = philox_sign_vector(sign_seed, size);
  }
#ifdef __AVX512F__
  if (size == 16) {
    int32_t lanes[16];
    for (int i = 0; i < 16; ++i) lanes[i] = rht.signs[size_t(i)] < 0 ? INT32_MIN : 0;
    rht.sign_bits_fp32 = _mm512_castsi512_ps(_mm512_loadu_si512(lanes));
  }
#endif
#ifdef __AVX2__
  if (size == 16)
    for (int h = 0; h < 2; ++h) {
      int32_t lanes[8];
      for (int i = 0; i < 8; ++i) lanes[i] = rht.signs[size_t(8 * h + i)] < 0 ? INT32_MIN : 0;
      rht.sign_bits8[h] = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes)));
    }
  if (size == 16)
    for (int k = 0; k < 4; ++k)
      rht.sign_bits[k] = _mm256_castsi256_pd(_mm256_set_epi64x(
          rht.signs[4 * k + 3] < 0 ? INT64_MIN : 0, rht.signs[4 * k + 2] < 0 ? INT64_MIN : 0,
          rht.signs[4 * k + 1] < 0 ? INT64_MIN : 0, rht.signs[4 * k] < 0 ? INT64_MIN : 0));
#endif
  const int log2n = std::countr_zero(static_cast<unsigned>(size));
  rht.normalisation = log2n % 2 == 0 ? std::ldexp(1.0, -log2n / 2) : 1.0 / std::sqrt(static_cast<double>(size));
  return rht;
}

std::vector<double> rht_matrix(const Rht& rht) {
  const int n = rht.size;
  std::vector<double> h(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double hadamard = std::popcount(static_cast<unsigned>(i & j)) % 2 ? -1.0 : 1.0;
      h[static_cast<size_t>(i) * n + j] = rht.normalisation * rht.signs[i] * hadamard;
    }
  return h;
}

void rht_vector_reference(const Rht& rht, const float* x, float* y) {
  const int n = rht.size;
  bool any_nan = false, any_inf = false;
  for (int i = 0; i < n; ++i) {
    any_nan |= std::isnan(x[i]);
    any_inf |= std::isinf(x[i]);
  }
  std::vector<float> term_sign(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i)
      term_sign[i] = std::popcount(static_cast<unsigned>(i & j)) % 2 ? -rht.signs[i] : rht.signs[i];
    if (any_nan) {
      y[j] = std::numeric_limits<float>::quiet_NaN();
    } else if (any_inf) {
      bool plus = false, minus = false;
      for (int i = 0; i < n; ++i)
        if (std::isinf(x[i])) ((x[i] > 0) == (term_sign[i] > 0) ? plus : minus) = true;
      y[j] = plus && minus ? std::numeric_limits<float>::quiet_NaN()
                           : (plus ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
    } else {
      y[j] = to_bf16_value(exact_signed_sum_round_to_odd(x, term_sign.data(), n) * rht.normalisation);
    }
  }
}

float rht_row(const Rht& rht, const float* in, float* out, int64_t cols, float* vector_amax) {
  const int n = rht.size;
  std::vector<float> scratch;  // each slow-path vector is copied first: out may alias in
  std::vector<double> work;
  auto slow_vector = [&](int64_t c) {
    scratch.assign(in + c, in + c + n);
    work.resize(static_cast<size_t>(n));
    float* y = out + c;
    if (!rht_vector_butterfly(rht, scratch.data(), y, work.data())) rht_vector_reference(rht, scratch.data(), y);
    float m = 0.0f;
    for (int i = 0; i < n; ++i) m = std::fabs(y[i]) > m ? std::fabs(y[i]) : m;  // NaN ignored
    return m;
  };
  float row_amax = 0.0f;
#ifdef __AVX512F__
  const RowPath16 path = n == 16 ? row_path16(in, cols) : RowPath16::per_vector;
  if (path != RowPath16::per_vector) {
    if (path == RowPath16::fp32) {
#pragma GCC unroll 4
      for (int64_t c = 0; c < cols; c += n) rht16_fp32(rht.sign_bits_fp32, in + c, out + c);
    } else {
#pragma GCC unroll 4
      for (int64_t c = 0; c < cols; c += n) rht16_avx512(rht.sign_bits_fp32, in + c, out + c);
    }
    if (vector_amax) {
      detail::abs_max_blocks(out, n, cols / n, vector_amax);
      for (int64_t v = 0; v < cols / n; ++v) row_amax = vector_amax[v] > row_amax ? vector_amax[v] : row_amax;
    } else {
      __m512 m = _mm512_setzero_ps();
      for (int64_t c = 0; c < cols; c += 16) m = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(out + c)), m);
      row_amax = _mm512_reduce_max_ps(m);
    }
    return row_amax;
  }
#elif defined(__AVX2__)
  const RowPath16 path = n == 16 ? row_path16(in, cols) : RowPath16::per_vector;
  if (path != RowPath16::per_vector) {
    if (path == RowPath16::fp32) {
      for (int64_t c = 0; c < cols; c += n) rht16_fp32_avx2(rht.sign_bits8, in + c, out + c);
    } else {
      for (int64_t c = 0; c < cols; c += n) rht16_fp64_row_avx2(rht.sign_bits, in + c, out + c);
    }
    if (vector_amax) {
      detail::block_abs_max(out, n, cols / n, vector_amax);
      for (int64_t v = 0; v < cols / n; ++v) row_amax = vector_amax[v] > row_amax ? vector_amax[v] : row_amax;
    } else {
      row_amax = detail::abs_max_span(out, cols);
    }
    return row_amax;
  }
#endif
  for (int64_t c = 0, v = 0; c < cols; c += n, ++v) {
    float m;
#ifdef __AVX2__
    if (n != 16 || !rht16_avx2(rht.sign_bits, in + c, out + c, m)) m = slow_vector(c);
#else
    m = slow_vector(c);
#endif
    if (vector_amax) vector_amax[v] = m;
    row_amax = m > row_amax ? m : row_amax;
  }
  return row_amax;
}

}  // namespace fp4lab
