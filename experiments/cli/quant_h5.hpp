// Shared by `fp4lab quantize` and `fp4lab formats --vectors`: run the quantizer on one 2-D tensor
// and write its codes, scales, dequant and describing attributes into an HDF5 group.
// Not a general tensor store; the numerics live in core/quant.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/io/h5.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab::cli {

struct QuantizedTensor {
  int64_t rows = 0, cols = 0;
  QuantSpec spec;
  QuantRandom random;
  std::vector<float> dequant;   // rows x cols
  std::vector<uint8_t> codes;   // rows x cols, empty for bf16/none
  std::vector<uint8_t> scales;  // rows x cols/block, empty without e4m3/ue8m0 scales
  float global_amax = 0.f;
  QuantStats stats;
};

QuantizedTensor quantize_tensor(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
                                const QuantRandom& random = {});

// Datasets `codes` (uint8), `scales` (uint8), `dequant` (float32) under `group` (omitting empty
// ones), and on the group the attributes global_amax, format (describe()), the spec fields
// (element, block, scale, scale_rule, tile, rounding, rht, rht_size, rht_sign_seed, formula),
// the SR stream (seed, tensor_id, step) and the statistics (amax, flushed, saturated, nonfinite,
// sqnr_db).
void write_quantized(h5::File& file, const std::string& group, const QuantizedTensor& q);

}  // namespace fp4lab::cli
