// Scale arithmetic of every scale format, one block at a time, in scalar fp32 in exactly the order
// of core/quant/NUMERICS.md: NVFP4's fp32 tensor scale and E4M3 or ufloat block scale (NVFP4,
// Minifloat block scales), MX UE8M0
// floor/ceil rules (MXFP4 and MXFP8), and fp32 current scaling (FP8 with a per-tensor scale).
// Shared by the fast and the reference quantizer; no loops over elements here.
#pragma once
#include <array>
#include <cstdint>

#include "core/quant/quant_spec.hpp"

namespace fp4lab {

// ---- NVFP4 (NUMERICS.md, NVFP4) ----
constexpr float kRecipSix = 0x1.555556p-3f;          // RN(1/6) = 0x3E2AAAAB
constexpr float kRecip2688 = 0x1.861862p-12f;        // RN(1/2688) = 0x39C30C31, 2688 = 448 * 6
constexpr float kRecip1536 = 0x1.555556p-11f;        // RN(1/1536) = 0x3A2AAAAB, 1536 = 256 * 6 (4over6, Q = 256)
// S_enc = min(RN(RN(6 Q) / amax), FLT_MAX) with Q the global E4M3 maximum (448, or 256 with
// 4over6), or a ufloat scale's largest value (6 Q is exact for both), and 1 when amax is 0 or S_enc
// is 0 (amax = +Inf).
float nvfp4_tensor_encode_scale(float amax, float q_max = 448.0f);
// s_b = E4M3_rne_satfinite(min(RN(block_amax * RN(S_enc * RN(1/6))), FLT_MAX))  (te_2_14), or
// with RN(RN(block_amax / 6) * S_enc)  (te_2_13).
uint8_t nvfp4_block_scale_code(float block_amax, float s_enc, BlockScaleFormula formula);
// inv_b = min(RN(1 / RN(s_b * S_dec)), FLT_MAX): FLT_MAX when s_b is 0 (underflowed block).
float nvfp4_block_encode_multiplier(uint8_t scale_code, float s_dec);
// TE dequantize: RN(RN(s_b * amax) * RN(1/(6 Q))), RN(1/2688) for Q = 448.
float nvfp4_block_decode_multiplier(uint8_t scale_code, float amax, int q_max = 448);

// ---- NVFP4 with any minifloat block scale: e4m3, or ufloat (NUMERICS.md, Minifloat block scales) ----
// Q of S_enc: global_e4m3_max for e4m3, the grid's largest finite value for ufloat (UE5M3: 114688).
float nvfp4_scale_max(const QuantSpec& spec);
// The fp32 block scale before it meets the scale grid: min(RN(block_amax * RN(S_enc * RN(1/6))),
// FLT_MAX) (te_2_14) or min(RN(RN(block_amax / 6) * S_enc), FLT_MAX) (te_2_13); never NaN.
float nvfp4_block_scale_value(float block_amax, float s_enc, BlockScaleFormula formula);
// That value rounded to block_scale_grid(spec) by spec.scale_round, satfinite. For e4m3 scales
// rounded to nearest this is nvfp4_block_scale_code (E4M3 read as unsigned is the same grid).
uint8_t nvfp4_scale_code(const QuantSpec& spec, float block_amax, float s_enc);
// The multipliers of a decoded block scale s_b: encode min(RN(1 / RN(s_b * S_dec)), FLT_MAX),
// decode RN(RN(s_b * amax) * recip_6q) with recip_6q = RN(1 / RN(6 Q)).
float nvfp4_encode_multiplier(float s_b, float s_dec);
float nvfp4_decode_multiplier(float s_b, float amax, float recip_6q);

// fp8_e4m3_decode of all 256 codes, as a table.
const std::array<float, 256>& e4m3_decode_table();

// ---- NVFP4 4over6 (NUMERICS.md, TE dialects) ----
// The two candidate block scales: base = RN(RN(block_amax / 6) * S_enc) (TE <= 2.13 order whatever
// the formula key), map-to-6 = E4M3(base), map-to-4 = E4M3(RN(base * 1.5)); RNE, satfinite.
struct FourOverSixCodes {
  uint8_t map6 = 0, map4 = 0;
};
FourOverSixCodes four_over_six_codes(float block_amax, float s_enc);
// The candidate's error over n consecutive elements in index order (a left-to-right fp32 sum from
// 0): codes c = E2M1_RNE(RN(x * inv)) with inv the block's encode multiplier, reconstruction
// v = RN(RN(RN(e2m1(c) * s_b) * amax) / RN(6 Q)), and the sum of |v - x| (mae) or RN((v - x)^2) (mse).
float four_over_six_error(const float* x, int64_t n, uint8_t scale_code, float s_dec, float amax, int q_max,
                          FourOverSix mode);
// The error of a 16x16 tile from its 16 row errors, in the CUDA warp-tree order: r[i] += r[i+8]
// (i < 8), r[i] += r[i+4] (i < 4), r[i] += r[i+2] (i < 2), then r[0] + r[1].
float four_over_six_tile_error(const float* row_errors);

// ---- MX (NUMERICS.md, MXFP4 and MXFP8) ----
// floor (OCP): 2^(floor(log2 block_amax) - emax_elem), a zero amax read as FLT_MIN (the
// FP32_MIN_NORMAL guard), exponent clamped to >= -127; an infinite amax gives the NaN scale 0xFF.
// ceil (TE): 2^ceil(log2(RN(block_amax / element_max))) clamped to [-127, 127] (Inf -> 2^127).
// floor(log2) and ceil(log2) are exact on the fp32 bits (not an fp32 log2 rounded first).
uint8_t mx_block_scale_code(float block_amax, ElementFormat element, ScaleRule rule);

// ---- fp32 current scaling (TE Float8CurrentScaling) ----
// scale = min(RN(element_max / amax), FLT_MAX), 1 when amax is 0 or Inf; elements are encoded as
// x * scale and dequantized as value * RN(1 / scale).
float current_scaling_scale(float amax, float element_max);

// The tensor-level quantities a block scale depends on.
struct TensorScaling {
  float amax = 0.f;   // max |x| (NaN ignored), post-RHT when rht; a row's amax when row_scaled
  float s_enc = 1.f;  // NVFP4 S_enc
  float s_dec = 1.f;  // NVFP4 S_dec = RN(1 / S_enc)
  float delayed = 1.f;  // Scaling::delayed: the fp32 scale given to quantize()
};
TensorScaling tensor_scaling(const QuantSpec& spec, float amax, float delayed_scale = 1.0f);

// Each block's 4over6 scale code, the candidate with the smaller error over the block's rows of
// x (band_rows rows of `cols`; a 16x16 tile's error from its row errors). Blocks of 16 on AVX-512
// builds evaluate sixteen error sums at once, both candidates from one transposed load: the tile's
// sixteen rows (2D), or up to sixteen blocks of the row (1D), one lane each; other specs take
// four_over_six_error one row of one block at a time.
void four_over_six_scale_codes(const QuantSpec& spec, const TensorScaling& t, const float* x, int64_t cols,
                               int64_t band_rows, const float* block_amax, uint8_t* codes);

// What one block's elements are multiplied by before rounding to the element grid (`encode`) and
// what their grid values are multiplied by to dequantize (`decode`); `code` is the raw scale byte
// for e4m3/ue8m0 scales (0 otherwise). For scale none both multipliers are 1.
struct BlockScale {
  float encode = 1.f;
  float decode = 1.f;
  uint8_t code = 0;
};
// `block_amax` is the amax over the block (1D) or tile (2D); ignored for per-tensor fp32 scaling,
// which uses tensor.amax (current) or tensor.delayed (delayed: encode = the scale, decode = RN(1/scale)).
BlockScale block_scale(const QuantSpec& spec, const TensorScaling& tensor, float block_amax);
// The multipliers of an e4m3, ufloat or ue8m0 scale code (block_scale = this after the code is chosen).
BlockScale block_scale_from_code(const QuantSpec& spec, const TensorScaling& tensor, uint8_t code);

// Whether the spec's block scales are one-byte codes (e4m3, ufloat, ue8m0), and a code's value
// (the raw block scale, without NVFP4's tensor scale).
bool has_scale_codes(const QuantSpec& spec);
float decode_scale_code(const QuantSpec& spec, uint8_t code);
// Whether the spec has a per-tensor amax: NVFP4's two levels (e4m3, ufloat) or fp32 per tensor.
bool needs_tensor_amax(const QuantSpec& spec);
// ---- NVFP4 with a local encode scale per window (encode_window; NUMERICS.md, NVFP4) ----
// As TE's proposed 1x64 local-encode kernel: the window amax is floored at 1e-12 before it becomes
// S_enc (so S_enc <= RN(2688 / 1e-12) and S_enc / s_b cannot overflow).
constexpr float kWindowAmaxFloor = 1e-12f;
// The window's scaling: amax = max(window_amax, 1e-12), S_enc = nvfp4_tensor_encode_scale(amax),
// S_dec = RN(1 / S_enc).
TensorScaling window_scaling(float window_amax, int q_max = 448);
// One block under its window's scaling: s_b = nvfp4_block_scale_code(block_amax, S_enc, formula);
// encode = RN(S_enc / s_b) (TE's 1x64 kernel; 0 when s_b is 0, so an underflowed block encodes as
// zeros), decode = nvfp4_block_decode_multiplier(s_b, floored window amax, Q).
BlockScale window_block_scale(const QuantSpec& spec, const TensorScaling& window, float block_amax);

}  // namespace fp4lab
