// Internal to the quantizer's fast paths (quantize.cpp, core/ops/fp4_quantize.cpp, rht.cpp; the
// FP4 GEMM's bf16 epilogue uses bf16_round16): the element loops of the fast quantizer. One span =
// consecutive elements sharing one BlockScale; AVX2 eight lanes at a time, the remainder through
// the scalar codecs. Each lane computes exactly what quantize_reference computes for that element.
// Not a public API; no threads, no blocks, no scale selection here.
#pragma once
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/quant/block_scale.hpp"

namespace fp4lab::detail {

// x rounded to bf16 (RNE, NaN quieted with sign and payload kept) in fp32 bits, sixteen lanes: the
// bf16 kernel's rounding. A target attribute, so the FP4 GEMM's run-time-chosen AVX-512 kernels
// can call it on any build.
__attribute__((target("avx512f"))) inline __m512 bf16_round16(__m512 x) {
  const __m512i bits = _mm512_castps_si512(x);
  const __m512i high = _mm512_set1_epi32(int(0xFFFF0000u));
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_and_si512(_mm512_add_epi32(bits, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF), lsb)), high);
  const __m512i quiet = _mm512_and_si512(_mm512_or_si512(bits, _mm512_set1_epi32(0x00400000)), high);
  return _mm512_castsi512_ps(_mm512_mask_blend_epi32(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), rounded, quiet));
}

// bf16 RNE of sixteen finite values (bf16_round16 without its NaN rule; overflow gives Inf).
__attribute__((target("avx512f"))) inline __m512 bf16_round_finite16(__m512 x) {
  const __m512i bits = _mm512_castps_si512(x);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF))),
                                              _mm512_set1_epi32(int(0xFFFF0000u))));
}

// The same, eight lanes (the bf16 kernel below, the FP4 GEMM's AVX2 epilogue).
__attribute__((target("avx2"))) inline __m256 bf16_round8(__m256 x) {
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i high = _mm256_set1_epi32(int(0xFFFF0000u));
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_and_si256(_mm256_add_epi32(bits, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), lsb)), high);
  const __m256i quiet = _mm256_and_si256(_mm256_or_si256(bits, _mm256_set1_epi32(0x00400000)), high);
  return _mm256_castsi256_ps(_mm256_blendv_epi8(rounded, quiet, _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))));
}

// bf16 RNE of eight finite values (bf16_round8 without its NaN rule; overflow gives Inf).
__attribute__((target("avx2"))) inline __m256 bf16_round_finite8(__m256 x) {
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  return _mm256_castsi256_ps(_mm256_and_si256(_mm256_add_epi32(bits, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7FFF))),
                                              _mm256_set1_epi32(int(0xFFFF0000u))));
}

enum class Kernel { copy, bf16, fp4_rne, fp4_sr, fp8_e4m3, fp8_e5m2 };

// What a row kernel tallies besides its outputs: nothing, only the non-finite sentinel, or the full
// statistics (which include the sentinel). The sentinel flags a NaN/Inf among the inputs or outputs
// of the copy and bf16 kernels; the quantizing kernels (fp4, fp8) flag NaN inputs only, at one OR
// per 8 elements on a mask they compute anyway: quantize() adds Inf inputs (an infinite amax) and
// non-finite outputs (possible only through a non-finite or overflowing block decode scale).
enum class Tally { none, sentinel, full };

// Per-row statistics (see QuantStats); lanes are reduced in a fixed order, so a row's sums do not
// depend on the thread that ran it. Block-scale sums are filled by the caller (quantize.cpp).
struct RowStats {
  int64_t nonfinite = 0, flushed = 0, saturated = 0;
  double signal = 0.0, error = 0.0;
  bool any_nonfinite = false;  // the sentinel (see Tally)
  int64_t scaled_blocks = 0;
  float scale_min = 0.0f, scale_max = 0.0f;
  double scale_sum = 0.0, scale_sum_sq = 0.0;
};

