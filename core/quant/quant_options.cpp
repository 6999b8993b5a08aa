// The QuantSpec field list and the option parser built on it. No numerics here.
#include "core/quant/quant_options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace fp4lab {
namespace {

template <class T>
bool parse_number(const std::string& text, T& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool parse_bool(const std::string& text, bool& out) {
  if (text == "true" || text == "1") return out = true, true;
  if (text == "false" || text == "0") return out = false, true;
  return false;
}

// The choices are the enum's names (core/quant/quant_spec.hpp), in table order.
template <class E>
SpecField enum_field(const char* key, const char* option, const char* help, E QuantSpec::*member,
                     bool omit_default = false) {
  SpecField f{key, option, help, SpecField::Kind::enumeration, {}, omit_default, nullptr, nullptr};
  for (E v : enum_values<E>()) f.choices.push_back(to_string(v));
  f.get = [member](const QuantSpec& s) { return to_string(s.*member); };
  f.set = [member](QuantSpec& s, const std::string& text) { return parse(text, s.*member); };
  return f;
}

SpecField int_field(const char* key, const char* option, const char* help, int QuantSpec::*member,
                    bool omit_default = false) {
  SpecField f{key, option, help, SpecField::Kind::integer, {}, omit_default, nullptr, nullptr};
  f.get = [member](const QuantSpec& s) { return std::to_string(s.*member); };
  f.set = [member](QuantSpec& s, const std::string& text) { return parse_number(text, s.*member); };
  return f;
}

SpecField u64_field(const char* key, const char* option, const char* help, uint64_t QuantSpec::*member) {
  SpecField f{key, option, help, SpecField::Kind::unsigned_integer, {}, false, nullptr, nullptr};
  f.get = [member](const QuantSpec& s) { return std::to_string(s.*member); };
  f.set = [member](QuantSpec& s, const std::string& text) { return parse_number(text, s.*member); };
  return f;
}

SpecField bool_field(const char* key, const char* option, const char* help, bool QuantSpec::*member,
                     bool omit_default = false) {
  SpecField f{key, option, help, SpecField::Kind::boolean, {}, omit_default, nullptr, nullptr};
  f.get = [member](const QuantSpec& s) { return std::string(s.*member ? "true" : "false"); };
  f.set = [member](QuantSpec& s, const std::string& text) { return parse_bool(text, s.*member); };
  return f;
}

std::string underscored(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace

const std::vector<SpecField>& spec_fields() {
  // omit_default (the last argument) on the fields added after the first config ids were published:
  // at their defaults they stay out of the canonical YAML, so those ids do not change.
  static const std::vector<SpecField> fields = {
      // The element format comes from the named format (--format) on the command line.
      enum_field("element", "", "element format", &QuantSpec::element),
      int_field("block", "block", "elements per block along the last axis (0: per tensor; default: the format's)",
                &QuantSpec::block),
      enum_field("scale", "scale", "block scale format", &QuantSpec::scale),
      enum_field("scale_rule", "scale_rule", "ue8m0 rule: floor (OCP MX) or ceil (TE)", &QuantSpec::scale_rule),
      enum_field("tile", "tile", "1d blocks, or 2d (block x block) tiles as for weights", &QuantSpec::tile),
      enum_field("rounding", "rounding", "rne, or sr (stochastic, fp4 only)", &QuantSpec::rounding),
      bool_field("rht", "rht", "random Hadamard transform along the last axis first", &QuantSpec::rht),
      int_field("rht_size", "rht_size", "Hadamard length (a power of two)", &QuantSpec::rht_size),
      u64_field("rht_sign_seed", "rht_seed", "random sign seed (0: TE's fixed 16-point signs 0xD7E8)",
                &QuantSpec::rht_sign_seed),
      enum_field("formula", "te_formula", "NVFP4 block-scale formula of TE 2.14+ (te_2_14 or 2.14) or 2.13- (te_2_13)",
                 &QuantSpec::formula),
      enum_field("operand_dtype", "operand_dtype",
                 "bf16: round the operand to bf16 first, as TE quantizes bf16 tensors; fp32; or (configs) "
                 "inherit recipe.operand_dtype",
                 &QuantSpec::operand_dtype, true),
      enum_field("four_over_six", "four_over_six", "TE 4over6 NVFP4: per block, map-to-4 when its error is smaller",
                 &QuantSpec::four_over_six, true),
      int_field("global_e4m3_max", "global_e4m3_max", "Q of NVFP4's tensor scale 6Q/amax: 448, or 256 with 4over6",
                &QuantSpec::global_e4m3_max, true),
      bool_field("row_scaled", "row_scaled", "NVFP4 with one fp32 amax per row (TE row-scaled activations)",
                 &QuantSpec::row_scaled, true),
      enum_field("scaling", "", "per-tensor fp32 scale from this tensor (current) or an amax history (delayed)",
                 &QuantSpec::scaling, true),
      enum_field("source", "", "dgrad_w / wgrad_x: quantize the tensor (input) or the dequantized forward copy (fprop)",
                 &QuantSpec::source, true),
      int_field("scale_exp_bits", "scale_exp_bits", "ufloat block scale: exponent bits (1-8; with mantissa bits at most 8)",
                &QuantSpec::scale_exp_bits, true),
      int_field("scale_man_bits", "scale_man_bits", "ufloat block scale: mantissa bits (0-7)", &QuantSpec::scale_man_bits,
                true),
      int_field("scale_bias", "scale_bias", "ufloat block scale: exponent bias", &QuantSpec::scale_bias, true),
      enum_field("scale_specials", "scale_specials",
                 "ufloat block scale: fn (all-ones code NaN), ieee (all-ones exponent Inf/NaN) or finite (no NaN)",
                 &QuantSpec::scale_specials, true),
      enum_field("scale_round", "scale_round",
                 "e4m3/ufloat block scale rounded to nearest (even), up (no element clips) or down",
                 &QuantSpec::scale_round, true),
      int_field("encode_window", "encode_window",
                "NVFP4: elements along the last axis sharing one local S_enc (W x W for 2d tiles; 0: per tensor)",
                &QuantSpec::encode_window, true),
  };
  return fields;
}

std::string value_type(const SpecField& field) {
  switch (field.kind) {
    case SpecField::Kind::enumeration: {
      std::string type;
      for (const std::string& c : field.choices) type += (type.empty() ? "" : "|") + c;
      return type;
    }
    case SpecField::Kind::integer: return "int";
    case SpecField::Kind::unsigned_integer: return "int >= 0";
    case SpecField::Kind::boolean: return "bool";
  }
  return "?";
}

std::vector<std::string> option_names() {
  std::vector<std::string> names;
  for (const SpecField& f : spec_fields())
    if (!f.option.empty()) names.push_back(f.option);
  return names;
}

namespace {

// Sets each named field, found by `name_of`, on `s`; "" or the error of the first bad one.
template <class NameOf>
std::string set_fields(const std::map<std::string, std::string>& given, const char* what, NameOf name_of,
                       QuantSpec& s) {
  for (const auto& [name, value] : given) {
    const std::string wanted = underscored(name);
    const auto field = std::find_if(spec_fields().begin(), spec_fields().end(), [&](const SpecField& f) {
      const std::string& n = name_of(f);
      return !n.empty() && n == wanted;
    });
    if (field == spec_fields().end()) return std::string("unknown ") + what + " '" + name + "'";
    if (!field->set(s, value)) return wanted + ": expected " + value_type(*field) + ", got '" + value + "'";
  }
  return "";
}

}  // namespace

std::string spec_from_options(const std::string& format, const std::map<std::string, std::string>& options,
                              QuantSpec& spec) {
  QuantSpec s;
  if (!named_format(format, s)) return "unknown format '" + format + "'";
  const std::string problem = set_fields(options, "option", [](const SpecField& f) -> const std::string& { return f.option; }, s);
  if (problem.empty()) spec = s;
  return problem;
}

std::string spec_from_fields(const std::map<std::string, std::string>& fields, QuantSpec& spec) {
  QuantSpec s;
  const std::string problem = set_fields(fields, "spec field", [](const SpecField& f) -> const std::string& { return f.key; }, s);
  if (problem.empty()) spec = s;
  return problem;
}

}  // namespace fp4lab
