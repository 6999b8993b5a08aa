// Ops (core/ops): each forward against a direct reference formula and each backward against double
// finite differences, on awkward shapes (T = 5, d = 12, 3 heads); the products' thread-count
// independence; the unquantized linear layer. Quantized linear GEMMs are in test_linear_quant.cpp.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "core/ops/attention.hpp"
#include "core/ops/cross_entropy.hpp"
#include "core/ops/embedding.hpp"
#include "core/ops/linear.hpp"
#include "core/ops/matmul.hpp"
#include "core/ops/rmsnorm.hpp"
#include "core/ops/rope.hpp"
#include "core/ops/swiglu.hpp"
#include "core/ops/vexp.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quantize.hpp"
#include "tests/check.hpp"

namespace fp4lab {
namespace {

using testing::all_close;
using testing::bit_equal;
using testing::dot;
using testing::fd_gradient_matches;
using testing::max_abs;
using testing::reference_product;
using testing::random_vector;

constexpr double kEps = 1e-5;
constexpr double kTheta = 10000.0;
constexpr double kExact = 1e-12;   // double forward vs a direct double formula
constexpr double kAccumulateBias = 0.5;  // backward outputs start here to check they accumulate

// Awkward attention shapes: batch 2, T = 5, 3 heads of width 4 (d = 12).
constexpr int64_t kB = 2, kT = 5, kH = 3, kHd = 4, kC = kH * kHd;

std::vector<double> minus_bias(std::vector<double> v) {
  for (double& x : v) x -= kAccumulateBias;
  return v;
}

TEST(RmsNorm, ForwardMatchesFormula) {
  const int64_t rows = kT, cols = kC;
  auto x = random_vector<double>(rows * cols, 1), w = random_vector<double>(cols, 2);
  std::vector<double> out(rows * cols), rstd(rows), expected(rows * cols);
  rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), rows, cols, kEps);
  for (int64_t r = 0; r < rows; ++r) {
    double ms = 0;
    for (int64_t c = 0; c < cols; ++c) ms += x[r * cols + c] * x[r * cols + c] / cols;
    for (int64_t c = 0; c < cols; ++c) {
      expected[r * cols + c] = x[r * cols + c] / std::sqrt(ms + kEps) * w[c];
    }
  }
  EXPECT_TRUE(all_close(out, expected, kExact, kExact));
}

TEST(RmsNorm, BackwardMatchesFiniteDifferences) {
  const int64_t rows = kT, cols = kC;
  auto x = random_vector<double>(rows * cols, 1), w = random_vector<double>(cols, 2);
  const auto g = random_vector<double>(rows * cols, 3);
  std::vector<double> out(rows * cols), rstd(rows);
  auto loss = [&] {
    rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), rows, cols, kEps);
    return dot(g, out);
  };
  loss();
  std::vector<double> dx(rows * cols, kAccumulateBias), dw(cols, kAccumulateBias);
  rmsnorm_backward(dx.data(), dw.data(), g.data(), x.data(), w.data(), rstd.data(), rows, cols);
  EXPECT_TRUE(fd_gradient_matches(x, minus_bias(dx), loss));
  EXPECT_TRUE(fd_gradient_matches(w, minus_bias(dw), loss));
}

TEST(Rope, ForwardMatchesRotateHalfFormula) {
  auto x = random_vector<double>(kB * kT * kC, 4);
  std::vector<double> cos(kT * kHd / 2), sin(kT * kHd / 2), out(x.size()), expected(x.size());
  rope_tables(cos.data(), sin.data(), kT, kHd, kTheta);
  rope_forward(out.data(), x.data(), cos.data(), sin.data(), kB, kT, kH, kHd);
  for (int64_t b = 0; b < kB; ++b) {
    for (int64_t t = 0; t < kT; ++t) {
      for (int64_t h = 0; h < kH; ++h) {
        const double* xi = &x[(b * kT + t) * kC + h * kHd];
        double* e = &expected[(b * kT + t) * kC + h * kHd];
        for (int64_t i = 0; i < kHd / 2; ++i) {
          const double angle = t / std::pow(kTheta, 2.0 * i / kHd);
          e[i] = xi[i] * std::cos(angle) - xi[i + kHd / 2] * std::sin(angle);
          e[i + kHd / 2] = xi[i + kHd / 2] * std::cos(angle) + xi[i] * std::sin(angle);
        }
      }
    }
  }
  EXPECT_TRUE(all_close(out, expected, kExact, kExact));
  rope_forward(x.data(), x.data(), cos.data(), sin.data(), kB, kT, kH, kHd);  // in place
  EXPECT_TRUE(all_close(x, expected, 0.0, 0.0));
}

