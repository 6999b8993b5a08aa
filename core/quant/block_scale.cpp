// Scale arithmetic (core/quant/NUMERICS.md, NVFP4 and MXFP4 and MXFP8): each formula written once,
// in NUMERICS.md's fp32 operation order.
// The compiler may not contract or reorder (-ffp-contract=off, no fast-math).
#include "core/quant/block_scale.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/formats/ue8m0.hpp"
#include "core/quant/encode_kernels.hpp"
#include "core/quant/format_table.hpp"

namespace fp4lab {

float nvfp4_tensor_encode_scale(float amax, float q_max) {
  const float s_enc = std::fmin(q_max * kFp4E2m1Max / amax, FLT_MAX);  // 2688, 1536, 688128: exact
  return (amax == 0.0f || s_enc == 0.0f) ? 1.0f : s_enc;
}

uint8_t nvfp4_block_scale_code(float block_amax, float s_enc, BlockScaleFormula formula) {
  return fp8_e4m3_encode_rne(nvfp4_block_scale_value(block_amax, s_enc, formula));
}

float nvfp4_block_scale_value(float block_amax, float s_enc, BlockScaleFormula formula) {
  float s_dec_b;
  if (formula == BlockScaleFormula::te_2_14) {
    const float factor = s_enc * kRecipSix;
    s_dec_b = block_amax * factor;
  } else {
    const float sixth = block_amax / 6.0f;
    s_dec_b = sixth * s_enc;
  }
  return std::fmin(s_dec_b, FLT_MAX);
}

float nvfp4_block_encode_multiplier(uint8_t scale_code, float s_dec) {
  return nvfp4_encode_multiplier(fp8_e4m3_decode(scale_code), s_dec);
}

float nvfp4_block_decode_multiplier(uint8_t scale_code, float amax, int q_max) {
  return nvfp4_decode_multiplier(fp8_e4m3_decode(scale_code), amax, q_max == 256 ? kRecip1536 : kRecip2688);
}

float nvfp4_scale_max(const QuantSpec& spec) {
  return spec.scale == ScaleFormat::ufloat ? block_scale_grid(spec).max_value() : float(spec.global_e4m3_max);
}

uint8_t nvfp4_scale_code(const QuantSpec& spec, float block_amax, float s_enc) {
  if (spec.scale == ScaleFormat::e4m3 && spec.scale_round == UfloatRounding::nearest)
    return nvfp4_block_scale_code(block_amax, s_enc, spec.formula);
  const float value = nvfp4_block_scale_value(block_amax, s_enc, spec.formula);
  return static_cast<uint8_t>(block_scale_grid(spec).encode(value, spec.scale_round));
}

float nvfp4_encode_multiplier(float s_b, float s_dec) {
  const float block_decode = s_b * s_dec;
  return std::fmin(1.0f / block_decode, FLT_MAX);
}

float nvfp4_decode_multiplier(float s_b, float amax, float recip_6q) {
  const float scaled = s_b * amax;
  return scaled * recip_6q;
}

FourOverSixCodes four_over_six_codes(float block_amax, float s_enc) {
  const float sixth = block_amax / 6.0f;
  const float base = sixth * s_enc;
  const float expanded = base * 1.5f;
  return {fp8_e4m3_encode_rne(base), fp8_e4m3_encode_rne(expanded)};
}

float four_over_six_error(const float* x, int64_t n, uint8_t scale_code, float s_dec, float amax, int q_max,
                          FourOverSix mode) {
  const float inv = nvfp4_block_encode_multiplier(scale_code, s_dec);
  const float s_b = fp8_e4m3_decode(scale_code);
  const float denom = float(q_max) * kFp4E2m1Max;  // exact
  float err = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float y = x[i] * inv;
    const float q = fp4_e2m1_decode(fp4_e2m1_encode_rne(y));
    const float scaled = q * s_b;
    const float widened = scaled * amax;
    const float v = widened / denom;
    const float diff = v - x[i];
    if (mode == FourOverSix::mse) {
      const float sq = diff * diff;
      err = err + sq;
    } else {
      err = err + std::fabs(diff);
    }
  }
  return err;
}

const std::array<float, 256>& e4m3_decode_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int c = 0; c < 256; ++c) t[size_t(c)] = fp8_e4m3_decode(uint8_t(c));
    return t;
  }();
  return table;
}