// Scalar element path: one element exactly as quantize_reference does it. Returns the output and
// sets the code and the pre-rounding scaled value y.
template <Kernel K>
inline float encode_one(float v, const BlockScale& s, uint8_t random_byte, uint8_t& code, float& y) {
  y = v;
  if constexpr (K == Kernel::copy) {
    return v;
  } else if constexpr (K == Kernel::bf16) {
    return bf16_round(v);
  } else {
    y = v * s.encode;
    if constexpr (K == Kernel::fp4_rne) {
      code = fp4_e2m1_encode_rne(y);
      return fp4_e2m1_decode(code) * s.decode;
    } else if constexpr (K == Kernel::fp4_sr) {
      code = fp4_e2m1_encode_sr(y, random_byte);
      return fp4_e2m1_decode(code) * s.decode;
    } else if constexpr (K == Kernel::fp8_e4m3) {
      code = fp8_e4m3_encode_rne(y);
      return fp8_e4m3_decode(code) * s.decode;
    } else {
      code = fp8_e5m2_encode_rne(y);
      return fp8_e5m2_decode(code) * s.decode;
    }
  }
}

inline void add_stats_one(float v, float y, float result, float saturation_limit, bool scale_nonzero, RowStats& st) {
  if (!std::isfinite(v)) {
    ++st.nonfinite;
  } else {
    st.signal += static_cast<double>(v) * v;
    if (std::isfinite(result)) {
      const double e = static_cast<double>(v) - result;
      st.error += e * e;
    }
    if (v != 0.0f && result == 0.0f) ++st.flushed;
  }
  if (std::fabs(y) > saturation_limit && scale_nonzero) ++st.saturated;
}

#ifdef __AVX2__

// Lane accumulators of one row's statistics.
struct LaneStats {
  __m256i nonfinite = _mm256_setzero_si256(), flushed = _mm256_setzero_si256(),
          saturated = _mm256_setzero_si256();
  __m256d signal = _mm256_setzero_pd(), error = _mm256_setzero_pd();
  __m256 any_nonfinite = _mm256_setzero_ps();  // nonzero bits: the sentinel fired in this lane

  static int64_t sum_lanes(__m256i v) {
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
    int64_t total = 0;
    for (int32_t lane : lanes) total -= lane;  // lanes hold -count (sums of all-ones masks)
    return total;
  }
  static double sum_lanes(__m256d v) {
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, v);
    return ((lanes[0] + lanes[1]) + lanes[2]) + lanes[3];
  }
  void add_to(RowStats& st) const {
    st.nonfinite += sum_lanes(nonfinite);
    st.flushed += sum_lanes(flushed);
    st.saturated += sum_lanes(saturated);
    st.signal += sum_lanes(signal);
    st.error += sum_lanes(error);
    st.any_nonfinite = st.any_nonfinite || !_mm256_testz_si256(_mm256_castps_si256(any_nonfinite),
                                                               _mm256_castps_si256(any_nonfinite));
  }
};

inline __m256 abs_ps(__m256 v) { return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))); }
inline __m256i mask_i(__m256 m) { return _mm256_castps_si256(m); }
// max(|v|, acc) lane by lane on the bits as integers (acc >= 0): the float maximum for non-NaN
// values, but a NaN's bits exceed Inf's, so a NaN wins (max_ps would drop it).
inline __m256 abs_max_bits(__m256 v, __m256 acc) {
  return _mm256_castsi256_ps(_mm256_max_epi32(_mm256_castps_si256(abs_ps(v)), _mm256_castps_si256(acc)));
}

inline void add_stats8(__m256 x, __m256 y, __m256 result, __m256 saturation_limit, bool scale_nonzero, LaneStats& st) {
  const __m256 inf = _mm256_set1_ps(INFINITY);
  const __m256 zero = _mm256_setzero_ps();
  const __m256 finite = _mm256_cmp_ps(abs_ps(x), inf, _CMP_LT_OQ);
  const __m256 result_finite = _mm256_cmp_ps(abs_ps(result), inf, _CMP_LT_OQ);
  st.nonfinite = _mm256_add_epi32(st.nonfinite, mask_i(_mm256_cmp_ps(abs_ps(x), inf, _CMP_NLT_UQ)));
  const __m256 flushed = _mm256_and_ps(finite, _mm256_and_ps(_mm256_cmp_ps(x, zero, _CMP_NEQ_OQ),
                                                             _mm256_cmp_ps(result, zero, _CMP_EQ_OQ)));
  st.flushed = _mm256_add_epi32(st.flushed, mask_i(flushed));
  if (scale_nonzero)
    st.saturated = _mm256_add_epi32(st.saturated, mask_i(_mm256_cmp_ps(abs_ps(y), saturation_limit, _CMP_GT_OQ)));
  const __m256 xs = _mm256_and_ps(x, finite);
  const __m256 both = _mm256_and_ps(finite, result_finite);
  const __m256 xe = _mm256_and_ps(x, both), re = _mm256_and_ps(result, both);
  for (int half = 0; half < 2; ++half) {
    const __m128 xs_h = half ? _mm256_extractf128_ps(xs, 1) : _mm256_castps256_ps128(xs);
    const __m128 xe_h = half ? _mm256_extractf128_ps(xe, 1) : _mm256_castps256_ps128(xe);
    const __m128 re_h = half ? _mm256_extractf128_ps(re, 1) : _mm256_castps256_ps128(re);
    const __m256d xd = _mm256_cvtps_pd(xs_h);
    st.signal = _mm256_add_pd(st.signal, _mm256_mul_pd(xd, xd));
    const __m256d e = _mm256_sub_pd(_mm256_cvtps_pd(xe_h), _mm256_cvtps_pd(re_h));
    st.error = _mm256_add_pd(st.error, _mm256_mul_pd(e, e));
  }
}

