// The quantized linear layer (core/ops/linear) uses exactly the operands of core/quant/NUMERICS.md
// (Operands and copies): with one operand quantized at a time, each GEMM output equals an explicit
// product of quantize()'s copy of that operand (with the documented random stream) and the other
// operand as is. Also: the RHT wgrad pair,
// dgrad's reuse of the 2D weight copy, shared inputs, bf16 outputs, SR streams and thread counts.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "core/ops/linear.hpp"
#include "tests/check.hpp"

namespace fp4lab {
namespace {

using testing::all_close;
using testing::bit_equal;
using testing::max_abs;
using testing::nvfp4_specs;
using testing::random_vector;
using testing::reference_product;

// Tokens and widths divisible by 16 (NVFP4 blocks and tiles), N ≠ K to catch transposes.
constexpr int64_t kM = 48, kK = 32, kN = 64;
constexpr uint64_t kSeed = 5, kStep = 3, kStream = 2;

uint64_t tensor_id(int role, int operand) {
  return kGemmRoles * kGemmOperands * kStream + uint64_t(kGemmOperands * role + operand);
}

std::vector<float> quantized(const std::vector<float>& in, int64_t rows, int64_t cols,
                             const QuantSpec& spec, int role, int operand) {
  std::vector<float> out(in.size());
  quantize(in.data(), out.data(), rows, cols, spec, QuantRandom{kSeed, tensor_id(role, operand), kStep});
  return out;
}

std::vector<float> transposed(const std::vector<float>& in, int64_t rows, int64_t cols) {
  std::vector<float> out(in.size());
  transpose(out.data(), in.data(), rows, cols);
  return out;
}

struct Outputs {
  std::vector<float> y, dx, dw;
  bool used[kGemmRoles][kGemmOperands];          // which operand uses read a quantized copy
  QuantStats stats[kGemmRoles][kGemmOperands];  // their telemetry
  QuantBias bias[kGemmRoles][kGemmOperands];
  SrConcentration sr_rms[kGemmRoles][kGemmOperands];
  bool dgrad_read_fprop_w = false;               // dgrad's W operand was fprop's Q(W)
};

struct Case {
  std::vector<float> x = random_vector<float>(kM * kK, 31), w = random_vector<float>(kN * kK, 32),
                     dy = random_vector<float>(kM * kN, 33);
  // Heavier-tailed values so blocks differ in scale: one outlier per 16.
  Case() {
    for (size_t i = 0; i < x.size(); i += 16) x[i] *= 9.f;
    for (size_t i = 5; i < dy.size(); i += 16) dy[i] *= 7.f;
  }