float four_over_six_tile_error(const float* row_errors) {
  float r[16];
  for (int i = 0; i < 16; ++i) r[i] = row_errors[i];
  for (int half = 8; half >= 2; half /= 2)
    for (int i = 0; i < half; ++i) r[i] = r[i] + r[i + half];
  return r[0] + r[1];
}

#ifdef __AVX512F__
namespace {
// four_over_six_error of n <= 16 segments of 16 elements under both candidates, bit for bit:
// err6[l] and err4[l] (l < n) are the errors of x[l * stride .. l * stride + 16) under scale codes
// map6[l] and map4[l]. The segments are transposed into registers once, so each lane adds its own
// segment's terms in index order.
void four_over_six_errors16(const float* x, int64_t stride, int n, const uint8_t* map6, const uint8_t* map4,
                            float s_dec, float amax, int q_max, FourOverSix mode, float* err6, float* err4) {
  const std::array<float, 256>& e4m3 = e4m3_decode_table();
  const uint8_t* const codes[2] = {map6, map4};
  __m512 s_b[2], inv[2], sum[2];
  for (int c = 0; c < 2; ++c) {
    alignas(64) float lanes[16] = {};  // lanes n.. compute zeros
    for (int l = 0; l < n; ++l) lanes[l] = e4m3[codes[c][l]];
    s_b[c] = _mm512_load_ps(lanes);
    // nvfp4_encode_multiplier: fmin(1 / RN(s_b * S_dec), FLT_MAX) (min_ps gives FLT_MAX for NaN, as fmin)
    inv[c] = _mm512_min_ps(_mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_mul_ps(s_b[c], _mm512_set1_ps(s_dec))),
                           _mm512_set1_ps(FLT_MAX));
    sum[c] = _mm512_setzero_ps();
  }
  const __m512 amax_v = _mm512_set1_ps(amax), denom = _mm512_set1_ps(float(q_max) * kFp4E2m1Max);  // exact
  const __m512i sign_bit = _mm512_set1_epi32(int(0x80000000u));
  __m512 v[16];
  for (int l = 0; l < 16; ++l) v[l] = l < n ? _mm512_loadu_ps(x + l * stride) : _mm512_setzero_ps();
  detail::transpose16(v);  // v[i] lane l: element i of segment l
  for (int i = 0; i < 16; ++i)
    for (int c = 0; c < 2; ++c) {
      const __m512 y = _mm512_mul_ps(v[i], inv[c]);
      // e2m1 decode of the RNE code: the grid value with y's sign (a NaN y gives code 7, +6)
      const __mmask16 signed_lanes = _mm512_cmp_ps_mask(y, y, _CMP_ORD_Q);
      const __m512i sign = _mm512_maskz_and_epi32(signed_lanes, _mm512_castps_si512(y), sign_bit);
      const __m512 q = _mm512_castsi512_ps(
          _mm512_or_si512(_mm512_castps_si512(detail::fp4_rne_value16(_mm512_abs_ps(y))), sign));
      const __m512 widened = _mm512_mul_ps(_mm512_mul_ps(q, s_b[c]), amax_v);
      const __m512 diff = _mm512_sub_ps(_mm512_div_ps(widened, denom), v[i]);
      sum[c] = _mm512_add_ps(sum[c], mode == FourOverSix::mse ? _mm512_mul_ps(diff, diff) : _mm512_abs_ps(diff));
    }
  _mm512_mask_storeu_ps(err6, __mmask16((1u << n) - 1), sum[0]);
  _mm512_mask_storeu_ps(err4, __mmask16((1u << n) - 1), sum[1]);
}

}  // namespace
#elif defined(__AVX2__)
namespace {
// four_over_six_errors16 on eight lanes: n <= 8 segments of 16 elements, each lane adding its own
// segment's terms in index order (two 8 x 8 transposes: elements 0-7, then 8-15).
void four_over_six_errors8(const float* x, int64_t stride, int n, const uint8_t* map6, const uint8_t* map4,
                           float s_dec, float amax, int q_max, FourOverSix mode, float* err6, float* err4) {
  const std::array<float, 256>& e4m3 = e4m3_decode_table();
  const uint8_t* const codes[2] = {map6, map4};
  __m256 s_b[2], inv[2], sum[2];
  for (int c = 0; c < 2; ++c) {
    alignas(32) float lanes[8] = {};  // lanes n.. compute zeros
    for (int l = 0; l < n; ++l) lanes[l] = e4m3[codes[c][l]];
    s_b[c] = _mm256_load_ps(lanes);
    inv[c] = _mm256_min_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(s_b[c], _mm256_set1_ps(s_dec))),
                           _mm256_set1_ps(FLT_MAX));
    sum[c] = _mm256_setzero_ps();
  }
  const __m256 amax_v = _mm256_set1_ps(amax), denom = _mm256_set1_ps(float(q_max) * kFp4E2m1Max);  // exact
  const __m256i sign_bit = _mm256_set1_epi32(int(0x80000000u));
  for (int half = 0; half < 2; ++half) {
    __m256 v[8];
    for (int l = 0; l < 8; ++l) v[l] = l < n ? _mm256_loadu_ps(x + l * stride + 8 * half) : _mm256_setzero_ps();
    detail::transpose8(v);  // v[i] lane l: element 8 · half + i of segment l
    for (int i = 0; i < 8; ++i)
      for (int c = 0; c < 2; ++c) {
        const __m256 y = _mm256_mul_ps(v[i], inv[c]);
        // e2m1 decode of the RNE code: the grid value with y's sign (a NaN y gives code 7, +6)
        const __m256i sign = _mm256_and_si256(detail::mask_i(_mm256_cmp_ps(y, y, _CMP_ORD_Q)),
                                              _mm256_and_si256(_mm256_castps_si256(y), sign_bit));
        const __m256 q = _mm256_castsi256_ps(
            _mm256_or_si256(_mm256_castps_si256(detail::fp4_rne_value(detail::abs_ps(y))), sign));
        const __m256 widened = _mm256_mul_ps(_mm256_mul_ps(q, s_b[c]), amax_v);
        const __m256 diff = _mm256_sub_ps(_mm256_div_ps(widened, denom), v[i]);
        sum[c] = _mm256_add_ps(sum[c], mode == FourOverSix::mse ? _mm256_mul_ps(diff, diff) : detail::abs_ps(diff));
      }
  }
  alignas(32) float e6[8], e4[8];
  _mm256_store_ps(e6, sum[0]);
  _mm256_store_ps(e4, sum[1]);
  std::copy(e6, e6 + n, err6);
  std::copy(e4, e4 + n, err4);
}

