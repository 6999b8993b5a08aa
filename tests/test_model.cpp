// The Llama model (core/model) with quantization off: parameter layout and init, whole-model
// gradients against fp32 finite differences, determinism (seed, thread count), bf16 GEMM outputs,
// the GEMM-use manifest, recipe resolution and input checks. Quantized runs: test_model_quant.cpp.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "core/model/gemm_counters.hpp"
#include "core/model/model.hpp"
#include "tests/check.hpp"

namespace fp4lab {
namespace {

using testing::all_close;
using testing::bit_equal;

ModelConfig tiny_config() { return testing::tiny_model_config(8); }

constexpr int kB = 2, kT = 8;

using testing::random_tokens;

std::vector<float> copy_of(const float* p, int64_t n) { return std::vector<float>(p, p + n); }

TEST(Model, ParameterLayoutFollowsLlamaNames) {
  const ModelConfig c = tiny_config();
  Model m(c, RecipeConfig{});
  const auto& ps = m.params();
  ASSERT_EQ(ps.size(), size_t(1 + 9 * c.n_layers + 2));
  EXPECT_EQ(ps[0].name, "embed_tokens");
  EXPECT_EQ(ps[1].name, "layers.0.input_layernorm");
  EXPECT_EQ(ps[2].name, "layers.0.self_attn.q_proj");
  EXPECT_EQ(ps[5].name, "layers.0.self_attn.o_proj");
  EXPECT_EQ(ps[6].name, "layers.0.post_attention_layernorm");
  EXPECT_EQ(ps[9].name, "layers.0.mlp.down_proj");
  EXPECT_EQ(ps[9].rows, c.d_model);  // [out, in]
  EXPECT_EQ(ps[9].cols, c.d_ff);
  EXPECT_EQ(ps[7].rows, c.d_ff);
  EXPECT_EQ(ps[ps.size() - 2].name, "norm");
  EXPECT_EQ(ps.back().name, "lm_head");
  int64_t offset = 0;
  for (const auto& p : ps) {
    EXPECT_EQ(p.offset, offset) << p.name;  // contiguous: one loop covers every parameter
    offset += p.rows * p.cols;
    EXPECT_EQ(p.decay, p.rows > 1) << p.name;
  }
  const int64_t C = c.d_model, F = c.d_ff, V = c.vocab;
  EXPECT_EQ(m.num_params(), 2 * V * C + C + c.n_layers * (4 * C * C + 3 * C * F + 2 * C));
  const auto names = m.linear_names();
  ASSERT_EQ(names.size(), size_t(7 * c.n_layers + 1));
  EXPECT_EQ(names[0], "layers.0.self_attn.q_proj");
  EXPECT_EQ(names[6], "layers.0.mlp.down_proj");
  EXPECT_EQ(names.back(), "lm_head");
}

TEST(Model, InitIsDeterministicAndScaled) {
  const ModelConfig c = tiny_config();
  Model a(c, RecipeConfig{}), b(c, RecipeConfig{});
  a.init_parameters(7);
  b.init_parameters(7);
  EXPECT_EQ(0, std::memcmp(a.param_data(), b.param_data(), sizeof(float) * a.num_params()));
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  b.init_parameters(7);
  omp_set_num_threads(threads);
  EXPECT_EQ(0, std::memcmp(a.param_data(), b.param_data(), sizeof(float) * a.num_params()));
  b.init_parameters(8);
  EXPECT_NE(0, std::memcmp(a.param_data(), b.param_data(), sizeof(float) * a.num_params()));

  for (const auto& p : a.params()) {
    const float* d = a.param_data() + p.offset;
    const int64_t n = p.rows * p.cols;
    if (p.rows == 1) {
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(d[i], 1.f) << p.name;
      continue;
    }
    double sum_sq = 0;
    for (int64_t i = 0; i < n; ++i) sum_sq += double(d[i]) * d[i];
    const bool out_proj = p.name.find("o_proj") != std::string::npos ||
                          p.name.find("down_proj") != std::string::npos;
    const double expected = c.init_std / (out_proj ? std::sqrt(2.0 * c.n_layers) : 1.0);
    // The sample std of n >= 1024 normals lies within 10% of the true one with overwhelming odds.
    EXPECT_NEAR(std::sqrt(sum_sq / n), expected, 0.1 * expected) << p.name;
  }
}

TEST(Model, GradientsMatchFiniteDifferences) {
  ModelConfig c = tiny_config();
  c.init_std = 0.1;  // larger activations: gradients well above the fp32 loss noise
  Model m(c, RecipeConfig{});
  m.init_parameters(3);
  const auto tokens = random_tokens(kB, kT, c.vocab, 4);
  m.forward_backward(tokens.data(), kB, kT, 0, 0, 0);
  const auto grads = copy_of(m.grad_data(), m.num_params());
  float* params = m.param_data();
  std::mt19937 gen(5);
  std::normal_distribution<double> normal;

  // Per tensor: the derivative along v = ĝ + r̂ (gradient direction plus a random unit vector).
  for (const auto& p : m.params()) {
    const int64_t n = p.rows * p.cols;
    std::vector<double> v(static_cast<size_t>(n)), r(static_cast<size_t>(n));
    double g_norm = 0, r_norm = 0;
    for (int64_t i = 0; i < n; ++i) {
      r[i] = normal(gen);
      g_norm += double(grads[p.offset + i]) * grads[p.offset + i];
      r_norm += r[i] * r[i];
    }
    g_norm = std::sqrt(g_norm), r_norm = std::sqrt(r_norm);
    double analytic = 0;
    for (int64_t i = 0; i < n; ++i) {
      v[i] = grads[p.offset + i] / g_norm + r[i] / r_norm;
      analytic += grads[p.offset + i] * v[i];
    }
    const auto original = copy_of(params + p.offset, n);
    auto loss_at = [&](double h) {
      for (int64_t i = 0; i < n; ++i) params[p.offset + i] = float(original[i] + h * v[i]);
      return m.forward_loss(tokens.data(), kB, kT, 0);
    };
    const double fd = (loss_at(testing::kModelFdStep) - loss_at(-testing::kModelFdStep)) /
                      (2 * testing::kModelFdStep);
    std::memcpy(params + p.offset, original.data(), sizeof(float) * n);
    EXPECT_NEAR(fd, analytic, testing::kModelFdTol * std::fabs(analytic)) << p.name;
  }
}

TEST(Model, SameSeedSameLossAndGradientsAnyThreadCount) {
  const ModelConfig c = tiny_config();
  const auto tokens = random_tokens(kB, kT, c.vocab, 6);
  auto run = [&](int threads) {
    const int keep = omp_get_max_threads();
    omp_set_num_threads(threads);
    Model m(c, RecipeConfig{});
    m.init_parameters(11);
    const double loss = m.forward_backward(tokens.data(), kB, kT, 1, 1, 0);
    omp_set_num_threads(keep);
    return std::pair{loss, copy_of(m.grad_data(), m.num_params())};
  };
  const auto [loss1, grads1] = run(1);
  const auto [loss2, grads2] = run(2);
  const auto [loss3, grads3] = run(2);
  EXPECT_EQ(loss1, loss2);
  EXPECT_EQ(loss2, loss3);
  EXPECT_TRUE(bit_equal(grads1.data(), grads2.data(), int64_t(grads1.size())));
  EXPECT_TRUE(bit_equal(grads2.data(), grads3.data(), int64_t(grads2.size())));
}

TEST(Model, ForwardBackwardOverwritesGradients) {
  const ModelConfig c = tiny_config();
  Model m(c, RecipeConfig{});
  m.init_parameters(12);
  const auto tokens = random_tokens(kB, kT, c.vocab, 13);
  const double loss = m.forward_backward(tokens.data(), kB, kT, 0, 0, 0);
  const auto grads = copy_of(m.grad_data(), m.num_params());
  EXPECT_EQ(m.forward_backward(tokens.data(), kB, kT, 0, 0, 0), loss);
  EXPECT_TRUE(bit_equal(m.grad_data(), grads.data(), m.num_params()));
  EXPECT_EQ(m.forward_loss(tokens.data(), kB, kT, 0), loss);
  // Near-uniform predictions at init: the loss is close to log(vocab).
  EXPECT_NEAR(loss, std::log(double(c.vocab)), 0.1);
}

TEST(Model, AlternatingBatchShapesGiveTheSameResults) {
  const ModelConfig c = tiny_config();
  Model m(c, RecipeConfig{});
  m.init_parameters(20);
  const auto tokens = random_tokens(kB, kT, c.vocab, 21);
  const auto eval_tokens = random_tokens(3, 5, c.vocab, 22);
  const double loss = m.forward_backward(tokens.data(), kB, kT, 0, 0, 0);
  const auto grads = copy_of(m.grad_data(), m.num_params());
  const double eval = m.forward_loss(eval_tokens.data(), 3, 5, 0);
  EXPECT_EQ(m.forward_backward(tokens.data(), kB, kT, 0, 0, 0), loss);
  EXPECT_TRUE(bit_equal(m.grad_data(), grads.data(), m.num_params()));
  EXPECT_EQ(m.forward_loss(eval_tokens.data(), 3, 5, 0), eval);
}

bool is_bf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 0xFFFFu) == 0;
}

