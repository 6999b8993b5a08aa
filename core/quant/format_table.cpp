// The element-format and named-format rows (format_table.hpp). Codecs live in core/formats; the
// scale arithmetic in block_scale.cpp. No numerics here.
#include "core/quant/format_table.hpp"

#include <cfloat>
#include <limits>
#include <stdexcept>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"

namespace fp4lab {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<ElementFormatInfo> make_element_formats() {
  std::vector<ElementFormatInfo> rows = {
      {ElementFormat::none, 32, kInf, FLT_TRUE_MIN, 127, false, false, false, false, nullptr, nullptr, nullptr,
       "fp32 pass-through (no quantization)", "", {}},
      {ElementFormat::bf16, 16, kBf16Max, 0x1p-133f, 127, false, false, false, false,
       [](float x) -> uint32_t { return bf16_encode_rne(x); }, nullptr,
       [](uint32_t c) { return bf16_decode(static_cast<uint16_t>(c)); },
       "bf16: 1 sign, 8 exponent, 7 mantissa bits; max 3.3895e38; RNE, overflow -> Inf",
       "bf16, round to nearest even:",
       {{1.0f + 0x1p-8f, "tie -> 1"}, {1.0f + 0x3p-8f, "tie -> 1 + 2^-6"}, {0x1p-133f, "min subnormal"},
        {kBf16Max, "max"}, {FLT_MAX, "overflows to Inf"}, {kNan, "stays NaN"}, {-0.0f, "sign kept"}}},
      {ElementFormat::fp8_e4m3, 8, kFp8E4m3Max, 0x1p-9f, kFp8E4m3Emax, true, true, false, false,
       [](float x) -> uint32_t { return fp8_e4m3_encode_rne(x); }, nullptr,
       [](uint32_t c) { return fp8_e4m3_decode(static_cast<uint8_t>(c)); },
       "fp8_e4m3 (fn): 1 sign, 4 exponent (bias 7), 3 mantissa bits; max 448; min normal 2^-6; "
       "subnormals down to 2^-9; NaN 0x7F/0xFF; no Inf (encoder saturates)",
       "fp8_e4m3, round to nearest even (satfinite):",
       {{0x1p-10f, "tie -> 0 (even)"}, {0x1.8p-10f, "tie -> 2^-9"}, {0x1p-9f, "min subnormal"},
        {0x1p-6f, "min normal"}, {1.0625f, "tie -> 1.0"}, {1.1875f, "tie -> 1.25"}, {448.0f, "max"},
        {464.0f, "tie -> 448"}, {500.0f, "saturates"}, {kInf, "saturates"}, {kNan, "NaN -> 0x7F"},
        {-0.0f, "sign of zero kept"}}},
      {ElementFormat::fp8_e5m2, 8, kFp8E5m2Max, 0x1p-16f, kFp8E5m2Emax, true, true, false, false,
       [](float x) -> uint32_t { return fp8_e5m2_encode_rne(x); }, nullptr,
       [](uint32_t c) { return fp8_e5m2_decode(static_cast<uint8_t>(c)); },
       "fp8_e5m2: 1 sign, 5 exponent (bias 15), 2 mantissa bits; max 57344; min normal 2^-14; "
       "subnormals down to 2^-16; Inf 0x7C; NaN 0x7D-0x7F (encoder saturates Inf, NaN -> 0x7F)",
       "fp8_e5m2, round to nearest even (satfinite):",
       {{0x1p-17f, "tie -> 0 (even)"}, {0x1p-16f, "min subnormal"}, {0x1p-14f, "min normal"},
        {1.125f, "tie -> 1.0"}, {1.375f, "tie -> 1.5"}, {57344.0f, "max"}, {61440.0f, "saturates"},
        {kInf, "saturates"}, {kNan, "NaN -> 0x7F"}, {-0.0f, "sign of zero kept"}}},
      {ElementFormat::fp4_e2m1, 4, kFp4E2m1Max, 0.5f, kFp4E2m1Emax, true, true, true, true,
       [](float x) -> uint32_t { return fp4_e2m1_encode_rne(x); },
       [](float x, uint8_t random_bits) -> uint32_t { return fp4_e2m1_encode_sr(x, random_bits); },
       [](uint32_t c) { return fp4_e2m1_decode(static_cast<uint8_t>(c)); },
       "fp4_e2m1: 1 sign, 2 exponent (bias 1), 1 mantissa bit; values 0 0.5 1 1.5 2 3 4 6; max 6; "
       "no Inf/NaN codes (NaN -> +6, +-Inf -> +-6); sign of zero kept",
       "fp4_e2m1, round to nearest even (satfinite):",
       {{0.25f, "tie -> 0 (even)"}, {0.2500001f, "just above the tie"}, {0.5f, "subnormal"}, {0.75f, "tie -> 1"},
        {1.25f, "tie -> 1"}, {1.75f, "tie -> 2"}, {2.5f, "tie -> 2"}, {3.5f, "tie -> 4"}, {5.0f, "tie -> 4"},
        {5.0001f, "above the tie -> 6"}, {6.5f, "saturates"}, {kInf, "saturates"},
        {-kInf, "saturates, sign kept"}, {kNan, "NaN -> +6"}, {-0.0f, "sign of zero kept"},
        {-0.1f, "rounds to -0"}}},
  };
  for (size_t i = 0; i < rows.size(); ++i)
    if (size_t(rows[i].id) != i) throw std::logic_error("element format table out of enum order");
  if (rows.size() != enum_values<ElementFormat>().size()) throw std::logic_error("element format table incomplete");
  return rows;
}

QuantSpec block_scaled(ElementFormat element, int block, ScaleFormat scale) {
  QuantSpec s;
  s.element = element;
  s.block = block;
  s.scale = scale;
  return s;
}

std::vector<NamedFormat> make_named_formats() {
  QuantSpec ue5m3 = block_scaled(ElementFormat::fp4_e2m1, 16, ScaleFormat::ufloat);
  ue5m3.scale_exp_bits = 5;
  ue5m3.scale_bias = 15;
  QuantSpec mxfp8 = block_scaled(ElementFormat::fp8_e4m3, 32, ScaleFormat::ue8m0);
  mxfp8.scale_rule = ScaleRule::ceil;
  QuantSpec bf16;
  bf16.element = ElementFormat::bf16;
  return {
      {"nvfp4", block_scaled(ElementFormat::fp4_e2m1, 16, ScaleFormat::e4m3),
       "NVIDIA NVFP4 (TE NVFP4BlockScaling): E2M1, 16-element blocks, E4M3 block scales under an fp32 tensor scale"},
      {"mxfp4", block_scaled(ElementFormat::fp4_e2m1, 32, ScaleFormat::ue8m0),
       "OCP Microscaling (MX) v1.0: E2M1, 32-element blocks, E8M0 block scales (floor rule)"},
      {"mxfp8", mxfp8, "TE MXFP8BlockScaling: E4M3, 32-element blocks, E8M0 block scales rounded up"},
      {"fp8_e4m3", block_scaled(ElementFormat::fp8_e4m3, 0, ScaleFormat::fp32),
       "OCP FP8 E4M3 with TE current scaling (one fp32 scale per tensor)"},
      {"fp8_e5m2", block_scaled(ElementFormat::fp8_e5m2, 0, ScaleFormat::fp32),
       "OCP FP8 E5M2 with TE current scaling (one fp32 scale per tensor)"},
      {"bf16", bf16, "bfloat16, round to nearest even"},
      {"fp32", QuantSpec{}, "no quantization (fp32 pass-through)"},
      {"nvfp4_ue5m3", ue5m3,
       "TE's prototype NVFP4 with UE5M3 block scales (bias 15, NaN 0xFF, max 114688)"},
  };
}

}  // namespace

const std::vector<ElementFormatInfo>& element_formats() {
  static const std::vector<ElementFormatInfo> rows = make_element_formats();
  return rows;
}

const ElementFormatInfo& element_info(ElementFormat element) { return element_formats().at(size_t(element)); }

const std::vector<NamedFormat>& named_formats() {
  static const std::vector<NamedFormat> rows = make_named_formats();
  return rows;
}

bool named_format(const std::string& name, QuantSpec& out) {
  for (const NamedFormat& f : named_formats())
    if (f.name == name) {
      out = f.spec;
      return true;
    }
  return false;
}

std::vector<std::string> named_format_names() {
  std::vector<std::string> names;
  for (const NamedFormat& f : named_formats()) names.push_back(f.name);
  return names;
}

std::string named_format_list(const std::string& sep, const std::string& last) {
  const std::vector<std::string> names = named_format_names();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? last : sep) + names[i];
  return out;
}

}  // namespace fp4lab