// four_over_six_errors16 of n <= 16 segments, eight at a time.
void four_over_six_errors16(const float* x, int64_t stride, int n, const uint8_t* map6, const uint8_t* map4,
                            float s_dec, float amax, int q_max, FourOverSix mode, float* err6, float* err4) {
  for (int l = 0; l < n; l += 8)
    four_over_six_errors8(x + l * stride, stride, std::min(8, n - l), map6 + l, map4 + l, s_dec, amax, q_max, mode,
                          err6 + l, err4 + l);
}
}  // namespace
#endif

#ifdef __AVX2__
namespace {
// four_over_six_codes of n <= 16 blocks, eight at a time (the last eight padded with zeros) with
// the same fp32 operations and the E4M3 rounding of the vectorised block scales; eight blocks with
// a NaN candidate (E4M3's NaN code) take four_over_six_codes one at a time.
void four_over_six_codes16(const float* block_amax, int n, float s_enc, uint8_t* map6, uint8_t* map4) {
  for (int l = 0; l < n; l += 8) {
    const int m = std::min(8, n - l);
    alignas(32) float amax[8] = {};
    std::copy(block_amax + l, block_amax + l + m, amax);
    const __m256 base = _mm256_mul_ps(_mm256_div_ps(_mm256_load_ps(amax), _mm256_set1_ps(6.0f)), _mm256_set1_ps(s_enc));
    const __m256 expanded = _mm256_mul_ps(base, _mm256_set1_ps(1.5f));
    if (_mm256_movemask_ps(_mm256_cmp_ps(expanded, expanded, _CMP_UNORD_Q)) != 0) {  // NaN base too
      for (int k = l; k < l + m; ++k) {
        const FourOverSixCodes c = four_over_six_codes(block_amax[k], s_enc);
        map6[k] = c.map6;
        map4[k] = c.map4;
      }
      continue;
    }
    auto store_e4m3 = [m](__m256 value, uint8_t* out) {  // Inf -> FLT_MAX: both saturate to 448
      const __m256 rounded = detail::fp8_rne_value<3, -6>(_mm256_min_ps(value, _mm256_set1_ps(FLT_MAX)), kFp8E4m3Max);
      alignas(8) uint8_t codes[8];
      detail::store_codes8(detail::fp8_grid_magnitude<3, -6>(rounded), codes);
      std::copy(codes, codes + m, out);
    };
    store_e4m3(base, map6 + l);
    store_e4m3(expanded, map4 + l);
  }
}
}  // namespace
#endif

