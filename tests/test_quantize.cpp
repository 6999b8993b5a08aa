// The block quantizer (core/quant): names and validation; NVFP4/MX/FP8 golden blocks (underflowed
// block codes, zero blocks, outliers, floor-rule clipping, TE 2.13 vs 2.14 scales); 2D transposes;
// the RHT; SR statistics; thread independence; and the fast path against the scalar reference bit
// for bit over every format/option combination on random and hostile tensors of awkward shapes.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/formats/ue8m0.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/encode_kernels.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/philox.hpp"
#include "core/quant/quantize.hpp"
#include "core/quant/rht.hpp"
#include "tests/quant_test_support.hpp"

namespace fp4lab {
namespace {

using namespace testing_support;
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Result {
  std::vector<float> out;
  std::vector<uint8_t> codes, scales;
  float amax = -1.0f;
  QuantStats stats;
  bool nonfinite = false;
  std::vector<float> window_amax;
};

Result run(bool fast, const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
           const QuantRandom& rnd = {}, float delayed_scale = 1.0f) {
  Result r;
  r.out.assign(x.size(), -123.0f);
  QuantOutputs extra{&r.codes, &r.scales, &r.amax, &r.stats, &r.nonfinite};
  extra.window_amax = &r.window_amax;
  (fast ? quantize : quantize_reference)(x.data(), r.out.data(), rows, cols, spec, rnd, extra, delayed_scale);
  return r;
}

::testing::AssertionResult same_result(const Result& expected, const Result& actual, const std::string& what) {
  if (auto a = float_bits_equal(expected.out, actual.out, what + " out"); !a) return a;
  if (auto a = bytes_equal(expected.codes, actual.codes, what + " codes"); !a) return a;
  if (auto a = bytes_equal(expected.scales, actual.scales, what + " scales"); !a) return a;
  if (auto a = float_bits_equal(expected.window_amax, actual.window_amax, what + " window amax"); !a) return a;
  const QuantStats& e = expected.stats;
  const QuantStats& g = actual.stats;
  if (bits_of(expected.amax) != bits_of(actual.amax) || bits_of(e.amax) != bits_of(g.amax) || e.count != g.count ||
      e.flushed != g.flushed || e.saturated != g.saturated || e.nonfinite != g.nonfinite ||
      e.first_nonfinite != g.first_nonfinite)
    return ::testing::AssertionFailure()
           << what << " stats: expected amax " << e.amax << " count " << e.count << " flushed " << e.flushed
           << " saturated " << e.saturated << " nonfinite " << e.nonfinite << " first " << e.first_nonfinite
           << "; actual amax " << g.amax << " count " << g.count << " flushed " << g.flushed << " saturated "
           << g.saturated << " nonfinite " << g.nonfinite << " first " << g.first_nonfinite;
  if (expected.nonfinite != actual.nonfinite)
    return ::testing::AssertionFailure() << what << " sentinel: expected " << expected.nonfinite;
  if (e.scaled_blocks != g.scaled_blocks || bits_of(e.scale_min) != bits_of(g.scale_min) ||
      bits_of(e.scale_max) != bits_of(g.scale_max))
    return ::testing::AssertionFailure() << what << " block scales: expected " << e.scaled_blocks << " in ["
                                         << e.scale_min << ", " << e.scale_max << "], actual " << g.scaled_blocks
                                         << " in [" << g.scale_min << ", " << g.scale_max << "]";
  for (auto [a, b, name] : {std::tuple{e.signal_energy, g.signal_energy, "signal"},
                            std::tuple{e.error_energy, g.error_energy, "error"},
                            std::tuple{e.scale_sum, g.scale_sum, "scale sum"},
                            std::tuple{e.scale_sum_sq, g.scale_sum_sq, "scale sum of squares"}})
    if (std::fabs(a - b) > kEnergyRelTol * std::fabs(a))
      return ::testing::AssertionFailure() << what << " " << name << " energy " << b << " vs reference " << a;
  return ::testing::AssertionSuccess();
}

// ---- names, presets, validation ----

TEST(QuantSpec, NamesRoundTripAndPresets) {
  for (auto v : {ElementFormat::none, ElementFormat::bf16, ElementFormat::fp8_e4m3, ElementFormat::fp8_e5m2,
                 ElementFormat::fp4_e2m1}) {
    ElementFormat p;
    ASSERT_TRUE(parse(to_string(v), p));
    EXPECT_EQ(p, v);
  }
  for (auto v : {ScaleFormat::none, ScaleFormat::fp32, ScaleFormat::e4m3, ScaleFormat::ue8m0}) {
    ScaleFormat p;
    ASSERT_TRUE(parse(to_string(v), p));
    EXPECT_EQ(p, v);
  }
  ScaleFormat alias;
  EXPECT_TRUE(parse("e8m0", alias) && alias == ScaleFormat::ue8m0);
  BlockScaleFormula f;
  EXPECT_TRUE(parse("2.13", f) && f == BlockScaleFormula::te_2_13);
  EXPECT_TRUE(parse(to_string(BlockScaleFormula::te_2_14), f) && f == BlockScaleFormula::te_2_14);
  Tile t;
  EXPECT_TRUE(parse("2d", t) && t == Tile::d2);
  Rounding r;
  EXPECT_TRUE(parse("sr", r) && r == Rounding::sr);
  ScaleRule rule;
  EXPECT_TRUE(parse("ceil", rule) && rule == ScaleRule::ceil);
  EXPECT_FALSE(parse("nvfp5", t));

  QuantSpec s = named("nvfp4");
  EXPECT_EQ(describe(s), "fp4_e2m1/16 e4m3 1d rne");
  s.tile = Tile::d2;
  EXPECT_EQ(describe(s), "fp4_e2m1/16 e4m3 2d rne");
  s.tile = Tile::d1;
  s.rounding = Rounding::sr;
  s.rht = true;
  EXPECT_EQ(describe(s), "fp4_e2m1/16 e4m3 1d sr rht16");
  EXPECT_EQ(describe(named("mxfp4")), "fp4_e2m1/32 ue8m0-floor 1d rne");
  EXPECT_EQ(describe(named("mxfp8")), "fp8_e4m3/32 ue8m0-ceil 1d rne");
  EXPECT_EQ(describe(named("fp8_e5m2")), "fp8_e5m2/tensor fp32 1d rne");
  EXPECT_EQ(describe(named("bf16")), "bf16 rne");
  EXPECT_EQ(describe(named("fp32")), "none");
  QuantSpec unknown;
  EXPECT_FALSE(named_format("int4", unknown));
}

TEST(QuantSpec, ValidateRejectsImpossibleCombinations) {
  const QuantSpec nvfp4 = named("nvfp4");
  EXPECT_EQ(validate(nvfp4, 48, 80), "");
  EXPECT_EQ(validate(nvfp4, 5, 96), "");
  EXPECT_EQ(validate(nvfp4, 3, 40), "block size 16 does not divide the last axis (40)");
  EXPECT_EQ(validate(named("mxfp4"), 48, 80), "block size 32 does not divide the last axis (80)");
  QuantSpec s = nvfp4;
  s.tile = Tile::d2;
  EXPECT_EQ(validate(s, 48, 80), "");
  EXPECT_EQ(validate(s, 5, 96), "2d tiles of 16x16 do not divide the first axis (5)");
  s = named("mxfp8");
  s.rounding = Rounding::sr;
  EXPECT_EQ(validate(s, 4, 64), "stochastic rounding is only defined for fp4_e2m1 elements, not fp8_e4m3");
  s = named("mxfp8");
  s.scale = ScaleFormat::e4m3;
  EXPECT_EQ(validate(s, 4, 64), "an e4m3 block scale needs fp4_e2m1 elements (NVFP4), not fp8_e4m3");
  s = nvfp4;
  s.rht = true;
  s.rht_size = 24;
  EXPECT_EQ(validate(s, 4, 96), "rht_size 24 is not a power of two >= 2");
  s.rht_size = 64;
  EXPECT_EQ(validate(s, 4, 96), "rht_size 64 does not divide the last axis (96)");
  s = nvfp4;
  s.block = 0;
  EXPECT_EQ(validate(s, 4, 96), "an e4m3 block scale needs a block size > 0");
  s = named("bf16");
  s.block = 16;
  EXPECT_EQ(validate(s, 4, 96), "bf16 takes no scale, block or tile options");
  s = named("fp32");
  s.rht = true;
  EXPECT_NE(validate(s, 4, 96), "");
  s = named("fp8_e4m3");
  s.tile = Tile::d2;
  EXPECT_EQ(validate(s, 16, 16), "2d tiles need a block size > 0 (tiles are block x block)");
  std::vector<float> x(3 * 40, 1.0f), y(x.size());
  EXPECT_THROW(quantize(x.data(), y.data(), 3, 40, nvfp4), std::invalid_argument);
  EXPECT_THROW(quantize_reference(x.data(), y.data(), 3, 40, nvfp4), std::invalid_argument);
}

// ---- NVFP4 scale pipeline (NUMERICS.md, NVFP4) ----

TEST(Nvfp4, ScaleConstantsAndTensorScale) {
  EXPECT_EQ(bits_of(kRecipSix), 0x3E2AAAABu);
  EXPECT_EQ(bits_of(kRecip2688), 0x39C30C31u);
  EXPECT_EQ(nvfp4_tensor_encode_scale(0.0f), 1.0f);
  EXPECT_EQ(nvfp4_tensor_encode_scale(kInf), 1.0f);
  EXPECT_EQ(nvfp4_tensor_encode_scale(1e-45f), FLT_MAX);
  EXPECT_EQ(nvfp4_tensor_encode_scale(2688.0f), 1.0f);
  EXPECT_EQ(nvfp4_tensor_encode_scale(448.0f * 6.0f * 8.0f), 0.125f);  // TE's "no rounding noise" amax
  // Underflowed block: s_b = 0 -> encode multiplier clamps to FLT_MAX, decode multiplier 0.
  EXPECT_EQ(nvfp4_block_encode_multiplier(0x00, 1.0f), FLT_MAX);
  EXPECT_EQ(nvfp4_block_decode_multiplier(0x00, 2688.0f), 0.0f);
}

// A constructed case where TE >= 2.14 and TE <= 2.13 pick different E4M3 block scales:
// (bamax / 6) * S_enc lands exactly on 84, the tie between E4M3 80 (0x6A) and 88 (0x6B), which
// goes to even; bamax * (S_enc * RN(1/6)) is 84 * (1 + 2^-22) and rounds up.
TEST(Nvfp4, BlockScaleFormula214Versus213) {
  const float amax = 0x1.04p+0f, block_amax = 0x1.86p-3f;
  const float s_enc = nvfp4_tensor_encode_scale(amax);
  EXPECT_EQ((block_amax / 6.0f) * s_enc, 84.0f);
  EXPECT_EQ(nvfp4_block_scale_code(block_amax, s_enc, BlockScaleFormula::te_2_13), 0x6A);
  EXPECT_EQ(nvfp4_block_scale_code(block_amax, s_enc, BlockScaleFormula::te_2_14), 0x6B);
  // And end to end: a 1x32 tensor with those two amaxes gives different scales and dequant.
  std::vector<float> x(32, 0.0f);
  x[0] = amax;
  x[16] = block_amax;
  QuantSpec spec = named("nvfp4");
  const Result new_formula = run(true, x, 1, 32, spec);
  spec.formula = BlockScaleFormula::te_2_13;
  const Result old_formula = run(true, x, 1, 32, spec);
  EXPECT_EQ(new_formula.scales[1], 0x6B);
  EXPECT_EQ(old_formula.scales[1], 0x6A);
  EXPECT_NE(bits_of(new_formula.out[16]), bits_of(old_formula.out[16]));
}

// amax = 2688 makes S_enc = S_dec = 1, so every number below can be checked by hand.
TEST(Nvfp4, GoldenBlocksIncludingUnderflowedBlock) {
  std::vector<float> x(64, 0.0f);
  // Block 0: amax 6 -> s_b = E4M3(RN(6 * RN(1/6))) = 1.0 (0x38), inv_b = 1.
  const float b0[16] = {6, 5, -5, 3.5f, 2.5f, 1.75f, 1.25f, 0.75f, 0.25f, -0.25f, -0.0f, 0, 0.3f, -6, 4, 5.5f};
  const uint8_t c0[16] = {7, 6, 0xE, 6, 4, 4, 2, 2, 0, 8, 8, 0, 1, 0xF, 6, 7};
  for (int i = 0; i < 16; ++i) x[i] = b0[i];
  // Block 1: holds the tensor amax 2688 -> s_b = 448 (0x7E).
  x[16] = 2688.0f;
  // Block 2: nonzero values whose scale underflows E4M3 (1e-3 * RN(1/6) < 2^-10): s_b = 0, inv_b =
  // FLT_MAX, so x * FLT_MAX saturates to +-6 or, for tiny x, lands on other codes (NUMERICS.md,
  // NVFP4 step 4).
  const float b2[16] = {1e-3f, -1e-3f, 1e-39f, -1e-39f, 0, -0.0f, 2e-39f, 5e-4f, 0, 0, 0, 0, 0, 0, 0, 0};
  const uint8_t c2[16] = {7, 0xF, 1, 9, 0, 8, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) x[32 + i] = b2[i];
  // Block 3: all zero -> s_b = 0, codes 0.
  const QuantSpec spec = named("nvfp4");
  for (bool fast : {false, true}) {
    const Result r = run(fast, x, 1, 64, spec);
    ASSERT_EQ(r.scales.size(), 4u);
    EXPECT_EQ(r.scales[0], 0x38);
    EXPECT_EQ(r.scales[1], 0x7E);
    EXPECT_EQ(r.scales[2], 0x00);
    EXPECT_EQ(r.scales[3], 0x00);
    EXPECT_EQ(r.amax, 2688.0f);
    const float final0 = 2688.0f * kRecip2688;  // RN(RN(1 * 2688) * RN(1/2688))
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(r.codes[i], c0[i]) << "block 0 element " << i;
      EXPECT_EQ(bits_of(r.out[i]), bits_of(fp4_e2m1_decode(c0[i]) * final0)) << i;
      EXPECT_EQ(r.codes[32 + i], c2[i]) << "underflowed block element " << i;
      EXPECT_EQ(r.out[32 + i], 0.0f) << i;
      EXPECT_EQ(r.codes[48 + i], 0) << i;
    }
    EXPECT_EQ(r.codes[16], 7);
    EXPECT_EQ(r.stats.flushed, 8);    // +-0.25 in block 0 and the six nonzero values of block 2
    // 2688 * RN(1/448) is a hair above 6 (RN(1/448) rounds up); block 2's huge codes are flushed,
    // not saturated.
    EXPECT_EQ(r.stats.saturated, 1);
    EXPECT_EQ(r.stats.nonfinite, 0);
  }
}

TEST(Nvfp4, OneOutlierPerBlockKeepsTheOutlierAndFlushesNothingElse) {
  const int64_t rows = 4, cols = 128;
  std::vector<float> x = gaussian(rows * cols, 7, 1e-2);
  for (int64_t b = 0; b < rows * cols / 16; ++b) x[b * 16 + b % 16] = (b % 2 ? -1.0f : 1.0f) * 100.0f;
  const Result r = run(true, x, rows, cols, named("nvfp4"));
  EXPECT_TRUE(same_result(run(false, x, rows, cols, named("nvfp4")), r, "outliers"));
  for (int64_t b = 0; b < rows * cols / 16; ++b) {
    const int64_t i = b * 16 + b % 16;
    EXPECT_EQ(r.codes[i] & 0x7, 7) << i;  // the outlier sets its block's scale: it maps to +-6
    EXPECT_NEAR(r.out[i], x[i], 1.0f) << i;  // within the E4M3 scale rounding
  }
}

TEST(Nvfp4, AllZeroAndNanOnlyTensors) {
  std::vector<float> zeros(2 * 32, 0.0f);
  zeros[3] = -0.0f;
  for (bool fast : {false, true}) {
    const Result r = run(fast, zeros, 2, 32, named("nvfp4"));
    for (size_t i = 0; i < zeros.size(); ++i) {
      EXPECT_EQ(r.codes[i], i == 3 ? 8 : 0);
      EXPECT_EQ(bits_of(r.out[i]), bits_of(zeros[i]));
    }
    for (uint8_t s : r.scales) EXPECT_EQ(s, 0);
    EXPECT_EQ(r.amax, 0.0f);
    EXPECT_EQ(r.stats.flushed, 0);
  }
  std::vector<float> nans(16, kNan);
  const Result r = run(true, nans, 1, 16, named("nvfp4"));
  EXPECT_EQ(r.stats.nonfinite, 16);
  EXPECT_EQ(r.stats.first_nonfinite, 0);
  EXPECT_EQ(r.amax, 0.0f);  // NaN is ignored by amax
  for (uint8_t c : r.codes) EXPECT_EQ(c, kFp4E2m1NanCode);
}

// The sentinel flag (QuantOutputs::nonfinite) without statistics: set by a NaN or Inf input
// anywhere (vector lanes and scalar tails), by a finite input whose output overflows (bf16), and
// clear otherwise; identical in both implementations and with or without full statistics.
TEST(Quantize, NonfiniteSentinelWithoutStatistics) {
  const int64_t rows = 3, cols = 48;  // 48 = six 8-lane groups; tails exercised by cols 20 below
  for (const char* name : {"nvfp4", "mxfp4", "fp8_e4m3", "bf16"}) {
    const QuantSpec spec = named(name);
    const int64_t c = spec.block == 32 ? 64 : cols;
    for (int64_t poison : {int64_t(-1), int64_t(0), int64_t(c + 5), int64_t(rows * c - 1)}) {
      for (float bad : {kNan, -kInf}) {
        std::vector<float> x = gaussian(rows * c, 11, 1.0);
        if (poison >= 0) x[size_t(poison)] = bad;
        std::vector<float> out(x.size());
        bool flag = poison < 0;
        QuantOutputs only_flag;
        only_flag.nonfinite = &flag;
        quantize(x.data(), out.data(), rows, c, spec, {}, only_flag);
        EXPECT_EQ(flag, poison >= 0) << name << " poison " << poison;
        const Result fast = run(true, x, rows, c, spec), ref = run(false, x, rows, c, spec);
        EXPECT_TRUE(same_result(ref, fast, std::string(name) + " poisoned"));
        EXPECT_EQ(fast.nonfinite, poison >= 0);
      }
    }
  }
  // Finite inputs, non-finite outputs: NVFP4's decode multiplier RN(s_b * amax) / 2688 overflows
  // once amax > FLT_MAX / 448, and a raw fp8 cast of a finite value is finite.
  for (const char* name : {"nvfp4", "mxfp4", "fp8_e4m3"}) {
    std::vector<float> x = gaussian(2 * 64, 13, 1e37);
    const Result fast = run(true, x, 2, 64, named(name)), ref = run(false, x, 2, 64, named(name));
    EXPECT_TRUE(same_result(ref, fast, std::string(name) + " huge"));
    bool any_out = false;
    for (float v : fast.out) any_out = any_out || !std::isfinite(v);
    EXPECT_EQ(fast.nonfinite, any_out) << name;
    EXPECT_EQ(std::string(name) == "nvfp4", any_out) << name;
  }
  std::vector<float> huge(20, 1.0f);
  huge[19] = 3.4e38f;  // finite, but rounds to bf16 +Inf: an output the sentinel must see
  bool flag = false;
  QuantOutputs only_flag;
  only_flag.nonfinite = &flag;
  std::vector<float> out(huge.size());
  quantize(huge.data(), out.data(), 1, 20, named("bf16"), {}, only_flag);
  EXPECT_TRUE(flag);
}

// Block-scale statistics count valid blocks only: all-zero blocks (and tiles) are left out, a
// tile counts once, and min/max/std are those of the decoded scale values.
TEST(Quantize, BlockScaleStatisticsSkipAllZeroBlocks) {
  const int64_t rows = 32, cols = 64;
  std::vector<float> x = gaussian(rows * cols, 5, 1.0);
  for (int64_t c = 0; c < 16; ++c)
    for (int64_t r = 0; r < 16; ++r) x[size_t(r * cols + c)] = 0.0f;  // one all-zero 16x16 tile
  for (int64_t c = 32; c < 64; ++c) x[size_t(20 * cols + c)] = 0.0f;   // row 20: an all-zero mx block
  QuantSpec nv = named("nvfp4"), nv2d = nv, mx = named("mxfp4");
  nv2d.tile = Tile::d2;
  for (const QuantSpec& spec : {nv, nv2d, mx}) {
    const Result fast = run(true, x, rows, cols, spec), ref = run(false, x, rows, cols, spec);
    EXPECT_TRUE(same_result(ref, fast, describe(spec)));
    const int64_t per_row = cols / spec.block;
    int64_t expected_blocks = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t b = 0; b < per_row; ++b) {
        if (spec.tile == Tile::d2 && r % 16 != 0) continue;
        bool zero = true;
        for (int64_t rr = r; rr < (spec.tile == Tile::d2 ? r + 16 : r + 1); ++rr)
          for (int64_t c = b * spec.block; c < (b + 1) * spec.block; ++c) zero = zero && x[size_t(rr * cols + c)] == 0.0f;
        if (zero) continue;
        ++expected_blocks;
        const uint8_t code = fast.scales[size_t(r * per_row + b)];
        const double s = spec.scale == ScaleFormat::e4m3 ? fp8_e4m3_decode(code) : ue8m0_decode(code);
        lo = std::min(lo, s);
        hi = std::max(hi, s);
      }
    EXPECT_EQ(fast.stats.scaled_blocks, expected_blocks) << describe(spec);
    EXPECT_EQ(fast.stats.scale_min, float(lo)) << describe(spec);
    EXPECT_EQ(fast.stats.scale_max, float(hi)) << describe(spec);
    EXPECT_GT(fast.stats.scale_min, 0.0f) << describe(spec);  // no all-zero block's 0 or 2^-127 scale
    EXPECT_GT(fast.stats.scale_std(), 0.0);
  }
}

