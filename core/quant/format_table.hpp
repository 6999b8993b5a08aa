// The format tables: one row per element format and one row per named format. Every generic path
// that asks "what can this format do" (the quantizer's code buffers, scale rules, validation, the
// manifest's low-precision test, `fp4lab formats`, every list of names in help texts and error
// messages, the conformance vectors, the Python package) reads these rows, so a new format is a
// codec, a row here, a kernel (or the generic path) and its tests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/quant/quant_spec.hpp"

namespace fp4lab {

// An input worth seeing in `fp4lab formats NAME`, with what happens to it.
struct EdgeCase {
  float x;
  const char* note;
};

struct ElementFormatInfo {
  ElementFormat id;
  int bits;             // storage bits per element (32 for none)
  float max;            // largest finite value (none: +Inf)
  float min_subnormal;  // smallest positive value (none: FLT_TRUE_MIN)
  int emax;             // exponent of the largest binade (OCP emax_elem; the MX floor scale rule)
  bool codes;           // an 8- or 4-bit code format: the quantizer returns its codes, and a GEMM
                        // operand in it counts as quantized (low precision) in the manifest
  bool scaled;          // takes a scale (per tensor or per block); bf16 and none are cast directly
  bool two_level_scales;  // takes NVFP4's minifloat block scales (e4m3, ufloat) under an fp32 tensor scale
  bool stochastic_rounding;
  uint32_t (*encode)(float);                   // round to nearest even, satfinite where the format is
  uint32_t (*encode_sr)(float, uint8_t);       // stochastic rounding with 8 random bits; null without SR
  float (*decode)(uint32_t);                   // null for none
  const char* summary;                         // bit layout, range and specials, one line
  const char* edge_title;                      // heading of the edge-case table
  std::vector<EdgeCase> edges;
};

// Every element format, in enum order (row i describes ElementFormat(i)).
const std::vector<ElementFormatInfo>& element_formats();
const ElementFormatInfo& element_info(ElementFormat element);

struct NamedFormat {
  std::string name;    // what configs, `--format`, `fp4lab formats` and Python take
  QuantSpec spec;      // its defaults; RHT, 2D tiles and SR are per-operand choices on top
  std::string source;  // where the definition comes from
};

// Every named format, in the order `fp4lab formats` lists them and the conformance vectors hold them.
const std::vector<NamedFormat>& named_formats();

// The names, in table order.
std::vector<std::string> named_format_names();

// Sets `out` to the named format's spec; false for an unknown name.
bool named_format(const std::string& name, QuantSpec& out);

// The names joined for help texts and error messages: "nvfp4, mxfp4, ..., bf16 or fp32" (with
// `last` " or "), or "nvfp4|mxfp4|..." (with `sep` "|" and `last` "|").
std::string named_format_list(const std::string& sep = ", ", const std::string& last = " or ");

}  // namespace fp4lab
