// Conformance vectors: a fixed set of awkward tensors (ties, specials, non-finite values, zero and
// subnormal blocks, scale underflow, values near FLT_MAX) and, per named format, the variants they
// are quantized under (2D tiles, SR, RHT, TE formulas, 4over6, row scaling, bf16 operands, the
// other UE8M0 rule, block-scale rounding up and down, e4m3 as a ufloat). `fp4lab formats --vectors` writes them to HDF5 and the Python module returns
// them; both quantize through spec_from_options(), as `fp4lab quantize` does.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fp4lab {

struct ConformanceCase {
  std::string name;
  int64_t rows = 0, cols = 0;
  std::vector<float> x;  // row-major [rows, cols]
};

struct ConformanceVariant {
  std::string name;
  std::map<std::string, std::string> options;  // spec_from_options() options of the format
  uint64_t seed = 0;                            // stochastic rounding seed
};

// Tensors of 32 x 64 (or wider), so every variant is valid on them.
std::vector<ConformanceCase> conformance_cases();
// The variants of one named format, "base" (the format's defaults) first; empty for an unknown name.
std::vector<ConformanceVariant> conformance_variants(const std::string& format);

}  // namespace fp4lab
