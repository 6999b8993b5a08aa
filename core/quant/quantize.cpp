// quantize, the fast path: pass 1 (with RHT, or when the tensor amax is needed first) transforms
// into `out` and keeps block amaxes; pass 2, OpenMP per row or 2D band, forms block scales (E4M3
// codes 8 blocks at a time, per-code multiplier tables) and runs the AVX2 row kernels. Bit-identical
// to quantize_reference (codes, scales, outputs, counts) for any thread count.
#include "core/quant/quantize.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/formats/fp8.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/encode_kernels.hpp"
#include "core/quant/philox.hpp"
#include "core/quant/rht.hpp"
#include "core/profile/op_timer.hpp"

namespace fp4lab {
namespace {

using detail::Kernel;
using detail::RowStats;
using detail::Tally;

using RowFn = void (*)(const float*, float*, uint8_t*, const uint8_t*, int64_t, int64_t, const float*, const float*,
                       float, RowStats&);

template <Kernel K, bool kCodes>
RowFn row_function(Tally tally) {
  switch (tally) {
    case Tally::none: return detail::encode_row<K, kCodes, Tally::none>;
    case Tally::sentinel: return detail::encode_row<K, kCodes, Tally::sentinel>;
    case Tally::full: return detail::encode_row<K, kCodes, Tally::full>;
  }
  return nullptr;
}

template <Kernel K>
RowFn row_function(bool codes, Tally tally) {
  return codes ? row_function<K, true>(tally) : row_function<K, false>(tally);
}

RowFn row_function(const QuantSpec& spec, bool codes, Tally tally) {
  switch (spec.element) {
    case ElementFormat::none: return row_function<Kernel::copy>(false, tally);
    case ElementFormat::bf16: return row_function<Kernel::bf16>(false, tally);
    case ElementFormat::fp8_e4m3: return row_function<Kernel::fp8_e4m3>(codes, tally);
    case ElementFormat::fp8_e5m2: return row_function<Kernel::fp8_e5m2>(codes, tally);
    case ElementFormat::fp4_e2m1:
      return spec.rounding == Rounding::sr ? row_function<Kernel::fp4_sr>(codes, tally)
                                           : row_function<Kernel::fp4_rne>(codes, tally);
  }
  return nullptr;
}

// Adds the decoded scales of `blocks` blocks to a row's statistics, skipping all-zero blocks and
// non-finite scales (QuantStats' valid blocks).
void add_block_scales(const QuantSpec& spec, const float* block_amax, const uint8_t* codes, int64_t blocks,
                      RowStats& st) {
  for (int64_t b = 0; b < blocks; ++b) {
    if (!(block_amax[b] > 0.0f)) continue;
    const float s = decode_scale_code(spec, codes[b]);
    if (!std::isfinite(s)) continue;
    st.scale_min = st.scaled_blocks == 0 ? s : std::min(st.scale_min, s);
    st.scale_max = st.scaled_blocks == 0 ? s : std::max(st.scale_max, s);
    st.scale_sum += s;
    st.scale_sum_sq += double(s) * s;
    ++st.scaled_blocks;
  }
}

int64_t first_nonfinite(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return i;
  return -1;
}

// Block multipliers and scale codes from block amaxes: e4m3 codes eight blocks at a time with the
// fp8 vector rounding of encode_kernels.hpp, ue8m0 codes by the scalar rule, then per-code tables.
class BlockScaler {
 public:
  BlockScaler(const QuantSpec& spec, const TensorScaling& tensor) : spec_(spec), tensor_(tensor) {
    if (has_scale_codes(spec))
      for (int code = 0; code < 256; ++code)
        table_[code] = block_scale_from_code(spec, tensor, static_cast<uint8_t>(code));
  }

  void scales(const float* block_amax, int64_t blocks, float* encode, float* decode, uint8_t* codes) const {
    if (has_scale_codes(spec_)) {
      scale_codes(block_amax, blocks, codes);
      for (int64_t b = 0; b < blocks; ++b) {
        encode[b] = table_[codes[b]].encode;
        decode[b] = table_[codes[b]].decode;
      }
      return;
    }
    for (int64_t b = 0; b < blocks; ++b) {
      const BlockScale s = block_scale(spec_, tensor_, block_amax ? block_amax[b] : 0.0f);
      encode[b] = s.encode;
      decode[b] = s.decode;
      codes[b] = 0;
    }
  }