// ---- MX (NUMERICS.md, MXFP4 and MXFP8) ----

TEST(Mx, FloorRuleClipsCeilRuleDoesNot) {
  std::vector<float> x(32, 1.0f);
  x[0] = 7.5f;  // floor(log2 7.5) - 2 = 0 -> X = 1 -> 7.5 clips to 6; ceil: 2^ceil(log2 1.25) = 2
  x[1] = -7.0f;
  QuantSpec floor_rule = named("mxfp4"), ceil_rule = named("mxfp4");
  ceil_rule.scale_rule = ScaleRule::ceil;
  for (bool fast : {false, true}) {
    const Result f = run(fast, x, 1, 32, floor_rule), c = run(fast, x, 1, 32, ceil_rule);
    EXPECT_EQ(f.scales[0], 127);
    EXPECT_EQ(c.scales[0], 128);
    EXPECT_EQ(f.out[0], 6.0f);
    EXPECT_EQ(f.out[1], -6.0f);
    EXPECT_EQ(f.stats.saturated, 2);
    EXPECT_EQ(c.out[0], 8.0f);  // 3.75 -> 4 (E2M1) times 2
    EXPECT_EQ(c.stats.saturated, 0);
  }
  // Zero block: floor rule reads amax as FLT_MIN -> 2^(-126-2) clamps to 2^-127 (code 0).
  std::vector<float> zeros(32, 0.0f);
  EXPECT_EQ(run(true, zeros, 1, 32, floor_rule).scales[0], 0);
  EXPECT_EQ(run(true, zeros, 1, 32, ceil_rule).scales[0], 0);
  // An infinite element: the OCP floor rule's scale is NaN, TE's ceil rule saturates to 2^127.
  std::vector<float> inf_block(32, 1.0f);
  inf_block[4] = kInf;
  for (bool fast : {false, true}) {
    const Result f = run(fast, inf_block, 1, 32, floor_rule);
    EXPECT_EQ(f.scales[0], kUe8m0NanCode);
    EXPECT_TRUE(std::isnan(f.out[0]));
    EXPECT_EQ(run(fast, inf_block, 1, 32, ceil_rule).scales[0], 0xFE);
  }
  EXPECT_EQ(mx_block_scale_code(448.0f, ElementFormat::fp8_e4m3, ScaleRule::ceil), 127);
  EXPECT_EQ(mx_block_scale_code(449.0f, ElementFormat::fp8_e4m3, ScaleRule::ceil), 128);
  EXPECT_EQ(mx_block_scale_code(449.0f, ElementFormat::fp8_e4m3, ScaleRule::floor), 127);  // 2^(8-8)
}