TEST(Rope, BackwardMatchesFiniteDifferences) {
  auto x = random_vector<double>(kB * kT * kC, 5);
  const auto g = random_vector<double>(x.size(), 6);
  std::vector<double> cos(kT * kHd / 2), sin(kT * kHd / 2), out(x.size());
  rope_tables(cos.data(), sin.data(), kT, kHd, kTheta);
  auto loss = [&] {
    rope_forward(out.data(), x.data(), cos.data(), sin.data(), kB, kT, kH, kHd);
    return dot(g, out);
  };
  std::vector<double> dx(x.size(), kAccumulateBias);
  rope_backward(dx.data(), g.data(), cos.data(), sin.data(), kB, kT, kH, kHd);
  EXPECT_TRUE(fd_gradient_matches(x, minus_bias(dx), loss));
}

TEST(Attention, ForwardMatchesNaiveCausalSoftmax) {
  const auto q = random_vector<double>(kB * kT * kC, 7), k = random_vector<double>(q.size(), 8),
             v = random_vector<double>(q.size(), 9);
  std::vector<double> y(q.size()), att(kB * kH * kT * kT), expected(q.size());
  attention_forward(y.data(), att.data(), q.data(), k.data(), v.data(), kB, kT, kH, kHd);
  for (int64_t b = 0; b < kB; ++b) {
    for (int64_t h = 0; h < kH; ++h) {
      for (int64_t t = 0; t < kT; ++t) {
        std::vector<double> p(t + 1);
        double sum = 0;
        for (int64_t j = 0; j <= t; ++j) {
          double s = 0;
          for (int64_t i = 0; i < kHd; ++i) {
            s += q[(b * kT + t) * kC + h * kHd + i] * k[(b * kT + j) * kC + h * kHd + i];
          }
          p[j] = std::exp(s / std::sqrt(double(kHd)));
          sum += p[j];
        }
        for (int64_t i = 0; i < kHd; ++i) {
          double acc = 0;
          for (int64_t j = 0; j <= t; ++j) acc += p[j] / sum * v[(b * kT + j) * kC + h * kHd + i];
          expected[(b * kT + t) * kC + h * kHd + i] = acc;
        }
      }
    }
  }
  EXPECT_TRUE(all_close(y, expected, kExact, kExact));
}

TEST(Attention, BackwardMatchesFiniteDifferences) {
  auto q = random_vector<double>(kB * kT * kC, 10), k = random_vector<double>(q.size(), 11),
       v = random_vector<double>(q.size(), 12);
  const auto g = random_vector<double>(q.size(), 13);
  std::vector<double> y(q.size()), att(kB * kH * kT * kT);
  auto loss = [&] {
    attention_forward(y.data(), att.data(), q.data(), k.data(), v.data(), kB, kT, kH, kHd);
    return dot(g, y);
  };
  loss();
  std::vector<double> dq(q.size(), kAccumulateBias), dk(q.size(), kAccumulateBias),
      dv(q.size(), kAccumulateBias);
  attention_backward(dq.data(), dk.data(), dv.data(), g.data(), q.data(), k.data(), v.data(),
                     att.data(), kB, kT, kH, kHd);
  EXPECT_TRUE(fd_gradient_matches(q, minus_bias(dq), loss));
  EXPECT_TRUE(fd_gradient_matches(k, minus_bias(dk), loss));
  EXPECT_TRUE(fd_gradient_matches(v, minus_bias(dv), loss));
}