 private:
  void scale_codes(const float* block_amax, int64_t blocks, uint8_t* codes) const {
    int64_t b = 0;
    if (spec_.scale == ScaleFormat::ue8m0) {
      for (; b < blocks; ++b) codes[b] = mx_block_scale_code(block_amax[b], spec_.element, spec_.scale_rule);
      return;
    }
#ifdef __AVX2__
    // nvfp4_block_scale_code, vectorised: the same fp32 operations, then E4M3 RNE satfinite.
    // Other scale grids and roundings take the scalar loop below.
    const bool vector = spec_.scale == ScaleFormat::e4m3 && spec_.scale_round == UfloatRounding::nearest;
    const __m256 factor = _mm256_set1_ps(tensor_.s_enc * kRecipSix);  // te_2_14: RN(S_enc * RN(1/6))
    const __m256 s_enc = _mm256_set1_ps(tensor_.s_enc), six = _mm256_set1_ps(6.0f);
    const __m256 flt_max = _mm256_set1_ps(FLT_MAX);
    for (; vector && b + 8 <= blocks; b += 8) {
      const __m256 a = _mm256_loadu_ps(block_amax + b);
      const __m256 s_dec_b = spec_.formula == BlockScaleFormula::te_2_14
                                 ? _mm256_mul_ps(a, factor)
                                 : _mm256_mul_ps(_mm256_div_ps(a, six), s_enc);
      const __m256 clamped = _mm256_min_ps(s_dec_b, flt_max);  // fminf(x, FLT_MAX); never NaN here
      const __m256 value = detail::fp8_rne_value<3, -6>(clamped, kFp8E4m3Max);
      detail::store_codes8(detail::fp8_grid_magnitude<3, -6>(value), codes + b);
    }
#endif
    for (; b < blocks; ++b) codes[b] = nvfp4_scale_code(spec_, block_amax[b], tensor_.s_enc);
  }

  QuantSpec spec_;
  TensorScaling tensor_;
  BlockScale table_[256];
};

// Pass 1 (with RHT, or when the tensor amax is needed before any block scale): the Hadamard
// transform into `out`, each row's block amaxes (when block-scaled) and each row's amax.
struct FirstPass {
  std::vector<float> block_amax;  // rows x spans (block-scaled only)
  std::vector<float> row_amax;    // rows
};

FirstPass first_pass(const float* in, float* out, int64_t rows, int64_t cols, const QuantSpec& spec, int64_t span,
                     int64_t spans, bool block_scaled) {
  FirstPass p;
  p.block_amax.resize(block_scaled ? static_cast<size_t>(rows * spans) : 0);
  p.row_amax.assign(static_cast<size_t>(rows), 0.0f);
  const float* src = spec.rht ? out : in;
  const Rht rht = spec.rht ? make_rht(spec.rht_size, spec.rht_sign_seed) : Rht{};
  const bool rht_gives_blocks = spec.rht && block_scaled && span == spec.rht_size;  // its vectors are the blocks
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    float* amax_row = block_scaled ? p.block_amax.data() + r * spans : nullptr;
    float row_amax = spec.rht ? rht_row(rht, in + r * cols, out + r * cols, cols, rht_gives_blocks ? amax_row : nullptr)
                              : 0.0f;
    if (block_scaled && !rht_gives_blocks) {
      detail::block_abs_max(src + r * cols, span, spans, amax_row);
      for (int64_t b = 0; b < spans; ++b) row_amax = detail::max_ignoring_nan(row_amax, amax_row[b]);
    } else if (!spec.rht) {
      row_amax = detail::abs_max_span(in + r * cols, cols);
    }
    p.row_amax[r] = row_amax;
  }
  return p;
}

// Window amaxes (encode_window W): the max of each window's block amaxes, then for 2D the max over
// the window's W rows, stored on each of them. rows x cols/W; empty without windows.
std::vector<float> window_amaxes(const QuantSpec& spec, int64_t rows, int64_t cols, int64_t span, int64_t spans,
                                 const std::vector<float>& block_amax) {
  const int64_t window = spec.encode_window, windows = window > 0 ? cols / window : 0;
  std::vector<float> window_amax(static_cast<size_t>(rows * windows));
  if (windows == 0) return window_amax;
  const int64_t blocks_per_window = window / span;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t w = 0; w < windows; ++w) {
      float m = 0.0f;
      for (int64_t j = 0; j < blocks_per_window; ++j)
        m = detail::max_ignoring_nan(m, block_amax[size_t(r * spans + w * blocks_per_window + j)]);
      window_amax[size_t(r * windows + w)] = m;
    }
  if (spec.tile == Tile::d2)
    for (int64_t r0 = 0; r0 < rows; r0 += window)
      for (int64_t w = 0; w < windows; ++w) {
        float m = 0.0f;
        for (int64_t r = r0; r < r0 + window; ++r) m = detail::max_ignoring_nan(m, window_amax[size_t(r * windows + w)]);
        for (int64_t r = r0; r < r0 + window; ++r) window_amax[size_t(r * windows + w)] = m;
      }
  return window_amax;
}

