// `fp4lab quantize IN.h5 OUT.h5 --dataset NAME --format F [options]`: quantize one float32 2-D
// dataset and write codes, scales, dequant and global_amax to OUT.h5. Everything is checked before
// OUT.h5 is touched, and OUT.h5 is written to a temporary file then renamed
// (h5::write_file_atomically), so a failed run leaves no output file. Not a batch tool: one dataset per call.
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

[[noreturn]] void usage_error(const std::string& message) { throw Exit{kExitUsage, message}; }

void run_quantize(const QuantizeOptions& o) {
  const QuantSpec spec = build_spec(o);
  namespace fs = std::filesystem;
  if (fs::exists(o.out) && fs::exists(o.in) && fs::equivalent(o.in, o.out)) usage_error(o.out + ": OUT must differ from IN");
  int64_t rows = 0, cols = 0;
  const std::vector<float> x = read_operand(o.in, o.dataset, spec, rows, cols);
  const std::string dims = std::to_string(rows) + "x" + std::to_string(cols);
  const QuantizedTensor q = quantize_tensor(x, rows, cols, spec, QuantRandom{o.seed, 0, 0});
  h5::write_file_atomically(o.out, [&](h5::File& out) {
    write_quantized(out, "/", q);
    out.set_attr("/", "source", o.in + ":" + o.dataset);
  });
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
  add_quantize_options(cmd, *o, "");
  cmd->callback([o] { run_quantize(*o); });
}

}  // namespace fp4lab::cli
