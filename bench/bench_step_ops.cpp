// Where a training step's time goes: one step (forward, backward, AdamW) of `small` and `medium` in
// the fp32, bf16 and FP4 recipe presets (FP4 under both GEMM numerics) (4 sequences per step, as bench_model), split by op group
// with the op timers (core/profile/op_timer.hpp) into ms per step: gemm, quantizer, attention,
// norm_elementwise, embedding_loss, optimizer, and `other` = the step's time outside every op scope
// (the model's bookkeeping). Run it at several OMP_NUM_THREADS to see which groups scale
// (bench/scaling.py does). Timers are on only inside this benchmark. Not a throughput comparison.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/model/model.hpp"
#include "core/profile/op_timer.hpp"
#include "core/train/optimizer.hpp"

namespace fp4lab {
namespace {

const char* const kModels[] = {"small", "medium"};
// The recipe presets, FP4 ones both ways: as shipped (block_exact GEMMs), and "+dequant" with
// recipe.gemm_numerics=dequant_fp32.
const char* const kRecipes[] = {"fp32", "bf16", "nvfp4", "nvfp4+dequant", "te_nvfp4", "te_nvfp4+dequant",
                                "mxfp4", "mxfp4+dequant", "te_nvfp4_4over6"};

Config step_config(const char* model, const std::string& recipe) {
  ConfigBuilder b;
  b.add_file(std::string(FP4LAB_SOURCE_DIR) + "/experiments/base/default.yaml");
  b.add_override(std::string("model=") + model);
  const size_t plus = recipe.find('+');
  b.add_override("recipe=" + recipe.substr(0, plus));
  if (plus != std::string::npos) b.add_override("recipe.gemm_numerics=dequant_fp32");
  b.add_override("train.batch_size=4");
  return b.build();
}

// args: model (0 small, 1 medium), recipe (an index into kRecipes)
void BM_StepOps(benchmark::State& state) {
  const Config cfg = step_config(kModels[state.range(0)], kRecipes[state.range(1)]);
  Model model(cfg.model, run_recipe(cfg));
  model.init_parameters(1);
  AdamW adam(cfg.optim, model.params(), model.num_params());
  const int B = cfg.train.batch_size, T = cfg.model.seq_len;
  std::vector<int32_t> tokens(size_t(B) * (T + 1));
  std::mt19937 gen(1);
  for (auto& t : tokens) t = int32_t(gen() % uint32_t(cfg.model.vocab));
  int64_t step = 0;
  auto train_step = [&] {
    ++step;
    model.forward_backward(tokens.data(), B, T, 7, step, 0);
    adam.step(model.param_data(), model.grad_data(), 1e-4);
  };
  train_step();  // sizes the activation arena and the quantizer's buffers

  set_op_timers(true);
  reset_op_timers();
  double step_seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    train_step();
    step_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  set_op_timers(false);
  const OpTimes times = op_times();

  const double steps = double(state.iterations());
  double scoped = 0, scopes = 0;
  for (int g = 0; g < kOpGroups; ++g) {
    state.counters[to_string(OpGroup(g)) + "_ms"] = 1e3 * times.seconds[size_t(g)] / steps;
    scoped += times.seconds[size_t(g)];
    scopes += double(times.calls[size_t(g)]);
  }
  state.counters["scopes/step"] = scopes / steps;  // each costs ~1 ns with the timers off
  state.counters["other_ms"] = 1e3 * (step_seconds - scoped) / steps;
  state.counters["tokens/s"] = double(B) * T * steps / step_seconds;
  state.SetLabel(std::string(kModels[state.range(0)]) + " " + kRecipes[state.range(1)] + " " +
                 std::to_string(omp_get_max_threads()) + "thr");
}
BENCHMARK(BM_StepOps)
    ->ArgsProduct({{0, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8}})
    ->ArgNames({"model", "recipe"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();  // a medium step takes ~1 s on one core: use --benchmark_min_time=2 or more

}  // namespace
}  // namespace fp4lab

// main() is bench_quant.cpp's: every bench/*.cpp links into the one fp4lab_bench binary.
