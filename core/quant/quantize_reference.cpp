// quantize_reference: the scalar definition of the block quantizer. One element at a time through
// the scalar codecs of core/formats, block amaxes recomputed per element row, no vectorisation,
// no threads. The fast path (quantize.cpp) is tested against this bit for bit.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/philox.hpp"
#include "core/quant/quantize.hpp"
#include "core/quant/rht.hpp"

namespace fp4lab {
namespace {

float abs_max(float acc, float x) { return std::fabs(x) > acc ? std::fabs(x) : acc; }  // NaN ignored

uint8_t encode_element(ElementFormat element, Rounding rounding, float y, uint8_t random_byte) {
  const ElementFormatInfo& e = element_info(element);
  return static_cast<uint8_t>(rounding == Rounding::sr ? e.encode_sr(y, random_byte) : e.encode(y));
}

// 4over6 (core/quant/NUMERICS.md, TE dialects) written out element by element: the error of
// candidate block scale `code` over elements [c0, c0 + 16) of row r.
float candidate_error(const std::vector<float>& x, int64_t cols, int64_t r, int64_t c0, uint8_t code,
                      const TensorScaling& t, const QuantSpec& spec) {
  const float d = fp8_e4m3_decode(code);
  const float inv = std::fmin(1.0f / (d * t.s_dec), FLT_MAX);
  const float denom = float(spec.global_e4m3_max * 6);
  float err = 0.0f;
  for (int64_t c = c0; c < c0 + 16; ++c) {
    const float v = x[r * cols + c];
    const float q = fp4_e2m1_decode(fp4_e2m1_encode_rne(v * inv));
    const float diff = q * d * t.amax / denom - v;  // left to right, each product rounded to fp32
    err += spec.four_over_six == FourOverSix::mse ? diff * diff : std::fabs(diff);
  }
  return err;
}

// The 4over6 scale code of the block (1D) or tile (2D) holding row r, columns [c0, c0 + 16).
uint8_t four_over_six_code(const std::vector<float>& x, int64_t cols, int64_t r, int64_t c0, float block_amax,
                           const TensorScaling& t, const QuantSpec& spec) {
  const float base = block_amax / 6.0f * t.s_enc;
  const uint8_t map6 = fp8_e4m3_encode_rne(base), map4 = fp8_e4m3_encode_rne(base * 1.5f);
  if (spec.tile == Tile::d1) return candidate_error(x, cols, r, c0, map4, t, spec) <
                                        candidate_error(x, cols, r, c0, map6, t, spec) ? map4 : map6;
  const int64_t r0 = r - r % 16;
  float e4[16], e6[16];
  for (int i = 0; i < 16; ++i) {
    e4[i] = candidate_error(x, cols, r0 + i, c0, map4, t, spec);
    e6[i] = candidate_error(x, cols, r0 + i, c0, map6, t, spec);
  }
  for (int half : {8, 4, 2, 1})  // the warp-tree order
    for (int i = 0; i < half; ++i) e4[i] += e4[i + half], e6[i] += e6[i + half];
  return e4[0] < e6[0] ? map4 : map6;
}

}  // namespace

void quantize_reference(const float* in, float* out, int64_t rows, int64_t cols, const QuantSpec& spec,
                        const QuantRandom& rnd, const QuantOutputs& extra, float delayed_scale) {
  const std::string problem = validate(spec, rows, cols);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const int64_t n = rows * cols;

  // The tensor being quantized: the input (rounded to bf16 for bf16 operands), or its row-wise
  // Hadamard transform.
  const bool bf16_in = spec.operand_dtype == OperandDtype::bf16 && spec.quantized();
  std::vector<float> x(in, in + n);
  if (bf16_in)
    for (float& v : x) v = bf16_round(v);
  if (spec.rht) {
    const Rht rht = make_rht(spec.rht_size, spec.rht_sign_seed);
    const std::vector<float> rounded = x;
    for (int64_t i = 0; i < n; i += spec.rht_size) rht_vector_reference(rht, rounded.data() + i, x.data() + i);
  }
  float amax = 0.0f;
  for (int64_t i = 0; i < n; ++i) amax = abs_max(amax, x[i]);
  if (extra.reduce_amax && needs_tensor_amax(spec) && !spec.row_scaled) amax = (*extra.reduce_amax)(amax);
  const TensorScaling tensor = tensor_scaling(spec, amax, delayed_scale);

  const bool has_codes = element_info(spec.element).codes;
  const bool has_scale_bytes = has_scale_codes(spec);
  const int64_t block = spec.block > 0 ? spec.block : cols;  // loop unit along a row
  const int64_t blocks_per_row = block > 0 ? cols / block : 0;
  if (extra.codes) extra.codes->assign(has_codes ? static_cast<size_t>(n) : 0, 0);
  if (extra.scales) extra.scales->assign(has_scale_bytes ? static_cast<size_t>(rows * blocks_per_row) : 0, 0);
  if (extra.global_amax) *extra.global_amax = amax;
  if (extra.row_amax) extra.row_amax->clear();
  if (extra.window_amax) extra.window_amax->clear();
  const PhiloxStream stream(rnd);
  const float saturation_limit = element_info(spec.element).max;

  QuantStats stats;
  stats.amax = amax;
  stats.count = n;
  bool any_nonfinite = false;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < blocks_per_row; ++b) {
      const int64_t c0 = b * block;
      // Block amax: this row's block (1D) or the block x block tile holding it (2D).
      const int64_t r0 = spec.tile == Tile::d2 ? r - r % block : r;
      const int64_t r1 = spec.tile == Tile::d2 ? r0 + block : r + 1;
      float block_amax = 0.0f;
      for (int64_t rr = r0; rr < r1; ++rr)
        for (int64_t c = c0; c < c0 + block; ++c) block_amax = abs_max(block_amax, x[rr * cols + c]);
      TensorScaling t = tensor;
      if (spec.row_scaled) {
        float row_amax = 0.0f;
        for (int64_t c = 0; c < cols; ++c) row_amax = abs_max(row_amax, x[r * cols + c]);
        t = tensor_scaling(spec, row_amax);
        if (extra.row_amax && b == 0) extra.row_amax->push_back(row_amax);
      }
      BlockScale scale;
      if (spec.four_over_six != FourOverSix::off)
        scale = block_scale_from_code(spec, t, four_over_six_code(x, cols, r, c0, block_amax, t, spec));
      else if (spec.encode_window == 0)
        scale = block_scale(spec, t, block_amax);
      else {  // the amax of the window holding the block: 1 x W, or W x W (2D)
        const int64_t w = spec.encode_window, wc0 = c0 - c0 % w;
        const int64_t wr0 = spec.tile == Tile::d2 ? r - r % w : r, wr1 = spec.tile == Tile::d2 ? wr0 + w : r + 1;
        float window_amax = 0.0f;
        for (int64_t rr = wr0; rr < wr1; ++rr)
          for (int64_t c = wc0; c < wc0 + w; ++c) window_amax = abs_max(window_amax, x[rr * cols + c]);
        if (extra.window_amax && c0 == wc0) extra.window_amax->push_back(window_amax);
        scale = window_block_scale(spec, window_scaling(window_amax, spec.global_e4m3_max), block_amax);
      }
      if (extra.scales && has_scale_bytes) (*extra.scales)[r * blocks_per_row + b] = scale.code;
      if (has_scale_bytes && r == r0 && block_amax > 0.0f) {  // a valid block (a tile: on its first row)
        const float s = decode_scale_code(spec, scale.code);
        if (std::isfinite(s)) {
          stats.scale_min = stats.scaled_blocks == 0 ? s : std::min(stats.scale_min, s);
          stats.scale_max = stats.scaled_blocks == 0 ? s : std::max(stats.scale_max, s);
          stats.scale_sum += s;
          stats.scale_sum_sq += double(s) * s;
          ++stats.scaled_blocks;
        }
      }

      for (int64_t c = c0; c < c0 + block; ++c) {
        const int64_t i = r * cols + c;
        const float v = x[i];
        float y = v, result = v;
        if (spec.element == ElementFormat::bf16) {
          result = bf16_round(v);
        } else if (has_codes) {
          uint8_t random_bytes[16] = {};
          const uint64_t g = rnd.global_index(r, c, cols);
          if (spec.rounding == Rounding::sr) stream.group_bytes(g / 16, random_bytes);
          y = v * scale.encode;
          const uint8_t code = encode_element(spec.element, spec.rounding, y, random_bytes[g % 16]);
          result = element_info(spec.element).decode(code) * scale.decode;
          if (extra.codes) (*extra.codes)[i] = code;
        }
        out[i] = result;
        if (!std::isfinite(v) || !std::isfinite(result)) any_nonfinite = true;

        if (!std::isfinite(v)) {
          if (stats.nonfinite++ == 0) stats.first_nonfinite = i;
        } else {
          stats.signal_energy += static_cast<double>(v) * v;
          if (std::isfinite(result)) {
            const double e = static_cast<double>(v) - result;
            stats.error_energy += e * e;
          }
          if (v != 0.0f && result == 0.0f) ++stats.flushed;
        }
        if (std::fabs(y) > saturation_limit && scale.decode != 0.0f) ++stats.saturated;
      }
    }
  }
  if (extra.stats) *extra.stats = stats;
  if (extra.nonfinite) *extra.nonfinite = any_nonfinite;
}

}  // namespace fp4lab