TEST(Fp8, PerTensorCurrentScaling) {
  std::vector<float> x = {1.0f, -2.0f, 0.5f, 3.0f};
  for (bool fast : {false, true}) {
    const Result r = run(fast, x, 1, 4, named("fp8_e4m3"));
    const float scale = 448.0f / 3.0f;  // element max / amax
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(bits_of(r.out[i]), bits_of(fp8_e4m3_decode(fp8_e4m3_encode_rne(x[i] * scale)) * (1.0f / scale)));
    EXPECT_EQ(r.codes[3], 0x7E);
    EXPECT_TRUE(r.scales.empty());
    EXPECT_EQ(r.amax, 3.0f);
  }
}

// ---- 2D tiles ----

TEST(Tiles2d, QuantizingTheTransposeGivesTheTranspose) {
  for (const char* name : {"nvfp4", "mxfp4", "mxfp8"}) {
    QuantSpec spec = named(name);
    spec.tile = Tile::d2;
    const int64_t rows = spec.block * 3, cols = spec.block * 5;
    const std::vector<float> w = hostile(rows, cols, 11, /*with_nonfinite=*/false);
    const std::vector<float> wt = transpose(w, rows, cols);
    const Result q = run(true, w, rows, cols, spec), qt = run(true, wt, cols, rows, spec);
    EXPECT_TRUE(float_bits_equal(transpose(q.out, rows, cols), qt.out, std::string(name) + " 2d transpose out"));
    std::vector<uint8_t> codes_t(q.codes.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) codes_t[c * rows + r] = q.codes[r * cols + c];
    EXPECT_TRUE(bytes_equal(codes_t, qt.codes, std::string(name) + " 2d transpose codes"));
    const int64_t bpr = cols / spec.block, bpr_t = rows / spec.block;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        ASSERT_EQ(q.scales[r * bpr + c / spec.block], qt.scales[c * bpr_t + r / spec.block]) << name;
    EXPECT_EQ(q.amax, qt.amax);
    EXPECT_EQ(q.stats.flushed, qt.stats.flushed);
    EXPECT_EQ(q.stats.saturated, qt.stats.saturated);
    EXPECT_TRUE(same_result(run(false, w, rows, cols, spec), q, std::string(name) + " 2d"));
  }
}

