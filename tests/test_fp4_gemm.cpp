// Block-scaled FP4 GEMMs (core/ops/fp4_gemm.hpp): every kernel against the formula written out
// from the quantizer's raw codes and scale bytes, bit for bit, on hostile inputs; thread and shard
// invariance; the 2D transpose; the E8M0 range edges; ufloat (UE5M3) block scales; and the linear
// layer's choice of numerics, with its dequant_fp32 fallback for ufloat scales of too wide a range.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/ops/fp4_gemm.hpp"
#include "core/ops/linear.hpp"
#include "core/ops/matmul.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quantize.hpp"
#include "tests/quant_test_support.hpp"

namespace fp4lab {
namespace {

using testing_support::float_bits_equal;
using testing_support::gaussian;
using testing_support::hostile;

// One quantized operand: the quantizer's raw outputs and the kernels' form.
struct Quantized {
  QuantSpec spec;
  int64_t rows = 0, k = 0;
  std::vector<float> values;
  std::vector<uint8_t> codes, scales;
  std::vector<float> row_amax;
  float amax = 0.0f;
  Fp4Operand op;
};

Quantized quantize_operand(const std::vector<float>& x, int64_t rows, int64_t k, const QuantSpec& spec, uint64_t id) {
  Quantized q;
  q.spec = spec;
  q.rows = rows;
  q.k = k;
  q.values.resize(x.size());
  QuantOutputs out;
  out.codes = &q.codes;
  out.scales = &q.scales;
  out.global_amax = &q.amax;
  out.row_amax = &q.row_amax;
  quantize(x.data(), q.values.data(), rows, k, spec, QuantRandom{7, id, 3}, out);
  fp4_operand_from_codes(q.op, spec, rows, k, q.codes, q.scales, q.amax, q.row_amax);
  return q;
}

// The formula written out from raw codes and scale bytes: exact block dot products of E2M1 values
// and the exact block term t = s_a · s_b · dot (in double, which holds it), acc = RN(acc + t) in
// block order (one rounding: double cannot round first here, t has at most 21 significant bits),
// C = RN(acc · G) with G = RN(RN(u_a · u_b) · RN(1 / (d_a · d_b))). The one place the kernels leave
// exact arithmetic, p = s_a · s_b / 4 outside fp32's range (UE8M0 pairs only), is taken as defined:
// p rounded to fp32 (0 or Inf), then the fused add.
std::vector<float> formula(const Quantized& a, const Quantized& b, int64_t k0, int64_t kn, const std::vector<float>& c0,
                           bool accumulate, bool bf16 = false) {
  const int block = a.spec.block;
  auto unit = [](const Quantized& q, int64_t row) {
    if (q.spec.scale == ScaleFormat::ue8m0) return 1.0f;
    return q.spec.row_scaled ? q.row_amax[size_t(row)] : q.amax;
  };
  auto denom = [](const Quantized& q) { return q.spec.scale == ScaleFormat::ue8m0 ? 1.0f : 6.0f * nvfp4_scale_max(q.spec); };
  const float recip = 1.0f / (denom(a) * denom(b));
  std::vector<float> c(size_t(a.rows * b.rows));
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.rows; ++j) {
      float acc = 0.0f;
      for (int64_t kb = k0; kb < k0 + kn; kb += block) {
        double dot = 0.0;
        for (int64_t e = kb; e < kb + block; ++e)
          dot += double(fp4_e2m1_decode(a.codes[size_t(i * a.k + e)])) * fp4_e2m1_decode(b.codes[size_t(j * b.k + e)]);
        const double sa = decode_scale_code(a.spec, a.scales[size_t(i * (a.k / block) + kb / block)]);
        const double sb = decode_scale_code(b.spec, b.scales[size_t(j * (b.k / block) + kb / block)]);
        const double p = sa * sb / 4;
        if (p != 0 && (p < 0x1p-149 || p > std::numeric_limits<float>::max())) {
          acc = std::fma(float(sa) * (float(sb) * 0.25f), float(dot * 4), acc);
          continue;
        }
        acc = float(double(acc) + sa * sb * dot);
      }
      const float g = (unit(a, i) * unit(b, j)) * recip;
      const float v = bf16 ? bf16_round(acc * g) : acc * g;
      c[size_t(i * b.rows + j)] = accumulate ? c0[size_t(i * b.rows + j)] + v : v;
    }
  return c;
}

std::vector<Fp4Kernel> kernels() {
  std::vector<Fp4Kernel> out;
  for (Fp4Kernel k : {Fp4Kernel::scalar, Fp4Kernel::avx2, Fp4Kernel::avx512_vnni})
    if (fp4_kernel_supported(k)) out.push_back(k);
  return out;
}

QuantSpec spec_of(const char* name) {
  QuantSpec s;
  EXPECT_TRUE(named_format(name, s));
  return s;
}

struct Pair {
  const char* what;
  QuantSpec a, b;
};

std::vector<Pair> pairs() {
  const QuantSpec nv = spec_of("nvfp4"), mx = spec_of("mxfp4");
  QuantSpec nv2d = nv, nv_sr = nv, nv_rht = nv, nv_4o6 = nv, nv_rows = nv, nv_bf16 = nv, mx_ceil = mx, nv_te213 = nv;
  nv2d.tile = Tile::d2;
  nv_sr.rounding = Rounding::sr;
  nv_rht.rht = true;
  nv_4o6.four_over_six = FourOverSix::mae;
  nv_4o6.global_e4m3_max = 256;
  nv_rows.row_scaled = true;
  nv_bf16.operand_dtype = OperandDtype::bf16;
  mx_ceil.scale_rule = ScaleRule::ceil;
  nv_te213.formula = BlockScaleFormula::te_2_13;
  QuantSpec nv_sr_rht = nv_sr;
  nv_sr_rht.rht = true;
  QuantSpec nv2d_4o6 = nv2d;
  nv2d_4o6.four_over_six = FourOverSix::mse;
  QuantSpec mx_e4m3 = nv;  // E4M3 scales against UE8M0 ones of the same block: mixed scale formats
  QuantSpec nv_ue = mx;
  nv_ue.block = 16;
  // UE5M3 block scales: 2D, SR + RHT, row scaling, scales rounded up, and against E4M3 scales.
  const QuantSpec ue = spec_of("nvfp4_ue5m3");
  QuantSpec ue2d = ue, ue_sr_rht = ue, ue_rows = ue, ue_up = ue;
  ue2d.tile = Tile::d2;
  ue_sr_rht.rounding = Rounding::sr;
  ue_sr_rht.rht = true;
  ue_rows.row_scaled = true;
  ue_up.scale_round = UfloatRounding::up;
  return {{"ue5m3 x ue5m3 2d", ue, ue2d},        {"ue5m3 sr rht x ue5m3 rht", ue_sr_rht, ue_sr_rht},
          {"ue5m3 row-scaled x e4m3", ue_rows, nv}, {"ue5m3 up x e4m3 2d", ue_up, nv2d},{"nvfp4 x nvfp4 2d", nv, nv2d},       {"nvfp4 sr x nvfp4 2d", nv_sr, nv2d},
          {"rht sr x rht", nv_sr_rht, nv_rht},   {"4over6 x 4over6 2d", nv_4o6, nv2d_4o6},
          {"row-scaled x nvfp4", nv_rows, nv2d}, {"bf16 operands", nv_bf16, nv_bf16},
          {"te 2.13 x nvfp4", nv_te213, nv},     {"mxfp4 x mxfp4", mx, mx},
          {"mxfp4 ceil x mxfp4", mx_ceil, mx},   {"e4m3 x ue8m0 scales", mx_e4m3, nv_ue}};
}

struct Shape {
  int64_t m, n, k;
};

TEST(Fp4Gemm, EveryKernelComputesTheFormulaOnHostileInputs) {
  // k = 80: full panels whose k / 4 groups leave a remainder after the packing's 16 (AVX-512) or
  // 8 (AVX2) groups at a time
  const Shape shapes[] = {{32, 32, 64}, {37, 50, 96}, {9, 17, 32}, {64, 130, 128}, {1, 1, 32}, {32, 48, 80}};
  for (const Pair& p : pairs())
    for (const Shape& s : shapes) {
      if (s.k % p.a.block || (p.a.tile == Tile::d2 && s.m % 16) || (p.b.tile == Tile::d2 && s.n % 16)) continue;
      // Hostile without NaN/Inf (the sentinel stops those before a GEMM): zero, underflowing,
      // saturated, subnormal and near-FLT_MAX blocks.
      const auto xa = hostile(s.m, s.k, 11 + s.m, false), xb = hostile(s.n, s.k, 23 + s.n, false);
      const Quantized a = quantize_operand(xa, s.m, s.k, p.a, 1), b = quantize_operand(xb, s.n, s.k, p.b, 2);
      const std::vector<float> c0 = gaussian(size_t(s.m * s.n), 5);
      for (int mode = 0; mode < 4; ++mode) {
        const bool accumulate = mode & 1, bf16 = mode & 2;
        const std::vector<float> want = formula(a, b, 0, s.k, c0, accumulate, bf16);
        bool finite = true;
        for (float v : want) finite = finite && std::isfinite(v);
        for (Fp4Kernel kernel : kernels()) {
          for (int threads : {1, 2}) {
            omp_set_num_threads(threads);
            std::vector<float> c = c0;
            const std::string what = std::string(p.what) + " " + to_string(kernel) + " m" + std::to_string(s.m) + " n" +
                                     std::to_string(s.n) + " k" + std::to_string(s.k) + (accumulate ? " acc" : "") +
                                     (bf16 ? " bf16" : "") + " threads " + std::to_string(threads);
            EXPECT_EQ(fp4_matmul(kernel, c.data(), whole(a.op), whole(b.op), accumulate, bf16), finite) << what;
            EXPECT_TRUE(float_bits_equal(want, c, what));
          }
        }
      }
    }
  omp_set_num_threads(2);
}

TEST(Fp4Gemm, TokenShardsAreColumnViews) {
  const QuantSpec nv = spec_of("nvfp4");
  const int64_t m = 24, n = 40, k = 128;
  const Quantized a = quantize_operand(gaussian(size_t(m * k), 1), m, k, nv, 1);
  const Quantized b = quantize_operand(gaussian(size_t(n * k), 2), n, k, nv, 2);
  for (int64_t k0 : {int64_t(0), int64_t(32), int64_t(64)}) {
    const std::vector<float> want = formula(a, b, k0, 64, {}, false);
    for (Fp4Kernel kernel : kernels()) {
      std::vector<float> c(size_t(m * n));
      fp4_matmul(kernel, c.data(), Fp4View{&a.op, k0, 64}, Fp4View{&b.op, k0, 64}, false);
      EXPECT_TRUE(float_bits_equal(want, c, "k0 " + std::to_string(k0) + " " + to_string(kernel)));
    }
  }
  std::vector<float> c(size_t(m * n));
  EXPECT_THROW(fp4_matmul(c.data(), Fp4View{&a.op, 8, 64}, Fp4View{&b.op, 8, 64}, false), std::invalid_argument);
  EXPECT_THROW(fp4_matmul(c.data(), Fp4View{&a.op, 0, 64}, Fp4View{&b.op, 0, 32}, false), std::invalid_argument);
}

TEST(Fp4Gemm, TransposedTilesAreTheTransposedTensorQuantized) {
  QuantSpec nv2d = spec_of("nvfp4");
  nv2d.tile = Tile::d2;
  const int64_t n = 48, k = 64;
  const auto w = hostile(n, k, 3, false);
  const Quantized q = quantize_operand(w, n, k, nv2d, 1);
  const Quantized qt = quantize_operand(testing_support::transpose(w, n, k), k, n, nv2d, 1);
  Fp4Operand t;
  fp4_transpose_tiles(t, q.op);
  EXPECT_EQ(t.q, qt.op.q);
  EXPECT_TRUE(float_bits_equal(qt.op.scale, t.scale, "scales"));
  EXPECT_TRUE(float_bits_equal(qt.op.unit, t.unit, "amax"));
}

// UE8M0 pairs can leave fp32's range: p = s_a · s_b / 4 below 2^-149 rounds to 0 and above FLT_MAX
// to Inf; a product p · I past FLT_MAX is Inf. Every kernel gives the same bits there.
TEST(Fp4Gemm, E8m0RangeEdgesAgreeAcrossKernels) {
  const int64_t m = 3, n = 17, k = 64;
  // scales 2^e per (row, block); codes a fixed pattern with no zero block dot product
  auto make = [&](int64_t rows, const std::vector<std::array<int, 2>>& exps) {
    Fp4Operand op;
    op.rows = rows;
    op.k = k;
    op.block = 32;
    for (int64_t i = 0; i < rows * k; ++i) op.q.push_back(int8_t(i % 2 ? 2 : 3));
    for (int64_t r = 0; r < rows; ++r)
      for (int b = 0; b < 2; ++b) op.scale.push_back(std::ldexp(1.0f, exps[size_t(r % exps.size())][size_t(b)]));
    op.unit = {1.0f};
    op.valid = true;
    return op;
  };
  const Fp4Operand a = make(m, {{-127, -127}, {127, 127}, {-60, 120}});
  const Fp4Operand b = make(n, {{-127, -127}, {127, 126}, {-80, -30}, {5, -20}});
  std::vector<float> want(size_t(m * n));
  fp4_matmul(Fp4Kernel::scalar, want.data(), whole(a), whole(b), false);
  EXPECT_EQ(want[0], 0.0f) << "p = 2^-256 rounds to 0";
  EXPECT_EQ(want[size_t(n + 1)], std::numeric_limits<float>::infinity()) << "p = 2^251 rounds to Inf";
  EXPECT_TRUE(std::isfinite(want[size_t(2 * n + 2)]) && want[size_t(2 * n + 2)] > 0) << "in range: exact";
  for (Fp4Kernel kernel : kernels()) {
    std::vector<float> c(size_t(m * n));
    fp4_matmul(kernel, c.data(), whole(a), whole(b), false);
    EXPECT_TRUE(float_bits_equal(want, c, to_string(kernel)));
  }
}

// block_exact and dequant_fp32 differ only by fp32 rounding of the sums.
TEST(Fp4Gemm, CloseToTheDequantizedFp32Product) {
  const int64_t m = 64, n = 48, k = 256;
  for (const char* name : {"nvfp4", "mxfp4"}) {
    const QuantSpec s = spec_of(name);
    const Quantized a = quantize_operand(gaussian(size_t(m * k), 1), m, k, s, 1);
    const Quantized b = quantize_operand(gaussian(size_t(n * k), 2), n, k, s, 2);
    std::vector<float> exact(size_t(m * n)), dequant(size_t(m * n));
    fp4_matmul(exact.data(), whole(a.op), whole(b.op), false);
    matmul(dequant.data(), a.values.data(), Trans::n, b.values.data(), Trans::t, m, n, k, false);
    double num = 0, den = 0;
    for (size_t i = 0; i < exact.size(); ++i) num += std::pow(double(exact[i]) - dequant[i], 2), den += std::pow(double(dequant[i]), 2);
    EXPECT_LT(std::sqrt(num / den), 1e-6) << name;
  }
}

TEST(Fp4Gemm, BlockExactOnlyForFp4PairsOfOneBlock) {
  const QuantSpec nv = spec_of("nvfp4"), mx = spec_of("mxfp4"), fp8 = spec_of("fp8_e4m3"), bf = spec_of("bf16");
  EXPECT_TRUE(uses_block_exact(GemmNumerics::block_exact, nv, nv));
  EXPECT_TRUE(uses_block_exact(GemmNumerics::block_exact, mx, mx));
  EXPECT_FALSE(uses_block_exact(GemmNumerics::dequant_fp32, nv, nv));
  EXPECT_FALSE(uses_block_exact(GemmNumerics::block_exact, nv, mx));  // blocks of 16 and 32
  EXPECT_FALSE(uses_block_exact(GemmNumerics::block_exact, nv, fp8));
  EXPECT_FALSE(uses_block_exact(GemmNumerics::block_exact, bf, nv));
  // ufloat scales: UE5M3 products are exact in fp32 (4 significant bits a scale, 2^-36 to 2^32);
  // UE7M1's smallest product 2^-126 / 4 is not, so its GEMMs run dequant_fp32.
  const QuantSpec ue = spec_of("nvfp4_ue5m3");
  QuantSpec wide = ue;
  wide.scale_exp_bits = 7;
  wide.scale_man_bits = 1;
  wide.scale_bias = 63;
  ASSERT_EQ(validate(wide, 16, 16), "");
  EXPECT_TRUE(uses_block_exact(GemmNumerics::block_exact, ue, ue));
  EXPECT_TRUE(uses_block_exact(GemmNumerics::block_exact, ue, nv));
  EXPECT_FALSE(fp4_blockable(wide));
  EXPECT_FALSE(uses_block_exact(GemmNumerics::block_exact, wide, wide));
  EXPECT_FALSE(uses_block_exact(GemmNumerics::block_exact, ue, wide));
  GemmNumerics g;
  EXPECT_TRUE(parse("block_exact", g) && g == GemmNumerics::block_exact);
  EXPECT_FALSE(parse("exact", g));
}

// A linear layer under block_exact: every FP4 GEMM runs it (dgrad from fprop's 2D codes, wgrad per
// token shard), the results are those of fp4_matmul on the same copies, and they stay within
// fp32 rounding of dequant_fp32.
// One linear layer's three GEMMs on fixed Gaussian inputs (x [m, k], w [n, k], dy [m, n]) under `r`
// with `numerics`, the wgrad cut into `shards` token shards and summed.
struct LinearRun {
  std::vector<float> y, dx, dw;
  LinearState state;
};
LinearRun run_linear(LinearRecipe r, GemmNumerics numerics, int64_t m, int64_t k, int64_t n, int shards = 1) {
  const auto x = gaussian(size_t(m * k), 1), w = gaussian(size_t(n * k), 2, 0.1), dy = gaussian(size_t(m * n), 3);
  r.numerics = numerics;
  LinearQuant q{&r, 9, 4, 0};
  LinearInput in;
  in.bind(x.data(), m, k);
  LinearScratch sc;
  LinearRun out;
  out.y.assign(size_t(m * n), 0.0f);
  out.dx.assign(size_t(m * k), 0.0f);
  std::vector<std::vector<float>> parts(size_t(shards), std::vector<float>(size_t(n * k), 0.0f));
  std::vector<float*> ptrs;
  for (auto& p : parts) ptrs.push_back(p.data());
  linear_forward(out.y.data(), in, w.data(), n, q, out.state);
  linear_backward(out.dx.data(), ptrs.data(), shards, dy.data(), in, w.data(), n, q, out.state, sc);
  out.dw = parts[0];
  for (int s = 1; s < shards; ++s)
    for (size_t i = 0; i < out.dw.size(); ++i) out.dw[i] += parts[size_t(s)][i];
  return out;
}

class LinearBlockExact : public ::testing::TestWithParam<const char*> {};

TEST_P(LinearBlockExact, LinearLayerRunsEveryFp4GemmBlockExact) {
  const int64_t m = 64, k = 64, n = 32;
  LinearRecipe r;
  r.fprop_x = r.fprop_w = r.dgrad_dy = r.dgrad_w = r.wgrad_dy = r.wgrad_x = spec_of(GetParam());
  r.fprop_w.tile = r.dgrad_w.tile = Tile::d2;
  r.dgrad_dy.rounding = r.wgrad_dy.rounding = Rounding::sr;
  r.wgrad_dy.rht = r.wgrad_x.rht = true;
  const LinearRun a = run_linear(r, GemmNumerics::block_exact, m, k, n, 2);
  for (int role = 0; role < kGemmRoles; ++role) EXPECT_EQ(a.state.numerics[role], GemmNumerics::block_exact) << role;
  const LinearRun b = run_linear(r, GemmNumerics::dequant_fp32, m, k, n, 2);
  for (int role = 0; role < kGemmRoles; ++role) EXPECT_EQ(b.state.numerics[role], GemmNumerics::dequant_fp32) << role;
  auto rel = [](const std::vector<float>& a, const std::vector<float>& b) {
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) num += std::pow(double(a[i]) - b[i], 2), den += std::pow(double(b[i]), 2);
    return std::sqrt(num / den);
  };
  EXPECT_LT(rel(a.y, b.y), 1e-6);
  EXPECT_LT(rel(a.dx, b.dx), 1e-6);
  EXPECT_LT(rel(a.dw, b.dw), 1e-6);
  // Shards of 8 tokens cut NVFP4's 16-blocks: that wgrad falls back to dequant_fp32.
  const LinearRun c = run_linear(r, GemmNumerics::block_exact, m, k, n, 8);
  EXPECT_EQ(c.state.numerics[1], GemmNumerics::block_exact);
  EXPECT_EQ(c.state.numerics[2], GemmNumerics::dequant_fp32);
}