void four_over_six_scale_codes(const QuantSpec& spec, const TensorScaling& t, const float* x, int64_t cols,
                               int64_t band_rows, const float* block_amax, uint8_t* codes) {
  const int64_t span = spec.block, spans = cols / span;
  const int q_max = spec.global_e4m3_max;
  int64_t b = 0;
#ifdef __AVX2__  // four_over_six_errors16: AVX-512, or eight lanes at a time on AVX2
  if (span == 16 && band_rows == 16) {
    for (; b < spans; b += 16) {
      const int n = int(std::min<int64_t>(16, spans - b));
      uint8_t map6[16], map4[16];
      four_over_six_codes16(block_amax + b, n, t.s_enc, map6, map4);
      for (int l = 0; l < n; ++l) {  // one code for the tile's sixteen rows
        uint8_t tile6[16], tile4[16];
        std::fill(tile6, tile6 + 16, map6[l]);
        std::fill(tile4, tile4 + 16, map4[l]);
        const float* tile = x + (b + l) * span;
        float err6[16], err4[16];
        four_over_six_errors16(tile, cols, 16, tile6, tile4, t.s_dec, t.amax, q_max, spec.four_over_six, err6, err4);
        codes[b + l] = four_over_six_tile_error(err4) < four_over_six_tile_error(err6) ? map4[l] : map6[l];
      }
    }
  } else if (span == 16 && band_rows == 1) {
    for (; b < spans; b += 16) {
      const int n = int(std::min<int64_t>(16, spans - b));
      uint8_t map6[16], map4[16];
      four_over_six_codes16(block_amax + b, n, t.s_enc, map6, map4);
      float err6[16], err4[16];
      four_over_six_errors16(x + b * span, span, n, map6, map4, t.s_dec, t.amax, q_max, spec.four_over_six, err6, err4);
      for (int l = 0; l < n; ++l) codes[b + l] = err4[l] < err6[l] ? map4[l] : map6[l];
    }
  }
#endif
  for (; b < spans; ++b) {
    const FourOverSixCodes c = four_over_six_codes(block_amax[b], t.s_enc);
    float err6[16], err4[16];
    for (int64_t r = 0; r < band_rows; ++r) {
      const float* seg = x + r * cols + b * span;
      err6[r] = four_over_six_error(seg, span, c.map6, t.s_dec, t.amax, q_max, spec.four_over_six);
      err4[r] = four_over_six_error(seg, span, c.map4, t.s_dec, t.amax, q_max, spec.four_over_six);
    }
    const bool map4 = band_rows == 1 ? err4[0] < err6[0] : four_over_six_tile_error(err4) < four_over_six_tile_error(err6);
    codes[b] = map4 ? c.map4 : c.map6;
  }
}

uint8_t mx_block_scale_code(float block_amax, ElementFormat element, ScaleRule rule) {
  if (rule == ScaleRule::floor) {
    if (std::isinf(block_amax)) return kUe8m0NanCode;
    const float guarded = block_amax == 0.0f ? FLT_MIN : block_amax;
    return ue8m0_encode_exponent(floor_log2_exact(guarded) - element_info(element).emax);
  }
  return ue8m0_encode_ceil(block_amax / element_info(element).max);
}

float current_scaling_scale(float amax, float max_value) {
  if (amax == 0.0f || std::isinf(amax)) return 1.0f;
  return std::fmin(max_value / amax, FLT_MAX);
}