// ---- Hadamard transform (NUMERICS.md, Random Hadamard transform) ----

TEST(Rht, SignsAndOrthonormality) {
  const Rht te = make_rht(16, 0);
  const float expected[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(te.signs[i], expected[i]) << i;
    EXPECT_EQ(te.signs[i] < 0, ((kTeRhtSignMask >> i) & 1u) != 0) << i;
  }
  EXPECT_EQ(te.normalisation, 0.25);
  const Rht seeded = make_rht(16, 42);
  EXPECT_NE(seeded.signs, te.signs);
  EXPECT_EQ(make_rht(16, 42).signs, seeded.signs);
  for (int n = 2; n <= 256; n *= 2) {
    const Rht rht = make_rht(n, n == 16 ? 0 : 5);
    const std::vector<double> h = rht_matrix(rht);
    const bool exact = std::countr_zero(static_cast<unsigned>(n)) % 2 == 0;  // 1/sqrt(n) a power of two
    double worst = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double dot = 0.0;
        for (int k = 0; k < n; ++k) dot += h[i * n + k] * h[j * n + k];
        worst = std::max(worst, std::fabs(dot - (i == j ? 1.0 : 0.0)));
      }
    // Power-of-4 sizes: entries are +-2^-k and H H^T = I exactly; otherwise within fp64 rounding.
    EXPECT_LE(worst, exact ? 0.0 : 4.0 * n * DBL_EPSILON) << "n = " << n;
  }
}

TEST(Rht, ReferenceIsTheExactlyRoundedProduct) {
  // bf16 inputs of modest range: the fp64 matrix product is exact, so its bf16 rounding is the spec.
  const Rht rht = make_rht(16, 0);
  const std::vector<double> h = rht_matrix(rht);
  std::vector<float> x = gaussian(16 * 64, 3);
  for (float& v : x) v = bf16_round(v);
  for (int v = 0; v < 64; ++v) {
    float y[16];
    rht_vector_reference(rht, &x[v * 16], y);
    for (int j = 0; j < 16; ++j) {
      double sum = 0.0;
      for (int i = 0; i < 16; ++i) sum += static_cast<double>(x[v * 16 + i]) * h[i * 16 + j];
      ASSERT_EQ(bits_of(y[j]), bits_of(bf16_decode(bf16_encode_rne_from_double(sum)))) << v << "," << j;
    }
  }
}

TEST(Rht, ExactSumDecidesTiesAndCancellation) {
  const Rht rht = make_rht(16, 0);  // s_0 = s_1 = s_2 = +1
  // y_j = (1 + 2^-8) +- 2^-60: a bf16 midpoint nudged by a term 52 binades smaller.
  float x[16] = {};
  x[0] = 4.0f * (1.0f + 0x1p-8f);
  x[1] = 4.0f * 0x1p-60f;
  float y_ref[16], y_fast[16];
  rht_vector_reference(rht, x, y_ref);
  rht_row(rht, x, y_fast, 16);
  EXPECT_EQ(bits_of(y_ref[0]), 0x3F810000u);  // above the midpoint: up
  EXPECT_EQ(bits_of(y_ref[1]), 0x3F800000u);  // below: down
  EXPECT_TRUE(float_bits_equal(std::vector<float>(y_ref, y_ref + 16), std::vector<float>(y_fast, y_fast + 16), "tie"));
  // x_0 and x_2 cancel in y_0 and y_1, leaving the tiny term.
  float z[16] = {};
  z[0] = 1.0f;
  z[1] = 1e-20f;
  z[2] = -1.0f;
  rht_vector_reference(rht, z, y_ref);
  rht_row(rht, z, y_fast, 16);
  EXPECT_EQ(y_ref[0], bf16_round(1e-20f / 4.0f));
  EXPECT_TRUE(float_bits_equal(std::vector<float>(y_ref, y_ref + 16), std::vector<float>(y_fast, y_fast + 16), "cancel"));
  // Signed zeros: an output is -0 only when every term s_i H_ij x_i is -0 (as in an IEEE sum).
  float zeros[16] = {};
  zeros[3] = -0.0f;  // s_3 = -1: its term is +0
  rht_vector_reference(rht, zeros, y_ref);
  for (float v : y_ref) EXPECT_EQ(bits_of(v), 0u);
  float negative_zeros[16];
  for (int i = 0; i < 16; ++i) negative_zeros[i] = rht.signs[i] < 0 ? 0.0f : -0.0f;  // every s_i x_i = -0
  rht_vector_reference(rht, negative_zeros, y_ref);
  EXPECT_EQ(bits_of(y_ref[0]), 0x80000000u);  // H_i0 = +1 for all i
  EXPECT_EQ(bits_of(y_ref[1]), 0u);           // mixed term signs
  // Nonzero terms that cancel exactly give +0 on both paths.
  float cancel[16] = {};
  cancel[0] = -1.0f;
  cancel[1] = -1.0f;
  rht_vector_reference(rht, cancel, y_ref);
  rht_row(rht, cancel, y_fast, 16);
  EXPECT_EQ(bits_of(y_ref[1]), 0u);
  EXPECT_TRUE(float_bits_equal(std::vector<float>(y_ref, y_ref + 16), std::vector<float>(y_fast, y_fast + 16), "zeros"));
}

TEST(Rht, FastRowMatchesReferenceOnHostileRows) {
  for (int n : {2, 4, 8, 16, 32, 64, 128, 256}) {
    for (uint64_t seed : {uint64_t{0}, uint64_t{9}}) {
      const Rht rht = make_rht(n, seed);
      const int64_t cols = 512;
      for (uint64_t data_seed : {1, 2, 3}) {
        std::vector<float> x = data_seed == 3 ? gaussian(cols, 77, 1e-38) : hostile(1, cols, data_seed);
        std::vector<float> ref(cols), fast(cols), in_place = x;
        for (int64_t c = 0; c < cols; c += n) rht_vector_reference(rht, &x[c], &ref[c]);
        std::vector<float> vector_amax(size_t(cols / n));
        const float amax = rht_row(rht, x.data(), fast.data(), cols, vector_amax.data());
        rht_row(rht, in_place.data(), in_place.data(), cols);
        const std::string what = "rht n=" + std::to_string(n) + " seed=" + std::to_string(seed);
        ASSERT_TRUE(float_bits_equal(ref, fast, what));
        ASSERT_TRUE(float_bits_equal(ref, in_place, what + " in place"));
        float expected_amax = 0.0f;
        for (float v : ref) expected_amax = std::fabs(v) > expected_amax ? std::fabs(v) : expected_amax;
        EXPECT_EQ(amax, expected_amax) << what;
        for (int64_t v = 0; v < cols / n; ++v) {
          float m = 0.0f;
          for (int i = 0; i < n; ++i) m = std::fabs(ref[size_t(v * n + i)]) > m ? std::fabs(ref[size_t(v * n + i)]) : m;
          ASSERT_EQ(vector_amax[size_t(v)], m) << what << " vector " << v;
        }
      }
    }
  }
}