TEST(Model, Bf16OutputRoundsEveryGemmOutput) {
  const ModelConfig c = tiny_config();
  RecipeConfig bf16;
  bf16.high_precision.bf16_output = true;  // lm_head
  bf16.quantized.bf16_output = true;       // every covered linear
  Model m(c, bf16), ref(c, RecipeConfig{});
  m.init_parameters(14);
  ref.init_parameters(14);
  const auto tokens = random_tokens(kB, kT, c.vocab, 15);
  const double loss = m.forward_backward(tokens.data(), kB, kT, 0, 0, 0);
  const double ref_loss = ref.forward_backward(tokens.data(), kB, kT, 0, 0, 0);
  const int64_t n_logits = int64_t(kB) * kT * c.vocab;
  for (int64_t i = 0; i < n_logits; ++i) ASSERT_TRUE(is_bf16(m.last_logits()[i])) << i;
  // Each linear weight gradient is one GEMM output, rounded to bf16.
  for (const auto& p : m.params()) {
    if (!p.is_linear) continue;
    for (int64_t i = 0; i < p.rows * p.cols; ++i) {
      ASSERT_TRUE(is_bf16(m.grad_data()[p.offset + i])) << p.name << " " << i;
    }
  }
  // bf16 keeps 8 significant bits: logits of magnitude O(0.1) differ by well under 1e-2.
  EXPECT_TRUE(all_close(m.last_logits(), ref.last_logits(), n_logits, 0.0, 1e-2));
  EXPECT_NE(loss, ref_loss);
  EXPECT_NEAR(loss, ref_loss, 1e-2);
}