inline void store_codes8(__m256i codes, uint8_t* dst) {
  const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(codes), _mm256_extracti128_si256(codes, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_packus_epi16(words, words));
}

// In-register 8 x 8 transpose: afterwards v[j] lane i holds what v[i] lane j held.
inline void transpose8(__m256 (&v)[8]) {
  __m256 a[8], b[8];
  for (int i = 0; i < 4; ++i) {
    a[2 * i] = _mm256_unpacklo_ps(v[2 * i], v[2 * i + 1]);
    a[2 * i + 1] = _mm256_unpackhi_ps(v[2 * i], v[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    b[4 * i] = _mm256_shuffle_ps(a[4 * i], a[4 * i + 2], 0x44);
    b[4 * i + 1] = _mm256_shuffle_ps(a[4 * i], a[4 * i + 2], 0xEE);
    b[4 * i + 2] = _mm256_shuffle_ps(a[4 * i + 1], a[4 * i + 3], 0x44);
    b[4 * i + 3] = _mm256_shuffle_ps(a[4 * i + 1], a[4 * i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    v[j] = _mm256_permute2f128_ps(b[j], b[j + 4], 0x20);
    v[j + 4] = _mm256_permute2f128_ps(b[j], b[j + 4], 0x31);
  }
}

// 2 × the E2M1 round-to-nearest-even of a = |y| (an integer 0, 1, 2, 3, 4, 6, 8 or 12; NaN -> 12):
// |y| rounded to a multiple of the step of its binade (0.5 below 2, 1 below 4, else 2), ties to an
// even multiple (an even code), then saturated: the interval table of NUMERICS.md's Element
// formats (E2M1). In the integer unit: the step is the ulp of magic = 2^22 · step / 0.5, so the
// fp32 add a + magic does the rounding, and bits(a + magic) - bits(magic) counts the steps; 2 ×
// value is that count shifted by log2(2 step).
inline __m256i fp4_rne_twice(__m256 a) {
  const __m256i field = _mm256_srli_epi32(_mm256_castps_si256(a), 23);
  const __m256i step_field = _mm256_min_epi32(_mm256_max_epi32(field, _mm256_set1_epi32(127)), _mm256_set1_epi32(129));
  const __m256i magic = _mm256_slli_epi32(_mm256_add_epi32(step_field, _mm256_set1_epi32(22)), 23);
  // from a = 7 on (Inf and NaN included) the count is at least 4 and below 2^30: it saturates
  const __m256i steps = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(a, _mm256_castsi256_ps(magic))), magic);
  const __m256i twice = _mm256_sllv_epi32(steps, _mm256_sub_epi32(step_field, _mm256_set1_epi32(127)));
  return _mm256_min_epu32(twice, _mm256_set1_epi32(12));
}

// 2 × the E2M1 stochastic rounding of a = |y| (carry rule) with the random bytes (0..255) in the
// lanes of `bytes`; NaN, Inf and |y| >= 6 give 12. In units of the step at |y| (as fp4_rne_twice), t =
// floor(256 |y| / step) is exact; t >> 8 is the lower grid point, t & 255 the top eight bits of the
// fraction, which carries into the next point when adding the random byte passes 255: the step
// count is (t + byte) >> 8, shifted as in fp4_rne_twice.
inline __m256i fp4_sr_twice(__m256 a, __m256i bytes) {
  const __m256 clamped = _mm256_min_ps(a, _mm256_set1_ps(6.0f));
  const __m256i step_field = _mm256_max_epi32(_mm256_srli_epi32(_mm256_castps_si256(clamped), 23), _mm256_set1_epi32(127));
  // 256 / step = 2^(9 - (step_field - 127)): t = floor(256 |y| / step) is exact
  const __m256 units256 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(263), step_field), 23));
  const __m256i t = _mm256_cvttps_epi32(_mm256_mul_ps(clamped, units256));
  const __m256i steps = _mm256_srli_epi32(_mm256_add_epi32(t, bytes), 8);
  return _mm256_sllv_epi32(steps, _mm256_sub_epi32(step_field, _mm256_set1_epi32(127)));
}