// Rows of modest range (nonzero exponent fields within 25 binades, none below 26, no all-zero
// vector) take a whole-row fast path on AVX-512 and AVX2 builds, in fp32 when they hold bf16 values within
// 12 binades; rows with an all-zero vector do not.
TEST(Rht, FastRowsOfModestRangeMatchReference) {
  const int64_t cols = 256;
  std::vector<std::pair<std::string, std::vector<float>>> rows;
  rows.push_back({"gaussian", gaussian(cols, 21)});
  std::vector<float> ties(cols);  // integers up to 1000: bf16 ties in the sums
  for (int64_t i = 0; i < cols; ++i) ties[size_t(i)] = float((i * 7919) % 2001 - 1000);
  rows.push_back({"integer ties", ties});
  std::vector<float> zeros = gaussian(cols, 22);
  for (int i = 16; i < 32; ++i) zeros[size_t(i)] = 0.0f;                   // an all-zero vector
  for (int i = 32; i < 48; ++i) zeros[size_t(i)] = i % 2 ? -0.0f : 0.0f;  // signed zeros
  for (int i = 48; i < 64; ++i) zeros[size_t(i)] = -0.0f;
  for (int i = 64; i < 80; i += 2) zeros[size_t(i)] = -0.0f;              // zeros among values
  rows.push_back({"zero vectors", zeros});
  std::vector<float> huge = gaussian(cols, 23);
  for (float& v : huge) v = std::ldexp(v < 0 ? -1.5f : 1.5f, 126 - int(std::fabs(v) * 4) % 20);  // sums overflow bf16
  rows.push_back({"huge", huge});
  // bf16 rows of small span take the fp32 butterfly: Gaussian, integer ties, large values.
  std::vector<float> bf16_rows = gaussian(cols, 24);
  for (float& v : bf16_rows) v = bf16_round(v);
  rows.push_back({"bf16 gaussian", bf16_rows});
  std::vector<float> bf16_ties(cols);
  for (int64_t i = 0; i < cols; ++i) bf16_ties[size_t(i)] = float((i * 7919) % 255 - 127);
  rows.push_back({"bf16 integer ties", bf16_ties});
  std::vector<float> bf16_large = bf16_rows;
  for (float& v : bf16_large) v = std::ldexp(v, 118);
  rows.push_back({"bf16 large", bf16_large});
  std::vector<float> cancel(cols, 0.5f);
  for (int64_t i = 0; i < cols; i += 2) cancel[size_t(i)] = -0.5f;
  rows.push_back({"cancellation", cancel});
  for (uint64_t seed : {uint64_t{0}, uint64_t{9}}) {
    const Rht rht = make_rht(16, seed);
    for (const auto& [name, x] : rows) {
      std::vector<float> ref(cols), fast(cols), in_place = x;
      for (int64_t c = 0; c < cols; c += 16) rht_vector_reference(rht, &x[c], &ref[c]);
      std::vector<float> vector_amax(size_t(cols / 16));
      const float amax = rht_row(rht, x.data(), fast.data(), cols, vector_amax.data());
      const float amax_in_place = rht_row(rht, in_place.data(), in_place.data(), cols);
      ASSERT_TRUE(float_bits_equal(ref, fast, name));
      ASSERT_TRUE(float_bits_equal(ref, in_place, name + " in place"));
      float expected = 0.0f;
      for (int64_t v = 0; v < cols / 16; ++v) {
        float m = 0.0f;
        for (int i = 0; i < 16; ++i) m = std::fabs(ref[size_t(v * 16 + i)]) > m ? std::fabs(ref[size_t(v * 16 + i)]) : m;
        EXPECT_EQ(bits_of(vector_amax[size_t(v)]), bits_of(m)) << name << " vector " << v;
        expected = m > expected ? m : expected;
      }
      EXPECT_EQ(bits_of(amax), bits_of(expected)) << name;
      EXPECT_EQ(bits_of(amax_in_place), bits_of(expected)) << name;
    }
  }
}

#ifdef __AVX2__
// The [16, 8] tile down the columns (wgrad's operands as stored) against the reference per column:
// bf16 columns of small span (the fp32 butterfly, exact), fp32 columns (fp64 sums, rounded to bf16
// through fp32) among them sums on and next to bf16 midpoints, where the fp32 value of the sum is a
// midpoint and the tile must round the fp64 bits once, cancellations to zero, and columns that take
// the per-column fallback (NaN/Inf, all zeros, wide spans). On AVX-512 builds, the sixteen-column
// tile on the same columns two tiles at a time.
TEST(Rht, TileDownColumnsMatchesReference) {
  const Rht rht = make_rht(16, 0);  // s_0 = s_1 = +1
  std::vector<std::pair<std::string, std::vector<std::vector<float>>>> tiles;  // eight columns each
  auto column = [](uint64_t seed, double sigma) { return gaussian(16, seed, sigma); };
  std::vector<std::vector<float>> plain;
  for (uint64_t j = 0; j < 8; ++j) plain.push_back(column(100 + j, std::ldexp(1.0, int(j) * 9 - 30)));
  tiles.push_back({"gaussian", plain});
  // y_0, y_1 = (1 + 2^-8) +- 2^-k: a bf16 midpoint nudged; its fp32 value is the midpoint for
  // k >= 24, where only the fp64 bits (or the reference) tell which side the sum is on.
  for (int k : {20, 22, 23, 24, 25}) {
    std::vector<std::vector<float>> cols = plain;
    cols[size_t(k % 8)].assign(16, 0.0f);
    cols[size_t(k % 8)][0] = 4.0f * (1.0f + 0x1p-8f);
    cols[size_t(k % 8)][1] = std::ldexp(4.0f, -k);
    tiles.push_back({"nudged midpoint k=" + std::to_string(k), cols});
  }
  std::vector<std::vector<float>> nudged_gaussian = plain;  // the same among Gaussian terms 2^-26 smaller
  for (uint64_t j = 0; j < 8; ++j) {
    nudged_gaussian[j] = column(200 + j, 0x1p-26);
    nudged_gaussian[j][j % 16] = 4.0f * (1.0f + 0x1p-8f) * (j % 2 ? -1.0f : 1.0f);
  }
  tiles.push_back({"nudged gaussian", nudged_gaussian});
  std::vector<std::vector<float>> cancel = plain;  // terms that cancel exactly: zero outputs
  for (int i = 0; i < 16; ++i) cancel[3][size_t(i)] = 0.75f;
  cancel[5].assign(16, 0.0f);  // an all-zero column: per-column fallback
  cancel[6][2] = std::numeric_limits<float>::infinity();  // fallback
  cancel[7][9] = -std::numeric_limits<float>::quiet_NaN();  // fallback: a NaN maximum
  tiles.push_back({"cancellation and fallbacks", cancel});
  std::vector<std::vector<float>> range = plain;  // near both ends of the fp32 tile's range
  for (int i = 0; i < 16; ++i) {
    range[0][size_t(i)] = std::ldexp(plain[0][size_t(i)] < 0 ? -1.3f : 1.7f, 122 - i % 3);
    range[1][size_t(i)] = std::ldexp(plain[1][size_t(i)] < 0 ? -1.3f : 1.7f, 124 - i % 3);  // fp64 only
    range[2][size_t(i)] = std::ldexp(1.0f + float(i) * 0x1p-20f, -100 + i % 3);
  }
  tiles.push_back({"range", range});
  std::vector<std::vector<float>> wide = plain;  // bf16 values over more than 12 binades
  for (uint64_t j = 0; j < 8; ++j)
    for (int i = 0; i < 16; ++i) wide[j][size_t(i)] = std::ldexp(wide[j][size_t(i)], (i * 5 + int(j)) % 20 - 10);
  tiles.push_back({"wide", wide});
  // Columns over 30 to 60 binades (beyond any exact butterfly: the per-column fallback), half of
  // them with a large term on a bf16 midpoint.
  std::mt19937_64 spread(11);
  for (int t = 0; t < 100; ++t) {
    std::vector<std::vector<float>> cols(8, std::vector<float>(16, 0.0f));
    for (auto& c : cols) {
      const int span = 30 + int(spread() % 31);
      for (int i = 0; i < 16; ++i)
        c[size_t(i)] = std::ldexp(1.0f + float(spread() % (1u << 23)) * 0x1p-23f, int(spread() % uint64_t(span)) - span / 2) *
                       (spread() % 2 ? -1.0f : 1.0f);
      if (t % 2) c[spread() % 16] = std::ldexp(1.0f + float(2 * (spread() % 128) + 1) * 0x1p-8f, 4 + span / 2);
    }
    tiles.push_back({"very wide " + std::to_string(t), cols});
  }
  // Random columns built around bf16 midpoints: a term 4 (1 + (2k + 1) 2^-8) (a midpoint of y_j),
  // terms a few binades larger that cancel in some outputs, and small terms whose sizes straddle
  // the fp32 roundings, so that outputs land on and near midpoints on both sides.
  std::mt19937_64 gen(7);
  for (int t = 0; t < 400; ++t) {
    std::vector<std::vector<float>> cols(8, std::vector<float>(16, 0.0f));
    for (auto& c : cols) {
      c[gen() % 16] = std::ldexp(1.0f + float(2 * (gen() % 128) + 1) * 0x1p-8f, 2 + int(gen() % 3));
      const float big = std::ldexp(1.0f + float(gen() % 1024) * 0x1p-10f, 3 + int(gen() % 5));
      c[gen() % 16] += big;
      c[gen() % 16] -= big;
      for (int n = int(gen() % 4); n > 0; --n)
        c[gen() % 16] += std::ldexp(float(int(gen() % 2001) - 1000) / 1000.0f, -14 - int(gen() % 16));
    }
    tiles.push_back({"midpoints " + std::to_string(t), cols});
  }
  // Sixteen large terms whose sum y_0 is a bf16 midpoint up to x_0's fp32 rounding: sums whose fp32
  // value is a midpoint or a few fp32 steps from one, and partial sums no fp32 butterfly keeps exact.
  for (int t = 0; t < 400; ++t) {
    std::vector<std::vector<float>> cols(8, std::vector<float>(16, 0.0f));
    for (auto& c : cols) {
      const double target = std::ldexp(1.0 + double(2 * (gen() % 128) + 1) * 0x1p-8, int(gen() % 3));
      double rest = 0.0;  // exact: fifteen fp32 terms within a few binades
      for (int i = 1; i < 16; ++i) {
        c[size_t(i)] = std::ldexp(float(gen() % (1u << 24)) * 0x1p-24f + 1.0f, 3 + int(gen() % 4)) * (gen() % 2 ? -1.0f : 1.0f);
        rest += double(rht.signs[size_t(i)]) * c[size_t(i)];
      }
      c[0] = float((4.0 * target - rest) * double(rht.signs[0]));
    }
    tiles.push_back({"large terms " + std::to_string(t), cols});
  }

  for (bool bf16_input : {false, true})
    for (const auto& [name, cols] : tiles) {
      const int64_t ld = 11;  // a stride that is not the tile's width
      std::vector<float> in(size_t(16 * ld), std::numeric_limits<float>::quiet_NaN());
      for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 16; ++i) in[size_t(i * ld + j)] = cols[size_t(j)][size_t(i)];
      alignas(32) float tile[16 * 8], maxima[8];
      _mm256_storeu_ps(maxima, rht16_down8(rht, in.data(), ld, bf16_input, tile));
      const std::string what = name + (bf16_input ? " bf16" : " fp32");
      for (int j = 0; j < 8; ++j) {
        float x[16], ref[16];
        for (int i = 0; i < 16; ++i) x[i] = bf16_input ? bf16_round(cols[size_t(j)][size_t(i)]) : cols[size_t(j)][size_t(i)];
        rht_vector_reference(rht, x, ref);
        float m = 0.0f;
        bool nan = false;
        for (int i = 0; i < 16; ++i) {
          ASSERT_EQ(bits_of(tile[8 * i + j]), bits_of(ref[i])) << what << " column " << j << " output " << i;
          m = std::fabs(ref[i]) > m ? std::fabs(ref[i]) : m;
          nan = nan || std::isnan(ref[i]);
        }
        if (nan) EXPECT_TRUE(std::isnan(maxima[j])) << what << " column " << j;
        else EXPECT_EQ(bits_of(maxima[j]), bits_of(m)) << what << " column " << j;
      }
    }