// Quantized attention products (AttentionQuant): every operand quantized with one per-tensor
// scale, checked against quantize() of each operand and double products written out.
TEST(Attention, QuantizedProductsUseOneScalePerTensor) {
  const auto q = random_vector<float>(kB * kT * kC, 31, 2.0), k = random_vector<float>(q.size(), 32, 2.0),
             v = random_vector<float>(q.size(), 33), g = random_vector<float>(q.size(), 34, 1e-3);
  AttentionQuant aq;
  ASSERT_TRUE(named_format("fp8_e4m3", aq.fwd));
  ASSERT_TRUE(named_format("fp8_e5m2", aq.bwd));
  aq.fwd.operand_dtype = aq.bwd.operand_dtype = OperandDtype::fp32;
  EXPECT_EQ(validate(aq), "");
  int reductions = 0;
  const AmaxReduce reduce = [&](float amax) { return ++reductions, amax; };
  const int64_t n = int64_t(q.size()), np = kB * kH * kT * kT;
  std::vector<float> y(n), att(np);
  attention_forward(y.data(), att.data(), q.data(), k.data(), v.data(), kB, kT, kH, kHd, &aq, &reduce);
  EXPECT_EQ(reductions, 4);  // q, k, v, P: each one tensor amax

  auto qz = [](const std::vector<float>& x, int64_t rows, const QuantSpec& spec) {
    std::vector<float> out(x.size());
    quantize(x.data(), out.data(), rows, int64_t(x.size()) / rows, spec);
    return out;
  };
  const auto qq = qz(q, kB * kT, aq.fwd), kq = qz(k, 1, aq.fwd), vq = qz(v, kB, aq.fwd);  // rows do not matter
  std::vector<float> y0(n), p(np);
  attention_forward(y0.data(), p.data(), qq.data(), kq.data(), vq.data(), kB, kT, kH, kHd);
  EXPECT_EQ(std::memcmp(p.data(), att.data(), sizeof(float) * size_t(np)), 0);  // P from the quantized scores
  const auto pq = qz(p, 1, aq.fwd);
  auto at = [&](int64_t b, int64_t t, int64_t h, int64_t i) { return size_t((b * kT + t) * kC + h * kHd + i); };
  auto pat = [&](int64_t b, int64_t h, int64_t t, int64_t j) { return size_t(((b * kH + h) * kT + t) * kT + j); };
  std::vector<double> want(size_t(n), 0.0), got(y.begin(), y.end());
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t h = 0; h < kH; ++h)
      for (int64_t t = 0; t < kT; ++t)
        for (int64_t i = 0; i < kHd; ++i)
          for (int64_t j = 0; j <= t; ++j) want[at(b, t, h, i)] += double(pq[pat(b, h, t, j)]) * vq[at(b, j, h, i)];
  EXPECT_TRUE(all_close(got, want, 1e-5, 1e-6));
  EXPECT_NE(std::memcmp(y.data(), y0.data(), sizeof(float) * size_t(n)), 0);  // P was quantized too

  // backward: dV = Q(P)ᵀ·Q(dy), dP = Q(dy)·Q(v)ᵀ, dS from fp32 P, dQ = Q(dS)·Q(k), dK = Q(dS)ᵀ·Q(q)
  std::vector<float> dq(n, 0.f), dk(n, 0.f), dv(n, 0.f);
  reductions = 0;
  attention_backward(dq.data(), dk.data(), dv.data(), g.data(), q.data(), k.data(), v.data(), att.data(), kB, kT, kH,
                     kHd, &aq, &reduce);
  EXPECT_EQ(reductions, 6);  // q, k, v, P again, dy, dS
  const auto gq = qz(g, kB * kT, aq.bwd);
  std::vector<float> ds(np, 0.f);
  std::vector<double> dv_want(size_t(n), 0.0), dq_want(size_t(n), 0.0), dk_want(size_t(n), 0.0);
  const double scale = 1.0 / std::sqrt(double(kHd));
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t h = 0; h < kH; ++h)
      for (int64_t t = 0; t < kT; ++t) {
        std::vector<double> dp(size_t(t + 1), 0.0);
        double dot_pdp = 0;
        for (int64_t j = 0; j <= t; ++j) {
          for (int64_t i = 0; i < kHd; ++i) {
            dp[size_t(j)] += double(gq[at(b, t, h, i)]) * vq[at(b, j, h, i)];
            dv_want[at(b, j, h, i)] += double(pq[pat(b, h, t, j)]) * gq[at(b, t, h, i)];
          }
          dot_pdp += double(p[pat(b, h, t, j)]) * dp[size_t(j)];
        }
        for (int64_t j = 0; j <= t; ++j) ds[pat(b, h, t, j)] = float(p[pat(b, h, t, j)] * (dp[size_t(j)] - dot_pdp) * scale);
      }
  const auto dsq = qz(ds, 1, aq.bwd);
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t h = 0; h < kH; ++h)
      for (int64_t t = 0; t < kT; ++t)
        for (int64_t j = 0; j <= t; ++j)
          for (int64_t i = 0; i < kHd; ++i) {
            dq_want[at(b, t, h, i)] += double(dsq[pat(b, h, t, j)]) * kq[at(b, j, h, i)];
            dk_want[at(b, j, h, i)] += double(dsq[pat(b, h, t, j)]) * qq[at(b, t, h, i)];
          }
  // dS is rounded to E5M2 (2 mantissa bits), so fp32-vs-double differences in dS can move a code
  // by one step: compare loosely; dV has no such step.
  EXPECT_TRUE(all_close(std::vector<double>(dv.begin(), dv.end()), dv_want, 1e-5, 1e-9));
  EXPECT_TRUE(all_close(std::vector<double>(dq.begin(), dq.end()), dq_want, 0.05, 1e-6));
  EXPECT_TRUE(all_close(std::vector<double>(dk.begin(), dk.end()), dk_want, 0.05, 1e-6));

  // Specs of format none change nothing, bit for bit.
  const AttentionQuant off;
  std::vector<float> y1(n), att1(np), dq1(n, 0.f), dk1(n, 0.f), dv1(n, 0.f), dq2(n, 0.f), dk2(n, 0.f), dv2(n, 0.f);
  attention_forward(y1.data(), att1.data(), q.data(), k.data(), v.data(), kB, kT, kH, kHd, &off);
  attention_forward(y0.data(), att.data(), q.data(), k.data(), v.data(), kB, kT, kH, kHd);
  EXPECT_EQ(std::memcmp(y1.data(), y0.data(), sizeof(float) * size_t(n)), 0);
  attention_backward(dq1.data(), dk1.data(), dv1.data(), g.data(), q.data(), k.data(), v.data(), att.data(), kB, kT, kH, kHd, &off);
  attention_backward(dq2.data(), dk2.data(), dv2.data(), g.data(), q.data(), k.data(), v.data(), att.data(), kB, kT, kH, kHd);
  EXPECT_EQ(std::memcmp(dq1.data(), dq2.data(), sizeof(float) * size_t(n)), 0);
  EXPECT_EQ(std::memcmp(dk1.data(), dk2.data(), sizeof(float) * size_t(n)), 0);

  // Block formats and stochastic rounding are refused.
  AttentionQuant bad;
  ASSERT_TRUE(named_format("nvfp4", bad.fwd));
  EXPECT_NE(validate(bad).find("fwd: attention products take a per-tensor format"), std::string::npos) << validate(bad);
}