// The same with random[0 .. 8).
inline __m256i fp4_sr_twice(__m256 a, const uint8_t* random) {
  return fp4_sr_twice(a, _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(random))));
}

// 2 × the E2M1 value of y = x · enc with y's sign (a NaN y gives +12, as code 7), eight lanes:
// the direct quantizer's element kernel (RNE, or SR with the random bytes in the lanes of `bytes`); `nan`
// collects the NaN lanes. kNoNan: the caller knows no y is NaN (x and enc finite), and the NaN
// mask is left out.
template <bool kSr, bool kNoNan = false>
inline __m256i fp4_twice_signed8(__m256 x, __m256 enc, __m256i bytes, int& nan) {
  const __m256 y = _mm256_mul_ps(x, enc);
  const __m256 a = abs_ps(y);
  const __m256i twice = kSr ? fp4_sr_twice(a, bytes) : fp4_rne_twice(a);
  // negated where y's sign bit is set: sign_epi32 by y's bits (as integers: negative exactly then;
  // zero only for y = +0, whose twice is 0 anyway), except for a NaN, which stays +12
  if constexpr (kNoNan) return _mm256_sign_epi32(twice, _mm256_castps_si256(y));
  const __m256 is_nan = _mm256_cmp_ps(y, y, _CMP_UNORD_Q);
  nan |= _mm256_movemask_ps(is_nan);
  const __m256i negative = _mm256_andnot_si256(mask_i(is_nan), _mm256_srai_epi32(_mm256_castps_si256(y), 31));
  return _mm256_sub_epi32(_mm256_xor_si256(twice, negative), negative);
}

// The same with random[0 .. 8) (SR only).
template <bool kSr, bool kNoNan = false>
inline __m256i fp4_twice_signed8(__m256 x, __m256 enc, const uint8_t* random, int& nan) {
  const __m256i bytes =
      kSr ? _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(random))) : _mm256_setzero_si256();
  return fp4_twice_signed8<kSr, kNoNan>(x, enc, bytes, nan);
}

// Magnitude code of a value already on the E2M1 grid (0 <= v <= 6).
inline __m256i fp4_grid_magnitude(__m256 v) {
  __m256i m = _mm256_setzero_si256();
  for (float edge : {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f})
    m = _mm256_sub_epi32(m, mask_i(_mm256_cmp_ps(v, _mm256_set1_ps(edge), _CMP_GE_OQ)));
  return m;
}

// fp4_rne_twice's rounding as a grid value 0..6 (NaN -> 6; _mm256_min_ps returns its second
// operand for NaN), for the kernels that dequantize and 4over6's candidate errors: |y| / step
// rounded to an integer (ties to even), times the step, in floats. Halving fp4_rne_twice gives the
// same values but measured about 8 % slower there (it adds two converts to what it saves).
inline __m256 fp4_rne_value(__m256 a) {
  const __m256 ge4 = _mm256_cmp_ps(a, _mm256_set1_ps(4.0f), _CMP_GE_OQ);
  const __m256 ge2 = _mm256_cmp_ps(a, _mm256_set1_ps(2.0f), _CMP_GE_OQ);
  const __m256 step = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_set1_ps(0.5f), _mm256_set1_ps(1.0f), ge2),
                                       _mm256_set1_ps(2.0f), ge4);
  const __m256 inv_step = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_set1_ps(2.0f), _mm256_set1_ps(1.0f), ge2),
                                           _mm256_set1_ps(0.5f), ge4);
  const __m256 units = _mm256_round_ps(_mm256_mul_ps(a, inv_step), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm256_min_ps(_mm256_mul_ps(units, step), _mm256_set1_ps(6.0f));
}

// fp4_sr_twice's rounding as a grid value 0..6 (NaN -> 6), for the kernels that dequantize: exact.
inline __m256 fp4_sr_value(__m256 a, const uint8_t* random) {
  return _mm256_mul_ps(_mm256_cvtepi32_ps(fp4_sr_twice(a, random)), _mm256_set1_ps(0.5f));
}

