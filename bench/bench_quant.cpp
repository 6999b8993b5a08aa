// Quantizer throughput on a 4096 x 4096 fp32 tensor, for each format, against a plain copy of the
// same tensor (OpenMP row memcpy, same threads) timed alternately in the same iterations, so the
// x_copy ratio is robust to load drifting on a shared machine. Ends with a summary table
// (medians under --benchmark_repetitions). Not a correctness test.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/quant/format_table.hpp"
#include "core/quant/quantize.hpp"

namespace {

constexpr int64_t kRows = 4096, kCols = 4096;

const std::vector<float>& input() {
  static const std::vector<float> x = [] {
    std::vector<float> v(kRows * kCols);
    std::mt19937 gen(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& f : v) f = normal(gen);
    return v;
  }();
  return x;
}

void parallel_copy(const std::vector<float>& x, std::vector<float>& y) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < kRows; ++r) std::memcpy(&y[r * kCols], &x[r * kCols], kCols * sizeof(float));
  benchmark::DoNotOptimize(y.data());
  benchmark::ClobberMemory();
}

void BM_Copy(benchmark::State& state) {
  const std::vector<float>& x = input();
  std::vector<float> y(x.size());
  for (auto _ : state) parallel_copy(x, y);
  state.SetBytesProcessed(state.iterations() * kRows * kCols * sizeof(float));
}
BENCHMARK(BM_Copy)->Name("copy")->UseRealTime()->Unit(benchmark::kMillisecond);

struct Variant {
  const char* name;
  const char* format;
  fp4lab::Tile tile = fp4lab::Tile::d1;
  fp4lab::Rounding rounding = fp4lab::Rounding::rne;
  bool rht = false;
  bool outputs = false;  // also codes, scales and statistics
};

void BM_Quantize(benchmark::State& state, Variant v) {
  fp4lab::QuantSpec spec;
  fp4lab::named_format(v.format, spec);
  spec.tile = v.tile;
  spec.rounding = v.rounding;
  spec.rht = v.rht;
  const std::vector<float>& x = input();
  std::vector<float> y(x.size());
  std::vector<uint8_t> codes, scales;
  fp4lab::QuantStats stats;
  const fp4lab::QuantOutputs extra = v.outputs ? fp4lab::QuantOutputs{&codes, &scales, nullptr, &stats}
                                               : fp4lab::QuantOutputs{};
  std::vector<float> copy(x.size());
  using Clock = std::chrono::steady_clock;
  double quantize_seconds = 0.0, copy_seconds = 0.0;
  uint64_t step = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    parallel_copy(x, copy);
    const auto t1 = Clock::now();
    fp4lab::quantize(x.data(), y.data(), kRows, kCols, spec, {1, 2, step++}, extra);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
    const auto t2 = Clock::now();
    const double seconds = std::chrono::duration<double>(t2 - t1).count();
    state.SetIterationTime(seconds);
    quantize_seconds += seconds;
    copy_seconds += std::chrono::duration<double>(t1 - t0).count();
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * sizeof(float));
  state.counters["x_copy"] = quantize_seconds / copy_seconds;
  state.counters["copy_ms"] = benchmark::Counter(1e3 * copy_seconds / static_cast<double>(state.iterations()));
}

const Variant kVariants[] = {
    {"nvfp4_1d_rne", "nvfp4"},
    {"nvfp4_2d_rne", "nvfp4", fp4lab::Tile::d2},
    {"nvfp4_1d_sr", "nvfp4", fp4lab::Tile::d1, fp4lab::Rounding::sr},
    {"nvfp4_rht_rne", "nvfp4", fp4lab::Tile::d1, fp4lab::Rounding::rne, true},
    {"nvfp4_rht_sr", "nvfp4", fp4lab::Tile::d1, fp4lab::Rounding::sr, true},
    {"nvfp4_1d_rne+outputs", "nvfp4", fp4lab::Tile::d1, fp4lab::Rounding::rne, false, true},
    {"mxfp4", "mxfp4"},
    {"mxfp8", "mxfp8"},
    {"fp8_e4m3", "fp8_e4m3"},
    {"fp8_e5m2", "fp8_e5m2"},
    {"bf16", "bf16"},
};

// Console output as usual, plus each quantizer's time and x_copy for the summary: the median
// aggregates under repetitions, else the single run.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (!median && run.run_type != Run::RT_Iteration) continue;
      if (median) medians_ = true;
      if (!median && medians_) continue;
      const auto ratio = run.counters.find("x_copy");
      if (ratio == run.counters.end() && run.run_name.function_name != "copy") continue;  // not a quantizer
      rows_[run.run_name.function_name] = {run.GetAdjustedRealTime(),
                                           ratio == run.counters.end() ? 1.0 : ratio->second.value};
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void summary() const {
    std::printf("\n%-24s %10s %8s   (%s, %d threads; x copy = time / interleaved copy time)\n", "4096x4096 fp32",
                "ms", "x copy", medians_ ? "medians" : "single runs", omp_get_max_threads());
    for (const auto& [name, row] : rows_) std::printf("%-24s %10.2f %8.2f\n", name.c_str(), row.first, row.second);
    std::printf("targets: nvfp4_1d_rne <= 4x copy, nvfp4_rht_sr <= 8x copy\n");
  }

 private:
  bool medians_ = false;
  std::map<std::string, std::pair<double, double>> rows_;
};

}  // namespace

int main(int argc, char** argv) {
  for (const Variant& v : kVariants)
    benchmark::RegisterBenchmark(v.name, BM_Quantize, v)->UseManualTime()->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  input();
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.summary();
  benchmark::Shutdown();
  return 0;
}
