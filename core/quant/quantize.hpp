// The block quantizer: fake-quantizes a row-major fp32 matrix according to a QuantSpec,
// optionally returning codes, raw scale bits, the global amax and statistics.
// Two implementations with one contract: `quantize` (blocked, vectorised, OpenMP over rows) and
// `quantize_reference` (scalar, bit-level codecs only). They must agree bit for bit.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/quant/quant_spec.hpp"

namespace fp4lab {

// Counter-based randomness for stochastic rounding (Philox4x32-10, Random123; core/quant/philox.hpp).
// key = a 64-bit hash of (seed, tensor_id); counter = (element_group, step). Each 128-bit draw gives
// 16 bytes, one byte per element of a group of 16 consecutive row-major elements, so the bits an
// element receives depend only on (seed, tensor_id, step, element index), never on the thread count.
// A tensor that is one data-parallel rank's slice of a global tensor keys its bits by the global
// index: element (r, c) is element (row_offset + r, col_offset + c) of a row-major tensor with
// `global_cols` columns (0: this tensor's own width).
struct QuantRandom {
  uint64_t seed = 0;
  uint64_t tensor_id = 0;
  uint64_t step = 0;
  int64_t row_offset = 0, col_offset = 0, global_cols = 0;
  uint64_t global_index(int64_t r, int64_t c, int64_t cols) const {
    return uint64_t((row_offset + r) * (global_cols > 0 ? global_cols : cols) + col_offset + c);
  }
  bool operator==(const QuantRandom&) const = default;
};

// Statistics of one quantization, gathered in the same pass.
struct QuantStats {
  float amax = 0.f;            // max |x| of the (post-RHT) input; NaN ignored (fmax), Inf counts
  int64_t count = 0;           // elements
  int64_t flushed = 0;         // finite nonzero inputs (either sign) whose dequantized value is +-0
  int64_t saturated = 0;       // |x| * encode scale > element max before rounding (MX floor rule: the
                               // clipped values), in blocks whose dequant scale is nonzero (an
                               // underflowed NVFP4 block's +-6 codes count as flushed instead)
  double signal_energy = 0.0;  // sum x^2 over finite x
  double error_energy = 0.0;   // sum (x - dequant)^2 where both are finite
  int64_t nonfinite = 0;       // NaN/Inf inputs
  int64_t first_nonfinite = -1;  // row-major index of the first one, -1 if none
  // Decoded raw block scales (the e4m3 / ue8m0 value, without NVFP4's fp32 tensor scale) over the
  // valid blocks: those whose amax is nonzero (all-zero blocks carry no information) and whose
  // scale is finite. A 16x16 tile counts once. Zero for formats without raw block scales.
  int64_t scaled_blocks = 0;
  float scale_min = 0.f, scale_max = 0.f;
  double scale_sum = 0.0, scale_sum_sq = 0.0;
  double sqnr_db() const;      // 10 log10(signal/error); +inf when error is 0
  double scale_std() const;    // population standard deviation of the valid block scales
};

// Optional outputs; leave a pointer null to skip it.
struct QuantOutputs {
  std::vector<uint8_t>* codes = nullptr;   // rows*cols element codes (E2M1: 0..15; FP8: raw byte);
                                           // cleared for bf16 and none
  std::vector<uint8_t>* scales = nullptr;  // rows*(cols/block) raw scale bits (E4M3 or UE8M0), one per
                                           // row even for 2D; cleared for scale none and fp32
  float* global_amax = nullptr;            // the tensor amax (post-RHT when rht) for every format;
                                           // NVFP4's S_enc = RN(2688 / global_amax)
  QuantStats* stats = nullptr;
  // The non-finite sentinel: set to whether any input element (post-RHT) or output element is NaN
  // or Inf. Gathered in the encoding pass (one compare per 8 elements), without the statistics.
  bool* nonfinite = nullptr;
  // Not an output but a hook: for a rank's slice of a data-parallel tensor, turns the local tensor
  // amax into the global one (the max over ranks) before any scale is formed, as TE all-reduces
  // amaxes across shards. Called once per quantize() that needs a tensor amax.
  const std::function<float(float)>* reduce_amax = nullptr;
  std::vector<float>* row_amax = nullptr;  // row-scaled NVFP4: each row's amax (its S_enc's); cleared
                                           // for every other spec
  // NVFP4 with encode_window W: rows x (cols / W) window amaxes, unfloored (each window's S_enc is
  // nvfp4_tensor_encode_scale(max(amax, 1e-12))); one per row even for 2D (W x W windows repeat
  // theirs on each of their W rows). Cleared for every other spec.
  std::vector<float>* window_amax = nullptr;
};

// out = dequant(quant(in)) for a rows x cols row-major matrix. With spec.rht, `out` (and codes,
// scales, stats) are those of the transformed tensor in·H along the last axis, exactly what the
// wgrad GEMM consumes; H is orthonormal so (A·H)(B·H)^T == A·B^T. `in` and `out` may alias.
// Throws std::invalid_argument if validate(spec, rows, cols) fails. Runs OpenMP over rows (bands of
// tile rows for 2D); results do not depend on the thread count.
// With operand_dtype bf16 the input is rounded to bf16 first and everything (codes, scales, amax,
// statistics) is that of the rounded tensor. `delayed_scale` is the fp32 scale of a spec with
// Scaling::delayed (ignored otherwise); the tensor's own amax is still reported in global_amax.
void quantize(const float* in, float* out, int64_t rows, int64_t cols, const QuantSpec& spec,
              const QuantRandom& rnd = {}, const QuantOutputs& extra = {}, float delayed_scale = 1.0f);

// Scalar reference with the same contract (single thread, no vectorisation).
void quantize_reference(const float* in, float* out, int64_t rows, int64_t cols,
                        const QuantSpec& spec, const QuantRandom& rnd = {},
                        const QuantOutputs& extra = {}, float delayed_scale = 1.0f);

// One quantized 2-D tensor with everything the quantizer reports (for `fp4lab quantize`, the
// conformance vectors and the Python module).
struct QuantizedTensor {
  int64_t rows = 0, cols = 0;
  QuantSpec spec;
  QuantRandom random;
  std::vector<float> dequant;   // rows x cols
  std::vector<uint8_t> codes;   // rows x cols, empty for bf16/none
  std::vector<uint8_t> scales;  // rows x cols/block, empty without e4m3/ue8m0 scales
  float global_amax = 0.f;
  std::vector<float> row_amax;  // row-scaled NVFP4 only
  QuantStats stats;
  std::vector<float> window_amax;  // rows x cols / encode_window, NVFP4 with encode_window only
};

// quantize() of x [rows, cols] into a QuantizedTensor (same contract and exceptions).
QuantizedTensor quantize_tensor(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
                                const QuantRandom& random = {});

}  // namespace fp4lab
