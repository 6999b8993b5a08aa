// Trainer parts: the synthetic corpus and its exact entropy, the batch sampler, the schedules,
// AdamW against a hand-computed step, and checkpoint paths.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/train/checkpoint.hpp"
#include "core/train/data.hpp"
#include "core/train/optimizer.hpp"
#include "core/train/random.hpp"
#include "core/train/throughput.hpp"

namespace fp4lab {
namespace {

TEST(SyntheticCorpus, EntropyRateMatchesEmpiricalCodeLength) {
  DataConfig dc;
  dc.synthetic_vocab = 16;
  dc.synthetic_tokens = 400000;
  const MarkovChain2 mc = make_markov_chain(dc.synthetic_vocab, dc.synthetic_concentration, dc.synthetic_seed);
  for (int ctx = 0; ctx < 16 * 16; ++ctx) {
    double s = 0;
    for (int c = 0; c < 16; ++c) s += mc.probs[ctx * 16 + c];
    ASSERT_NEAR(s, 1.0, 1e-12);
  }
  const TokenData d = load_data(dc, 64);
  EXPECT_DOUBLE_EQ(d.entropy_rate, mc.entropy_rate);
  EXPECT_GT(d.entropy_rate, 0.1);
  EXPECT_LT(d.entropy_rate, std::log(16.0));
  // The true model's average code length on the sample converges to the entropy rate.
  double nll = 0;
  for (size_t i = 2; i < d.train.size(); ++i)
    nll -= std::log(mc.probs[(size_t(d.train[i - 2]) * 16 + d.train[i - 1]) * 16 + d.train[i]]);
  nll /= double(d.train.size() - 2);
  EXPECT_NEAR(nll, d.entropy_rate, 0.01 * d.entropy_rate);
}

TEST(BatchSampler, DeterministicWindowsOfTheStream) {
  std::vector<int32_t> stream(1000);
  for (int i = 0; i < 1000; ++i) stream[i] = i;
  std::vector<int32_t> a(4 * 9), b(4 * 9), c(4 * 9);
  sample_batch(stream, 7, 3, 4, 8, a.data());
  sample_batch(stream, 7, 3, 4, 8, b.data());
  sample_batch(stream, 7, 4, 4, 8, c.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (int r = 0; r < 4; ++r)
    for (int t = 1; t < 9; ++t) EXPECT_EQ(a[r * 9 + t], a[r * 9 + t - 1] + 1);
}

TEST(Schedule, WarmupCosineAndWsdEndpoints) {
  OptimConfig o;
  o.lr = 1.0;
  o.min_lr_ratio = 0.1;
  o.warmup_fraction = 0.1;
  EXPECT_DOUBLE_EQ(learning_rate(o, 1000, 50), 0.5);
  EXPECT_DOUBLE_EQ(learning_rate(o, 1000, 100), 1.0);
  EXPECT_NEAR(learning_rate(o, 1000, 550), 0.55, 1e-12);
  EXPECT_NEAR(learning_rate(o, 1000, 1000), 0.1, 1e-12);
  o.schedule = LrSchedule::wsd;
  o.decay_fraction = 0.2;
  EXPECT_DOUBLE_EQ(learning_rate(o, 1000, 800), 1.0);
  EXPECT_NEAR(learning_rate(o, 1000, 900), 0.55, 1e-12);
  EXPECT_NEAR(learning_rate(o, 1000, 1000), 0.1, 1e-12);
}

TEST(AdamW, OneStepMatchesHandComputation) {
  OptimConfig o;
  o.grad_clip = 0;
  o.weight_decay = 0.1;
  std::vector<ParamInfo> params(2);
  params[0] = {"w", 0, 1, 2, true, LayerKind::q, 0, true};
  params[1] = {"norm", 2, 1, 1, false, LayerKind::q, -1, false};
  AdamW adam(o, params, 3);
  std::vector<float> p = {1.0f, -2.0f, 3.0f}, g = {0.5f, -0.25f, 2.0f};
  std::vector<TensorNorms> norms;
  const double gn = adam.step(p.data(), g.data(), 0.01, &norms);
  EXPECT_NEAR(gn, std::sqrt(0.25 + 0.0625 + 4.0), 1e-6);
  // First step: m_hat = g, v_hat = g^2, update = lr * (sign(g) + wd * p) (eps negligible).
  EXPECT_NEAR(p[0], 1.0f - 0.01f * (1.0f + 0.1f * 1.0f), 1e-6);
  EXPECT_NEAR(p[1], -2.0f - 0.01f * (-1.0f + 0.1f * -2.0f), 1e-6);
  EXPECT_NEAR(p[2], 3.0f - 0.01f * 1.0f, 1e-6);  // norms: no weight decay
  EXPECT_NEAR(norms[0].grad, std::sqrt(0.25 + 0.0625), 1e-6);
}

TEST(AdamW, ClipsToTheGlobalNorm) {
  OptimConfig o;
  o.grad_clip = 1.0;
  o.weight_decay = 0;
  o.beta1 = 0;  // update = lr * g_clipped / sqrt(g_clipped^2) regardless; check the moments instead
  std::vector<ParamInfo> params(1);
  params[0] = {"w", 0, 1, 2, true, LayerKind::q, 0, true};
  AdamW adam(o, params, 2);
  std::vector<float> p = {0, 0}, g = {3, 4};
  EXPECT_NEAR(adam.step(p.data(), g.data(), 0.1), 5.0, 1e-9);
  EXPECT_NEAR(adam.m()[0], 0.6f, 1e-6);
  EXPECT_NEAR(adam.m()[1], 0.8f, 1e-6);
}

TEST(AdamW, UpdateAndNormsDoNotDependOnThreadCount) {
  OptimConfig o;
  std::vector<ParamInfo> params;
  int64_t n = 0;
  for (int64_t rows : {1, 37, 300, 5}) {
    params.push_back({"t", n, rows, 33, true, LayerKind::q, 0, rows != 1});
    n += rows * 33;
  }
  std::vector<float> g(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) g[size_t(i)] = float(std::sin(0.37 * double(i)) * 0.1);
  auto run = [&](int threads, std::vector<TensorNorms>& norms) {
    omp_set_num_threads(threads);
    AdamW adam(o, params, n);
    std::vector<float> p(size_t(n), 0.5f);
    for (int step = 0; step < 3; ++step) adam.step(p.data(), g.data(), 1e-2, &norms);
    return p;
  };
  const int saved = omp_get_max_threads();
  std::vector<TensorNorms> one_norms, two_norms;
  const std::vector<float> one = run(1, one_norms), two = run(2, two_norms);
  omp_set_num_threads(saved);
  EXPECT_EQ(one, two);
  ASSERT_EQ(one_norms.size(), two_norms.size());
  for (size_t i = 0; i < one_norms.size(); ++i) {
    EXPECT_EQ(one_norms[i].grad, two_norms[i].grad);
    EXPECT_EQ(one_norms[i].update, two_norms[i].update);
    EXPECT_EQ(one_norms[i].m, two_norms[i].m);
    EXPECT_EQ(one_norms[i].v, two_norms[i].v);
  }
}

TEST(CounterRandom, IsAPureFunctionOfItsCounter) {
  EXPECT_EQ(random_u64(1, RandomStream::init, 5), random_u64(1, RandomStream::init, 5));
  EXPECT_NE(random_u64(1, RandomStream::init, 5), random_u64(1, RandomStream::init, 6));
  EXPECT_NE(random_u64(1, RandomStream::init, 5), random_u64(1, RandomStream::data_order, 5));
  EXPECT_NE(random_u64(1, RandomStream::init, 5), random_u64(2, RandomStream::init, 5));
  double mean = 0;
  for (int i = 0; i < 20000; ++i) mean += random_normal(3, RandomStream::init, i);
  EXPECT_NEAR(mean / 20000, 0.0, 0.03);
}

TEST(Checkpoint, PathNextToTheRunFile) {
  EXPECT_EQ(checkpoint_path_for("out/abc.h5"), "out/abc.ckpt.h5");
  EXPECT_EQ(checkpoint_path_for("run"), "run.ckpt.h5");
  EXPECT_EQ(final_checkpoint_path_for("out/abc.h5"), "out/abc.final.ckpt.h5");
}

TEST(Throughput, ModelFlopsPerTokenByHand) {
  ModelConfig m;  // tiny: d 64, 2 layers, ff 192, seq 64, vocab 256
  // linear weights: 2 x (4·64² + 3·64·192) + 64·256 = 2 x (16384 + 36864) + 16384 = 122880
  // 6 x 122880 + 12 x 2 x 64 x 64 = 737280 + 98304
  EXPECT_EQ(model_flops_per_token(m), 835584.0);
  m.seq_len = 128;
  EXPECT_EQ(model_flops_per_token(m), 737280.0 + 196608.0);
  const double peak = measure_gemm_peak_gflops();
  EXPECT_GT(peak, 0.1);  // any machine does better than 0.1 GFLOP/s
}

}  // namespace
}  // namespace fp4lab