TEST(SwiGlu, ForwardAndBackward) {
  const int64_t n = 35;
  auto gate = random_vector<double>(n, 14, 3.0), up = random_vector<double>(n, 15);
  const auto g = random_vector<double>(n, 16);
  std::vector<double> out(n), expected(n);
  swiglu_forward(out.data(), gate.data(), up.data(), n);
  for (int64_t i = 0; i < n; ++i) expected[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
  EXPECT_TRUE(all_close(out, expected, kExact, kExact));
  auto loss = [&] {
    swiglu_forward(out.data(), gate.data(), up.data(), n);
    return dot(g, out);
  };
  std::vector<double> dgate(n, kAccumulateBias), dup(n, kAccumulateBias);
  swiglu_backward(dgate.data(), dup.data(), g.data(), gate.data(), up.data(), n);
  EXPECT_TRUE(fd_gradient_matches(gate, minus_bias(dgate), loss));
  EXPECT_TRUE(fd_gradient_matches(up, minus_bias(dup), loss));
}

TEST(CrossEntropy, ForwardAndBackward) {
  const int64_t rows = 7, vocab = 11;
  auto logits = random_vector<double>(rows * vocab, 17, 3.0);
  const std::vector<int32_t> targets = {0, 10, 3, 3, 7, 1, 9};
  std::vector<double> probs(rows * vocab), losses(rows);
  auto loss = [&] {
    return cross_entropy_forward(probs.data(), losses.data(), logits.data(), targets.data(), rows,
                                 vocab);
  };
  double expected = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double z = 0;
    for (int64_t i = 0; i < vocab; ++i) z += std::exp(logits[r * vocab + i]);
    expected += (std::log(z) - logits[r * vocab + targets[r]]) / rows;
  }
  EXPECT_NEAR(loss(), expected, kExact);
  std::vector<double> dlogits(rows * vocab, kAccumulateBias);
  cross_entropy_backward(dlogits.data(), probs.data(), targets.data(), rows, vocab);
  EXPECT_TRUE(fd_gradient_matches(logits, minus_bias(dlogits), loss));
}

