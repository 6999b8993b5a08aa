// Minifloat block scales (core/quant/NUMERICS.md, Minifloat block scales): the ufloat scale format
// and its keys (names, describe, validation), ufloat with E4M3's parameters against e4m3 bit for
// bit over every scale code and on hostile tensors, TransformerEngine's UE5M3 numbers, and the
// block-scale roundings with what `up` guarantees. The fast path against the scalar reference is
// in test_quantize.cpp (all_specs); the codec's code space in test_formats.cpp.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/quant_options.hpp"
#include "core/quant/quantize.hpp"
#include "tests/quant_test_support.hpp"

namespace fp4lab {
namespace {

using namespace testing_support;

struct Quantized {
  std::vector<float> out;
  std::vector<uint8_t> codes, scales;
};

Quantized run(bool fast, const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec) {
  Quantized q;
  q.out.resize(x.size());
  const QuantOutputs extra{&q.codes, &q.scales};
  (fast ? quantize : quantize_reference)(x.data(), q.out.data(), rows, cols, spec, QuantRandom{5, 1, 2}, extra, 1.0f);
  return q;
}

// ---- keys, names, validation ----

TEST(BlockScales, NamesDescriptionsAndPresets) {
  ScaleFormat f;
  EXPECT_TRUE(parse("ufloat", f) && f == ScaleFormat::ufloat);
  UfloatSpecials sp;
  EXPECT_TRUE(parse("finite", sp) && sp == UfloatSpecials::finite);
  UfloatRounding r;
  EXPECT_TRUE(parse("up", r) && r == UfloatRounding::up);

  const QuantSpec ue = named("nvfp4_ue5m3");
  EXPECT_EQ(ue.scale, ScaleFormat::ufloat);
  EXPECT_EQ(block_scale_grid(ue), (Ufloat{5, 3, 15, UfloatSpecials::fn}));
  EXPECT_EQ(nvfp4_scale_max(ue), 114688.0f);
  EXPECT_EQ(describe(ue), "fp4_e2m1/16 ue5m3 1d rne");
  QuantSpec s = named("nvfp4");
  s.scale = ScaleFormat::ufloat;
  EXPECT_EQ(describe(s), "fp4_e2m1/16 ue4m3 1d rne");
  s.scale_specials = UfloatSpecials::finite;
  s.scale_bias = 6;
  s.scale_round = UfloatRounding::up;
  EXPECT_EQ(describe(s), "fp4_e2m1/16 ue4m3-b6-finite 1d rne scale-up");
  s = named("nvfp4");
  s.scale_round = UfloatRounding::down;
  EXPECT_EQ(describe(s), "fp4_e2m1/16 e4m3 1d rne scale-down");

  // The option list: `fp4lab quantize --format nvfp4 --scale ufloat --scale-exp-bits 5 ...`.
  QuantSpec parsed;
  EXPECT_EQ(spec_from_options("nvfp4", {{"scale", "ufloat"}, {"scale-exp-bits", "5"}, {"scale_bias", "15"}}, parsed), "");
  EXPECT_EQ(parsed, ue);
  EXPECT_EQ(spec_from_options("nvfp4_ue5m3", {{"scale_round", "sideways"}}, parsed),
            "scale_round: expected nearest|up|down, got 'sideways'");
}

TEST(BlockScales, ValidateRejectsImpossibleCombinations) {
  QuantSpec s = named("nvfp4_ue5m3");
  EXPECT_EQ(validate(s, 16, 32), "");
  s.scale_man_bits = 4;
  EXPECT_EQ(validate(s, 16, 32), "ufloat scale ue5m4: exponent + mantissa bits must be at most 8 (one byte per scale)");
  s = named("nvfp4_ue5m3");
  s.scale_bias = 126;
  EXPECT_EQ(validate(s, 16, 32), "ufloat scale ue5m3-b126: bias too large (smallest step below 2^-126)");
  s = named("nvfp4");
  s.scale_bias = 15;
  EXPECT_EQ(validate(s, 16, 32),
            "scale_exp_bits, scale_man_bits, scale_bias and scale_specials describe a ufloat scale, not e4m3");
  s = named("mxfp4");
  s.scale_round = UfloatRounding::up;
  EXPECT_EQ(validate(s, 16, 32), "scale_round up needs e4m3 or ufloat block scales, not ue8m0");
  s = named("mxfp8");
  s.scale = ScaleFormat::ufloat;
  EXPECT_EQ(validate(s, 16, 32), "a ufloat block scale needs fp4_e2m1 elements (NVFP4), not fp8_e4m3");
  s = named("nvfp4_ue5m3");
  s.block = 0;
  EXPECT_EQ(validate(s, 16, 32), "a ufloat block scale needs a block size > 0");
  s = named("nvfp4_ue5m3");
  s.four_over_six = FourOverSix::mae;
  EXPECT_EQ(validate(s, 16, 32), "4over6 needs NVFP4 (fp4_e2m1, block 16, e4m3 scales)");
  s = named("nvfp4");
  s.four_over_six = FourOverSix::mae;
  s.scale_round = UfloatRounding::up;
  EXPECT_EQ(validate(s, 16, 32), "4over6 rounds its candidate scales to nearest: it takes no scale_round");
  s = named("nvfp4_ue5m3");
  s.row_scaled = true;
  EXPECT_EQ(validate(s, 16, 32), "");
  s.tile = Tile::d2;
  EXPECT_EQ(validate(s, 16, 32), "row_scaled needs NVFP4 (e4m3 or ufloat) scales with 1d blocks");
}

// At their defaults the new keys stay out of the canonical config (and so out of config ids).
TEST(BlockScales, NewKeysAreOmittedAtTheirDefaults) {
  for (const char* key : {"scale_exp_bits", "scale_man_bits", "scale_bias", "scale_specials", "scale_round"}) {
    bool found = false;
    for (const SpecField& f : spec_fields())
      if (f.key == key) found = f.omit_default;
    EXPECT_TRUE(found) << key;
  }
}

// ---- ufloat with E4M3's parameters is e4m3 ----

// Blocks whose amaxes sit on, between and around every E4M3 value (S_enc = 1: tensor amax 2688),
// in 1D and 2D, with both formulas, SR, RHT, row scaling, bf16 operands and each scale rounding;
// then hostile tensors. Codes, scale bytes and outputs agree bit for bit, fast and reference.
TEST(BlockScales, UfloatWithE4m3ParametersIsE4m3) {
  const int64_t rows = 16, cols = 16 * 127 * 3 + 16;
  std::vector<float> every_code(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < cols / 16; ++b)
      for (int64_t j = 0; j < 16; ++j) {
        const int64_t code = b / 3;
        const float v = code < 127 ? fp8_e4m3_decode(uint8_t(code)) : 448.0f;
        const float step = b % 3 == 0 ? 1.0f : b % 3 == 1 ? 1.0f + 1.0f / 32 : 1.0f - 1.0f / 32;
        const float amax = code < 127 ? 6.0f * v * step : 2688.0f;
        every_code[size_t(r * cols + b * 16 + j)] = j == r % 16 ? (r % 2 ? -amax : amax) : amax * float(j) / 17.0f;
      }
  std::vector<QuantSpec> specs;
  for (auto tile : {Tile::d1, Tile::d2})
    for (auto formula : {BlockScaleFormula::te_2_14, BlockScaleFormula::te_2_13})
      for (auto round : {UfloatRounding::nearest, UfloatRounding::up, UfloatRounding::down}) {
        QuantSpec s = named("nvfp4");
        s.tile = tile;
        s.formula = formula;
        s.scale_round = round;
        specs.push_back(s);
      }
  QuantSpec te = named("nvfp4");
  te.rounding = Rounding::sr;
  te.rht = true;
  te.operand_dtype = OperandDtype::bf16;
  specs.push_back(te);
  QuantSpec rows_scaled = named("nvfp4");
  rows_scaled.row_scaled = true;
  specs.push_back(rows_scaled);

  int64_t compared = 0;
  for (const QuantSpec& e4m3 : specs) {
    QuantSpec ufloat = e4m3;
    ufloat.scale = ScaleFormat::ufloat;
    const std::vector<std::pair<std::string, std::vector<float>>> tensors = {
        {"every code", every_code}, {"hostile", hostile(rows, cols, 3)}, {"gaussian", gaussian(size_t(rows * cols), 4, 1e-3)}};
    for (const auto& [name, x] : tensors)
      for (bool fast : {false, true}) {
        const std::string what = describe(e4m3) + " " + name + (fast ? " fast" : " reference");
        const Quantized want = run(fast, x, rows, cols, e4m3), got = run(fast, x, rows, cols, ufloat);
        ASSERT_TRUE(float_bits_equal(want.out, got.out, what + " out"));
        ASSERT_TRUE(bytes_equal(want.codes, got.codes, what + " codes"));
        ASSERT_TRUE(bytes_equal(want.scales, got.scales, what + " scales"));
        ++compared;
      }
  }
  EXPECT_EQ(compared, 14 * 3 * 2);
  // Every scale code's multipliers, at several tensor scalings.
  QuantSpec e4m3 = named("nvfp4"), ufloat = e4m3;
  ufloat.scale = ScaleFormat::ufloat;
  for (float amax : {2688.0f, 1.0f, 3.0e-30f, 7.5e33f}) {
    const TensorScaling t = tensor_scaling(e4m3, amax);
    EXPECT_EQ(bits_of(t.s_enc), bits_of(tensor_scaling(ufloat, amax).s_enc));
    for (int code = 0; code < 127; ++code) {
      const BlockScale a = block_scale_from_code(e4m3, t, uint8_t(code)), b = block_scale_from_code(ufloat, t, uint8_t(code));
      EXPECT_EQ(bits_of(a.encode), bits_of(b.encode)) << code;
      EXPECT_EQ(bits_of(a.decode), bits_of(b.decode)) << code;
    }
  }
}

// ---- UE5M3: TransformerEngine's numbers ----

// TE's UE5M3 scale-utility test (tests/cpp/operator/test_dequantize_nvfp4.cu, PR 3325): a tensor
// amax 12 gives S_enc = 6 * 114688 / 12 = 57344, block amaxes 3 and 6 the scales 28672 and 57344;
// a block holding the tensor amax gets the largest scale, 114688 (0xFE).
TEST(BlockScales, Ue5m3MatchesTransformerEngine) {
  const QuantSpec ue = named("nvfp4_ue5m3");
  std::vector<float> x(48, 0.0f);
  x[0] = 3.0f;
  x[16] = 6.0f;
  x[32] = -12.0f;
  x[33] = 1e-30f;
  for (bool fast : {false, true}) {
    const Quantized q = run(fast, x, 1, 48, ue);
    ASSERT_EQ(q.scales.size(), 3u);
    EXPECT_EQ(q.scales[0], 0xEE);  // 28672 = 1.75 * 2^14
    EXPECT_EQ(q.scales[1], 0xF6);  // 57344 = 1.75 * 2^15
    EXPECT_EQ(q.scales[2], 0xFE);  // 114688 = 1.75 * 2^16
    for (int i : {0, 16, 32}) {
      EXPECT_EQ(q.codes[size_t(i)] & 0x7, 0x7) << "the block amax maps to 6";
      EXPECT_NEAR(q.out[size_t(i)], x[size_t(i)], std::fabs(x[size_t(i)]) * 0x1p-22) << i;
    }
    EXPECT_EQ(q.out[33], 0.0f) << "1e-30 is far below the block's step";
  }
  const TensorScaling t = tensor_scaling(ue, 12.0f);
  EXPECT_EQ(t.s_enc, 57344.0f);
  // The decode factor RN(RN(s_b * amax) * RN(1 / 688128)), 688128 = 6 * 114688.
  const float d = block_scale_from_code(ue, t, 0xEE).decode;
  EXPECT_EQ(bits_of(d), bits_of((28672.0f * 12.0f) * (1.0f / 688128.0f)));
}

// A range E4M3 cannot hold: block amaxes 2^-14 .. 2^15 under one tensor scale. E4M3's 18 binades
// of scales underflow (blocks decode to 0) where UE5M3's 34 (2^-17 .. 114688) keep every block.
TEST(BlockScales, Ue5m3KeepsBlocksE4m3Flushes) {
  std::vector<float> x(16 * 29);
  for (int b = 0; b < 29; ++b)
    for (int j = 0; j < 16; ++j) x[size_t(b * 16 + j)] = std::ldexp(1.0f + float(j) / 16.0f, b - 14);
  QuantStats e4m3_stats, ue_stats;
  std::vector<float> out(x.size());
  quantize(x.data(), out.data(), 1, int64_t(x.size()), named("nvfp4"), {}, QuantOutputs{nullptr, nullptr, nullptr, &e4m3_stats});
  quantize(x.data(), out.data(), 1, int64_t(x.size()), named("nvfp4_ue5m3"), {}, QuantOutputs{nullptr, nullptr, nullptr, &ue_stats});
  EXPECT_GT(e4m3_stats.flushed, 16 * 5);
  EXPECT_EQ(ue_stats.flushed, 0);
  EXPECT_GT(ue_stats.sqnr_db(), e4m3_stats.sqnr_db());
}

// ---- block-scale rounding ----

// `up` (NUMERICS.md): for a block whose fp32 scale value s satisfies 0 < s <= Smax, every element
// x of the block (or tile) has |RN(x * inv_b)| <= 6 (1 + 2^-21): rounding the scale up leaves only
// the fp32 roundings of S_enc, the block scale and inv_b, at most 8 units of 2^-24, so no element
// is clipped by more than that. `nearest` and `down` clip up to half and a whole scale step.
// Also: down <= nearest <= up, adjacent or equal codes.
TEST(BlockScales, ScaleRoundUpNeverClipsUnlessTheScaleSaturates) {
  const int64_t rows = 32, cols = 256;
  const float bound = 6.0f * (1.0f + 0x1p-21f);
  for (const char* name : {"nvfp4", "nvfp4_ue5m3"})
    for (auto formula : {BlockScaleFormula::te_2_14, BlockScaleFormula::te_2_13})
      for (auto tile : {Tile::d1, Tile::d2})
        for (uint64_t seed : {1, 2, 3}) {
          std::vector<float> x = seed == 3 ? gaussian(size_t(rows * cols), 9, 1e-2) : hostile(rows, cols, seed, false);
          QuantSpec spec = named(name);
          spec.formula = formula;
          spec.tile = tile;
          float amax = 0.0f;
          for (float v : x) amax = std::fmax(amax, std::fabs(v));
          const float smax = nvfp4_scale_max(spec);
          double worst[3] = {0, 0, 0};
          int64_t checked = 0;
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c0 = 0; c0 < cols; c0 += 16) {
              const int64_t r0 = tile == Tile::d2 ? r - r % 16 : r, r1 = tile == Tile::d2 ? r0 + 16 : r + 1;
              float bamax = 0.0f;
              for (int64_t rr = r0; rr < r1; ++rr)
                for (int64_t c = c0; c < c0 + 16; ++c) bamax = std::fmax(bamax, std::fabs(x[size_t(rr * cols + c)]));
              const TensorScaling t = tensor_scaling(spec, amax);
              const float value = nvfp4_block_scale_value(bamax, t.s_enc, formula);
              uint8_t codes[3];
              for (int k = 0; k < 3; ++k) {
                spec.scale_round = UfloatRounding(k);  // nearest, up, down
                codes[k] = nvfp4_scale_code(spec, bamax, t.s_enc);
                const BlockScale bs = block_scale_from_code(spec, t, codes[k]);
                for (int64_t c = c0; c < c0 + 16; ++c)
                  worst[k] = std::fmax(worst[k], std::fabs(x[size_t(r * cols + c)] * bs.encode) / 6.0);
                if (k == 1 && value > 0.0f && value <= smax) {
                  for (int64_t c = c0; c < c0 + 16; ++c, ++checked)
                    ASSERT_LE(std::fabs(x[size_t(r * cols + c)] * bs.encode), bound)
                        << describe(spec) << " row " << r << " col " << c << " block amax " << bamax;
                }
              }
              ASSERT_LE(codes[2], codes[0]);
              ASSERT_LE(codes[0], codes[1]);
              ASSERT_LE(codes[1] - codes[2], 1);
            }
          // Hostile tensors' 2D tiles all hold a near-FLT_MAX block and saturate. Gaussian blocks are
          // in range but for the one holding the tensor amax (its scale value can round past Smax),
          // and there nearest and down clip somewhere where up does not.
          if (seed == 3) {
            EXPECT_GE(checked, rows * cols - 16 * 16) << name;
            EXPECT_GT(worst[0], 1.0 + 0x1p-21) << name;
            EXPECT_GT(worst[2], worst[0]) << name;
          }
        }
}

}  // namespace
}  // namespace fp4lab