// FP8 RNE satfinite of |y| as a grid value: round to a multiple of the format's step at |y| by
// adding and subtracting 2^(step exponent + 23), then clamp to the maximum. NaN lanes are fixed by
// the caller.
template <int kManBits, int kEmin>
inline __m256 fp8_rne_value(__m256 a, float max_value) {
  const __m256 clamped = _mm256_min_ps(a, _mm256_set1_ps(2.0f * max_value));  // beyond: saturates anyway
  const __m256i field = _mm256_srli_epi32(_mm256_castps_si256(clamped), 23);
  const __m256i step_field = _mm256_max_epi32(field, _mm256_set1_epi32(kEmin + 127));
  const __m256 magic = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(step_field, _mm256_set1_epi32(23 - kManBits)), 23));
  const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(clamped, magic), magic);
  return _mm256_min_ps(rounded, _mm256_set1_ps(max_value));
}

template <int kManBits, int kEmin>
inline __m256i fp8_grid_magnitude(__m256 v) {
  const __m256i normal_code = _mm256_add_epi32(
      _mm256_srli_epi32(_mm256_sub_epi32(_mm256_castps_si256(v), _mm256_set1_epi32((kEmin + 127) << 23)), 23 - kManBits),
      _mm256_set1_epi32(1 << kManBits));
  const float subnormal_units = std::ldexp(1.0f, kManBits - kEmin);  // 1 / (subnormal step)
  const __m256i subnormal_code = _mm256_cvttps_epi32(_mm256_mul_ps(v, _mm256_set1_ps(subnormal_units)));
  const __m256 normal = _mm256_cmp_ps(v, _mm256_set1_ps(std::ldexp(1.0f, kEmin)), _CMP_GE_OQ);
  return _mm256_blendv_epi8(subnormal_code, normal_code, mask_i(normal));
}

// The copy and bf16 kernels' sentinel in two operations: e = x - result is finite exactly when both
// are (a rounded value has its input's sign, so |e| <= max(|x|, |result|)), and e - e is then +0
// (all bits clear), else NaN. OR-ing the bits leaves a lane nonzero once an input or output was
// NaN or Inf.
inline void add_sentinel8(__m256 x, __m256 result, LaneStats& st) {
  const __m256 e = _mm256_sub_ps(x, result);
  st.any_nonfinite = _mm256_or_ps(st.any_nonfinite, _mm256_sub_ps(e, e));
}

#ifdef __AVX512F__
// fp4_rne_value on sixteen lanes: E2M1 round-to-nearest-even of |y| as a grid value 0..6 (NaN -> 6).
inline __m512 fp4_rne_value16(__m512 a) {
  const __mmask16 ge2 = _mm512_cmp_ps_mask(a, _mm512_set1_ps(2.0f), _CMP_GE_OQ);
  const __mmask16 ge4 = _mm512_cmp_ps_mask(a, _mm512_set1_ps(4.0f), _CMP_GE_OQ);
  const __m512 step = _mm512_mask_blend_ps(ge4, _mm512_mask_blend_ps(ge2, _mm512_set1_ps(0.5f), _mm512_set1_ps(1.0f)),
                                           _mm512_set1_ps(2.0f));
  const __m512 inv_step = _mm512_mask_blend_ps(
      ge4, _mm512_mask_blend_ps(ge2, _mm512_set1_ps(2.0f), _mm512_set1_ps(1.0f)), _mm512_set1_ps(0.5f));
  const __m512 units = _mm512_roundscale_ps(_mm512_mul_ps(a, inv_step), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_min_ps(_mm512_mul_ps(units, step), _mm512_set1_ps(6.0f));
}

// In-register 16 x 16 transpose: afterwards v[j] lane i holds what v[i] lane j held.
inline void transpose16(__m512 (&v)[16]) {
  __m512 a[16], b[16], c[16];
  for (int i = 0; i < 8; ++i) {
    a[2 * i] = _mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]);
    a[2 * i + 1] = _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]);
  }
  auto pd = [](__m512 x) { return _mm512_castps_pd(x); };
  for (int i = 0; i < 4; ++i) {
    b[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(a[4 * i]), pd(a[4 * i + 2])));
    b[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(a[4 * i]), pd(a[4 * i + 2])));
    b[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(a[4 * i + 1]), pd(a[4 * i + 3])));
    b[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(a[4 * i + 1]), pd(a[4 * i + 3])));
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      c[8 * i + j] = _mm512_shuffle_f32x4(b[8 * i + j], b[8 * i + j + 4], 0x88);
      c[8 * i + j + 4] = _mm512_shuffle_f32x4(b[8 * i + j], b[8 * i + j + 4], 0xDD);
    }
  for (int j = 0; j < 8; ++j) {
    v[j] = _mm512_shuffle_f32x4(c[j], c[j + 8], 0x88);
    v[j + 8] = _mm512_shuffle_f32x4(c[j], c[j + 8], 0xDD);
  }
}