#ifdef __AVX512F__
  // rht16_down16 on each tile beside the next one (sixteen columns), against rht16_down8 on each.
  for (bool bf16_input : {false, true})
    for (size_t t = 0; t < tiles.size(); ++t) {
      const auto& left = tiles[t].second;
      const auto& right = tiles[(t + 1) % tiles.size()].second;
      const int64_t ld = 19;
      std::vector<float> in(size_t(16 * ld), std::numeric_limits<float>::quiet_NaN());
      for (int j = 0; j < 16; ++j)
        for (int i = 0; i < 16; ++i) in[size_t(i * ld + j)] = (j < 8 ? left : right)[size_t(j % 8)][size_t(i)];
      alignas(64) float wide[16 * 16], maxima16[16];
      _mm512_storeu_ps(maxima16, rht16_down16(rht, in.data(), ld, bf16_input, wide));
      for (int half = 0; half < 2; ++half) {
        alignas(32) float tile[16 * 8], maxima[8];
        _mm256_storeu_ps(maxima, rht16_down8(rht, in.data() + 8 * half, ld, bf16_input, tile));
        const std::string what = tiles[t].first + " | " + tiles[(t + 1) % tiles.size()].first + (bf16_input ? " bf16" : " fp32");
        for (int j = 0; j < 8; ++j) {
          for (int i = 0; i < 16; ++i)
            ASSERT_EQ(bits_of(wide[16 * i + 8 * half + j]), bits_of(tile[8 * i + j])) << what << " column " << 8 * half + j << " output " << i;
          if (std::isnan(maxima[j])) EXPECT_TRUE(std::isnan(maxima16[8 * half + j])) << what << " column " << 8 * half + j;
          else EXPECT_EQ(bits_of(maxima16[8 * half + j]), bits_of(maxima[j])) << what << " column " << 8 * half + j;
        }
      }
    }
#endif
}
#endif

TEST(Rht, QuantizedOperandsAreThoseOfTheTransformedTensor) {
  const int64_t rows = 8, cols = 64;
  const std::vector<float> x = gaussian(rows * cols, 5);
  QuantSpec spec = named("nvfp4");
  spec.rht = true;
  const Rht rht = make_rht(16, 0);
  std::vector<float> transformed(x.size());
  for (int64_t i = 0; i < rows * cols; i += 16) rht_vector_reference(rht, &x[i], &transformed[i]);
  QuantSpec plain = named("nvfp4");
  const Result with_rht = run(true, x, rows, cols, spec), after = run(true, transformed, rows, cols, plain);
  EXPECT_TRUE(same_result(after, with_rht, "rht then quantize"));
}

// ---- stochastic rounding ----

TEST(StochasticRounding, MeanFollowsTheFloor256RuleAndPicksNeighbours) {
  const int64_t n = 1 << 16;
  QuantSpec raw;
  raw.element = ElementFormat::fp4_e2m1;
  raw.rounding = Rounding::sr;
  for (float v : {0.1f, 0.3f, 0.7f, 1.1f, 1.9f, 2.2f, 2.9f, 3.01f, 4.5f, 5.9f, -3.3f, -0.2f, 0.2519531f}) {
    const std::vector<float> x(n, v);
    const Result r = run(true, x, 1, n, raw, QuantRandom{1234, 7, 0});
    const double a = std::fabs(v);
    int lower = 0;
    while (lower < 7 && fp4_e2m1_decode(static_cast<uint8_t>(lower + 1)) <= a) ++lower;
    const double lo = fp4_e2m1_decode(static_cast<uint8_t>(lower));
    const double step = fp4_e2m1_decode(static_cast<uint8_t>(lower + 1)) - lo;
    const double p = std::floor(256.0 * (a - lo) / step) / 256.0;  // P(away from zero)
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double m = std::fabs(r.out[i]);
      ASSERT_TRUE(m == lo || m == lo + step) << "v = " << v << " got " << r.out[i];
      sum += m;
    }
    const double mean = sum / n, expected = lo + step * p;
    const double sampling = kSrSigmas * step * std::sqrt(p * (1.0 - p) / n);
    EXPECT_LE(std::fabs(mean - expected), sampling + kSrMeanSlack) << "v = " << v;
    // Bias toward zero, below one 256th of a step (plus sampling error).
    EXPECT_LE(mean, a + sampling + kSrMeanSlack) << "v = " << v;
    EXPECT_GT(mean, a - step / 256.0 - sampling) << "v = " << v;
  }
}

TEST(StochasticRounding, SameScalesAsRneAndNeighbouringCodes) {
  const int64_t rows = 32, cols = 256;
  const std::vector<float> x = gaussian(rows * cols, 21);
  QuantSpec rne = named("nvfp4"), sr = named("nvfp4");
  sr.rounding = Rounding::sr;
  const Result a = run(true, x, rows, cols, rne), b = run(true, x, rows, cols, sr, {5, 1, 3});
  EXPECT_TRUE(bytes_equal(a.scales, b.scales, "SR scales"));  // the E4M3 scale is never SR'd
  int64_t differ = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const int ma = a.codes[i] & 7, mb = b.codes[i] & 7;
    ASSERT_LE(std::abs(ma - mb), 1) << i;
    differ += ma != mb;
  }
  EXPECT_GT(differ, 0);
  // Same (seed, tensor_id, step) -> same bits; any change -> different bits.
  EXPECT_TRUE(bytes_equal(b.codes, run(true, x, rows, cols, sr, {5, 1, 3}).codes, "SR repeat"));
  for (QuantRandom other : {QuantRandom{6, 1, 3}, QuantRandom{5, 2, 3}, QuantRandom{5, 1, 4}})
    EXPECT_NE(run(true, x, rows, cols, sr, other).codes, b.codes);
}

