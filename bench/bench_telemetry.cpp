// Cost of the diagnostics: one training step (forward, backward, AdamW with its per-tensor norms) of
// the `small` model in the nvfp4 recipe with and without full telemetry (quantizer statistics,
// block-scale statistics, what-if SQNRs, bias and SR concentration, GNR), the amortised cost at a
// 100-step telemetry interval, and the non-finite sentinel's share of a quantizer pass. Not a
// throughput benchmark (bench_model).
#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/model/model.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quantize.hpp"
#include "core/train/optimizer.hpp"

namespace fp4lab {
namespace {

constexpr int kTelemetryInterval = 100;  // the interval the amortised cost is quoted at

Config small_nvfp4() {
  ConfigBuilder b;
  b.add_file(std::string(FP4LAB_SOURCE_DIR) + "/experiments/base/default.yaml");
  b.add_override("model=small");
  b.add_override("recipe=nvfp4");
  b.add_override("train.batch_size=4");  // 512 tokens per step, as bench_model's small step
  return b.build();
}

// Seconds of one training step, with or without telemetry.
struct Trainer {
  Config cfg = small_nvfp4();
  Model model{cfg.model, run_recipe(cfg)};
  AdamW adam{cfg.optim, model.params(), model.num_params()};
  std::vector<int32_t> tokens;
  std::vector<QuantStatRecord> quant;
  std::vector<GnrRecord> gnr;
  std::vector<TensorNorms> norms;
  int64_t step = 0;

  Trainer() {
    model.init_parameters(1);
    std::mt19937 gen(1);
    tokens.resize(size_t(cfg.train.batch_size) * (cfg.model.seq_len + 1));
    for (auto& t : tokens) t = int32_t(gen() % uint32_t(cfg.data.synthetic_vocab));
    run(false);  // sizes the activation arena
  }

  double run(bool telemetry) {
    const auto t0 = std::chrono::steady_clock::now();
    quant.clear();
    gnr.clear();
    StepTelemetry tel{telemetry, &quant, &gnr};
    ++step;
    model.forward_backward(tokens.data(), cfg.train.batch_size, cfg.model.seq_len, 7, step, 0, &tel);
    adam.step(model.param_data(), model.grad_data(), 1e-4, &norms);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

// Alternates plain and telemetry steps (so machine-load drifts hit both alike) and reports the mean
// of each and the amortised overhead of one telemetry step every kTelemetryInterval steps.
void BM_TelemetryOverhead(benchmark::State& state) {
  Trainer t;
  double plain = 0, full = 0;
  int64_t n = 0;
  for (auto _ : state) {
    plain += t.run(false);
    full += t.run(true);
    ++n;
  }
  plain /= double(n);
  full /= double(n);
  state.counters["plain_ms"] = plain * 1e3;
  state.counters["telemetry_ms"] = full * 1e3;
  state.counters["records"] = double(t.quant.size() + t.gnr.size());
  state.counters["amortised_pct@100"] = 100.0 * (full - plain) / (double(kTelemetryInterval) * plain);
  state.SetLabel("small nvfp4, 512 tokens/step");
}
BENCHMARK(BM_TelemetryOverhead)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(5.0);

// One nvfp4 quantizer pass over a [2048, 1024] operand: plain, with the sentinel flag, with full
// statistics. The sentinel rides in the encoding pass; its cost is the difference to plain.
void BM_QuantizeSentinel(benchmark::State& state) {
  const int mode = int(state.range(0));  // 0 plain, 1 sentinel, 2 statistics
  const int64_t rows = 2048, cols = 1024;
  std::vector<float> x(size_t(rows * cols)), out(x.size());
  std::mt19937 gen(3);
  std::normal_distribution<float> normal;
  for (auto& v : x) v = normal(gen);
  QuantSpec spec;
  named_format("nvfp4", spec);
  bool nonfinite = false;
  QuantStats stats;
  QuantOutputs extra;
  if (mode >= 1) extra.nonfinite = &nonfinite;
  if (mode == 2) extra.stats = &stats;
  for (auto _ : state) {
    quantize(x.data(), out.data(), rows, cols, spec, {}, extra);
    benchmark::ClobberMemory();
  }
  state.counters["elements/s"] = benchmark::Counter(double(rows * cols) * double(state.iterations()),
                                                     benchmark::Counter::kIsRate);
  state.SetLabel(mode == 0 ? "plain" : mode == 1 ? "sentinel" : "statistics");
}
BENCHMARK(BM_QuantizeSentinel)->DenseRange(0, 2)->ArgName("mode")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fp4lab

// main() is bench_quant.cpp's: every bench/*.cpp links into the one fp4lab_bench binary.
