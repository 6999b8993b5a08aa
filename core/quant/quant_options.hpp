// Every QuantSpec field declared once. The config table (core/config), the `fp4lab quantize` and
// `fp4lab gemm` flags, the HDF5 attributes the quantizer writes and the Python keyword arguments all
// walk spec_fields(), so adding a field to QuantSpec is one line here.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/quant/format_table.hpp"
#include "core/quant/quant_spec.hpp"

namespace fp4lab {

struct SpecField {
  enum class Kind { enumeration, integer, unsigned_integer, boolean };
  std::string key;     // config leaf (recipe.quantized.fprop_x.<key>) and HDF5 attribute name
  std::string option;  // `quantize` flag (--<option>, '_' written '-') and Python keyword; "" if none
  std::string help;
  Kind kind = Kind::integer;
  std::vector<std::string> choices;  // enumeration: the canonical names (parse also takes aliases)
  bool omit_default = false;         // canonical config YAML prints it only when not the default
  std::function<std::string(const QuantSpec&)> get;         // the value as text
  std::function<bool(QuantSpec&, const std::string&)> set;  // false: not a value of this field
};

// In declaration order of QuantSpec.
const std::vector<SpecField>& spec_fields();

// "a|b|c" for an enumeration, the kind's name otherwise (for help texts and error messages).
std::string value_type(const SpecField& field);

// The options of one quantized operand as `fp4lab quantize` and `fp4lab.quantize()` take them: a
// named format (named_format()) and any fields with an option name. Option names may be spelled
// with '_' or '-'; booleans accept true/false/1/0. Returns "" and sets `spec`, or a one-line error
// that names the option ("unknown format 'x'", "tile: expected one of 1d|2d, got '3d'", ...).
std::string spec_from_options(const std::string& format, const std::map<std::string, std::string>& options,
                              QuantSpec& spec);

// A QuantSpec from fields named by key (SpecField::key, as a recipe or the HDF5 attributes name
// them), each value as text; unset fields keep QuantSpec's defaults. "" or a one-line error
// ("unknown spec field 'x'", "tile: expected 1d|2d, got '3d'").
std::string spec_from_fields(const std::map<std::string, std::string>& fields, QuantSpec& spec);

// The option names spec_from_options() accepts besides the format, in declaration order
// (with '_'), e.g. "block", "scale", ..., "operand_dtype".
std::vector<std::string> option_names();

}  // namespace fp4lab