TensorScaling tensor_scaling(const QuantSpec& spec, float amax, float delayed_scale) {
  TensorScaling t;
  t.amax = amax;
  t.delayed = delayed_scale;
  if (spec.scale == ScaleFormat::e4m3 || spec.scale == ScaleFormat::ufloat) {
    t.s_enc = nvfp4_tensor_encode_scale(amax, nvfp4_scale_max(spec));
    t.s_dec = 1.0f / t.s_enc;
  }
  return t;
}

BlockScale block_scale(const QuantSpec& spec, const TensorScaling& tensor, float block_amax) {
  BlockScale s;
  switch (spec.scale) {
    case ScaleFormat::none:
      break;
    case ScaleFormat::fp32: {
      s.encode = spec.scaling == Scaling::delayed
                     ? tensor.delayed
                     : current_scaling_scale(spec.block == 0 ? tensor.amax : block_amax, element_info(spec.element).max);
      s.decode = 1.0f / s.encode;
      break;
    }
    case ScaleFormat::e4m3:
    case ScaleFormat::ufloat:
      return block_scale_from_code(spec, tensor, nvfp4_scale_code(spec, block_amax, tensor.s_enc));
    case ScaleFormat::ue8m0:
      return block_scale_from_code(spec, tensor, mx_block_scale_code(block_amax, spec.element, spec.scale_rule));
  }
  return s;
}

BlockScale block_scale_from_code(const QuantSpec& spec, const TensorScaling& tensor, uint8_t code) {
  BlockScale s;
  s.code = code;
  if (spec.scale == ScaleFormat::e4m3) {
    s.encode = nvfp4_block_encode_multiplier(code, tensor.s_dec);
    s.decode = nvfp4_block_decode_multiplier(code, tensor.amax, spec.global_e4m3_max);
  } else if (spec.scale == ScaleFormat::ufloat) {
    const float s_b = block_scale_grid(spec).decode(code);
    const float six_q = 6.0f * nvfp4_scale_max(spec);  // exact (validate: finite)
    s.encode = nvfp4_encode_multiplier(s_b, tensor.s_dec);
    s.decode = nvfp4_decode_multiplier(s_b, tensor.amax, 1.0f / six_q);
  } else if (code == kUe8m0NanCode) {
    s.encode = s.decode = std::numeric_limits<float>::quiet_NaN();
  } else {
    s.encode = std::ldexp(1.0f, -ue8m0_unbiased_exponent(code));
    s.decode = ue8m0_decode(code);
  }
  return s;
}

bool has_scale_codes(const QuantSpec& spec) {
  return spec.scale == ScaleFormat::e4m3 || spec.scale == ScaleFormat::ufloat || spec.scale == ScaleFormat::ue8m0;
}

float decode_scale_code(const QuantSpec& spec, uint8_t code) {
  switch (spec.scale) {
    case ScaleFormat::e4m3: return fp8_e4m3_decode(code);
    case ScaleFormat::ufloat: return block_scale_grid(spec).decode(code);
    case ScaleFormat::ue8m0: return ue8m0_decode(code);
    case ScaleFormat::none:
    case ScaleFormat::fp32: break;
  }
  return 0.0f;
}

bool needs_tensor_amax(const QuantSpec& spec) {
  return spec.scale == ScaleFormat::e4m3 || spec.scale == ScaleFormat::ufloat ||
         (spec.scale == ScaleFormat::fp32 && spec.block == 0);
}

TensorScaling window_scaling(float window_amax, int q_max) {
  TensorScaling t;
  t.amax = std::fmax(window_amax, kWindowAmaxFloor);  // NaN ignored, as fmaxf in the kernel
  t.s_enc = nvfp4_tensor_encode_scale(t.amax, q_max);
  t.s_dec = 1.0f / t.s_enc;
  return t;
}

BlockScale window_block_scale(const QuantSpec& spec, const TensorScaling& window, float block_amax) {
  BlockScale s;
  s.code = nvfp4_block_scale_code(block_amax, window.s_enc, spec.formula);
  const float s_b = fp8_e4m3_decode(s.code);
  s.encode = s_b == 0.0f ? 0.0f : window.s_enc / s_b;
  s.decode = nvfp4_block_decode_multiplier(s.code, window.amax, spec.global_e4m3_max);
  return s;
}

}  // namespace fp4lab
