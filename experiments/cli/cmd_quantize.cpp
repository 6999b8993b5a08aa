// `fp4lab quantize IN.h5 OUT.h5 --dataset NAME --format F [options]`: quantize one float32 2-D
// dataset and write codes, scales, dequant and global_amax to OUT.h5. Everything is checked before
// OUT.h5 is touched, and OUT.h5 is written as OUT.h5.tmp then renamed, so a failed run leaves no
// output file. Not a batch tool: one dataset per call.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "core/io/h5.hpp"
#include "core/quant/quantize.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/quant_h5.hpp"

namespace fp4lab::cli {
namespace {

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

[[noreturn]] void usage_error(const std::string& message) { throw Exit{kExitUsage, message}; }

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

void run_quantize(const QuantizeOptions& o) {
  const QuantSpec spec = build_spec(o);
  namespace fs = std::filesystem;
  if (!fs::exists(o.in)) usage_error(o.in + ": no such file");
  if (fs::exists(o.out) && fs::equivalent(o.in, o.out)) usage_error(o.out + ": OUT must differ from IN");

  const h5::File in = [&] {
    try {
      return h5::File::open_ro(o.in);
    } catch (const std::exception& e) {
      usage_error(o.in + ": not a readable HDF5 file");
    }
  }();
  const std::string where = o.in + ": dataset '" + o.dataset + "'";
  if (!in.has(o.dataset)) usage_error(where + " not found");
  const std::string type = in.element_type(o.dataset);
  if (type != "float32") usage_error(where + " is " + type + "; quantize takes float32");
  const std::vector<uint64_t> shape = in.shape(o.dataset);
  if (shape.size() != 2) usage_error(where + " has " + std::to_string(shape.size()) + " dimensions; quantize takes 2-D");
  const int64_t rows = static_cast<int64_t>(shape[0]), cols = static_cast<int64_t>(shape[1]);
  const std::string dims = std::to_string(rows) + "x" + std::to_string(cols);
  if (rows * cols == 0) usage_error(where + " (" + dims + ") is empty");
  if (const std::string problem = validate(spec, rows, cols); !problem.empty())
    usage_error(where + " (" + dims + "): " + problem);
  const std::vector<float> x = in.read<float>(o.dataset);
  bool any_number = false;
  for (float v : x) any_number |= !std::isnan(v);
  if (!any_number) usage_error(where + " holds only NaN");

  const QuantizedTensor q = quantize_tensor(x, rows, cols, spec, QuantRandom{o.seed, 0, 0});
  const std::string tmp = o.out + ".tmp";
  try {
    {
      h5::File out = h5::File::create(tmp);
      write_quantized(out, "/", q);
      out.set_attr("/", "source", o.in + ":" + o.dataset);
      out.flush();
    }
    fs::rename(tmp, o.out);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
  std::printf("%s:%s (%s) -> %s as %s: amax %.6g, flushed %lld, saturated %lld, nonfinite %lld, SQNR %.2f dB\n",
              o.in.c_str(), o.dataset.c_str(), dims.c_str(), o.out.c_str(), describe(spec).c_str(), q.stats.amax,
              static_cast<long long>(q.stats.flushed), static_cast<long long>(q.stats.saturated),
              static_cast<long long>(q.stats.nonfinite), q.stats.sqnr_db());
}

}  // namespace

void add_quantize_command(CLI::App& app) {
  auto o = std::make_shared<QuantizeOptions>();
  CLI::App* cmd = app.add_subcommand("quantize", "Quantize one float32 2-D HDF5 dataset (codes, scales, dequant)");
  cmd->add_option("IN", o->in, "input HDF5 file")->required();
  cmd->add_option("OUT", o->out, "output HDF5 file (created only on success)")->required();
  cmd->add_option("--dataset", o->dataset, "the 2-D float32 dataset in IN")->required();
  cmd->add_option("--format", o->format, "nvfp4, mxfp4, mxfp8, fp8_e4m3, fp8_e5m2 or bf16")
      ->required()
      ->check(CLI::IsMember({"nvfp4", "mxfp4", "mxfp8", "fp8_e4m3", "fp8_e5m2", "bf16"}));
  cmd->add_option("--block", o->block, "elements per block along the last axis (default: the format's)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--scale", o->scale, "block scale format")->check(CLI::IsMember({"e4m3", "e8m0", "ue8m0", "fp32", "none"}));
  cmd->add_option("--scale-rule", o->scale_rule, "UE8M0 rule: floor (OCP MX) or ceil (TE)")
      ->check(CLI::IsMember({"floor", "ceil"}));
  cmd->add_option("--tile", o->tile, "1d blocks or 2d (block x block) tiles")->check(CLI::IsMember({"1d", "2d"}));
  cmd->add_flag("--rht", o->rht, "random Hadamard transform along the last axis first");
  cmd->add_option("--rht-size", o->rht_size, "Hadamard size (power of two)");
  cmd->add_option("--rht-seed", o->rht_seed, "random sign seed (0: TE's fixed 16-point signs)");
  cmd->add_option("--rounding", o->rounding, "rne, or sr (stochastic, fp4 only)")->check(CLI::IsMember({"rne", "sr"}));
  cmd->add_option("--seed", o->seed, "stochastic rounding seed");
  cmd->add_option("--te-formula", o->te_formula, "NVFP4 block scale formula of TE 2.14+ or 2.13-")
      ->check(CLI::IsMember({"2.14", "2.13"}));
  cmd->add_option("--four-over-six", o->four_over_six, "TE 4over6 NVFP4: per block, map-to-4 when its error is smaller")
      ->check(CLI::IsMember({"off", "mae", "mse"}));
  cmd->add_option("--global-e4m3-max", o->global_e4m3_max, "Q of NVFP4's tensor scale 6Q/amax (256 only with 4over6)")
      ->check(CLI::IsMember({448, 256}));
  cmd->add_flag("--row-scaled", o->row_scaled, "NVFP4 with one fp32 amax per row (TE row-scaled activations)");
  cmd->add_option("--operand-dtype", o->operand_dtype, "bf16: round the input to bf16 first, as TE quantizes bf16 tensors")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  cmd->callback([o] { run_quantize(*o); });
}

}  // namespace fp4lab::cli
