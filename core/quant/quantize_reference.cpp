// quantize_reference: the scalar definition of the block quantizer. One element at a time through
// the scalar codecs of core/formats, block amaxes recomputed per element row, no vectorisation,
// no threads. The fast path (quantize.cpp) is tested against this bit for bit.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/formats/ue8m0.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/philox.hpp"
#include "core/quant/quantize.hpp"
#include "core/quant/rht.hpp"

namespace fp4lab {
namespace {

float abs_max(float acc, float x) { return std::fabs(x) > acc ? std::fabs(x) : acc; }  // NaN ignored

uint8_t encode_element(ElementFormat element, Rounding rounding, float y, uint8_t random_byte) {
  switch (element) {
    case ElementFormat::fp4_e2m1:
      return rounding == Rounding::sr ? fp4_e2m1_encode_sr(y, random_byte) : fp4_e2m1_encode_rne(y);
    case ElementFormat::fp8_e4m3: return fp8_e4m3_encode_rne(y);
    case ElementFormat::fp8_e5m2: return fp8_e5m2_encode_rne(y);
    default: return 0;
  }
}

float decode_element(ElementFormat element, uint8_t code) {
  switch (element) {
    case ElementFormat::fp4_e2m1: return fp4_e2m1_decode(code);
    case ElementFormat::fp8_e4m3: return fp8_e4m3_decode(code);
    case ElementFormat::fp8_e5m2: return fp8_e5m2_decode(code);
    default: return 0.0f;
  }
}

}  // namespace

void quantize_reference(const float* in, float* out, int64_t rows, int64_t cols, const QuantSpec& spec,
                        const QuantRandom& rnd, const QuantOutputs& extra) {
  const std::string problem = validate(spec, rows, cols);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const int64_t n = rows * cols;

  // The tensor being quantized: the input, or its row-wise Hadamard transform.
  std::vector<float> x(in, in + n);
  if (spec.rht) {
    const Rht rht = make_rht(spec.rht_size, spec.rht_sign_seed);
    for (int64_t i = 0; i < n; i += spec.rht_size) rht_vector_reference(rht, in + i, x.data() + i);
  }
  float amax = 0.0f;
  for (int64_t i = 0; i < n; ++i) amax = abs_max(amax, x[i]);
  const TensorScaling tensor = tensor_scaling(spec, amax);

  const bool has_codes = spec.element == ElementFormat::fp4_e2m1 || spec.element == ElementFormat::fp8_e4m3 ||
                         spec.element == ElementFormat::fp8_e5m2;
  const bool has_scale_bytes = spec.scale == ScaleFormat::e4m3 || spec.scale == ScaleFormat::ue8m0;
  const int64_t block = spec.block > 0 ? spec.block : cols;  // loop unit along a row
  const int64_t blocks_per_row = block > 0 ? cols / block : 0;
  if (extra.codes) extra.codes->assign(has_codes ? static_cast<size_t>(n) : 0, 0);
  if (extra.scales) extra.scales->assign(has_scale_bytes ? static_cast<size_t>(rows * blocks_per_row) : 0, 0);
  if (extra.global_amax) *extra.global_amax = amax;
  const PhiloxStream stream(rnd);
  const float saturation_limit = element_max(spec.element);

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
      const BlockScale scale = block_scale(spec, tensor, block_amax);
      if (extra.scales && has_scale_bytes) (*extra.scales)[r * blocks_per_row + b] = scale.code;
      if (has_scale_bytes && r == r0 && block_amax > 0.0f) {  // a valid block (a tile: on its first row)
        const float s = spec.scale == ScaleFormat::e4m3 ? fp8_e4m3_decode(scale.code) : ue8m0_decode(scale.code);
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
          if (spec.rounding == Rounding::sr) stream.group_bytes(static_cast<uint64_t>(i) / 16, random_bytes);
          y = v * scale.encode;
          const uint8_t code = encode_element(spec.element, spec.rounding, y, random_bytes[i % 16]);
          result = decode_element(spec.element, code) * scale.decode;
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
