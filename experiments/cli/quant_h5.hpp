// Shared by `fp4lab quantize`, `fp4lab gemm` and `fp4lab formats --vectors`: the quantizer's
// command-line options, reading one 2-D float32 operand, running the quantizer on it and writing
// its codes, scales, dequant and describing attributes into an HDF5 group.
// Not a general tensor store; the numerics live in core/quant.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/io/h5.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab::cli {

// One operand's quantization options, as `quantize` takes them.
struct QuantizeOptions {
  std::string in, out, dataset, format;
  int block = -1;  // -1: the format's own
  std::string scale, scale_rule, tile, rounding, te_formula, four_over_six, operand_dtype;
  int global_e4m3_max = 448;
  bool row_scaled = false;
  bool rht = false;
  int rht_size = 16;
  uint64_t rht_seed = 0;
  uint64_t seed = 0;
};

// Registers --PREFIXformat, --PREFIXblock, ... (prefix "" for quantize, "a-"/"b-" for gemm's
// operands); the format is required.
void add_quantize_options(CLI::App* cmd, QuantizeOptions& o, const std::string& prefix);
// The QuantSpec the options name; throws Exit (usage) for an unknown name.
QuantSpec build_spec(const QuantizeOptions& o);
// The 2-D float32 dataset `dataset` of `path`, checked against `spec` (shape, not all NaN); throws
// Exit (usage) naming the file and dataset otherwise.
std::vector<float> read_operand(const std::string& path, const std::string& dataset, const QuantSpec& spec,
                                int64_t& rows, int64_t& cols);

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
