// Writing quantizer outputs to HDF5 for the quantize and formats commands (through core/io/h5.hpp;
// this file never sees HDF5 itself).
#include "experiments/cli/quant_h5.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/quant/format_table.hpp"
#include "core/quant/quant_options.hpp"
#include "experiments/cli/commands.hpp"

namespace fp4lab::cli {
namespace {

[[noreturn]] void usage_error(const std::string& message) { throw Exit{kExitUsage, message}; }

}  // namespace

void add_quantize_options(CLI::App* cmd, QuantizeOptions& o, const std::string& prefix) {
  const std::string p = "--" + prefix;
  const std::string of = prefix.empty() ? "" : " (operand " + prefix.substr(0, prefix.size() - 1) + ")";
  cmd->add_option(p + "format", o.format, named_format_list() + of)
      ->required()
      ->check(CLI::IsMember(named_format_names()));
  // Values are checked by spec_from_options() (build_spec), whose messages the Python module shares.
  for (const SpecField& f : spec_fields()) {
    if (f.option.empty()) continue;
    std::string flag = f.option;
    std::replace(flag.begin(), flag.end(), '_', '-');
    const std::string help = f.help + (f.kind == SpecField::Kind::enumeration ? " (" + value_type(f) + ")" : "");
    std::map<std::string, std::string>* options = &o.options;
    const std::string key = f.option;
    if (f.kind == SpecField::Kind::boolean)
      cmd->add_flag_callback(p + flag, [options, key] { (*options)[key] = "true"; }, help);
    else
      cmd->add_option_function<std::string>(p + flag, [options, key](const std::string& v) { (*options)[key] = v; }, help);
  }
  cmd->add_option(p + "seed", o.seed, "stochastic rounding seed");
}

QuantSpec build_spec(const QuantizeOptions& o) {
  QuantSpec s;
  if (const std::string problem = spec_from_options(o.format, o.options, s); !problem.empty()) usage_error(problem);
  return s;
}

std::vector<float> read_operand(const std::string& path, const std::string& dataset, const QuantSpec& spec,
                                int64_t& rows, int64_t& cols) {
  if (!std::filesystem::exists(path)) usage_error(path + ": no such file");
  const h5::File in = [&] {
    try {
      return h5::File::open_ro(path);
    } catch (const std::exception& e) {
      usage_error(path + ": not a readable HDF5 file");
    }
  }();
  const std::string where = path + ": dataset '" + dataset + "'";
  if (!in.has(dataset)) usage_error(where + " not found");
  const std::string type = in.element_type(dataset);
  if (type != "float32") usage_error(where + " is " + type + "; expected float32");
  const std::vector<uint64_t> shape = in.shape(dataset);
  if (shape.size() != 2) usage_error(where + " has " + std::to_string(shape.size()) + " dimensions; expected 2-D");
  rows = static_cast<int64_t>(shape[0]);
  cols = static_cast<int64_t>(shape[1]);
  const std::string dims = std::to_string(rows) + "x" + std::to_string(cols);
  if (rows * cols == 0) usage_error(where + " (" + dims + ") is empty");
  if (const std::string problem = validate(spec, rows, cols); !problem.empty())
    usage_error(where + " (" + dims + "): " + problem);
  std::vector<float> x = in.read<float>(dataset);
  bool any_number = false;
  for (float v : x) any_number |= !std::isnan(v);
  if (!any_number) usage_error(where + " holds only NaN");
  return x;
}

void write_quantized(h5::File& file, const std::string& group, const QuantizedTensor& q) {
  const std::string prefix = group == "/" || group.empty() ? "" : group + "/";
  const uint64_t rows = static_cast<uint64_t>(q.rows), cols = static_cast<uint64_t>(q.cols);
  if (!q.codes.empty()) file.write(prefix + "codes", q.codes, {rows, cols});
  if (!q.scales.empty()) file.write(prefix + "scales", q.scales, {rows, q.scales.size() / rows});
  file.write(prefix + "dequant", q.dequant, {rows, cols});
  if (!q.window_amax.empty()) file.write(prefix + "window_amax", q.window_amax, {rows, q.window_amax.size() / rows});
  const std::string obj = group.empty() ? "/" : group;
  const QuantSpec& s = q.spec;
  file.set_attr(obj, "global_amax", static_cast<double>(q.global_amax));
  file.set_attr(obj, "format", describe(s));
  for (const SpecField& f : spec_fields()) {  // enumerations as strings, the rest as int64
    const std::string value = f.get(s);
    if (f.kind == SpecField::Kind::enumeration)  // a bare operand's "inherit" dtype is fp32
      file.set_attr(obj, f.key, f.key == "operand_dtype" && value == "inherit" ? std::string("fp32") : value);
    else if (f.kind == SpecField::Kind::boolean)
      file.set_attr(obj, f.key, int64_t{value == "true"});
    else
      file.set_attr(obj, f.key, static_cast<int64_t>(f.kind == SpecField::Kind::integer ? std::stoll(value)
                                                                                       : std::stoull(value)));
  }
  file.set_attr(obj, "seed", static_cast<int64_t>(q.random.seed));
  file.set_attr(obj, "tensor_id", static_cast<int64_t>(q.random.tensor_id));
  file.set_attr(obj, "step", static_cast<int64_t>(q.random.step));
  file.set_attr(obj, "amax", static_cast<double>(q.stats.amax));
  file.set_attr(obj, "flushed", q.stats.flushed);
  file.set_attr(obj, "saturated", q.stats.saturated);
  file.set_attr(obj, "nonfinite", q.stats.nonfinite);
  file.set_attr(obj, "sqnr_db", q.stats.sqnr_db());
}

}  // namespace fp4lab::cli