TEST(Model, GemmUsesCountEveryOperandUse) {
  const ModelConfig c = tiny_config();
  Model m(c, RecipeConfig{});
  m.init_parameters(16);
  GemmCounters counters(m);
  m.attach(&counters);
  const auto tokens = random_tokens(kB, kT, c.vocab, 17);
  m.forward_backward(tokens.data(), kB, kT, 0, 0, 0);
  m.forward_backward(tokens.data(), kB, kT, 0, 1, 0);
  m.forward_loss(tokens.data(), kB, kT, 0);
  const auto uses = counters.uses();
  const size_t n_linears = m.linear_names().size();
  ASSERT_EQ(uses.size(), n_linears * 6);  // one spec per (linear, role, operand)
  for (const GemmUse& u : uses) {
    EXPECT_FALSE(u.spec.quantized());
    EXPECT_EQ(u.count, u.site.role == GemmRole::fprop ? 3 : 2);
  }
}

TEST(Model, LossFallsUnderSgdOnARepeatingSequence) {
  ModelConfig c = tiny_config();
  c.vocab = 16;
  Model m(c, RecipeConfig{});
  m.init_parameters(18);
  std::vector<int32_t> tokens(size_t(kB) * (kT + 1));
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = int32_t((i * 5) % 7);
  const double first = m.forward_backward(tokens.data(), kB, kT, 0, 0, 0);
  double loss = first;
  for (int step = 1; step <= 60; ++step) {
    for (int64_t i = 0; i < m.num_params(); ++i) m.param_data()[i] -= 0.5f * m.grad_data()[i];
    loss = m.forward_backward(tokens.data(), kB, kT, 0, step, 0);
  }
  EXPECT_LT(loss, 0.25 * first);
}

