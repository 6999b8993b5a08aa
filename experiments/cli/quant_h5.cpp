// Writing quantizer outputs to HDF5 for the quantize and formats commands (through core/io/h5.hpp;
// this file never sees HDF5 itself).
#include "experiments/cli/quant_h5.hpp"

namespace fp4lab::cli {

QuantizedTensor quantize_tensor(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
                                const QuantRandom& random) {
  QuantizedTensor q;
  q.rows = rows;
  q.cols = cols;
  q.spec = spec;
  q.random = random;
  q.dequant.resize(x.size());
  quantize(x.data(), q.dequant.data(), rows, cols, spec, random, {&q.codes, &q.scales, &q.global_amax, &q.stats});
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