TEST(Embedding, ForwardAndBackward) {
  const int64_t vocab = 5, dim = 3;
  const std::vector<int32_t> tokens = {4, 0, 4, 2, 4, 1, 0, 2, 3};  // repeats accumulate
  const int64_t n = int64_t(tokens.size());
  auto table = random_vector<double>(vocab * dim, 18);
  const auto g = random_vector<double>(n * dim, 19);
  std::vector<double> out(n * dim);
  embedding_forward(out.data(), tokens.data(), table.data(), n, dim);
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(0, std::memcmp(&out[i * dim], &table[tokens[i] * dim], sizeof(double) * dim));
  }
  auto loss = [&] {
    embedding_forward(out.data(), tokens.data(), table.data(), n, dim);
    return dot(g, out);
  };
  std::vector<double> dtable(vocab * dim, kAccumulateBias);
  embedding_backward(dtable.data(), g.data(), tokens.data(), n, dim);
  EXPECT_TRUE(fd_gradient_matches(table, minus_bias(dtable), loss));
}

// ---- vector exp ----

TEST(VectorExp, WithinTwoUlpsAndSpecialValues) {
  std::vector<float> x;
  for (float v = -87.0f; v <= 88.0f; v += 0.00137f) x.push_back(v);
  x.resize(x.size() - x.size() % 8 + 5);  // a partial last vector
  std::vector<float> y(x.size());
  exp_array(y.data(), x.data(), int64_t(x.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = std::exp(double(x[i]));
    const double ulp = std::nextafter(float(exact), INFINITY) - float(exact);
    worst = std::max(worst, std::fabs(double(y[i]) - exact) / ulp);
  }
  EXPECT_LE(worst, 2.0);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {0.0f, -0.0f, nan, inf, -inf, 89.0f, -88.0f, -1e30f, 1e-30f};
  std::vector<float> out(special.size());
  exp_array(out.data(), special.data(), int64_t(special.size()));
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], inf);
  EXPECT_EQ(out[4], 0.0f);
  EXPECT_EQ(out[5], inf);
  EXPECT_EQ(out[6], 0.0f);
  EXPECT_EQ(out[7], 0.0f);
  EXPECT_EQ(out[8], 1.0f);
  // A value's result does not depend on where it sits in the array.
  for (size_t shift = 1; shift < 8; ++shift) {
    std::vector<float> moved(x.begin() + shift, x.end()), y2(moved.size());
    exp_array(y2.data(), moved.data(), int64_t(moved.size()));
    ASSERT_TRUE(bit_equal(y2.data(), y.data() + shift, int64_t(moved.size())));
  }
}