TEST(StochasticRounding, VectorKernelEqualsScalarCodecAcrossTheFloatLine) {
  // Every 997th fp32 bit pattern (both signs, subnormals to NaN) and every value within 8 ulps
  // of a grid point or binade edge, each with a different random byte: the AVX2 E2M1 SR kernel
  // against the scalar codec.
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 997) x.push_back(std::bit_cast<float>(uint32_t(bits)));
  for (float g : {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f, 7.0f})
    for (int d = -8; d <= 8; ++d)
      for (float sign : {1.0f, -1.0f}) x.push_back(sign * std::bit_cast<float>(std::bit_cast<uint32_t>(g) + d));
  x.resize((x.size() / 8) * 8);
  std::vector<uint8_t> random(x.size()), codes(x.size());
  for (size_t i = 0; i < x.size(); ++i) random[i] = uint8_t(i * 37 + (i >> 8));
  std::vector<float> out(x.size());
  const float one = 1.0f;
  detail::RowStats st;
  detail::encode_row<detail::Kernel::fp4_sr, true, detail::Tally::none>(x.data(), out.data(), codes.data(), random.data(),
                                                                       int64_t(x.size()), 1, &one, &one, 6.0f, st);
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) continue;  // NaN codes are the quantizer's business (block scales), not the codec's
    ASSERT_EQ(codes[i], fp4_e2m1_encode_sr(x[i], random[i])) << std::hexfloat << x[i] << " byte " << int(random[i]);
    ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(fp4_e2m1_decode(codes[i]))) << x[i];
  }
}

#ifdef __AVX2__
// The direct quantizer's element kernel (2 × the E2M1 value with its sign, in the integer unit),
// RNE and SR, against the scalar codec: every 997th fp32 bit pattern and every value within 8 ulps
// of a grid point, tie or binade edge (both signs), scaled by encode multipliers 1 and 0.5.
TEST(StochasticRounding, DirectElementKernelEqualsScalarCodec) {
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 997) x.push_back(std::bit_cast<float>(uint32_t(bits)));
  for (float g : {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f})
    for (int d = -8; d <= 8; ++d)
      for (float sign : {1.0f, -1.0f}) x.push_back(sign * std::bit_cast<float>(std::bit_cast<uint32_t>(g) + d));
  x.resize((x.size() / 8) * 8);
  std::vector<uint8_t> random(x.size());
  for (size_t i = 0; i < x.size(); ++i) random[i] = uint8_t(i * 37 + (i >> 8));
  auto twice = [](uint8_t code) {  // 2 × the code's value, negative codes (not -0) negated
    const float v = fp4_e2m1_decode(code);
    return v < 0 ? -int(-2.0f * v) : int(2.0f * v);
  };
  for (float encode : {1.0f, 0.5f}) {
    const __m256 enc = _mm256_set1_ps(encode);
    for (size_t i = 0; i < x.size(); i += 8) {
      int nan_rne = 0, nan_sr = 0;
      alignas(32) int32_t rne[8], sr[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(rne), detail::fp4_twice_signed8<false>(_mm256_loadu_ps(&x[i]), enc, nullptr, nan_rne));
      _mm256_store_si256(reinterpret_cast<__m256i*>(sr), detail::fp4_twice_signed8<true>(_mm256_loadu_ps(&x[i]), enc, &random[i], nan_sr));
      for (int l = 0; l < 8; ++l) {
        const float y = x[i + l] * encode;
        const bool nan = std::isnan(y);
        ASSERT_EQ((nan_rne >> l) & 1, int(nan)) << y;
        ASSERT_EQ((nan_sr >> l) & 1, int(nan)) << y;
        ASSERT_EQ(rne[l], nan ? 12 : twice(fp4_e2m1_encode_rne(y))) << std::hexfloat << y;
        ASSERT_EQ(sr[l], nan ? 12 : twice(fp4_e2m1_encode_sr(y, random[i + l]))) << std::hexfloat << y << " byte " << int(random[i + l]);
      }
    }
  }
}
#endif

TEST(StochasticRounding, PhiloxBytesFollowRowMajorGroups) {
  const PhiloxStream stream(QuantRandom{99, 3, 17});
  uint8_t group[16], filled[40];
  stream.fill(16 * 5 + 9, 40, filled);
  for (int k = 0; k < 40; ++k) {
    const uint64_t index = 16 * 5 + 9 + k;
    stream.group_bytes(index / 16, group);
    ASSERT_EQ(filled[k], group[index % 16]) << k;
  }
}

TEST(StochasticRounding, PhiloxBatchedDrawsEqualSingleDraws) {
  // fill() draws sixteen or eight groups at a time; each must equal Random123's single draw, also where the
  // low counter word wraps inside a batch and at every start offset.
  const PhiloxStream stream(QuantRandom{0x123456789ull, 77, (uint64_t{5} << 32) + 3});
  for (uint64_t base : {uint64_t{0}, uint64_t{0xFFFFFFFCull} * 16, uint64_t{1} << 40}) {
    for (int offset : {0, 1, 15, 16, 100}) {
      std::vector<uint8_t> filled(777);
      stream.fill(base + offset, int64_t(filled.size()), filled.data());
      uint8_t group[16];
      for (size_t k = 0; k < filled.size(); ++k) {
        const uint64_t index = base + offset + k;
        stream.group_bytes(index / 16, group);
        ASSERT_EQ(filled[k], group[index % 16]) << base << " " << offset << " " << k;
      }
    }
  }
}

// ---- threads ----

TEST(Quantize, ResultsDoNotDependOnThreadCount) {
  const int64_t rows = 64, cols = 256;
  const std::vector<float> x = hostile(rows, cols, 8);
  std::vector<QuantSpec> specs = {named("nvfp4"), named("mxfp4"), named("mxfp8"), named("fp8_e4m3")};
  specs[0].rounding = Rounding::sr;
  specs[0].rht = true;
  specs[1].tile = Tile::d2;
  specs[1].rounding = Rounding::sr;
  const int saved = omp_get_max_threads();
  for (const QuantSpec& spec : specs) {
    omp_set_num_threads(1);
    const Result one = run(true, x, rows, cols, spec, {3, 4, 5});
    omp_set_num_threads(2);
    const Result two = run(true, x, rows, cols, spec, {3, 4, 5});
    EXPECT_TRUE(same_result(one, two, describe(spec) + " 1 vs 2 threads"));
    EXPECT_EQ(one.stats.signal_energy, two.stats.signal_energy);
    EXPECT_EQ(one.stats.error_energy, two.stats.error_energy);
  }
  omp_set_num_threads(saved);
}

TEST(Quantize, EmptyTensors) {
  for (const char* name : {"nvfp4", "mxfp4", "fp8_e4m3", "bf16"})
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{0, 64}, {4, 0}, {0, 0}})
      for (bool fast : {false, true}) {
        const Result r = run(fast, {}, rows, cols, named(name));
        EXPECT_EQ(r.stats.count, 0);
        EXPECT_EQ(r.amax, 0.0f);
        EXPECT_TRUE(r.codes.empty());
      }
}

// ---- fast path vs reference, every combination ----

