// Shared by `fp4lab quantize`, `fp4lab gemm` and `fp4lab formats --vectors`: the quantizer's
// command-line options, reading one 2-D float32 operand, running the quantizer on it and writing
// its codes, scales, dequant and describing attributes into an HDF5 group.
// Not a general tensor store; the numerics live in core/quant.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/io/h5.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab::cli {

// One operand's quantization options, as `quantize` takes them.
struct QuantizeOptions {
  std::string in, out, dataset, format;
  std::map<std::string, std::string> options;  // the spec fields given (spec_fields() option names)
  uint64_t seed = 0;                            // stochastic rounding seed
};

// Registers --PREFIXformat, --PREFIXseed and one flag per option of spec_fields() (prefix "" for
// quantize, "a-"/"b-" for gemm's operands); the format is required.
void add_quantize_options(CLI::App* cmd, QuantizeOptions& o, const std::string& prefix);
// The QuantSpec the options name; throws Exit (usage) for an unknown name.
QuantSpec build_spec(const QuantizeOptions& o);
// The 2-D float32 dataset `dataset` of `path`, checked against `spec` (shape, not all NaN); throws
// Exit (usage) naming the file and dataset otherwise.
std::vector<float> read_operand(const std::string& path, const std::string& dataset, const QuantSpec& spec,
                                int64_t& rows, int64_t& cols);

// Datasets `codes` (uint8), `scales` (uint8), `dequant` (float32) under `group` (omitting empty
// ones), and on the group the attributes global_amax, format (describe()), every spec field
// (spec_fields(): enumerations as strings, the rest as int64), the SR stream (seed, tensor_id, step) and the statistics (amax, flushed, saturated, nonfinite,
// sqnr_db).
void write_quantized(h5::File& file, const std::string& group, const QuantizedTensor& q);

}  // namespace fp4lab::cli