// ---- products ----

TEST(Matmul, AllTransposesAccumulateAndThreadCountIndependence) {
  // The tiles of C cut its rows (130 × 9), its columns (20 × 200) or both (300 × 260).
  for (GemmEngine engine : {GemmEngine::eigen, GemmEngine::openblas}) {
    SCOPED_TRACE(gemm_engine_name(engine));
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{130, 9, 17}, {20, 200, 33}, {300, 260, 40}}) {
      const auto a = random_vector<float>(m * k, 20), b = random_vector<float>(k * n, 21);
      for (Trans ta : {Trans::n, Trans::t}) {
        for (Trans tb : {Trans::n, Trans::t}) {
          const auto expected = reference_product(a, ta, b, tb, m, n, k);
          const double atol = testing::kFloatProductTol * max_abs(expected);
          std::vector<float> c(m * n, NAN);  // overwritten, never read
          matmul(engine, c.data(), a.data(), ta, b.data(), tb, m, n, k, false);
          EXPECT_TRUE(all_close(c.data(), expected.data(), m * n, 0.0, atol));
          matmul(engine, c.data(), a.data(), ta, b.data(), tb, m, n, k, true);  // c = 2·product
          std::vector<double> twice(expected);
          for (double& x : twice) x *= 2;
          EXPECT_TRUE(all_close(c.data(), twice.data(), m * n, 0.0, 2 * atol));

          std::vector<float> one(m * n), two(m * n);
          const int threads = omp_get_max_threads();
          omp_set_num_threads(1);
          matmul(engine, one.data(), a.data(), ta, b.data(), tb, m, n, k, false);
          omp_set_num_threads(2);
          matmul(engine, two.data(), a.data(), ta, b.data(), tb, m, n, k, false);
          omp_set_num_threads(threads);
          EXPECT_TRUE(bit_equal(one.data(), two.data(), m * n));
        }
      }
    }
  }
}

// A row's product depends only on its index modulo matmul_row_tile: a data-parallel rank's rows
// (a multiple of it) come out as in the whole batch, on either engine.
TEST(Matmul, RowsSplitAtTheRowTileAreBitIdentical) {
  const int64_t m = 4 * matmul_row_tile, n = 200, k = 96, half = m / 2;
  const auto a = random_vector<float>(m * k, 23), b = random_vector<float>(n * k, 24);
  for (GemmEngine engine : {GemmEngine::eigen, GemmEngine::openblas}) {
    SCOPED_TRACE(gemm_engine_name(engine));
    std::vector<float> whole(m * n), lower(half * n);
    matmul(engine, whole.data(), a.data(), Trans::n, b.data(), Trans::t, m, n, k, false);
    matmul(engine, lower.data(), a.data() + half * k, Trans::n, b.data(), Trans::t, half, n, k, false);
    EXPECT_TRUE(bit_equal(lower.data(), whole.data() + half * n, half * n));
  }
}

TEST(Matmul, Transpose) {
  // Shapes with partial 8×8 register blocks, and several (partial) work items of 256 rows by 64 columns.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 70}, {130, 75}, {8, 8}, {1, 9}, {300, 150}, {520, 203}}) {
    const auto in = random_vector<float>(rows * cols, 22);
    std::vector<float> out(rows * cols);
    transpose(out.data(), in.data(), rows, cols);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], in[r * cols + c]);
    }
  }
}

// ---- the linear layer with quantization off ----

struct LinearCase {
  int64_t m, k, n;
  std::vector<float> x, w, dy;
};

LinearCase linear_case(int64_t m, int64_t k, int64_t n) {
  return {m, k, n, random_vector<float>(m * k, 23), random_vector<float>(n * k, 24),
          random_vector<float>(m * n, 25)};
}