// amax[b] = max |x| over block b of `blocks` consecutive blocks of `block` values (a multiple of
// 16), NaN ignored. Sixteen blocks at a time: one register of |x| per block (NaN lanes 0), then a
// four-level shuffle tree that leaves their sixteen maxima in one register; max is exact, so the
// order does not matter.
inline void abs_max_blocks(const float* x, int64_t block, int64_t blocks, float* amax) {
  const __m512 zero = _mm512_setzero_ps();
  auto block_abs = [&](int64_t b) {
    __m512 m = zero;
    for (int64_t i = 0; i < block; i += 16) m = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + b * block + i)), m);
    return m;  // max(NaN, m) is m
  };
  int64_t b = 0;
  for (; b + 16 <= blocks; b += 16) {
    __m512 t[8], u[4], w[2];
    for (int j = 0; j < 8; ++j) {  // lanes 0-7: block 2j's partial maxima, 8-15: block 2j + 1's
      const __m512 p = block_abs(b + 2 * j), q = block_abs(b + 2 * j + 1);
      t[j] = _mm512_max_ps(_mm512_shuffle_f32x4(p, q, 0x44), _mm512_shuffle_f32x4(p, q, 0xEE));
    }
    for (int k = 0; k < 4; ++k)  // 128-bit chunk c: block 4k + c, four partial maxima
      u[k] = _mm512_max_ps(_mm512_shuffle_f32x4(t[2 * k], t[2 * k + 1], 0x88),
                           _mm512_shuffle_f32x4(t[2 * k], t[2 * k + 1], 0xDD));
    for (int l = 0; l < 2; ++l) {  // chunk c: blocks 8l + c and 8l + 4 + c, two partial maxima each
      const __m512d p = _mm512_castps_pd(u[2 * l]), q = _mm512_castps_pd(u[2 * l + 1]);
      w[l] = _mm512_max_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(p, q)), _mm512_castpd_ps(_mm512_unpackhi_pd(p, q)));
    }
    const __m512 m0 = _mm512_max_ps(w[0], _mm512_permute_ps(w[0], 0xB1));
    const __m512 m1 = _mm512_max_ps(w[1], _mm512_permute_ps(w[1], 0xB1));
    // Lane 4c + p holds block c (p 0), 8 + c (p 1), 4 + c (p 2), 12 + c (p 3).
    const __m512 lanes = _mm512_mask_blend_ps(0xAAAA, m0, m1);
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 2, 6, 10, 14, 1, 5, 9, 13, 3, 7, 11, 15);
    _mm512_storeu_ps(amax + b, _mm512_permutexvar_ps(order, lanes));
  }
  for (; b < blocks; ++b) amax[b] = _mm512_reduce_max_ps(block_abs(b));
}
#endif

#else
struct LaneStats {
  void add_to(RowStats&) const {}
};
#endif  // __AVX2__

inline float max_ignoring_nan(float acc, float v) { return v > acc ? v : acc; }

// max |x| over n values, NaN ignored.
inline float abs_max_span(const float* x, int64_t n) {
  int64_t i = 0;
  float m = 0.0f;
#ifdef __AVX2__
  __m256 acc = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) acc = _mm256_max_ps(abs_ps(_mm256_loadu_ps(x + i)), acc);  // NaN -> acc
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  for (float lane : lanes) m = max_ignoring_nan(m, lane);
#endif
  for (; i < n; ++i) m = max_ignoring_nan(m, std::fabs(x[i]));
  return m;
}