// Block scales of 4over6, row-scaled and windowed NVFP4, chosen block by block (4over6: the
// candidate with the smaller error over the block's rows of `x`), multipliers of the row's own
// tensor scaling or of the block's window.
struct AdaptiveScaler {
  const QuantSpec& spec;
  const TensorScaling& tensor;
  const std::vector<float>& row_amax;     // row-scaled: each row's amax
  const std::vector<float>& window_amax;  // windowed: rows x windows
  int64_t cols, span, spans;

  static bool needed(const QuantSpec& spec) {
    return spec.four_over_six != FourOverSix::off || spec.row_scaled || spec.encode_window > 0;
  }

  void operator()(const float* x, int64_t band_rows, const float* block_amax, int64_t first_row, float* encode,
                  float* decode, uint8_t* codes) const {
    if (spec.encode_window > 0) {
      const int64_t windows = cols / spec.encode_window;
      for (int64_t b = 0; b < spans; ++b) {
        const float w_amax = window_amax[size_t(first_row * windows + b * span / spec.encode_window)];
        const BlockScale s = window_block_scale(spec, window_scaling(w_amax, spec.global_e4m3_max), block_amax[b]);
        encode[b] = s.encode;
        decode[b] = s.decode;
        codes[b] = s.code;
      }
      return;
    }
    const TensorScaling t = spec.row_scaled ? tensor_scaling(spec, row_amax[first_row]) : tensor;
    if (spec.four_over_six == FourOverSix::off)
      for (int64_t b = 0; b < spans; ++b) codes[b] = nvfp4_scale_code(spec, block_amax[b], t.s_enc);
    else
      four_over_six_scale_codes(spec, t, x, cols, band_rows, block_amax, codes);
    for (int64_t b = 0; b < spans; ++b) {
      const BlockScale s = block_scale_from_code(spec, t, codes[b]);
      encode[b] = s.encode;
      decode[b] = s.decode;
    }
  }
};

// The tensor's statistics from its rows' (row order, so any thread count gives the same sums).
QuantStats merge_row_stats(const std::vector<RowStats>& row_stats, const std::vector<int64_t>& row_first_nonfinite,
                           float amax, int64_t rows, int64_t cols) {
  QuantStats stats;
  stats.amax = amax;
  stats.count = rows * cols;
  for (int64_t r = 0; r < rows; ++r) {
    const RowStats& st = row_stats[r];
    if (stats.first_nonfinite < 0 && row_first_nonfinite[r] >= 0) stats.first_nonfinite = r * cols + row_first_nonfinite[r];
    stats.nonfinite += st.nonfinite;
    stats.flushed += st.flushed;
    stats.saturated += st.saturated;
    stats.signal_energy += st.signal;
    stats.error_energy += st.error;
    if (st.scaled_blocks > 0) {
      stats.scale_min = stats.scaled_blocks == 0 ? st.scale_min : std::min(stats.scale_min, st.scale_min);
      stats.scale_max = stats.scaled_blocks == 0 ? st.scale_max : std::max(stats.scale_max, st.scale_max);
      stats.scale_sum += st.scale_sum;
      stats.scale_sum_sq += st.scale_sum_sq;
      stats.scaled_blocks += st.scaled_blocks;
    }
  }
  return stats;
}

}  // namespace

double QuantStats::sqnr_db() const {
  if (error_energy == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal_energy / error_energy);
}

double QuantStats::scale_std() const {
  if (scaled_blocks == 0) return 0.0;
  const double n = double(scaled_blocks), mean = scale_sum / n;
  return std::sqrt(std::max(0.0, scale_sum_sq / n - mean * mean));
}

