// Writing quantizer outputs to HDF5 for the quantize and formats commands (through core/io/h5.hpp;
// this file never sees HDF5 itself).
#include "experiments/cli/quant_h5.hpp"

#include <cmath>
#include <filesystem>

#include "experiments/cli/commands.hpp"

namespace fp4lab::cli {
namespace {

[[noreturn]] void usage_error(const std::string& message) { throw Exit{kExitUsage, message}; }

}  // namespace

void add_quantize_options(CLI::App* cmd, QuantizeOptions& o, const std::string& prefix) {
  const std::string p = "--" + prefix;
  const std::string of = prefix.empty() ? "" : " (operand " + prefix.substr(0, prefix.size() - 1) + ")";
  cmd->add_option(p + "format", o.format, "nvfp4, mxfp4, mxfp8, fp8_e4m3, fp8_e5m2 or bf16" + of)
      ->required()
      ->check(CLI::IsMember({"nvfp4", "mxfp4", "mxfp8", "fp8_e4m3", "fp8_e5m2", "bf16"}));
  cmd->add_option(p + "block", o.block, "elements per block along the last axis (default: the format's)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option(p + "scale", o.scale, "block scale format")->check(CLI::IsMember({"e4m3", "e8m0", "ue8m0", "fp32", "none"}));
  cmd->add_option(p + "scale-rule", o.scale_rule, "UE8M0 rule: floor (OCP MX) or ceil (TE)")
      ->check(CLI::IsMember({"floor", "ceil"}));
  cmd->add_option(p + "tile", o.tile, "1d blocks or 2d (block x block) tiles")->check(CLI::IsMember({"1d", "2d"}));
  cmd->add_flag(p + "rht", o.rht, "random Hadamard transform along the last axis first");
  cmd->add_option(p + "rht-size", o.rht_size, "Hadamard size (power of two)");
  cmd->add_option(p + "rht-seed", o.rht_seed, "random sign seed (0: TE's fixed 16-point signs)");
  cmd->add_option(p + "rounding", o.rounding, "rne, or sr (stochastic, fp4 only)")->check(CLI::IsMember({"rne", "sr"}));
  cmd->add_option(p + "seed", o.seed, "stochastic rounding seed");
  cmd->add_option(p + "te-formula", o.te_formula, "NVFP4 block scale formula of TE 2.14+ or 2.13-")
      ->check(CLI::IsMember({"2.14", "2.13"}));
  cmd->add_option(p + "four-over-six", o.four_over_six, "TE 4over6 NVFP4: per block, map-to-4 when its error is smaller")
      ->check(CLI::IsMember({"off", "mae", "mse"}));
  cmd->add_option(p + "global-e4m3-max", o.global_e4m3_max, "Q of NVFP4's tensor scale 6Q/amax (256 only with 4over6)")
      ->check(CLI::IsMember({448, 256}));
  cmd->add_flag(p + "row-scaled", o.row_scaled, "NVFP4 with one fp32 amax per row (TE row-scaled activations)");
  cmd->add_option(p + "operand-dtype", o.operand_dtype, "bf16: round the input to bf16 first, as TE quantizes bf16 tensors")
      ->check(CLI::IsMember({"fp32", "bf16"}));
}

QuantSpec build_spec(const QuantizeOptions& o) {
  QuantSpec s;
  if (!named_format(o.format, s)) usage_error("unknown format '" + o.format + "'");
  if (o.block >= 0) s.block = o.block;
  if (!o.scale.empty() && !parse(o.scale, s.scale)) usage_error("unknown scale format '" + o.scale + "'");
  if (!o.scale_rule.empty() && !parse(o.scale_rule, s.scale_rule)) usage_error("unknown scale rule '" + o.scale_rule + "'");
  if (!o.tile.empty() && !parse(o.tile, s.tile)) usage_error("unknown tile '" + o.tile + "'");
  if (!o.rounding.empty() && !parse(o.rounding, s.rounding)) usage_error("unknown rounding '" + o.rounding + "'");
  if (!o.te_formula.empty() && !parse(o.te_formula, s.formula)) usage_error("unknown TE formula '" + o.te_formula + "'");
  if (!o.four_over_six.empty() && !parse(o.four_over_six, s.four_over_six)) usage_error("unknown 4over6 mode '" + o.four_over_six + "'");
  if (!o.operand_dtype.empty() && !parse(o.operand_dtype, s.operand_dtype)) usage_error("unknown operand dtype '" + o.operand_dtype + "'");
  s.global_e4m3_max = o.global_e4m3_max;
  s.row_scaled = o.row_scaled;
  s.rht = o.rht;
  s.rht_size = o.rht_size;
  s.rht_sign_seed = o.rht_seed;
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

QuantizedTensor quantize_tensor(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
                                const QuantRandom& random) {
  QuantizedTensor q;
  q.rows = rows;
  q.cols = cols;
  q.spec = spec;
  q.random = random;
  q.dequant.resize(x.size());
  QuantOutputs out{&q.codes, &q.scales, &q.global_amax, &q.stats};
  out.row_amax = &q.row_amax;
  quantize(x.data(), q.dequant.data(), rows, cols, spec, random, out);
  return q;
}


void write_quantized(h5::File& file, const std::string& group, const QuantizedTensor& q) {
  const std::string prefix = group == "/" || group.empty() ? "" : group + "/";
  const uint64_t rows = static_cast<uint64_t>(q.rows), cols = static_cast<uint64_t>(q.cols);
  if (!q.codes.empty()) file.write(prefix + "codes", q.codes, {rows, cols});
  if (!q.scales.empty()) file.write(prefix + "scales", q.scales, {rows, q.scales.size() / rows});
  file.write(prefix + "dequant", q.dequant, {rows, cols});
  const std::string obj = group.empty() ? "/" : group;
  const QuantSpec& s = q.spec;
  file.set_attr(obj, "global_amax", static_cast<double>(q.global_amax));
  file.set_attr(obj, "format", describe(s));
  file.set_attr(obj, "element", to_string(s.element));
  file.set_attr(obj, "block", static_cast<int64_t>(s.block));
  file.set_attr(obj, "scale", to_string(s.scale));
  file.set_attr(obj, "scale_rule", to_string(s.scale_rule));
  file.set_attr(obj, "tile", to_string(s.tile));
  file.set_attr(obj, "rounding", to_string(s.rounding));
  file.set_attr(obj, "rht", static_cast<int64_t>(s.rht));
  file.set_attr(obj, "rht_size", static_cast<int64_t>(s.rht_size));
  file.set_attr(obj, "rht_sign_seed", static_cast<int64_t>(s.rht_sign_seed));
  file.set_attr(obj, "formula", to_string(s.formula));
  file.set_attr(obj, "operand_dtype", to_string(s.operand_dtype == OperandDtype::inherit ? OperandDtype::fp32 : s.operand_dtype));
  file.set_attr(obj, "four_over_six", to_string(s.four_over_six));
  file.set_attr(obj, "global_e4m3_max", static_cast<int64_t>(s.global_e4m3_max));
  file.set_attr(obj, "row_scaled", static_cast<int64_t>(s.row_scaled));
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