INSTANTIATE_TEST_SUITE_P(Fp4Gemm, LinearBlockExact, ::testing::Values("nvfp4", "nvfp4_ue5m3"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// A ufloat scale whose products leave fp32's normal range: a block_exact recipe runs every GEMM
// as dequant_fp32, and the outputs are those of the recipe asking for dequant_fp32.
TEST(Fp4Gemm, WideUfloatScalesFallBackToDequantFp32) {
  const int64_t m = 32, k = 32, n = 16;
  QuantSpec wide = spec_of("nvfp4_ue5m3");
  wide.scale_exp_bits = 7;
  wide.scale_man_bits = 1;
  wide.scale_bias = 63;
  LinearRecipe r;
  r.fprop_x = r.fprop_w = r.dgrad_dy = r.dgrad_w = r.wgrad_dy = r.wgrad_x = wide;
  const LinearRun a = run_linear(r, GemmNumerics::block_exact, m, k, n);
  const LinearRun b = run_linear(r, GemmNumerics::dequant_fp32, m, k, n);
  for (int role = 0; role < kGemmRoles; ++role) EXPECT_EQ(a.state.numerics[role], GemmNumerics::dequant_fp32) << role;
  EXPECT_TRUE(float_bits_equal(b.y, a.y, "y"));
  EXPECT_TRUE(float_bits_equal(b.dx, a.dx, "dx"));
  EXPECT_TRUE(float_bits_equal(b.dw, a.dw, "dw"));
}

}  // namespace
}  // namespace fp4lab