void quantize(const float* in, float* out, int64_t rows, int64_t cols, const QuantSpec& spec,
              const QuantRandom& rnd, const QuantOutputs& extra, float delayed_scale) {
  const OpScope op_scope(OpGroup::quantizer);
  const std::string problem = validate(spec, rows, cols);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const int64_t n = rows * cols;
  if (spec.operand_dtype == OperandDtype::bf16 && spec.quantized()) {  // TE quantizes the bf16 tensor
    QuantSpec as_bf16, rest = spec;
    as_bf16.element = ElementFormat::bf16;
    rest.operand_dtype = OperandDtype::fp32;
    quantize(in, out, rows, cols, as_bf16);  // in `out`, then quantized there in place
    quantize(out, out, rows, cols, rest, rnd, extra, delayed_scale);
    return;
  }
  const bool has_codes = element_info(spec.element).codes;
  const bool has_scale_bytes = has_scale_codes(spec);
  const bool block_scaled = spec.scale != ScaleFormat::none && spec.block > 0;
  const bool want_stats = extra.stats != nullptr;
  const Tally tally = want_stats ? Tally::full : extra.nonfinite ? Tally::sentinel : Tally::none;
  // The sentinel of the quantizing kernels reads Inf inputs off the amax (see detail::Tally).
  const bool want_amax = want_stats || extra.global_amax != nullptr || (extra.nonfinite && has_codes);
  // Elements sharing one scale: a block, or the whole row for unscaled and per-tensor formats.
  const int64_t span = spec.block > 0 ? spec.block : cols;
  const int64_t spans = span > 0 ? cols / span : 0;
  const int64_t band = spec.tile == Tile::d2 ? spec.block : 1;  // rows sharing one block amax
  const int64_t bands = rows / band;

  // Pass 1: Hadamard transform (into out), block amaxes, tensor amax.
  const bool tensor_amax_first = needs_tensor_amax(spec);
  const bool prepass = spec.rht || tensor_amax_first;
  const float* src = spec.rht ? out : in;
  FirstPass first = prepass ? first_pass(in, out, rows, cols, spec, span, spans, block_scaled) : FirstPass{};
  std::vector<float>& kept_block_amax = first.block_amax;
  std::vector<float>& unit_amax = first.row_amax;  // per row (pass 1) or band (pass 2)
  if (!prepass) unit_amax.assign(static_cast<size_t>(rows), 0.0f);
  float amax = 0.0f;
  if (prepass)
    for (float a : unit_amax) amax = detail::max_ignoring_nan(amax, a);
  if (extra.reduce_amax && tensor_amax_first && !spec.row_scaled) amax = (*extra.reduce_amax)(amax);
  const TensorScaling tensor = tensor_scaling(spec, amax, delayed_scale);
  const BlockScaler scaler(spec, tensor);
  const std::vector<float> window_amax = window_amaxes(spec, rows, cols, span, spans, kept_block_amax);
  const bool adaptive = AdaptiveScaler::needed(spec);
  const AdaptiveScaler adaptive_scales{spec, tensor, unit_amax, window_amax, cols, span, spans};

  if (extra.codes) {  // every element's code is written below
    if (has_codes) extra.codes->resize(static_cast<size_t>(n));
    else extra.codes->clear();
  }
  if (extra.scales) extra.scales->assign(has_scale_bytes ? static_cast<size_t>(rows * spans) : 0, 0);
  uint8_t* codes = extra.codes && has_codes ? extra.codes->data() : nullptr;
  uint8_t* scales = extra.scales && has_scale_bytes ? extra.scales->data() : nullptr;
  const RowFn encode_row = row_function(spec, codes != nullptr, tally);
  const float saturation_limit = element_info(spec.element).max;
  const bool stochastic = spec.rounding == Rounding::sr;
  const PhiloxStream stream(rnd);
  std::vector<RowStats> row_stats(tally != Tally::none ? static_cast<size_t>(rows) : 0);
  std::vector<int64_t> row_first_nonfinite(want_stats ? static_cast<size_t>(rows) : 0, -1);

  // Pass 2: encode, one row (1D) or one band of block rows (2D) per work item.
#pragma omp parallel
  {
    const size_t per_row = static_cast<size_t>(spans);
    std::vector<uint8_t> random(stochastic ? static_cast<size_t>(cols) : 0);
    std::vector<float> band_block_amax(block_scaled && !prepass ? band * per_row : 0);
    std::vector<float> tile_amax(spec.tile == Tile::d2 ? per_row : 0);
    std::vector<float> encode(per_row), decode(per_row);
    std::vector<uint8_t> scale_codes(per_row);
    if (!block_scaled && spans > 0) scaler.scales(nullptr, spans, encode.data(), decode.data(), scale_codes.data());
#pragma omp for schedule(static)
    for (int64_t g = 0; g < bands; ++g) {
      float band_amax = 0.0f;
      auto row_block_amax = [&](int64_t r) {
        return prepass ? kept_block_amax.data() + r * spans : band_block_amax.data() + (r - g * band) * spans;
      };
      if (block_scaled) {
        for (int64_t r = g * band; r < (g + 1) * band; ++r) {
          if (!prepass) detail::block_abs_max(src + r * cols, span, spans, row_block_amax(r));
          for (int64_t b = 0; b < spans; ++b) band_amax = detail::max_ignoring_nan(band_amax, row_block_amax(r)[b]);
        }
        if (spec.tile == Tile::d2) {
          for (int64_t b = 0; b < spans; ++b) {
            float m = 0.0f;
            for (int64_t r = g * band; r < (g + 1) * band; ++r) m = detail::max_ignoring_nan(m, row_block_amax(r)[b]);
            tile_amax[b] = m;
          }
          if (adaptive)
            adaptive_scales(src + g * band * cols, band, tile_amax.data(), g * band, encode.data(), decode.data(),
                            scale_codes.data());
          else
            scaler.scales(tile_amax.data(), spans, encode.data(), decode.data(), scale_codes.data());
          if (want_stats && has_scale_bytes)  // one tile counted once: on its first row
            add_block_scales(spec, tile_amax.data(), scale_codes.data(), spans, row_stats[g * band]);
        }
      }
      for (int64_t r = g * band; r < (g + 1) * band; ++r) {
        const float* x = src + r * cols;
        if (block_scaled && spec.tile == Tile::d1) {
          if (adaptive)
            adaptive_scales(x, 1, row_block_amax(r), r, encode.data(), decode.data(), scale_codes.data());
          else
            scaler.scales(row_block_amax(r), spans, encode.data(), decode.data(), scale_codes.data());
        }
        if (scales) std::copy(scale_codes.begin(), scale_codes.end(), scales + r * spans);
        if (stochastic) stream.fill(rnd.global_index(r, 0, cols), cols, random.data());
        if (want_stats) row_first_nonfinite[r] = first_nonfinite(x, cols);  // before an in-place write
        if (want_amax && !prepass && !block_scaled) band_amax = detail::max_ignoring_nan(band_amax, detail::abs_max_span(x, cols));
        RowStats st = tally != Tally::none ? row_stats[r] : RowStats{};
        encode_row(x, out + r * cols, codes ? codes + r * cols : nullptr, stochastic ? random.data() : nullptr, span,
                   spans, encode.data(), decode.data(), saturation_limit, st);
        if (tally != Tally::none && has_codes && !st.any_nonfinite) {
          // Finite inputs give a non-finite output only where a decode multiplier times the largest
          // element overflows (or is itself non-finite): check those rows' outputs.
          bool suspect = false;
          for (int64_t b = 0; b < spans; ++b) suspect = suspect || !(decode[size_t(b)] * saturation_limit <= FLT_MAX);
          if (suspect) st.any_nonfinite = first_nonfinite(out + r * cols, cols) >= 0;
        }
        if (want_stats && has_scale_bytes && spec.tile == Tile::d1)
          add_block_scales(spec, row_block_amax(r), scale_codes.data(), spans, st);
        if (tally != Tally::none) row_stats[r] = st;
      }
      if (!prepass) unit_amax[g] = band_amax;
    }
  }

  if (!prepass)
    for (int64_t g = 0; g < bands; ++g) amax = detail::max_ignoring_nan(amax, unit_amax[g]);
  if (extra.global_amax) *extra.global_amax = amax;
  if (extra.row_amax) {
    if (spec.row_scaled) extra.row_amax->assign(unit_amax.begin(), unit_amax.end());
    else extra.row_amax->clear();
  }
  if (extra.window_amax) extra.window_amax->assign(window_amax.begin(), window_amax.end());
  if (extra.nonfinite) {
    bool any = has_codes && amax == std::numeric_limits<float>::infinity();  // an Inf input
    for (const RowStats& st : row_stats) any = any || st.any_nonfinite;
    *extra.nonfinite = any;
  }
  if (want_stats) *extra.stats = merge_row_stats(row_stats, row_first_nonfinite, amax, rows, cols);
}

QuantizedTensor quantize_tensor(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
                                const QuantRandom& random) {
  QuantizedTensor q;
  q.rows = rows;
  q.cols = cols;
  q.spec = spec;
  q.random = random;
  q.dequant.resize(x.size());
  QuantOutputs out{&q.codes, &q.scales, &q.global_amax, &q.stats};
  out.row_amax = &q.row_amax;
  out.window_amax = &q.window_amax;
  quantize(x.data(), q.dequant.data(), rows, cols, spec, random, out);
  return q;
}

}  // namespace fp4lab