#ifdef __AVX2__
// block_abs_max on AVX2 for blocks of a multiple of 8, returning the largest of the maxima (0 for
// no blocks). kBits: the maxima taken on the bits as integers (abs_max_bits: a NaN shows as its
// block's maximum, and as the largest); otherwise float maxima (NaN ignored).
template <bool kBits>
inline float block_abs_max8(const float* x, int64_t block, int64_t blocks, float* amax) {
  auto max8 = [](__m256 a, __m256 b) {  // a, b >= 0 or NaN
    if constexpr (kBits) return _mm256_castsi256_ps(_mm256_max_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b)));
    else return _mm256_max_ps(a, b);  // b for a NaN a
  };
  auto max4 = [](__m128 a, __m128 b) {
    if constexpr (kBits) return _mm_castsi128_ps(_mm_max_epi32(_mm_castps_si128(a), _mm_castps_si128(b)));
    else return _mm_max_ps(a, b);
  };
  auto block_abs = [&](int64_t b) {  // eight partial maxima of block b (NaN lanes give 0, or NaN with kBits)
    const float* p = x + b * block;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < block; i += 8) acc = max8(abs_ps(_mm256_loadu_ps(p + i)), acc);
    return acc;
  };
  auto reduce4 = [&](__m128 m) {  // lane 0: the largest of the four
    m = max4(m, _mm_movehl_ps(m, m));
    return max4(m, _mm_movehdup_ps(m));
  };
  __m256 all = _mm256_setzero_ps();  // the maxima stored so far, eight lanes
  int64_t b = 0;
  for (; b + 8 <= blocks; b += 8) {  // eight blocks' maxima into one register by a shuffle tree
    __m256 t[4], u[2];
    for (int j = 0; j < 4; ++j) {  // lanes 0, 2 (4, 6): block 2j's partials, 1, 3 (5, 7): 2j + 1's
      const __m256 p = block_abs(b + 2 * j), q = block_abs(b + 2 * j + 1);
      t[j] = max8(_mm256_unpacklo_ps(p, q), _mm256_unpackhi_ps(p, q));
    }
    for (int k = 0; k < 2; ++k)  // lane c (4 + c): block 4k + c over partials 0-3 (4-7)
      u[k] = max8(_mm256_shuffle_ps(t[2 * k], t[2 * k + 1], 0x44), _mm256_shuffle_ps(t[2 * k], t[2 * k + 1], 0xEE));
    const __m256 maxima = max8(_mm256_permute2f128_ps(u[0], u[1], 0x20), _mm256_permute2f128_ps(u[0], u[1], 0x31));
    _mm256_storeu_ps(amax + b, maxima);
    all = max8(maxima, all);
  }
  __m128 top = max4(_mm256_castps256_ps128(all), _mm256_extractf128_ps(all, 1));
  for (; b < blocks; ++b) {
    const __m256 acc = block_abs(b);
    const __m128 m = reduce4(max4(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1)));  // no NaN lanes without kBits
    amax[b] = _mm_cvtss_f32(m);
    top = max4(m, top);  // lanes 1-3 hold partial maxima of this block, none above lane 0
  }
  return _mm_cvtss_f32(reduce4(top));
}
#endif

// max |x| (NaN ignored) of each of `blocks` consecutive blocks of `block` values.
inline void block_abs_max(const float* x, int64_t block, int64_t blocks, float* amax) {
#ifdef __AVX512F__
  if (block % 16 == 0) return abs_max_blocks(x, block, blocks, amax);
#endif
#ifdef __AVX2__
  if (block % 8 == 0) {
    block_abs_max8<false>(x, block, blocks, amax);
    return;
  }
#endif
  for (int64_t b = 0; b < blocks; ++b) amax[b] = abs_max_span(x + b * block, block);
}

// block_abs_max, returning whether the values are known to hold no NaN, and then the largest of the
// maxima in `top`: for blocks of a multiple of 8 on AVX2 the integer maxima find a NaN at no cost
// (then the blocks are redone with NaN ignored); elsewhere it cannot tell and returns false.
inline bool block_abs_max_no_nan(const float* x, int64_t block, int64_t blocks, float* amax, float& top) {
#ifdef __AVX2__
  if (block % 8 == 0) {
    const float largest = block_abs_max8<true>(x, block, blocks, amax);
    if (std::bit_cast<uint32_t>(largest) <= 0x7F800000u) {
      top = largest;
      return true;
    }
  }
#endif
  block_abs_max(x, block, blocks, amax);
  return false;
}