TEST(Model, RejectsBadConfigsAndInputs) {
  ModelConfig odd_heads = tiny_config();
  odd_heads.n_heads = 3;  // 32 / 3 is not an integer
  EXPECT_THROW(Model(odd_heads, RecipeConfig{}), std::invalid_argument);
  RecipeConfig mixed_rht;
  mixed_rht.quantized.wgrad_dy.element = ElementFormat::bf16;
  mixed_rht.quantized.wgrad_dy.rht = true;  // wgrad's x has no transform
  EXPECT_THROW(Model(tiny_config(), mixed_rht), std::invalid_argument);

  Model m(tiny_config(), RecipeConfig{});
  auto tokens = random_tokens(kB, kT, 256, 19);
  EXPECT_THROW(m.forward_backward(tokens.data(), kB, kT + 1, 0, 0, 0), std::invalid_argument);
  tokens[3] = 256;
  EXPECT_THROW(m.forward_backward(tokens.data(), kB, kT, 0, 0, 0), std::out_of_range);
}

TEST(Recipe, ResolveLinearCoverageKeepsAndSchedule) {
  RecipeConfig r;
  r.quantized.fprop_x.element = ElementFormat::fp4_e2m1;
  for (LinearRecipe* lr : {&r.quantized, &r.high_precision})  // resolved dtypes compare equal
    for (QuantSpec* s : {&lr->fprop_x, &lr->fprop_w, &lr->dgrad_dy, &lr->dgrad_w, &lr->wgrad_dy, &lr->wgrad_x})
      s->operand_dtype = OperandDtype::fp32;
  ASSERT_TRUE(r.quantized.any_quantized());
  ASSERT_FALSE(r.high_precision.any_quantized());
  const int n = 6;
  auto quantized = [&](LayerKind k, int block, int64_t tokens = 0) {
    return resolve_linear(r, k, block, n, tokens) == r.quantized;
  };
  EXPECT_TRUE(quantized(LayerKind::q, 0));
  EXPECT_TRUE(quantized(LayerKind::mlp_down, 5));
  EXPECT_FALSE(quantized(LayerKind::lm_head, -1));
  r.quantize_lm_head = true;
  EXPECT_TRUE(quantized(LayerKind::lm_head, -1));
  r.keep_first = 1;
  r.keep_last = 2;
  EXPECT_FALSE(quantized(LayerKind::v, 0));
  EXPECT_TRUE(quantized(LayerKind::v, 1));
  EXPECT_TRUE(quantized(LayerKind::v, 3));
  EXPECT_FALSE(quantized(LayerKind::v, 4));
  EXPECT_FALSE(quantized(LayerKind::v, 5));
  r.coverage = Coverage::mlp_only;
  EXPECT_FALSE(quantized(LayerKind::attn_out, 2));
  EXPECT_TRUE(quantized(LayerKind::mlp_gate, 2));
  r.coverage = Coverage::attn_only;
  EXPECT_TRUE(quantized(LayerKind::k, 2));
  EXPECT_FALSE(quantized(LayerKind::mlp_up, 2));
  r.switch_at = SwitchAt::tokens;
  r.switch_tokens = 1000;
  EXPECT_TRUE(quantized(LayerKind::k, 2, 999));
  EXPECT_FALSE(quantized(LayerKind::k, 2, 1000));
  EXPECT_FALSE(quantized(LayerKind::lm_head, -1, 1000));
  EXPECT_EQ(to_string(LayerKind::mlp_down), "mlp_down");
  EXPECT_EQ(validate(r), "");
}

}  // namespace
}  // namespace fp4lab