TEST(Linear, UnquantizedMatchesProductsAndFiniteDifferences) {
  LinearCase c = linear_case(70, 13, 7);  // M crosses the row chunks; nothing divisible by 16
  const LinearRecipe fp32;
  LinearState st;
  LinearScratch sc;
  LinearInput in;
  const LinearQuant q{&fp32, 1, 2, 3, false};
  std::vector<float> y(c.m * c.n);
  in.bind(c.x.data(), c.m, c.k);
  linear_forward(y.data(), in, c.w.data(), c.n, q, st);
  const auto y_ref = reference_product(c.x, Trans::n, c.w, Trans::t, c.m, c.n, c.k);
  EXPECT_TRUE(all_close(y.data(), y_ref.data(), c.m * c.n, 0.0,
                        testing::kFloatProductTol * max_abs(y_ref)));

  std::vector<float> dx(c.m * c.k, 0.f), dw(c.n * c.k, 0.f);
  linear_backward(dx.data(), dw.data(), c.dy.data(), in, c.w.data(), c.n, q, st, sc);
  for (int r = 0; r < kGemmRoles; ++r) {
    for (int o = 0; o < kGemmOperands; ++o) EXPECT_EQ(st.used[r][o], nullptr);  // no copies
  }
  const auto dx_ref = reference_product(c.dy, Trans::n, c.w, Trans::n, c.m, c.k, c.n);
  const auto dw_ref = reference_product(c.dy, Trans::t, c.x, Trans::n, c.n, c.k, c.m);
  EXPECT_TRUE(all_close(dx.data(), dx_ref.data(), c.m * c.k, 0.0,
                        testing::kFloatProductTol * max_abs(dx_ref)));
  EXPECT_TRUE(all_close(dw.data(), dw_ref.data(), c.n * c.k, 0.0,
                        testing::kFloatProductTol * max_abs(dw_ref)));

  // The layer is linear in X and in W, so a unit central difference of Σ dY ⊙ Y is exact up to
  // fp32 rounding of Y.
  auto loss = [&] {
    in.bind(c.x.data(), c.m, c.k);
    linear_forward(y.data(), in, c.w.data(), c.n, q, st);
    return dot(c.dy, y);
  };
  const double fd_tol = testing::kFloatProductTol * (max_abs(dx_ref) + max_abs(dw_ref)) * c.n;
  for (auto [param, grad] : {std::pair{&c.x, &dx}, std::pair{&c.w, &dw}}) {
    for (size_t i = 0; i < param->size(); i += 7) {
      const float keep = (*param)[i];
      (*param)[i] = keep + 1.f;
      const double up = loss();
      (*param)[i] = keep - 1.f;
      const double down = loss();
      (*param)[i] = keep;
      EXPECT_NEAR((up - down) / 2, (*grad)[i], fd_tol) << "element " << i;
    }
  }
}

TEST(Linear, BackwardAccumulates) {
  LinearCase c = linear_case(20, 6, 5);
  const LinearRecipe fp32;
  LinearState st;
  LinearScratch sc;
  LinearInput in;
  const LinearQuant q{&fp32, 0, 0, 0, false};
  std::vector<float> y(c.m * c.n), dx1(c.m * c.k, 0.f), dw1(c.n * c.k, 0.f);
  in.bind(c.x.data(), c.m, c.k);
  linear_forward(y.data(), in, c.w.data(), c.n, q, st);
  linear_backward(dx1.data(), dw1.data(), c.dy.data(), in, c.w.data(), c.n, q, st, sc);
  std::vector<float> dx2(dx1), dw2(dw1);
  linear_backward(dx2.data(), dw2.data(), c.dy.data(), in, c.w.data(), c.n, q, st, sc);
  for (size_t i = 0; i < dx1.size(); ++i) EXPECT_FLOAT_EQ(dx2[i], 2 * dx1[i]);
  for (size_t i = 0; i < dw1.size(); ++i) EXPECT_FLOAT_EQ(dw2[i], 2 * dw1[i]);
}

}  // namespace
}  // namespace fp4lab
