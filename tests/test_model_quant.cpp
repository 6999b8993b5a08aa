// The model under the NVFP4 recipe: reproducible for a seed at any thread count, SR seeds change
// gradients but not the (round-to-nearest) forward, telemetry per quantized operand use, the GEMM-use
// manifest, keep_last and the precision switch. Per-GEMM operand exactness is test_linear_quant.cpp.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>

#include "core/model/gemm_counters.hpp"
#include "core/model/model.hpp"
#include "tests/check.hpp"

namespace fp4lab {
namespace {

using testing::bit_equal;
using testing::nvfp4_recipe;

// Tokens (B·T = 32) and widths divisible by 16 for NVFP4 blocks and 16×16 weight tiles.
ModelConfig quant_config() { return testing::tiny_model_config(16); }

constexpr int kB = 2, kT = 16;

std::vector<int32_t> tokens_for(uint32_t seed) { return testing::random_tokens(kB, kT, 256, seed); }

struct Result {
  double loss;
  std::vector<float> grads;
};

Result run(const RecipeConfig& r, uint64_t seed, int threads, int64_t tokens_seen = 0,
           StepTelemetry* tel = nullptr) {
  const int keep = omp_get_max_threads();
  omp_set_num_threads(threads);
  Model m(quant_config(), r);
  m.init_parameters(21);
  const auto tokens = tokens_for(22);
  const double loss = m.forward_backward(tokens.data(), kB, kT, seed, 4, tokens_seen, tel);
  omp_set_num_threads(keep);
  return {loss, std::vector<float>(m.grad_data(), m.grad_data() + m.num_params())};
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

TEST(ModelQuant, ReproducibleForASeedAtAnyThreadCount) {
  const Result a = run(nvfp4_recipe(), 1, 1), b = run(nvfp4_recipe(), 1, 2);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_TRUE(bit_equal(a.grads.data(), b.grads.data(), int64_t(a.grads.size())));
  const Result other_seed = run(nvfp4_recipe(), 2, 2);
  EXPECT_EQ(other_seed.loss, a.loss);  // fprop rounds to nearest: no randomness in the loss
  EXPECT_FALSE(bit_equal(other_seed.grads.data(), a.grads.data(), int64_t(a.grads.size())));
}

TEST(ModelQuant, CloseToFp32AtInit) {
  const Result q = run(nvfp4_recipe(), 1, 2), f = run(RecipeConfig{}, 1, 2);
  EXPECT_NE(q.loss, f.loss);
  EXPECT_NEAR(q.loss, f.loss, 0.05);
  EXPECT_GT(cosine(q.grads, f.grads), 0.8);  // FP4 gradients point the same way
}

TEST(ModelQuant, TelemetryHasOneRecordPerQuantizedOperandUse) {
  std::vector<QuantStatRecord> records;
  StepTelemetry tel{true, &records};
  run(nvfp4_recipe(), 1, 2, 0, &tel);
  const ModelConfig c = quant_config();
  const size_t quantized_linears = size_t(7 * c.n_layers);  // the LM head stays high precision
  ASSERT_EQ(records.size(), quantized_linears * 6);
  for (const auto& r : records) {
    EXPECT_EQ(r.step, 4);
    EXPECT_LT(r.tensor, int32_t(quantized_linears));
    EXPECT_GT(r.amax, 0.f);
    EXPECT_GE(r.frac_flushed, 0.f);
    EXPECT_LT(r.frac_flushed, 0.5f);
    EXPECT_GT(r.sqnr_db, 5.f);
    EXPECT_GT(r.scale_max, 0.f);
    EXPECT_LE(r.scale_max, 448.f);  // decoded E4M3 block scales
    EXPECT_LE(r.scale_min, r.scale_max);
    EXPECT_GE(r.scale_std, 0.f);
  }
  records.clear();
  StepTelemetry off{false, &records};
  run(nvfp4_recipe(), 1, 2, 0, &off);
  EXPECT_TRUE(records.empty());
}

TEST(ModelQuant, GemmUsesRecordTheSpecOfEveryOperand) {
  Model m(quant_config(), nvfp4_recipe());
  m.init_parameters(1);
  GemmCounters counters(m);
  m.attach(&counters);
  const auto tokens = tokens_for(3);
  m.forward_backward(tokens.data(), kB, kT, 1, 1, 0);
  const LinearRecipe q = testing::nvfp4_linear();
  const auto uses = counters.uses();
  ASSERT_EQ(uses.size(), m.linear_names().size() * 6);
  for (const GemmUse& u : uses) {
    EXPECT_EQ(u.count, 1);
    EXPECT_EQ(u.spec.quantized(), u.site.tensor != "lm_head");
  }
  const QuantSpec* expected[3][2] = {{&q.fprop_x, &q.fprop_w}, {&q.dgrad_dy, &q.dgrad_w},
                                     {&q.wgrad_dy, &q.wgrad_x}};
  for (const GemmUse& u : uses) {
    if (u.site.tensor != "lm_head") {
      EXPECT_EQ(u.spec, *expected[int(u.site.role)][int(u.site.operand)]);
    }
  }
}

TEST(ModelQuant, KeepLastAndPrecisionSwitch) {
  RecipeConfig keep = nvfp4_recipe();
  keep.keep_last = 1;
  std::vector<QuantStatRecord> records;
  StepTelemetry tel{true, &records};
  run(keep, 1, 2, 0, &tel);
  ASSERT_EQ(records.size(), size_t(7 * 6));  // only block 0
  for (const auto& r : records) EXPECT_LT(r.tensor, 7);

  RecipeConfig switched = nvfp4_recipe();
  switched.switch_at = SwitchAt::tokens;
  switched.switch_tokens = 100;
  RecipeConfig high = nvfp4_recipe();
  high.quantized = high.high_precision;
  const Result after = run(switched, 1, 2, 100), reference = run(high, 1, 2, 100);
  EXPECT_EQ(after.loss, reference.loss);
  EXPECT_TRUE(bit_equal(after.grads.data(), reference.grads.data(), int64_t(after.grads.size())));
  EXPECT_NE(run(switched, 1, 2, 99).loss, reference.loss);
}

TEST(ModelQuant, ShapeErrorsNameTheLayerGemmAndOperand) {
  Model m(quant_config(), nvfp4_recipe());
  m.init_parameters(1);
  const auto tokens = tokens_for(3);
  try {
    m.forward_backward(tokens.data(), 2, 5, 1, 1, 0);  // 10 tokens: not a whole 16-block
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "layers.1.mlp.down_proj wgrad dy [32, 10]: block size 16 does not divide the last "
              "axis (10)");
  }
}

}  // namespace
}  // namespace fp4lab