  Outputs run(const LinearRecipe& r, uint64_t step = kStep) const {
    Outputs o;
    o.y.assign(kM * kN, 0.f);
    o.dx.assign(kM * kK, 0.f);
    o.dw.assign(kN * kK, 0.f);
    LinearInput in;
    LinearScratch sc;
    const LinearQuant q{&r, kSeed, step, kStream, true};
    LinearState st;
    in.bind(x.data(), kM, kK);
    linear_forward(o.y.data(), in, w.data(), kN, q, st);
    linear_backward(o.dx.data(), o.dw.data(), dy.data(), in, w.data(), kN, q, st, sc);
    for (int r = 0; r < kGemmRoles; ++r) {
      for (int op = 0; op < kGemmOperands; ++op) {
        o.used[r][op] = st.used[r][op] != nullptr;
        if (!o.used[r][op]) continue;
        o.stats[r][op] = st.used[r][op]->stats;
        o.bias[r][op] = st.used[r][op]->bias;
        o.sr_rms[r][op] = st.used[r][op]->sr_rms;
      }
    }
    o.dgrad_read_fprop_w = st.used[1][1] == &st.w_fprop;
    return o;
  }
};

// Expected outputs given (possibly quantized) operands, as double products.
void expect_outputs(const Outputs& o, const std::vector<float>& fx, const std::vector<float>& fw,
                    const std::vector<float>& ddy, const std::vector<float>& dwt,
                    const std::vector<float>& wdyt, const std::vector<float>& wxt) {
  const auto y = reference_product(fx, Trans::n, fw, Trans::t, kM, kN, kK);
  const auto dx = reference_product(ddy, Trans::n, dwt, Trans::t, kM, kK, kN);  // dwt: Wᵀ [K, N]
  const auto dw = reference_product(wdyt, Trans::n, wxt, Trans::t, kN, kK, kM);  // [N,M]·[K,M]ᵀ
  EXPECT_TRUE(all_close(o.y.data(), y.data(), kM * kN, 0.0, testing::kFloatProductTol * max_abs(y)));
  EXPECT_TRUE(all_close(o.dx.data(), dx.data(), kM * kK, 0.0, testing::kFloatProductTol * max_abs(dx)));
  EXPECT_TRUE(all_close(o.dw.data(), dw.data(), kN * kK, 0.0, testing::kFloatProductTol * max_abs(dw)));
}

// One slot of the six quantized, the others fp32 pass-through.
class OneOperandQuantized : public ::testing::TestWithParam<int> {};

TEST_P(OneOperandQuantized, OutputsUseExactlyThatCopy) {
  const int slot = GetParam(), role = slot / 2, operand = slot % 2;
  const auto s = nvfp4_specs();
  QuantSpec wgrad_grad = s.grad, wgrad_input = s.input;  // RHT needs both operands: tested below
  LinearRecipe r;
  QuantSpec* slots[6] = {&r.fprop_x, &r.fprop_w, &r.dgrad_dy, &r.dgrad_w, &r.wgrad_dy, &r.wgrad_x};
  const QuantSpec specs[6] = {s.input, s.weight, s.grad, s.weight, wgrad_grad, wgrad_input};
  *slots[slot] = specs[slot];
  ASSERT_EQ(validate(r), "");

  const Case c;
  const Outputs o = c.run(r);
  for (int ro = 0; ro < kGemmRoles; ++ro) {
    for (int op = 0; op < kGemmOperands; ++op) {
      EXPECT_EQ(o.used[ro][op], ro == role && op == operand) << ro << " " << op;
    }
  }
  auto fx = c.x, fw = c.w, ddy = c.dy, dwt = transposed(c.w, kN, kK),
       wdyt = transposed(c.dy, kM, kN), wxt = transposed(c.x, kM, kK);
  switch (slot) {
    case 0: fx = quantized(c.x, kM, kK, specs[0], 0, 0); break;
    case 1: fw = quantized(c.w, kN, kK, specs[1], 0, 1); break;
    case 2: ddy = quantized(c.dy, kM, kN, specs[2], 1, 0); break;
    case 3: dwt = quantized(dwt, kK, kN, specs[3], 1, 1); break;
    case 4: wdyt = quantized(wdyt, kN, kM, specs[4], 2, 0); break;
    case 5: wxt = quantized(wxt, kK, kM, specs[5], 2, 1); break;
  }
  expect_outputs(o, fx, fw, ddy, dwt, wdyt, wxt);

  // The copy's telemetry describes the quantized tensor.
  const QuantStats& st = o.stats[role][operand];
  const int64_t sizes[6] = {kM * kK, kN * kK, kM * kN, kN * kK, kM * kN, kM * kK};
  EXPECT_EQ(st.count, sizes[slot]);
  EXPECT_GT(st.amax, 0.f);
  EXPECT_GT(st.sqnr_db(), 5.0);
}

std::string slot_name(const ::testing::TestParamInfo<int>& info) {
  const char* names[6] = {"fprop_x", "fprop_w", "dgrad_dy", "dgrad_w", "wgrad_dy", "wgrad_x"};
  return names[info.param];
}

INSTANTIATE_TEST_SUITE_P(Linear, OneOperandQuantized, ::testing::Range(0, 6), slot_name);

TEST(LinearQuant, WgradRhtPairIsTheProductOfTransformedCopies) {
  const auto s = nvfp4_specs();
  LinearRecipe r;
  r.wgrad_dy = s.wgrad_grad;
  r.wgrad_x = s.wgrad_input;
  const Case c;
  const Outputs o = c.run(r);
  const auto wdyt = quantized(transposed(c.dy, kM, kN), kN, kM, s.wgrad_grad, 2, 0);
  const auto wxt = quantized(transposed(c.x, kM, kK), kK, kM, s.wgrad_input, 2, 1);
  expect_outputs(o, c.x, c.w, c.dy, transposed(c.w, kN, kK), wdyt, wxt);
  // H is orthonormal: the transformed, quantized product still approximates dYᵀ·X.
  const auto exact = reference_product(c.dy, Trans::t, c.x, Trans::n, kN, kK, kM);
  double err = 0, norm = 0;
  for (size_t i = 0; i < exact.size(); ++i) {
    err += (o.dw[i] - exact[i]) * (o.dw[i] - exact[i]);
    norm += exact[i] * exact[i];
  }
  EXPECT_LT(std::sqrt(err / norm), 0.25);  // FP4 with 16-blocks: ~10% relative error
}

TEST(LinearQuant, DgradReusesTheTransposeOf2dWeightCopy) {
  const auto s = nvfp4_specs();
  LinearRecipe r;
  r.fprop_w = r.dgrad_w = s.weight;
  const Case c;
  const Outputs o = c.run(r);
  EXPECT_TRUE(o.dgrad_read_fprop_w);  // no second quantization of W
  // Q(Wᵀ) made directly equals Q(W)ᵀ bit for bit (16×16 tiles), so both expectations hold.
  const auto qw = quantized(c.w, kN, kK, s.weight, 0, 1);
  const auto qwt = quantized(transposed(c.w, kN, kK), kK, kN, s.weight, 1, 1);
  EXPECT_TRUE(bit_equal(transposed(qw, kN, kK).data(), qwt.data(), kN * kK));
  expect_outputs(o, c.x, qw, c.dy, qwt, transposed(c.dy, kM, kN), transposed(c.x, kM, kK));
}

TEST(LinearQuant, SharedInputIsQuantizedOnceForAllConsumers) {
  const auto s = nvfp4_specs();
  LinearRecipe r;
  r.fprop_x = s.input;
  r.wgrad_x = s.input;
  const Case c;
  const auto w2 = random_vector<float>(kN * kK, 34);
  LinearInput in;
  LinearScratch sc;
  LinearState st1, st2;
  std::vector<float> y1(kM * kN), y2(kM * kN), dx(kM * kK, 0.f), dw1(kN * kK, 0.f),
      dw2(kN * kK, 0.f);
  in.bind(c.x.data(), kM, kK);
  linear_forward(y1.data(), in, c.w.data(), kN, LinearQuant{&r, kSeed, kStep, kStream, false}, st1);
  const auto first_copy = in.fprop.values;
  linear_forward(y2.data(), in, w2.data(), kN, LinearQuant{&r, kSeed, kStep, kStream + 1, false}, st2);
  EXPECT_EQ(st1.used[0][0], &in.fprop);
  EXPECT_EQ(st2.used[0][0], &in.fprop);
  EXPECT_TRUE(bit_equal(in.fprop.values.data(), first_copy.data(), kM * kK));
  // Both products read the copy made with the first consumer's stream.
  const auto qx = quantized(c.x, kM, kK, s.input, 0, 0);
  const auto y2_ref = reference_product(qx, Trans::n, w2, Trans::t, kM, kN, kK);
  EXPECT_TRUE(all_close(y2.data(), y2_ref.data(), kM * kN, 0.0,
                        testing::kFloatProductTol * max_abs(y2_ref)));
  linear_backward(dx.data(), dw1.data(), c.dy.data(), in, c.w.data(), kN,
                  LinearQuant{&r, kSeed, kStep, kStream, false}, st1, sc);
  const auto wgrad_copy = in.wgrad.values;
  linear_backward(dx.data(), dw2.data(), c.dy.data(), in, w2.data(), kN,
                  LinearQuant{&r, kSeed, kStep, kStream + 1, false}, st2, sc);
  EXPECT_EQ(st2.used[2][1], &in.wgrad);
  EXPECT_TRUE(bit_equal(in.wgrad.values.data(), wgrad_copy.data(), kK * kM));
  in.bind(c.x.data(), kM, kK);  // new contents drop the copies
  EXPECT_FALSE(in.fprop.valid || in.wgrad.valid);
}

// The wgrad copy a training forward pass makes early (EarlyWgradCopy) is the one backward would
// make: same outputs bit for bit; made once for all consumers of the input, with the first one's
// stream; taken only by the linear whose stream made it; not made with telemetry.
TEST(LinearQuant, EarlyWgradCopyIsTheBackwardCopy) {
  LinearRecipe r = testing::nvfp4_linear();
  r.numerics = GemmNumerics::block_exact;
  r.wgrad_x.rounding = Rounding::sr;  // the stream matters
  const Case c;
  struct Run {
    std::vector<float> y = std::vector<float>(kM * kN), dx = std::vector<float>(kM * kK, 0.f),
                       dw = std::vector<float>(kN * kK, 0.f);
  };
  // forward with `fwd_stream`, then backward with `bwd_stream`, the input rebound between them as
  // the model rebinds it
  auto run = [&](EarlyWgradCopy* early, uint64_t fwd_stream, uint64_t bwd_stream, bool stats = false) {
    Run o;
    LinearInput in;
    LinearScratch sc;
    LinearState st;
    in.bind(c.x.data(), kM, kK, early);
    linear_forward(o.y.data(), in, c.w.data(), kN, LinearQuant{&r, kSeed, kStep, fwd_stream, stats}, st);
    in.bind(c.x.data(), kM, kK, early);
    linear_backward(o.dx.data(), o.dw.data(), c.dy.data(), in, c.w.data(), kN,
                    LinearQuant{&r, kSeed, kStep, bwd_stream, stats}, st, sc);
    return o;
  };
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    const Run want = run(nullptr, kStream, kStream);
    EarlyWgradCopy early;
    const Run got = run(&early, kStream, kStream);
    EXPECT_FALSE(early.valid);  // made in forward, taken by backward
    for (auto [a, b, n] : {std::tuple{&want.y, &got.y, kM * kN}, {&want.dx, &got.dx, kM * kK}, {&want.dw, &got.dw, kN * kK}})
      EXPECT_TRUE(bit_equal(a->data(), b->data(), n));

    // another linear's backward (another stream) does not take it
    const Run other = run(nullptr, kStream, kStream + 1);
    const Run mismatched = run(&early, kStream, kStream + 1);
    EXPECT_TRUE(early.valid);
    EXPECT_TRUE(bit_equal(other.dw.data(), mismatched.dw.data(), kN * kK));

    // one copy for all consumers of the input, with the first one's stream
    LinearInput in;
    LinearState st;
    std::vector<float> y(kM * kN);
    EarlyWgradCopy shared;
    in.bind(c.x.data(), kM, kK, &shared);
    linear_forward(y.data(), in, c.w.data(), kN, LinearQuant{&r, kSeed, kStep, kStream, false}, st);
    ASSERT_TRUE(shared.valid);
    const uint64_t first_id = shared.random.tensor_id;
    linear_forward(y.data(), in, c.w.data(), kN, LinearQuant{&r, kSeed, kStep, kStream + 1, false}, st);
    EXPECT_EQ(shared.random.tensor_id, first_id);

    // telemetry passes make none
    EarlyWgradCopy none;
    run(&none, kStream, kStream, true);
    EXPECT_FALSE(none.valid || none.fp4.valid);
  }
  omp_set_num_threads(2);
}

TEST(LinearQuant, Bf16OutputsOfTheFullRecipe) {
  const Case c;
  const Outputs o = c.run(testing::nvfp4_linear());
  for (const auto* v : {&o.y, &o.dx, &o.dw}) {
    std::vector<float> rounded(*v);
    QuantSpec bf16;
    bf16.element = ElementFormat::bf16;
    quantize(rounded.data(), rounded.data(), 1, int64_t(rounded.size()), bf16);
    EXPECT_TRUE(bit_equal(v->data(), rounded.data(), int64_t(v->size())));
  }
}

TEST(LinearQuant, StochasticRoundingStreamsAndThreadCounts) {
  const Case c;
  const LinearRecipe r = testing::nvfp4_linear();
  const Outputs a = c.run(r), b = c.run(r), later = c.run(r, kStep + 1);
  EXPECT_TRUE(bit_equal(a.dx.data(), b.dx.data(), kM * kK));
  EXPECT_TRUE(bit_equal(a.dw.data(), b.dw.data(), kN * kK));
  EXPECT_TRUE(bit_equal(a.y.data(), later.y.data(), kM * kN));  // fprop rounds to nearest
  EXPECT_FALSE(all_close(a.dx, later.dx, 0.0, 0.0));          // a new step draws new SR bits
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Outputs one = c.run(r);
  omp_set_num_threads(2);
  const Outputs two = c.run(r);
  omp_set_num_threads(threads);
  for (auto [p, q] : {std::pair{&one.y, &two.y}, std::pair{&one.dx, &two.dx},
                       std::pair{&one.dw, &two.dw}}) {
    EXPECT_TRUE(bit_equal(p->data(), q->data(), int64_t(p->size())));
  }
}

// Bias telemetry of each copy of the full recipe: against what its quantizer rounded (X·H for the
// RHT wgrad operands), and the SR concentration for exactly the stochastic-rounding operands.
TEST(LinearQuant, BiasTelemetryInTheQuantizersDomain) {
  const Case c;
  const LinearRecipe r = testing::nvfp4_linear();
  const Outputs o = c.run(r);
  const QuantSpec specs[kGemmRoles][kGemmOperands] = {{r.fprop_x, r.fprop_w}, {r.dgrad_dy, r.dgrad_w}, {r.wgrad_dy, r.wgrad_x}};
  // Inputs as each GEMM reads them: X [M,K], W [N,K], dY [M,N], Wᵀ [K,N], dYᵀ [N,M], Xᵀ [K,M].
  const std::vector<float> inputs[kGemmRoles][kGemmOperands] = {
      {c.x, c.w}, {c.dy, transposed(c.w, kN, kK)}, {transposed(c.dy, kM, kN), transposed(c.x, kM, kK)}};
  const int64_t rows[kGemmRoles][kGemmOperands] = {{kM, kN}, {kM, kK}, {kN, kK}};
  for (int role = 0; role < kGemmRoles; ++role) {
    for (int op = 0; op < kGemmOperands; ++op) {
      const QuantSpec& spec = specs[role][op];
      const std::vector<float>& in = inputs[role][op];
      const int64_t m = rows[role][op], n = int64_t(in.size()) / m;
      const std::vector<float> q = quantized(in, m, n, spec, role, op);
      std::vector<float> x(in.size());
      quantizer_domain(x.data(), in.data(), m, n, spec);
      const QuantBias expected = quant_bias(x.data(), q.data(), m, n), got = o.bias[role][op];
      // Equal sums, in another order where dgrad reads fprop's Q(W) = Q(Wᵀ)ᵀ.
      EXPECT_NEAR(got.shrinkage, expected.shrinkage, 1e-6) << role << " " << op;
      EXPECT_NEAR(got.mean, expected.mean, 1e-6) << role << " " << op;
      if (spec.rht) {
        EXPECT_NE(got.shrinkage, quant_bias(in.data(), q.data(), m, n).shrinkage);  // not X's domain
      }
      const SrConcentration& sr = o.sr_rms[role][op];
      if (spec.rounding != Rounding::sr) {
        EXPECT_LT(got.shrinkage, 0.0f) << role << " " << op;  // round to nearest shrinks Gaussian tensors
        for (float v : sr) EXPECT_TRUE(std::isnan(v)) << role << " " << op;
        continue;
      }
      for (size_t j = 1; j < sr.size(); ++j) EXPECT_LT(sr[j], sr[j - 1]) << role << " " << op;
      EXPECT_LT(sr[3], sr[0] / 4);  // 1/√64 = 1/8 without a floor
    }
  }
}

}  // namespace
}  // namespace fp4lab
