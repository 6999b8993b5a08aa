// Quantizer throughput on a 4096 x 4096 fp32 tensor, for each format, against a plain copy of the
// same tensor in the same run (OpenMP row memcpy with the quantizer's threads). Prints a summary
// table of each quantizer's time as a multiple of the copy time (medians when run with
// --benchmark_repetitions). Not a correctness test.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

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

void BM_Copy(benchmark::State& state) {
  const std::vector<float>& x = input();
  std::vector<float> y(x.size());
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < kRows; ++r) std::memcpy(&y[r * kCols], &x[r * kCols], kCols * sizeof(float));
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
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
  uint64_t step = 0;
  for (auto _ : state) {
    fp4lab::quantize(x.data(), y.data(), kRows, kCols, spec, {1, 2, step++}, extra);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * sizeof(float));
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

// Console output as usual, plus the real time per iteration of each benchmark for the summary:
// the median aggregate when repetitions are on, else the single run.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string name = run.run_name.function_name;
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median") {
        median_ms_[name] = run.GetAdjustedRealTime();
      } else if (run.run_type == Run::RT_Iteration) {
        single_ms_[name] = run.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void summary() const {
    std::map<std::string, double> ms = single_ms_;
    for (const auto& [name, t] : median_ms_) ms[name] = t;
    const auto copy = ms.find("copy");
    if (copy == ms.end()) return;
    std::printf("\n%-24s %10s %8s   (%s, %d threads)\n", "4096x4096 fp32", "ms", "x copy",
                median_ms_.empty() ? "single runs" : "medians", omp_get_max_threads());
    for (const auto& [name, t] : ms) std::printf("%-24s %10.2f %8.2f\n", name.c_str(), t, t / copy->second);
    std::printf("targets: nvfp4_1d_rne <= 4x copy, nvfp4_rht_sr <= 8x copy\n");
  }

 private:
  std::map<std::string, double> single_ms_, median_ms_;
};

}  // namespace

int main(int argc, char** argv) {
  for (const Variant& v : kVariants)
    benchmark::RegisterBenchmark(v.name, BM_Quantize, v)->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  input();
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.summary();
  benchmark::Shutdown();
  return 0;
}