std::vector<QuantSpec> all_specs() {
  std::vector<QuantSpec> specs;
  for (auto tile : {Tile::d1, Tile::d2})
    for (auto rounding : {Rounding::rne, Rounding::sr})
      for (bool rht : {false, true})
        for (auto formula : {BlockScaleFormula::te_2_14, BlockScaleFormula::te_2_13}) {
          QuantSpec s = named("nvfp4");
          s.tile = tile;
          s.rounding = rounding;
          s.rht = rht;
          s.formula = formula;
          specs.push_back(s);
        }
  for (auto rule : {ScaleRule::floor, ScaleRule::ceil})
    for (auto tile : {Tile::d1, Tile::d2})
      for (auto rounding : {Rounding::rne, Rounding::sr}) {
        QuantSpec s = named("mxfp4");
        s.scale_rule = rule;
        s.tile = tile;
        s.rounding = rounding;
        s.rht = tile == Tile::d1 && rounding == Rounding::sr;
        specs.push_back(s);
      }
  for (auto element : {ElementFormat::fp8_e4m3, ElementFormat::fp8_e5m2}) {
    for (auto rule : {ScaleRule::floor, ScaleRule::ceil})
      for (auto tile : {Tile::d1, Tile::d2}) {
        QuantSpec s = named("mxfp8");
        s.element = element;
        s.scale_rule = rule;
        s.tile = tile;
        specs.push_back(s);
      }
    QuantSpec per_tensor;
    per_tensor.element = element;
    per_tensor.scale = ScaleFormat::fp32;
    specs.push_back(per_tensor);
    QuantSpec per_block = per_tensor;
    per_block.block = 16;
    specs.push_back(per_block);
    QuantSpec raw;
    raw.element = element;
    specs.push_back(raw);
    QuantSpec rht = per_tensor;
    rht.rht = true;
    specs.push_back(rht);
  }
  QuantSpec fp4_raw;
  fp4_raw.element = ElementFormat::fp4_e2m1;
  specs.push_back(fp4_raw);
  fp4_raw.rounding = Rounding::sr;
  specs.push_back(fp4_raw);
  QuantSpec fp4_fp32 = fp4_raw;
  fp4_fp32.scale = ScaleFormat::fp32;
  fp4_fp32.block = 16;
  specs.push_back(fp4_fp32);
  QuantSpec odd_blocks = named("nvfp4");
  for (int block : {4, 8, 12, 24, 48}) {
    odd_blocks.block = block;
    specs.push_back(odd_blocks);
  }
  // Minifloat block scales (NUMERICS.md): UE5M3 and other ufloat grids, e4m3 as a ufloat, and the
  // block-scale roundings, with tiles, SR, RHT, row scaling and bf16 operands.
  for (auto round : {UfloatRounding::nearest, UfloatRounding::up, UfloatRounding::down})
    for (auto tile : {Tile::d1, Tile::d2})
      for (const char* name : {"nvfp4", "nvfp4_ue5m3"}) {
        QuantSpec s = named(name);
        s.scale_round = round;
        s.tile = tile;
        specs.push_back(s);
        s.rounding = Rounding::sr;
        s.rht = tile == Tile::d1;
        s.formula = BlockScaleFormula::te_2_13;
        specs.push_back(s);
      }
  for (const Ufloat& g : {Ufloat{4, 3, 7, UfloatSpecials::fn}, Ufloat{5, 3, 15, UfloatSpecials::ieee},
                          Ufloat{3, 2, 3, UfloatSpecials::finite}, Ufloat{6, 2, 20, UfloatSpecials::fn},
                          Ufloat{2, 1, 1, UfloatSpecials::ieee}, Ufloat{7, 1, 63, UfloatSpecials::fn}}) {
    QuantSpec s = named("nvfp4_ue5m3");
    s.scale_exp_bits = g.exp_bits;
    s.scale_man_bits = g.man_bits;
    s.scale_bias = g.bias;
    s.scale_specials = g.specials;
    specs.push_back(s);
    s.tile = Tile::d2;
    s.scale_round = UfloatRounding::up;
    specs.push_back(s);
  }
  for (auto round : {UfloatRounding::nearest, UfloatRounding::up}) {
    QuantSpec s = named("nvfp4_ue5m3");
    s.row_scaled = true;
    s.scale_round = round;
    specs.push_back(s);
    s.operand_dtype = OperandDtype::bf16;
    s.rounding = Rounding::sr;
    specs.push_back(s);
  }
  for (int size : {32, 64})
    for (uint64_t seed : {uint64_t{0}, uint64_t{7}}) {
      QuantSpec s = named("nvfp4");
      s.rht = true;
      s.rht_size = size;
      s.rht_sign_seed = seed;
      specs.push_back(s);
    }
  specs.push_back(named("bf16"));
  QuantSpec bf16_rht = named("bf16");
  bf16_rht.rht = true;
  specs.push_back(bf16_rht);
  specs.push_back(named("fp32"));
  // TE dialects (NUMERICS.md): bf16 operands, 4over6 (both error modes, both E4M3 maxima, 1D and
  // 2D), row-scaled NVFP4, delayed scaling (at the default scale 1; other scales in
  // test_te_dialects).
  for (auto mode : {FourOverSix::mae, FourOverSix::mse})
    for (int q : {448, 256})
      for (auto tile : {Tile::d1, Tile::d2}) {
        QuantSpec s = named("nvfp4");
        s.four_over_six = mode;
        s.global_e4m3_max = q;
        s.tile = tile;
        specs.push_back(s);
        s.operand_dtype = OperandDtype::bf16;
        specs.push_back(s);
      }
  for (auto rounding : {Rounding::rne, Rounding::sr}) {
    QuantSpec s = named("nvfp4");
    s.row_scaled = true;
    s.rounding = rounding;
    specs.push_back(s);
    s.rht = rounding == Rounding::sr;
    s.four_over_six = rounding == Rounding::rne ? FourOverSix::mae : FourOverSix::off;
    specs.push_back(s);
  }
  // 4over6 with the RHT and with SR (both E4M3 maxima, 1D and 2D).
  for (auto mode : {FourOverSix::mae, FourOverSix::mse})
    for (int q : {448, 256})
      for (auto tile : {Tile::d1, Tile::d2})
        for (auto [rounding, rht] : {std::pair{Rounding::rne, true}, std::pair{Rounding::sr, false},
                                     std::pair{Rounding::sr, true}}) {
          QuantSpec s = named("nvfp4");
          s.four_over_six = mode;
          s.global_e4m3_max = q;
          s.tile = tile;
          s.rounding = rounding;
          s.rht = rht;
          specs.push_back(s);
        }
  // A local encode scale per window (1 x W, or W x W for 2D), with SR, the RHT and both formulas.
  for (int window : {16, 32, 48, 64})
    for (auto tile : {Tile::d1, Tile::d2})
      for (auto rounding : {Rounding::rne, Rounding::sr}) {
        QuantSpec s = named("nvfp4");
        s.encode_window = window;
        s.tile = tile;
        s.rounding = rounding;
        s.rht = rounding == Rounding::sr;
        s.formula = window == 48 ? BlockScaleFormula::te_2_13 : BlockScaleFormula::te_2_14;
        specs.push_back(s);
      }
  QuantSpec te = named("nvfp4");
  te.operand_dtype = OperandDtype::bf16;
  te.rounding = Rounding::sr;
  te.rht = true;
  specs.push_back(te);
  for (auto element : {ElementFormat::fp8_e4m3, ElementFormat::fp8_e5m2}) {
    QuantSpec s = named(element == ElementFormat::fp8_e4m3 ? "fp8_e4m3" : "fp8_e5m2");
    s.scaling = Scaling::delayed;
    specs.push_back(s);
    s.operand_dtype = OperandDtype::bf16;
    specs.push_back(s);
  }
  return specs;
}

TEST(Quantize, FastPathMatchesReferenceBitForBit) {
  struct Shape { int64_t rows, cols; };
  const Shape shapes[] = {{48, 80}, {16, 1040}, {5, 96}, {32, 192}, {1, 48}, {64, 192}, {8, 528}};
  int64_t runs = 0;
  for (const QuantSpec& spec : all_specs()) {
    for (const Shape& shape : shapes) {
      if (!validate(spec, shape.rows, shape.cols).empty()) continue;
      const int64_t n = shape.rows * shape.cols;
      const std::vector<std::pair<std::string, std::vector<float>>> tensors = {
          {"hostile", hostile(shape.rows, shape.cols, 100 + n)},
          {"gaussian", gaussian(n, 200 + n, 3.0)},
          {"zeros", std::vector<float>(n, 0.0f)},
          {"nan", std::vector<float>(n, kNan)}};
      for (const auto& [name, x] : tensors) {
        const QuantRandom rnd{17, 2, 9};
        const std::string what = describe(spec) + " " + std::to_string(shape.rows) + "x" +
                                 std::to_string(shape.cols) + " " + name;
        const Result ref = run(false, x, shape.rows, shape.cols, spec, rnd);
        ASSERT_TRUE(same_result(ref, run(true, x, shape.rows, shape.cols, spec, rnd), what));
        std::vector<float> in_place = x;  // in and out alias
        quantize(in_place.data(), in_place.data(), shape.rows, shape.cols, spec, rnd);
        ASSERT_TRUE(float_bits_equal(ref.out, in_place, what + " in place"));
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 500);
}

// ---- pinned distortion (SQNR on a fixed Gaussian) ----

TEST(Quantize, PinnedSqnrOnGaussian) {
  const int64_t rows = 256, cols = 1024;
  const std::vector<float> x = gaussian(rows * cols, 2024);
  struct Pin { const char* name; double sqnr_db; };
  // Measured once with this code (2026); a change means the numerics changed. NVFP4 beats MXFP4
  // (block 16 and a 3-bit-mantissa scale vs block 32 and a power of two).
  const Pin pins[] = {{"nvfp4", 20.4324}, {"mxfp4", 18.7753}, {"mxfp8", 31.5227},
                      {"fp8_e4m3", 31.5532}, {"fp8_e5m2", 25.5878}, {"bf16", 55.5591}};
  for (const Pin& pin : pins) {
    QuantStats stats;
    std::vector<float> y(x.size());
    quantize(x.data(), y.data(), rows, cols, named(pin.name), {}, {nullptr, nullptr, nullptr, &stats});
    EXPECT_NEAR(stats.sqnr_db(), pin.sqnr_db, kSqnrPinDb) << pin.name;
  }
}

}  // namespace
}  // namespace fp4lab
