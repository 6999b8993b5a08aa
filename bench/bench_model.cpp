// Model throughput: one forward_backward step of a `small` (~1.9M parameters) and a `medium`
// (~11M) Llama in the fp32 recipe and in the NVFP4 recipe (TE NVFP4BlockScaling: 2D weights, SR
// and RHT on the gradient operands), the medium step's linear GEMMs on their own, and a 1024³
// fp32 GEMM as the machine's reference rate. Not a training-loop or data-loader benchmark.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/model/model.hpp"
#include "core/ops/matmul.hpp"

namespace fp4lab {
namespace {

struct Size {
  const char* name;
  ModelConfig cfg;
  int B;
};

ModelConfig config(int d, int layers, int heads, int d_ff, int seq) {
  ModelConfig c;
  c.vocab = 256;
  c.d_model = d;
  c.n_layers = layers;
  c.n_heads = heads;
  c.d_ff = d_ff;
  c.seq_len = seq;
  return c;
}

const Size kSizes[] = {
    {"small", config(192, 4, 6, 512, 128), 4},    // 1.87M parameters, 512 tokens per step
    {"medium", config(384, 6, 6, 1024, 256), 4},  // 10.8M parameters, 1024 tokens per step
};

// NVFP4 as TE's NVFP4BlockScaling (core/quant/NUMERICS.md, Operands and copies): E2M1 elements in
// 16-blocks with E4M3 scales under an fp32 tensor scale; weights in 16×16 tiles; gradients
// stochastically rounded; RHT on wgrad.
RecipeConfig nvfp4_recipe() {
  QuantSpec base;
  base.element = ElementFormat::fp4_e2m1;
  base.block = 16;
  base.scale = ScaleFormat::e4m3;
  QuantSpec weight = base, grad = base;
  weight.tile = Tile::d2;
  grad.rounding = Rounding::sr;
  QuantSpec wgrad_grad = grad, wgrad_input = base;
  wgrad_grad.rht = wgrad_input.rht = true;
  RecipeConfig r;
  r.name = "nvfp4";
  r.quantized = LinearRecipe{base, weight, grad, weight, wgrad_grad, wgrad_input, true};
  r.high_precision.bf16_output = true;
  return r;
}

std::vector<int32_t> tokens_for(int B, int T) {
  std::mt19937 gen(1);
  std::vector<int32_t> t(size_t(B) * (T + 1));
  for (auto& x : t) x = int32_t(gen() % 256);
  return t;
}

void BM_Step(benchmark::State& state) {
  const Size& size = kSizes[state.range(0)];
  const bool nvfp4 = state.range(1) != 0;
  Model m(size.cfg, nvfp4 ? nvfp4_recipe() : RecipeConfig{});
  m.init_parameters(1);
  const int T = size.cfg.seq_len;
  const auto tokens = tokens_for(size.B, T);
  int64_t step = 0;
  m.forward_backward(tokens.data(), size.B, T, 7, step++, 0);  // sizes the activation arena
  for (auto _ : state) {
    benchmark::DoNotOptimize(m.forward_backward(tokens.data(), size.B, T, 7, step++, 0));
  }
  int64_t linear_params = 0;
  for (const auto& p : m.params()) linear_params += p.is_linear ? p.rows * p.cols : 0;
  const double tokens_per_step = double(size.B) * T;
  // Three GEMMs of 2·M·N·K flops per linear layer.
  const double gemm_flops = 6.0 * tokens_per_step * double(linear_params);
  state.counters["params_M"] = double(m.num_params()) / 1e6;
  state.counters["tokens/s"] =
      benchmark::Counter(tokens_per_step * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["linear_GFLOP/s"] = benchmark::Counter(
      gemm_flops * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(size.name) + (nvfp4 ? " nvfp4" : " fp32"));
}
BENCHMARK(BM_Step)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"size", "nvfp4"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void gemm_counters(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops_per_iteration * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void BM_Gemm1024(benchmark::State& state) {
  const int64_t n = 1024;
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  for (auto _ : state) {
    matmul(c.data(), a.data(), Trans::n, b.data(), Trans::t, n, n, n, false);
    benchmark::ClobberMemory();
  }
  gemm_counters(state, 2.0 * n * n * n);
}
BENCHMARK(BM_Gemm1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// The medium step's linear GEMMs alone, with the operand layouts the fp32 path uses:
// fprop X·Wᵀ (n,t), dgrad dY·W (n,n), wgrad dYᵀ·X (t,n) per linear.
void BM_MediumLinearGemms(benchmark::State& state) {
  const ModelConfig& c = kSizes[1].cfg;
  const int64_t M = int64_t(kSizes[1].B) * c.seq_len, C = c.d_model, F = c.d_ff, V = c.vocab;
  struct Shape {
    int64_t n, k, count;
  };
  const Shape shapes[] = {{C, C, 4 * c.n_layers}, {F, C, 2 * c.n_layers}, {C, F, c.n_layers},
                          {V, C, 1}};
  std::vector<float> x(M * F, 0.5f), w(F * F, 0.25f), y(M * F), dw(F * F);
  double flops = 0;
  for (const Shape& s : shapes) flops += 6.0 * double(M * s.n * s.k * s.count);
  for (auto _ : state) {
    for (const Shape& s : shapes) {
      for (int64_t i = 0; i < s.count; ++i) {
        matmul(y.data(), x.data(), Trans::n, w.data(), Trans::t, M, s.n, s.k, false);
        matmul(y.data(), x.data(), Trans::n, w.data(), Trans::n, M, s.k, s.n, true);
        matmul(dw.data(), x.data(), Trans::t, x.data(), Trans::n, s.n, s.k, M, true);
      }
    }
    benchmark::ClobberMemory();
  }
  gemm_counters(state, flops);
}
BENCHMARK(BM_MediumLinearGemms)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fp4lab

// main() is bench_quant.cpp's: every bench/*.cpp links into the one fp4lab_bench binary.
