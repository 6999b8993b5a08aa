// quantize: the fast block quantizer. Up to two passes over the tensor: (1) the Hadamard
// transform into `out` and/or the tensor amax when the format needs it first (NVFP4, per-tensor
// fp32 scaling), (2) per row (1D) or per band of tile rows (2D), under OpenMP: block amax, block
// scale from a per-code table, then the AVX2 element kernel of encode_kernels.hpp.
// Every element, code, scale and count is bit-identical to quantize_reference, for any thread count.
#include "core/quant/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/quant/block_scale.hpp"
#include "core/quant/encode_kernels.hpp"
#include "core/quant/philox.hpp"
#include "core/quant/rht.hpp"

namespace fp4lab {
namespace {

using detail::Kernel;
using detail::LaneStats;
using detail::RowStats;

using SpanFn = void (*)(const float*, float*, uint8_t*, const uint8_t*, int64_t, const BlockScale&, float,
                        RowStats&, LaneStats&);

template <Kernel K>
SpanFn span_function(bool codes, bool stats) {
  if (codes) return stats ? detail::encode_span<K, true, true> : detail::encode_span<K, true, false>;
  return stats ? detail::encode_span<K, false, true> : detail::encode_span<K, false, false>;
}

SpanFn span_function(const QuantSpec& spec, bool codes, bool stats) {
  switch (spec.element) {
    case ElementFormat::none: return span_function<Kernel::copy>(false, stats);
    case ElementFormat::bf16: return span_function<Kernel::bf16>(false, stats);
    case ElementFormat::fp8_e4m3: return span_function<Kernel::fp8_e4m3>(codes, stats);
    case ElementFormat::fp8_e5m2: return span_function<Kernel::fp8_e5m2>(codes, stats);
    case ElementFormat::fp4_e2m1:
      return spec.rounding == Rounding::sr ? span_function<Kernel::fp4_sr>(codes, stats)
                                           : span_function<Kernel::fp4_rne>(codes, stats);
  }
  return nullptr;
}

// max |x| over n values, NaN ignored.
float abs_max_span(const float* x, int64_t n) {
  int64_t i = 0;
  float m = 0.0f;
#ifdef __AVX2__
  __m256 acc = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) acc = _mm256_max_ps(detail::abs_ps(_mm256_loadu_ps(x + i)), acc);  // NaN -> acc
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  for (float lane : lanes) m = lane > m ? lane : m;
#endif
  for (; i < n; ++i) m = std::fabs(x[i]) > m ? std::fabs(x[i]) : m;
  return m;
}

int64_t first_nonfinite(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return i;
  return -1;
}

// Block scales through per-code tables: one scale-code computation and a table read per block.
class BlockScaler {
 public:
  BlockScaler(const QuantSpec& spec, const TensorScaling& tensor) : spec_(spec), tensor_(tensor) {
    if (spec.scale == ScaleFormat::e4m3 || spec.scale == ScaleFormat::ue8m0)
      for (int code = 0; code < 256; ++code)
        table_[code] = block_scale_from_code(spec, tensor, static_cast<uint8_t>(code));
  }
  BlockScale operator()(float block_amax) const {
    switch (spec_.scale) {
      case ScaleFormat::e4m3: return table_[nvfp4_block_scale_code(block_amax, tensor_.s_enc, spec_.formula)];
      case ScaleFormat::ue8m0: return table_[mx_block_scale_code(block_amax, spec_.element, spec_.scale_rule)];
      default: return block_scale(spec_, tensor_, block_amax);
    }
  }

 private:
  QuantSpec spec_;
  TensorScaling tensor_;
  BlockScale table_[256];
};

}  // namespace

double QuantStats::sqnr_db() const {
  if (error_energy == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal_energy / error_energy);
}