// One span of n elements sharing one block scale. x and out may be the same array.
template <Kernel K, bool kCodes, Tally kTally>
inline __attribute__((always_inline)) void encode_span(const float* x, float* out, uint8_t* codes, const uint8_t* random, int64_t n,
                 const BlockScale& s, float saturation_limit, RowStats& st, LaneStats& lanes) {
  const bool scale_nonzero = s.decode != 0.0f;
  int64_t i = 0;
#ifdef __AVX2__
  const __m256 encode = _mm256_set1_ps(s.encode), decode = _mm256_set1_ps(s.decode);
  const __m256 limit = _mm256_set1_ps(saturation_limit);
  const __m256i sign_bit = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  for (; i + 8 <= n; i += 8) {
    const __m256 xv = _mm256_loadu_ps(x + i);
    __m256 y = xv, result;
    __m256i code = _mm256_setzero_si256();
    if constexpr (K == Kernel::copy) {
      result = xv;
    } else if constexpr (K == Kernel::bf16) {
      result = bf16_round8(xv);
    } else {
      y = _mm256_mul_ps(xv, encode);
      const __m256 a = abs_ps(y);
      const __m256 is_nan = _mm256_cmp_ps(y, y, _CMP_UNORD_Q);  // x NaN (encode is finite and > 0)
      if constexpr (kTally != Tally::none) lanes.any_nonfinite = _mm256_or_ps(lanes.any_nonfinite, is_nan);
      const __m256i sign = _mm256_andnot_si256(mask_i(is_nan), _mm256_and_si256(_mm256_castps_si256(y), sign_bit));
      __m256 value;
      if constexpr (K == Kernel::fp4_rne || K == Kernel::fp4_sr) {
        value = K == Kernel::fp4_rne ? fp4_rne_value(a) : fp4_sr_value(a, random + i);  // NaN -> 6
        if constexpr (kCodes) code = _mm256_or_si256(fp4_grid_magnitude(value), _mm256_srli_epi32(sign, 28));
      } else {
        constexpr int kManBits = K == Kernel::fp8_e4m3 ? 3 : 2;
        constexpr int kEmin = K == Kernel::fp8_e4m3 ? -6 : -14;
        const float max_value = K == Kernel::fp8_e4m3 ? kFp8E4m3Max : kFp8E5m2Max;
        value = fp8_rne_value<kManBits, kEmin>(a, max_value);
        if constexpr (kCodes) {
          const __m256i magnitude = _mm256_blendv_epi8(fp8_grid_magnitude<kManBits, kEmin>(value),
                                                       _mm256_set1_epi32(kFp8NanCode), mask_i(is_nan));
          code = _mm256_or_si256(magnitude, _mm256_srli_epi32(sign, 24));
        }
        value = _mm256_blendv_ps(value, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), is_nan);
      }
      result = _mm256_mul_ps(_mm256_or_ps(value, _mm256_castsi256_ps(sign)), decode);
    }
    _mm256_storeu_ps(out + i, result);
    if constexpr (kCodes) store_codes8(code, codes + i);
    if constexpr (kTally == Tally::full) add_stats8(xv, y, result, limit, scale_nonzero, lanes);
    if constexpr (kTally != Tally::none && (K == Kernel::copy || K == Kernel::bf16)) add_sentinel8(xv, result, lanes);
  }
#endif
  for (; i < n; ++i) {
    const float v = x[i];
    uint8_t code = 0;
    float y;
    const float result = encode_one<K>(v, s, random ? random[i] : 0, code, y);
    out[i] = result;
    if constexpr (kCodes) codes[i] = code;
    if constexpr (kTally == Tally::full) add_stats_one(v, y, result, saturation_limit, scale_nonzero, st);
    if constexpr (kTally != Tally::none)
      if (!std::isfinite(v) || !std::isfinite(result)) st.any_nonfinite = true;  // a superset: still exact
  }
}

// One row: `blocks` consecutive spans of `block` elements, span b with multipliers
// encode[b] / decode[b]. codes and random may be null when unused.
template <Kernel K, bool kCodes, Tally kTally>
void encode_row(const float* x, float* out, uint8_t* codes, const uint8_t* random, int64_t block, int64_t blocks,
                const float* encode, const float* decode, float saturation_limit, RowStats& st) {
  LaneStats lanes;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t c0 = b * block;
    BlockScale s;
    s.encode = encode[b];
    s.decode = decode[b];
    encode_span<K, kCodes, kTally>(x + c0, out + c0, kCodes ? codes + c0 : nullptr,
                                   random ? random + c0 : nullptr, block, s, saturation_limit, st, lanes);
  }
  if constexpr (kTally != Tally::none) lanes.add_to(st);
}

}  // namespace fp4lab::detail