void quantize(const float* in, float* out, int64_t rows, int64_t cols, const QuantSpec& spec,
              const QuantRandom& rnd, const QuantOutputs& extra) {
  const std::string problem = validate(spec, rows, cols);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const int64_t n = rows * cols;
  const bool has_codes = spec.element == ElementFormat::fp4_e2m1 || spec.element == ElementFormat::fp8_e4m3 ||
                         spec.element == ElementFormat::fp8_e5m2;
  const bool has_scale_bytes = spec.scale == ScaleFormat::e4m3 || spec.scale == ScaleFormat::ue8m0;
  const bool block_scaled = spec.scale != ScaleFormat::none && spec.block > 0;
  const bool want_stats = extra.stats != nullptr;
  const bool want_amax = want_stats || extra.global_amax != nullptr;
  const int64_t block = spec.block > 0 ? spec.block : cols;  // elements sharing one BlockScale
  const int64_t blocks_per_row = block > 0 ? cols / block : 0;
  const int64_t band = spec.tile == Tile::d2 ? block : 1;    // rows sharing one block amax
  const int64_t bands = band > 0 ? rows / band : 0;

  // Pass 1: the Hadamard transform (into out) and the tensor amax, if needed before encoding.
  const float* src = in;
  const bool needs_tensor_amax =
      spec.scale == ScaleFormat::e4m3 || (spec.scale == ScaleFormat::fp32 && spec.block == 0);
  bool amax_known = false;
  std::vector<float> unit_amax(static_cast<size_t>(std::max<int64_t>(rows, 0)), 0.0f);  // per row or band
  if (spec.rht) {
    const Rht rht = make_rht(spec.rht_size, spec.rht_sign_seed);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) unit_amax[r] = rht_row(rht, in + r * cols, out + r * cols, cols);
    src = out;
    amax_known = true;
  } else if (needs_tensor_amax) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) unit_amax[r] = abs_max_span(in + r * cols, cols);
    amax_known = true;
  }
  float amax = 0.0f;
  if (amax_known)
    for (float a : unit_amax) amax = a > amax ? a : amax;
  const TensorScaling tensor = tensor_scaling(spec, amax);
  const BlockScaler scaler(spec, tensor);

  if (extra.codes) extra.codes->assign(has_codes ? static_cast<size_t>(n) : 0, 0);
  if (extra.scales) extra.scales->assign(has_scale_bytes ? static_cast<size_t>(rows * blocks_per_row) : 0, 0);
  uint8_t* codes = extra.codes && has_codes ? extra.codes->data() : nullptr;
  uint8_t* scales = extra.scales && has_scale_bytes ? extra.scales->data() : nullptr;
  const SpanFn encode = span_function(spec, codes != nullptr, want_stats);
  const float saturation_limit = element_max(spec.element);
  const bool stochastic = spec.rounding == Rounding::sr;
  const PhiloxStream stream(rnd);
  std::vector<RowStats> row_stats(want_stats ? static_cast<size_t>(rows) : 0);
  std::vector<int64_t> row_first_nonfinite(want_stats ? static_cast<size_t>(rows) : 0, -1);

  // Pass 2: encode, one row (1D) or one band of `block` rows (2D) per work item.
#pragma omp parallel
  {
    std::vector<uint8_t> random(stochastic ? static_cast<size_t>(cols) : 0);
    std::vector<float> tile_amax(spec.tile == Tile::d2 ? static_cast<size_t>(blocks_per_row) : 0);
#pragma omp for schedule(static)
    for (int64_t g = 0; g < bands; ++g) {
      float band_amax = 0.0f;
      if (spec.tile == Tile::d2) {
        for (int64_t b = 0; b < blocks_per_row; ++b) {
          float m = 0.0f;
          for (int64_t r = g * band; r < (g + 1) * band; ++r) m = std::max(m, abs_max_span(src + r * cols + b * block, block));
          tile_amax[b] = m;
          band_amax = std::max(band_amax, m);
        }
      }
      for (int64_t r = g * band; r < (g + 1) * band; ++r) {
        const float* x = src + r * cols;
        float* y = out + r * cols;
        if (stochastic) stream.fill(static_cast<uint64_t>(r * cols), cols, random.data());
        if (want_stats) row_first_nonfinite[r] = first_nonfinite(x, cols);  // before an in-place write
        if (want_amax && !amax_known && !block_scaled) band_amax = std::max(band_amax, abs_max_span(x, cols));
        RowStats st;
        LaneStats lanes;
        for (int64_t b = 0; b < blocks_per_row; ++b) {
          const int64_t c0 = b * block;
          float block_amax = 0.0f;
          if (block_scaled) {
            block_amax = spec.tile == Tile::d2 ? tile_amax[b] : abs_max_span(x + c0, block);
            if (spec.tile == Tile::d1) band_amax = std::max(band_amax, block_amax);
          }
          const BlockScale s = scaler(block_amax);
          if (scales) scales[r * blocks_per_row + b] = s.code;
          encode(x + c0, y + c0, codes ? codes + r * cols + c0 : nullptr, stochastic ? random.data() + c0 : nullptr,
                 block, s, saturation_limit, st, lanes);
        }
        if (want_stats) {
          lanes.add_to(st);
          row_stats[r] = st;
        }
      }
      if (!amax_known) unit_amax[g] = band_amax;
    }
  }

  if (!amax_known)
    for (int64_t g = 0; g < bands; ++g) amax = unit_amax[g] > amax ? unit_amax[g] : amax;
  if (extra.global_amax) *extra.global_amax = amax;
  if (want_stats) {
    QuantStats stats;
    stats.amax = amax;
    stats.count = n;
    for (int64_t r = 0; r < rows; ++r) {
      const RowStats& st = row_stats[r];
      if (stats.first_nonfinite < 0 && row_first_nonfinite[r] >= 0) stats.first_nonfinite = r * cols + row_first_nonfinite[r];
      stats.nonfinite += st.nonfinite;
      stats.flushed += st.flushed;
      stats.saturated += st.saturated;
      stats.signal_energy += st.signal;
      stats.error_energy += st.error;
    }
    *extra.stats = stats;
  }
}

}  // namespace fp4lab
