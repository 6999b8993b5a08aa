// TransformerEngine's newer dialects (core/quant/NUMERICS.md, TE dialects): 4over6 NVFP4 goldens
// (both error modes, both E4M3 maxima, 1D and 16x16 tiles, ties, the warp-tree sum), bf16 operands,
// row-scaled NVFP4, delayed scaling on a constructed amax sequence, backward copies re-quantized
// from the forward copy, and every shipped recipe preset resolved from its YAML file and checked
// against a table.
//
// The 4over6 goldens were derived from NUMERICS.md's 4over6 rule with an fp32 emulation written
// apart from this code (Python, struct-rounded floats). The tensor amax is 21504 = 2688 * 8, so
// S_enc = 1/8 and S_dec = 8 exactly (TE's "no rounding noise" choice), and every block of the first
// tests has block amax 24: base = RN(RN(24 / 6) * 1/8) = 0.5, map-to-6 scale E4M3(0.5) = 0x30,
// map-to-4 scale E4M3(0.75) = 0x34. Map-to-6 reconstructs on the grid 4·{0, .5, 1, 1.5, 2, 3, 4, 6}
// = {0, 2, 4, 6, 8, 12, 16, 24}; map-to-4 on 6·{…} = {0, 3, 6, 9, 12, 18, 24, 36}. So block A
// (values from {3, 6, 9, 12, 18, 24}) is exact under map-to-4 and off by 10 in total under map-to-6
// (18 → 16, 9 → 8, 3 → 2, each twice: 2+1+1+2+1+1+... = 10); block B (values from {2, 4, 8, 16,
// 24}) the other way round; block C (values from the common grid {0, 6, 12, 24}) is exact under
// both, a tie, which keeps map-to-6.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/model/recipe.hpp"
#include "core/ops/fp4_gemm.hpp"
#include "core/ops/linear.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/philox.hpp"
#include "core/quant/quant_options.hpp"
#include "core/quant/quantize.hpp"
#include "core/train/fingerprint.hpp"

namespace fp4lab {
namespace {

const std::vector<float> kA = {24, 18, 9, 3, -6, 12, 0, -24, 18, 9, 3, 6, 12, 0, 24, -18};
const std::vector<float> kB = {24, 16, 8, 2, 4, -16, 8, 2, 4, 0, -8, 16, 2, 4, 8, -24};
const std::vector<float> kC = {24, 12, 6, 0, -6, -12, 0, 24, 6, 12, 0, 0, -24, 6, 6, 12};
// MAE prefers map-to-6 (17 < 18), MSE map-to-4 (30 < 35): found by search in the emulation.
const std::vector<float> kD = {24, 4, 8, -17, -17, 6, 17, -13, 22, -15, 7, 10, 0, 20, 13, 14};
constexpr float kAmax = 21504.0f;

QuantSpec nvfp4_4over6(FourOverSix mode, Tile tile = Tile::d1, int q = 448) {
  QuantSpec s;
  named_format("nvfp4", s);
  s.four_over_six = mode;
  s.tile = tile;
  s.global_e4m3_max = q;
  return s;
}

std::vector<uint8_t> hex_codes(const std::string& hex) {
  std::vector<uint8_t> out;
  for (char c : hex) out.push_back(uint8_t(std::stoi(std::string(1, c), nullptr, 16)));
  return out;
}

struct Quantized {
  std::vector<float> out;
  std::vector<uint8_t> codes, scales;
  float amax = 0.0f;
};

// Both implementations, which must agree bit for bit; returns the fast one's result.
Quantized both(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
               float delayed_scale = 1.0f) {
  Quantized f, r;
  f.out.resize(x.size());
  r.out.resize(x.size());
  quantize(x.data(), f.out.data(), rows, cols, spec, {}, {&f.codes, &f.scales, &f.amax}, delayed_scale);
  quantize_reference(x.data(), r.out.data(), rows, cols, spec, {}, {&r.codes, &r.scales, &r.amax}, delayed_scale);
  EXPECT_EQ(f.codes, r.codes);
  EXPECT_EQ(f.scales, r.scales);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(std::bit_cast<uint32_t>(f.out[i]), std::bit_cast<uint32_t>(r.out[i])) << i;
  return f;
}

// ---- 4over6 ----

TEST(FourOverSix, OneDimensionalGoldensForBothErrorModes) {
  std::vector<float> x;
  for (const auto* blk : {&kA, &kB, &kC, &kD}) x.insert(x.end(), blk->begin(), blk->end());
  x.push_back(kAmax);  // block E: sets the tensor amax; base 448 makes both candidates 0x7E (a tie)
  x.insert(x.end(), 15, 0.0f);
  struct Golden {
    FourOverSix mode;
    std::vector<uint8_t> scales;
    std::string codes;
  };
  const Golden goldens[] = {
      {FourOverSix::mae, {0x34, 0x30, 0x30, 0x30, 0x7E},
       "6531a40e5312406d" "76412e4120c6124f" "7530bd073500f335" "724ee36d7e440656" "7000000000000000"},
      {FourOverSix::mse, {0x34, 0x30, 0x30, 0x34, 0x7E},
       "6531a40e5312406d" "76412e4120c6124f" "7530bd073500f335" "613dd25c6c230544" "7000000000000000"}};
  for (const Golden& g : goldens) {
    const Quantized q = both(x, 1, 80, nvfp4_4over6(g.mode));
    EXPECT_EQ(q.scales, g.scales) << to_string(g.mode);
    EXPECT_EQ(q.codes, hex_codes(g.codes)) << to_string(g.mode);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(q.out[size_t(i)], kA[size_t(i)]);  // map-to-4 is exact on block A
  }
  // Without 4over6 every 24-amax block takes map-to-6.
  QuantSpec plain;
  named_format("nvfp4", plain);
  EXPECT_EQ(both(x, 1, 80, plain).scales, (std::vector<uint8_t>{0x30, 0x30, 0x30, 0x30, 0x7E}));
}

TEST(FourOverSix, E4m3Maximum256LetsTheLargestBlockMapToFour) {
  // One block whose amax is the tensor amax: base = 6Q/6 = Q. With Q = 448 map-to-4's 672 saturates
  // to 448 = map-to-6 (a tie: 0x7E); with Q = 256, 256 (0x78) against 384 (0x7C), and block A's
  // pattern is exact under map-to-4.
  std::vector<float> x;
  for (float v : kA) x.push_back(v * 896.0f);  // amax 21504
  const Quantized q448 = both(x, 1, 16, nvfp4_4over6(FourOverSix::mae, Tile::d1, 448));
  EXPECT_EQ(q448.scales, std::vector<uint8_t>{0x7E});
  EXPECT_EQ(q448.codes, hex_codes("7642b50f6423507e"));
  const Quantized q256 = both(x, 1, 16, nvfp4_4over6(FourOverSix::mae, Tile::d1, 256));
  EXPECT_EQ(q256.scales, std::vector<uint8_t>{0x7C});
  EXPECT_EQ(q256.codes, hex_codes("6531a40e5312406d"));
  // Dequantized with amax/(6·256): RN(RN(384 · 21504) · RN(1/1536)) = 5376 per unit, so exact.
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(q256.out[i], x[i]);
  EXPECT_EQ(std::bit_cast<uint32_t>(kRecip1536), 0x3A2AAAABu);
  EXPECT_EQ(nvfp4_tensor_encode_scale(12288.0f, 256), 0.125f);
}

TEST(FourOverSix, TwoDimensionalTilesTakeOneChoiceFromTheWarpTreeSum) {
  // 16 x 32: tile 0 holds the test rows, tile 1 the tensor amax (row 0) so S_enc = 1/8.
  auto tensor = [](int rows_of_a) {
    std::vector<float> x(16 * 32, 0.0f);
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 16; ++c) x[size_t(r * 32 + c)] = (r < rows_of_a ? kA : kB)[size_t(c)];
    x[16] = kAmax;
    return x;
  };
  // One row of A (map-to-6 error 10) against 15 of B (map-to-4 error 16 each): map-to-6, everywhere.
  Quantized q = both(tensor(1), 16, 32, nvfp4_4over6(FourOverSix::mae, Tile::d2));
  for (int r = 0; r < 16; ++r) EXPECT_EQ(q.scales[size_t(r * 2)], 0x30) << r;
  EXPECT_EQ(std::vector<uint8_t>(q.codes.begin(), q.codes.begin() + 16), hex_codes("7642b50f6423507e"));
  // Fifteen rows of A (150) against one of B (16): map-to-4, everywhere, B's row included.
  q = both(tensor(15), 16, 32, nvfp4_4over6(FourOverSix::mae, Tile::d2));
  for (int r = 0; r < 16; ++r) EXPECT_EQ(q.scales[size_t(r * 2)], 0x34) << r;
  EXPECT_EQ(std::vector<uint8_t>(q.codes.begin() + 15 * 32, q.codes.begin() + 15 * 32 + 16),
            hex_codes("65311d3110b5113e"));
  // 1D on the same tensor decides row by row.
  q = both(tensor(15), 16, 32, nvfp4_4over6(FourOverSix::mae, Tile::d1));
  EXPECT_EQ(q.scales[0], 0x34);
  EXPECT_EQ(q.scales[15 * 2], 0x30);

  // The tree order is not a left-to-right sum: 2^24 + fifteen 1s.
  float rows[16];
  rows[0] = 16777216.0f;
  for (int i = 1; i < 16; ++i) rows[i] = 1.0f;
  EXPECT_EQ(four_over_six_tile_error(rows), 16777230.0f);  // left to right would give 16777216
}

TEST(FourOverSix, ValidationAndNames) {
  QuantSpec s = nvfp4_4over6(FourOverSix::mae);
  EXPECT_EQ(validate(s, 16, 16), "");
  EXPECT_EQ(describe(s), "fp4_e2m1/16 e4m3 1d rne 4over6-mae");
  s.rounding = Rounding::sr;
  s.rht = true;
  EXPECT_EQ(validate(s, 16, 16), "");  // fp4lab's own combinations (NUMERICS.md, TE dialects)
  EXPECT_EQ(describe(s), "fp4_e2m1/16 e4m3 1d sr rht16 4over6-mae");
  s = nvfp4_4over6(FourOverSix::off, Tile::d1, 256);
  EXPECT_NE(validate(s, 16, 16).find("global_e4m3_max"), std::string::npos);
  QuantSpec mx;
  named_format("mxfp4", mx);
  mx.four_over_six = FourOverSix::mse;
  EXPECT_NE(validate(mx, 16, 32).find("NVFP4"), std::string::npos);
  FourOverSix m;
  EXPECT_TRUE(parse("MSE", m) && m == FourOverSix::mse);
  CopySource src;
  EXPECT_TRUE(parse("rowwise_dequantized", src) && src == CopySource::fprop);
}

// A deterministic test tensor with a spread of magnitudes.
std::vector<float> wavy(int64_t rows, int64_t cols, float scale = 1.0f) {
  std::vector<float> x(size_t(rows * cols));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = scale * std::sin(0.37f * float(i)) * float(1 + i % 13) * (i % 29 == 0 ? 9.0f : 1.0f);
  return x;
}

TEST(FourOverSix, WithRhtChoosesOnTheTransformedValues) {
  const std::vector<float> x = wavy(4, 64);
  QuantSpec transform;  // the RHT alone: its outputs are bf16 already, so bf16 rounding keeps them
  named_format("bf16", transform);
  transform.rht = true;
  std::vector<float> t(x.size());
  quantize(x.data(), t.data(), 4, 64, transform);
  QuantSpec with_rht = nvfp4_4over6(FourOverSix::mae);
  with_rht.rht = true;
  const Quantized a = both(x, 4, 64, with_rht), b = both(t, 4, 64, nvfp4_4over6(FourOverSix::mae));
  EXPECT_EQ(a.codes, b.codes);
  EXPECT_EQ(a.scales, b.scales);
  EXPECT_EQ(a.out, b.out);
  QuantSpec plain_rht;
  named_format("nvfp4", plain_rht);
  plain_rht.rht = true;
  EXPECT_NE(both(x, 4, 64, plain_rht).scales, a.scales);  // some block keeps map-to-4
}

TEST(FourOverSix, WithSrChoosesOnRoundToNearestAndDrawsOncePerElement) {
  const int64_t rows = 32, cols = 64;
  const std::vector<float> x = wavy(rows, cols);
  const QuantSpec rne = nvfp4_4over6(FourOverSix::mse, Tile::d2, 256);
  QuantSpec sr = rne;
  sr.rounding = Rounding::sr;
  const QuantRandom rnd{5, 3, 7};
  std::vector<uint8_t> codes, scales, ref_codes, ref_scales, rne_scales, other_codes, other_scales;
  std::vector<float> out(x.size()), ref(x.size()), scratch(x.size());
  float amax = 0.0f;
  quantize(x.data(), out.data(), rows, cols, sr, rnd, {&codes, &scales, &amax});
  quantize_reference(x.data(), ref.data(), rows, cols, sr, rnd, {&ref_codes, &ref_scales});
  EXPECT_EQ(codes, ref_codes);
  EXPECT_EQ(scales, ref_scales);
  EXPECT_EQ(out, ref);
  quantize(x.data(), scratch.data(), rows, cols, rne, {}, {nullptr, &rne_scales});
  EXPECT_EQ(scales, rne_scales);  // the choice never sees the draw
  QuantRandom next = rnd;
  next.step = 8;
  quantize(x.data(), scratch.data(), rows, cols, sr, next, {&other_codes, &other_scales});
  EXPECT_EQ(other_scales, scales);
  EXPECT_NE(other_codes, codes);
  // Each element reads its own byte of the stream, once, under the chosen scale.
  const PhiloxStream stream(rnd);
  const float s_dec = 1.0f / nvfp4_tensor_encode_scale(amax, 256);
  for (int64_t i = 0; i < rows * cols; ++i) {
    uint8_t bytes[16];
    stream.group_bytes(uint64_t(i / 16), bytes);
    const float inv = nvfp4_block_encode_multiplier(scales[size_t(i / 16)], s_dec);
    ASSERT_EQ(codes[size_t(i)], fp4_e2m1_encode_sr(x[size_t(i)] * inv, bytes[i % 16])) << i;
  }
}

// ---- a local encode scale per window ----

QuantSpec nvfp4_window(int window, Tile tile = Tile::d1) {
  QuantSpec s;
  named_format("nvfp4", s);
  s.encode_window = window;
  s.tile = tile;
  return s;
}

// The documented arithmetic (NUMERICS.md, NVFP4: local encode windows), for 1D windows.
std::vector<float> window_formula(const std::vector<float>& x, int64_t rows, int64_t cols, int window,
                                  std::vector<uint8_t>& codes, std::vector<uint8_t>& scales) {
  std::vector<float> out(x.size());
  codes.assign(x.size(), 0);
  scales.assign(x.size() / 16, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c0 = 0; c0 < cols; c0 += 16) {
      float wamax = 0.0f, bamax = 0.0f;
      for (int64_t c = c0 - c0 % window; c < c0 - c0 % window + window; ++c)
        wamax = std::fmax(wamax, std::fabs(x[size_t(r * cols + c)]));
      for (int64_t c = c0; c < c0 + 16; ++c) bamax = std::fmax(bamax, std::fabs(x[size_t(r * cols + c)]));
      const float amax = std::fmax(wamax, 1e-12f);
      const float s_enc = std::fmin(2688.0f / amax, FLT_MAX);
      const uint8_t code = fp8_e4m3_encode_rne(std::fmin(bamax * (s_enc * kRecipSix), FLT_MAX));
      const float s_b = fp8_e4m3_decode(code);
      const float inv = s_b == 0.0f ? 0.0f : s_enc / s_b;
      const float d = (s_b * amax) * kRecip2688;
      scales[size_t((r * cols + c0) / 16)] = code;
      for (int64_t c = c0; c < c0 + 16; ++c) {
        const size_t i = size_t(r * cols + c);
        codes[i] = fp4_e2m1_encode_rne(x[i] * inv);
        out[i] = fp4_e2m1_decode(codes[i]) * d;
      }
    }
  return out;
}

TEST(EncodeWindow, EachWindowScalesFromItsOwnAmax) {
  // Row 0: window 0 up to 6, window 1 around 1e-6. Under one tensor scale window 1's E4M3 block
  // scales underflow (1e-6 * 448 / 6 < 2^-10) and it flushes to 0; with windows it keeps its values.
  const int64_t rows = 3, cols = 128;
  std::vector<float> x = wavy(rows, cols);
  for (int64_t c = 64; c < 128; ++c) x[size_t(c)] *= 1e-7f;
  const Quantized q = both(x, rows, cols, nvfp4_window(64));
  std::vector<uint8_t> codes, scales;
  const std::vector<float> expected = window_formula(x, rows, cols, 64, codes, scales);
  EXPECT_EQ(q.codes, codes);
  EXPECT_EQ(q.scales, scales);
  EXPECT_EQ(q.out, expected);
  QuantSpec plain;
  named_format("nvfp4", plain);
  const Quantized per_tensor = both(x, rows, cols, plain);
  for (int64_t c = 64; c < 128; ++c) {  // within E2M1's resolution of the block amax
    float bamax = 0.0f;
    for (int64_t k = c - c % 16; k < c - c % 16 + 16; ++k) bamax = std::fmax(bamax, std::fabs(x[size_t(k)]));
    EXPECT_EQ(per_tensor.out[size_t(c)], 0.0f) << c;
    EXPECT_LE(std::fabs(q.out[size_t(c)] - x[size_t(c)]), bamax / 4.0f) << c;
  }
  const QuantizedTensor t = quantize_tensor(x, rows, cols, nvfp4_window(64));
  ASSERT_EQ(t.window_amax.size(), size_t(rows * 2));
  float w1 = 0.0f;
  for (int64_t c = 64; c < 128; ++c) w1 = std::fmax(w1, std::fabs(x[size_t(c)]));
  EXPECT_EQ(t.window_amax[1], w1);
  EXPECT_TRUE(quantize_tensor(x, rows, cols, plain).window_amax.empty());
}

TEST(EncodeWindow, UnderflowedBlocksEncodeAsZerosAndTinyWindowsAreFloored) {
  std::vector<float> x(64, 0.0f);
  x[0] = 6.0f;
  for (int c = 16; c < 32; ++c) x[size_t(c)] = (c % 2 ? -1e-6f : 1e-6f);  // s_b rounds to 0 under amax 6
  for (int c = 32; c < 64; ++c) x[size_t(c)] = 1e-13f * float(1 + c % 4);  // window amax 4e-13 < 1e-12
  const QuantSpec spec = nvfp4_window(32);
  const Quantized q = both(x, 1, 64, spec);
  EXPECT_EQ(q.scales[1], 0);
  for (int c = 16; c < 32; ++c) {
    EXPECT_EQ(q.codes[size_t(c)], c % 2 ? 8 : 0) << c;  // +-0: the multiplier is 0, not FLT_MAX
    EXPECT_EQ(q.out[size_t(c)], 0.0f) << c;
  }
  QuantSpec plain;
  named_format("nvfp4", plain);
  EXPECT_EQ(both(x, 1, 64, plain).codes[16], 7);  // NVFP4's FLT_MAX multiplier saturates to +6
  const QuantizedTensor t = quantize_tensor(x, 1, 64, spec);
  EXPECT_EQ(t.window_amax, (std::vector<float>{6.0f, 4e-13f}));  // stored unfloored
  for (int c = 32; c < 64; ++c) {  // encoded and decoded with the floored amax, so still close to x
    EXPECT_NE(q.out[size_t(c)], 0.0f) << c;
    EXPECT_LE(std::fabs(q.out[size_t(c)] - x[size_t(c)]), 0.25f * x[size_t(c)]) << c;
  }
}

TEST(EncodeWindow, WholeRowWindowSharesRowScaledScalesButNotItsMultiplier) {
  // W = cols gives each row one S_enc from its amax, as row_scaled does: the same E4M3 block scales
  // and decode multipliers. The encode multipliers differ (RN(S_enc / s_b) against
  // RN(1 / RN(s_b * S_dec))) in the last bit for some blocks, which moves an element's code only
  // where x times the multiplier lies that close to an E2M1 rounding boundary.
  const int64_t rows = 64, cols = 64;
  const std::vector<float> x = wavy(rows, cols, 0.01f);
  QuantSpec row_scaled;
  named_format("nvfp4", row_scaled);
  row_scaled.row_scaled = true;
  const QuantizedTensor w = quantize_tensor(x, rows, cols, nvfp4_window(int(cols)));
  const QuantizedTensor r = quantize_tensor(x, rows, cols, row_scaled);
  EXPECT_EQ(w.scales, r.scales);
  EXPECT_EQ(w.window_amax, r.row_amax);
  int64_t differ = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (w.codes[i] != r.codes[i]) {
      ++differ;
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(w.dequant[i]), std::bit_cast<uint32_t>(r.dequant[i])) << i;
    }
  }
  EXPECT_LT(differ, int64_t(x.size()) / 100);
}

TEST(EncodeWindow, SquareWindowsOf2dTilesAreTransposeInvariant) {
  const int64_t rows = 64, cols = 96;
  std::vector<float> w = wavy(rows, cols);
  for (int64_t c = 0; c < cols; ++c) w[size_t(40 * cols + c)] *= 1e-5f;  // a quiet row
  std::vector<float> wt(w.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) wt[size_t(c * rows + r)] = w[size_t(r * cols + c)];
  const QuantSpec spec = nvfp4_window(32, Tile::d2);
  both(w, rows, cols, spec);
  both(wt, cols, rows, spec);
  const QuantizedTensor q = quantize_tensor(w, rows, cols, spec), qt = quantize_tensor(wt, cols, rows, spec);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_EQ(std::bit_cast<uint32_t>(q.dequant[size_t(r * cols + c)]),
                std::bit_cast<uint32_t>(qt.dequant[size_t(c * rows + r)])) << r << "," << c;
      ASSERT_EQ(q.codes[size_t(r * cols + c)], qt.codes[size_t(c * rows + r)]) << r << "," << c;
      ASSERT_EQ(q.window_amax[size_t(r * (cols / 32) + c / 32)], qt.window_amax[size_t(c * (rows / 32) + r / 32)]);
    }
  EXPECT_NE(q.dequant, quantize_tensor(w, rows, cols, nvfp4_window(32)).dequant);  // 2D differs from 1D windows
}

TEST(EncodeWindow, ValidationNamesOptionsAndGemmFallback) {
  EXPECT_EQ(validate(nvfp4_window(64), 4, 128), "");
  EXPECT_EQ(describe(nvfp4_window(64)), "fp4_e2m1/16 e4m3 1d rne window64");
  EXPECT_NE(validate(nvfp4_window(24), 4, 48).find("multiple of the block"), std::string::npos);
  EXPECT_NE(validate(nvfp4_window(64), 4, 96).find("does not divide the last axis"), std::string::npos);
  EXPECT_NE(validate(nvfp4_window(32, Tile::d2), 48, 64).find("first axis"), std::string::npos);
  EXPECT_NE(validate(nvfp4_window(-16), 4, 64).find("negative"), std::string::npos);
  QuantSpec s = nvfp4_window(32);
  s.four_over_six = FourOverSix::mae;
  EXPECT_NE(validate(s, 4, 64).find("4over6"), std::string::npos);
  s = nvfp4_window(32);
  s.row_scaled = true;
  EXPECT_NE(validate(s, 4, 64).find("row_scaled"), std::string::npos);
  QuantSpec mx;
  named_format("mxfp4", mx);
  mx.encode_window = 64;
  EXPECT_NE(validate(mx, 4, 64).find("NVFP4"), std::string::npos);
  QuantSpec parsed;
  EXPECT_EQ(spec_from_options("nvfp4", {{"encode-window", "64"}}, parsed), "");
  EXPECT_EQ(parsed, nvfp4_window(64));
  // A window's S_enc varies along the contraction axis: no block_exact GEMM, dequant_fp32 instead.
  EXPECT_FALSE(fp4_blockable(nvfp4_window(64)));
  EXPECT_FALSE(uses_block_exact(GemmNumerics::block_exact, nvfp4_window(64), nvfp4_window(64)));
  ConfigBuilder b;
  b.add_override("recipe=te_nvfp4_no_rht");
  b.add_override("recipe.quantized.wgrad_x.encode_window=64");
  EXPECT_EQ(b.build().recipe.quantized.wgrad_x.encode_window, 64);
}

// ---- bf16 operands, row scaling ----

TEST(OperandDtype, Bf16OperandsQuantizeTheRoundedTensor) {
  // 1 + 2^-8 is the midpoint between bf16 1 and 1 + 2^-7: RNE rounds it to 1, so the amax is 1.
  std::vector<float> x(64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.01f * float(i) - 0.3f;
  x[5] = 1.00390625f;
  QuantSpec fp32, bf16;
  named_format("nvfp4", fp32);
  fp32.operand_dtype = OperandDtype::fp32;
  bf16 = fp32;
  bf16.operand_dtype = OperandDtype::bf16;
  EXPECT_EQ(both(x, 2, 32, fp32).amax, 1.00390625f);
  const Quantized q = both(x, 2, 32, bf16);
  EXPECT_EQ(q.amax, 1.0f);
  std::vector<float> rounded = x;
  for (float& v : rounded) v = bf16_round(v);
  const Quantized expected = both(rounded, 2, 32, fp32);
  EXPECT_EQ(q.codes, expected.codes);
  EXPECT_EQ(q.scales, expected.scales);
  EXPECT_EQ(q.out, expected.out);
  EXPECT_EQ(describe(bf16), "fp4_e2m1/16 e4m3 1d rne bf16-in");
}

TEST(RowScaled, EachRowUsesItsOwnAmax) {
  // Row 0 small, row 1 a thousand times larger: row-scaled, each row quantizes as if alone.
  std::vector<float> x(2 * 32);
  for (int c = 0; c < 32; ++c) {
    x[size_t(c)] = 0.001f * float(c % 7) - 0.0023f * float(c % 3);
    x[size_t(32 + c)] = 1000.0f * x[size_t(c)] + float(c);
  }
  QuantSpec spec;
  named_format("nvfp4", spec);
  spec.row_scaled = true;
  const Quantized q = both(x, 2, 32, spec);
  QuantSpec plain;
  named_format("nvfp4", plain);
  for (int r = 0; r < 2; ++r) {
    const std::vector<float> row(x.begin() + r * 32, x.begin() + (r + 1) * 32);
    const Quantized alone = both(row, 1, 32, plain);
    EXPECT_EQ(std::vector<float>(q.out.begin() + r * 32, q.out.begin() + (r + 1) * 32), alone.out) << r;
    EXPECT_EQ(std::vector<uint8_t>(q.scales.begin() + r * 2, q.scales.begin() + (r + 1) * 2), alone.scales) << r;
  }
  EXPECT_NE(both(x, 2, 32, plain).out, q.out);  // the small row loses precision under one tensor amax
  spec.tile = Tile::d2;
  EXPECT_NE(validate(spec, 16, 32), "");
}

// ---- delayed scaling ----

TEST(DelayedScaling, ScaleAtStepTComesFromTheHistoryOfEarlierSteps) {
  DelayedScalingConfig cfg;
  cfg.history_len = 4;
  DelayedScaling d;
  EXPECT_EQ(d.scale, 1.0f);  // step 1 quantizes with TE's initial scale
  const float amaxes[] = {2, 8, 1, 1, 1, 1};
  const float expected_after[] = {224, 56, 56, 56, 56, 448};  // max over the last 4 amaxes
  for (int t = 0; t < 6; ++t) {
    d.record(amaxes[t], 448.0f, cfg.history_len);
    d.update(cfg);
    EXPECT_EQ(d.scale, expected_after[t]) << "after step " << t + 1;
  }
  EXPECT_EQ(d.history, (std::vector<float>{0, 1, 1, 1}));  // slot 0 restarts, the newest at the end

  DelayedScaling recent;
  DelayedScalingConfig most_recent = cfg;
  most_recent.algo = AmaxAlgo::most_recent;
  most_recent.margin = 1;  // scale = 448 · 2^-1 / amax
  recent.record(8, 448.0f, 4);
  recent.update(most_recent);
  EXPECT_EQ(recent.scale, 28.0f);
  recent.record(2, 448.0f, 4);
  recent.update(most_recent);
  EXPECT_EQ(recent.scale, 112.0f);  // only the newest amax counts
  recent.record(0, 448.0f, 4);
  recent.update(most_recent);
  EXPECT_EQ(recent.scale, 112.0f);  // amax 0 keeps the scale
  recent.record(INFINITY, 448.0f, 4);
  recent.update(most_recent);
  EXPECT_EQ(recent.scale, 112.0f);  // so does a non-finite one
}

TEST(DelayedScaling, LinearQuantizesWithTheScaleOfEarlierSteps) {
  const int64_t m = 32, k = 16, n = 16;
  std::vector<float> x(m * k), w(n * k), y(m * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.37f * std::sin(float(i));
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * std::cos(float(i) * 1.3f);
  LinearRecipe r;
  named_format("fp8_e4m3", r.fprop_x);
  r.fprop_x.scaling = Scaling::delayed;
  DelayedScalingConfig cfg;
  cfg.history_len = 8;
  LinearState st;
  LinearInput in;
  auto expected_y = [&](float scale) {
    std::vector<float> qx(x.size()), out(m * n, 0.0f);
    quantize(x.data(), qx.data(), m, k, r.fprop_x, {}, {}, scale);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t c = 0; c < k; ++c) out[size_t(i * n + j)] += qx[size_t(i * k + c)] * w[size_t(j * k + c)];
    return out;
  };
  float amax = 0;
  for (float v : x) amax = std::fmax(amax, std::fabs(v));
  for (int step = 1; step <= 2; ++step) {
    in.bind(x.data(), m, k);
    const LinearQuant q{&r, 1, uint64_t(step), 0, false, nullptr, &cfg, true};
    linear_forward(y.data(), in, w.data(), n, q, st);
    const float scale = step == 1 ? 1.0f : 448.0f / amax;
    EXPECT_EQ(st.delayed[0][0].scale, scale);
    const std::vector<float> e = expected_y(scale);
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], e[i], 1e-5f) << "step " << step;
    st.delayed[0][0].update(cfg);
  }
  // A validation pass (record_amax false) leaves the history alone.
  const std::vector<float> before = st.delayed[0][0].history;
  const LinearQuant eval{&r, 1, 3, 0, false, nullptr, &cfg, false};
  in.bind(x.data(), m, k);
  linear_forward(y.data(), in, w.data(), n, eval, st);
  EXPECT_EQ(st.delayed[0][0].history, before);
}

// ---- copies from the forward copy ----

TEST(CopySource, BackwardCopyRequantizesTheDequantizedForwardCopy) {
  const int64_t m = 32, k = 32, n = 16;
  std::vector<float> x(m * k), w(n * k), dy(m * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i) * 0.7f) * (i % 13 == 0 ? 9.0f : 1.0f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * std::cos(float(i) * 1.1f) * (i % 17 == 0 ? 7.0f : 1.0f);
  for (size_t i = 0; i < dy.size(); ++i) dy[i] = 0.01f * std::sin(float(i) * 0.3f);
  QuantSpec nv;
  named_format("nvfp4", nv);
  LinearRecipe r;
  r.fprop_x = r.fprop_w = r.dgrad_w = r.wgrad_x = nv;
  r.dgrad_w.source = CopySource::fprop;
  r.wgrad_x.source = CopySource::fprop;
  ASSERT_EQ(validate(r), "");
  LinearState st;
  LinearInput in;
  LinearScratch sc;
  std::vector<float> y(m * n), dx(m * k, 0.0f), dw(n * k, 0.0f);
  const LinearQuant q{&r, 3, 1, 0};
  in.bind(x.data(), m, k);
  linear_forward(y.data(), in, w.data(), n, q, st);
  in.bind(x.data(), m, k);  // as the model does between passes: the forward copy is remade
  linear_backward(dx.data(), dw.data(), dy.data(), in, w.data(), n, q, st, sc);
  // Expected: Q(dequant(Q(W))ᵀ) and Q(dequant(Q(X))ᵀ), with the streams of their own uses.
  auto q_of = [&](const std::vector<float>& t, int64_t rows, int64_t cols, uint64_t id) {
    std::vector<float> out(t.size());
    quantize(t.data(), out.data(), rows, cols, nv, QuantRandom{3, id, 1});
    return out;
  };
  auto transposed = [](const std::vector<float>& t, int64_t rows, int64_t cols) {
    std::vector<float> out(t.size());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) out[size_t(j * rows + i)] = t[size_t(i * cols + j)];
    return out;
  };
  const std::vector<float> wt = q_of(transposed(q_of(w, n, k, 1), n, k), k, n, 3);  // [K, N]
  const std::vector<float> xt = q_of(transposed(q_of(x, m, k, 0), m, k), k, m, 5);  // [K, M]
  EXPECT_EQ(std::vector<float>(sc.w_dgrad.values.begin(), sc.w_dgrad.values.end()), wt);
  EXPECT_EQ(std::vector<float>(in.wgrad.values.begin(), in.wgrad.values.end()), xt);
  // Only the backward copies of X and W may come from the forward copy.
  LinearRecipe bad = r;
  bad.fprop_x.source = CopySource::fprop;
  EXPECT_NE(validate(bad), "");
}

// ---- presets ----

// Each operand of a covered block linear, then of an uncovered one (attention under mlp_only), as
// describe() writes every field that differs from the default, after operand-dtype resolution.
struct PresetRow {
  const char* name;
  const char* covered[6];
  const char* attention;  // fprop_x of q_proj: the whole attention recipe is quantized or bf16
  const char* coverage;
  const char* delayed;    // "" or "history/algo/margin"
};

TEST(Presets, EveryShippedRecipeResolvesFieldByField) {
  const char* nv1 = "fp4_e2m1/16 e4m3 1d rne";
  const PresetRow rows[] = {
      {"fp32", {"none", "none", "none", "none", "none", "none"}, "none", "all_linear", ""},
      {"bf16", {"bf16 rne", "bf16 rne", "bf16 rne", "bf16 rne", "bf16 rne", "bf16 rne"}, "bf16 rne", "all_linear", ""},
      {"fp8",
       {"fp8_e4m3/tensor fp32 1d rne", "fp8_e4m3/tensor fp32 1d rne", "fp8_e5m2/tensor fp32 1d rne",
        "fp8_e4m3/tensor fp32 1d rne", "fp8_e5m2/tensor fp32 1d rne", "fp8_e4m3/tensor fp32 1d rne"},
       "fp8_e4m3/tensor fp32 1d rne", "all_linear", ""},
      {"fp8_delayed",
       {"fp8_e4m3/tensor fp32 1d rne delayed bf16-in", "fp8_e4m3/tensor fp32 1d rne delayed bf16-in",
        "fp8_e5m2/tensor fp32 1d rne delayed bf16-in", "fp8_e4m3/tensor fp32 1d rne delayed bf16-in",
        "fp8_e5m2/tensor fp32 1d rne delayed bf16-in", "fp8_e4m3/tensor fp32 1d rne delayed bf16-in"},
       "fp8_e4m3/tensor fp32 1d rne delayed bf16-in", "all_linear", "1024/max/0"},
      {"mxfp8", {"fp8_e4m3/32 ue8m0-ceil 1d rne", "fp8_e4m3/32 ue8m0-ceil 1d rne", "fp8_e4m3/32 ue8m0-ceil 1d rne",
                 "fp8_e4m3/32 ue8m0-ceil 1d rne", "fp8_e4m3/32 ue8m0-ceil 1d rne", "fp8_e4m3/32 ue8m0-ceil 1d rne"},
       "fp8_e4m3/32 ue8m0-ceil 1d rne", "all_linear", ""},
      {"mxfp4", {"fp4_e2m1/32 ue8m0-floor 1d rne", "fp4_e2m1/32 ue8m0-floor 1d rne", "fp4_e2m1/32 ue8m0-floor 1d rne",
                 "fp4_e2m1/32 ue8m0-floor 1d rne", "fp4_e2m1/32 ue8m0-floor 1d rne", "fp4_e2m1/32 ue8m0-floor 1d rne"},
       "fp4_e2m1/32 ue8m0-floor 1d rne", "all_linear", ""},
      {"nvfp4",
       {nv1, "fp4_e2m1/16 e4m3 2d rne", "fp4_e2m1/16 e4m3 1d sr", "fp4_e2m1/16 e4m3 2d rne",
        "fp4_e2m1/16 e4m3 1d sr rht16", "fp4_e2m1/16 e4m3 1d rne rht16"},
       nv1, "all_linear", ""},
      {"nvfp4_no_rht",
       {nv1, "fp4_e2m1/16 e4m3 2d rne", "fp4_e2m1/16 e4m3 1d sr", "fp4_e2m1/16 e4m3 2d rne",
        "fp4_e2m1/16 e4m3 1d sr", nv1},
       nv1, "all_linear", ""},
      {"nvfp4_fwd", {nv1, "fp4_e2m1/16 e4m3 2d rne", "bf16 rne", "bf16 rne", "bf16 rne", "bf16 rne"}, nv1, "all_linear", ""},
      {"nvfp4_bwd",
       {"bf16 rne", "bf16 rne", "fp4_e2m1/16 e4m3 1d sr", "fp4_e2m1/16 e4m3 2d rne", "fp4_e2m1/16 e4m3 1d sr rht16",
        "fp4_e2m1/16 e4m3 1d rne rht16"},
       "bf16 rne", "all_linear", ""},
      {"nvfp4_te213",
       {"fp4_e2m1/16 e4m3 1d rne te_2_13", "fp4_e2m1/16 e4m3 2d rne te_2_13", "fp4_e2m1/16 e4m3 1d sr te_2_13",
        "fp4_e2m1/16 e4m3 2d rne te_2_13", "fp4_e2m1/16 e4m3 1d sr rht16 te_2_13",
        "fp4_e2m1/16 e4m3 1d rne rht16 te_2_13"},
       "fp4_e2m1/16 e4m3 1d rne te_2_13", "all_linear", ""},
      {"te_nvfp4",
       {"fp4_e2m1/16 e4m3 1d rne bf16-in", "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in",
        "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr rht16 bf16-in",
        "fp4_e2m1/16 e4m3 1d rne rht16 bf16-in"},
       "fp4_e2m1/16 e4m3 1d rne bf16-in", "all_linear", ""},
      {"te_nvfp4_fp8_dpa",  // te_nvfp4's linears; its attention products are checked below
       {"fp4_e2m1/16 e4m3 1d rne bf16-in", "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in",
        "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr rht16 bf16-in",
        "fp4_e2m1/16 e4m3 1d rne rht16 bf16-in"},
       "fp4_e2m1/16 e4m3 1d rne bf16-in", "all_linear", ""},
      {"te_nvfp4_ue5m3",
       {"fp4_e2m1/16 ue5m3 1d rne bf16-in", "fp4_e2m1/16 ue5m3 2d rne bf16-in", "fp4_e2m1/16 ue5m3 1d sr bf16-in",
        "fp4_e2m1/16 ue5m3 2d rne bf16-in", "fp4_e2m1/16 ue5m3 1d sr rht16 bf16-in",
        "fp4_e2m1/16 ue5m3 1d rne rht16 bf16-in"},
       "fp4_e2m1/16 ue5m3 1d rne bf16-in", "all_linear", ""},
      {"te_nvfp4_no_rht",
       {"fp4_e2m1/16 e4m3 1d rne bf16-in", "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in",
        "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in", "fp4_e2m1/16 e4m3 1d rne bf16-in"},
       "fp4_e2m1/16 e4m3 1d rne bf16-in", "all_linear", ""},
      {"nvfp4_mlp",
       {"fp4_e2m1/16 e4m3 1d rne bf16-in", "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in",
        "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr rht16 bf16-in",
        "fp4_e2m1/16 e4m3 1d rne rht16 bf16-in"},
       "bf16 rne bf16-in", "mlp_only", ""},
      {"nvfp4_mlp_no_rht",
       {"fp4_e2m1/16 e4m3 1d rne bf16-in", "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in",
        "fp4_e2m1/16 e4m3 2d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in", "fp4_e2m1/16 e4m3 1d rne bf16-in"},
       "bf16 rne bf16-in", "mlp_only", ""},
      {"te_nvfp4_4over6",
       {"fp4_e2m1/16 e4m3 1d rne 4over6-mae bf16-in", "fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in",
        "fp4_e2m1/16 e4m3 1d sr bf16-in", "fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in",
        "fp4_e2m1/16 e4m3 1d sr rht16 bf16-in", "fp4_e2m1/16 e4m3 1d rne rht16 bf16-in"},
       "fp4_e2m1/16 e4m3 1d rne 4over6-mae bf16-in", "all_linear", ""},
      {"te_nvfp4_4over6_rht",
       {"fp4_e2m1/16 e4m3 1d rne 4over6-mae bf16-in", "fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in",
        "fp4_e2m1/16 e4m3 1d sr 4over6-mae bf16-in", "fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in",
        "fp4_e2m1/16 e4m3 1d sr rht16 4over6-mae bf16-in", "fp4_e2m1/16 e4m3 1d rne rht16 4over6-mae bf16-in"},
       "fp4_e2m1/16 e4m3 1d rne 4over6-mae bf16-in", "all_linear", ""},
      {"te_nvfp4_1d_weight",
       {"fp4_e2m1/16 e4m3 1d rne bf16-in", "fp4_e2m1/16 e4m3 1d rne bf16-in", "fp4_e2m1/16 e4m3 1d sr bf16-in",
        "fp4_e2m1/16 e4m3 1d rne bf16-in from-fprop", "fp4_e2m1/16 e4m3 1d sr rht16 bf16-in",
        "fp4_e2m1/16 e4m3 1d rne rht16 bf16-in"},
       "fp4_e2m1/16 e4m3 1d rne bf16-in", "all_linear", ""},
  };
  std::vector<std::string> tested;
  for (const PresetRow& row : rows) {
    ConfigBuilder b;
    b.add_override(std::string("recipe=") + row.name);
    const Config c = b.build();
    const RecipeConfig& rc = c.recipe;
    EXPECT_EQ(rc.name, row.name);
    const LinearRecipe down = resolve_linear(rc, LayerKind::mlp_down, 0, 2, 0);
    const QuantSpec* ops[6] = {&down.fprop_x, &down.fprop_w, &down.dgrad_dy, &down.dgrad_w, &down.wgrad_dy, &down.wgrad_x};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(describe(*ops[i]), row.covered[i]) << row.name << " operand " << i;
    EXPECT_EQ(describe(resolve_linear(rc, LayerKind::q, 0, 2, 0).fprop_x), row.attention) << row.name;
    EXPECT_EQ(describe(resolve_linear(rc, LayerKind::lm_head, 0, 2, 0).fprop_x),
              std::string(row.name) == "fp32" ? "none" : rc.operand_dtype == OperandDtype::bf16 ? "bf16 rne bf16-in" : "bf16 rne")
        << row.name << ": the LM head stays in high precision";
    const std::string coverage = rc.coverage == Coverage::all_linear ? "all_linear" : rc.coverage == Coverage::mlp_only ? "mlp_only" : "attn_only";
    EXPECT_EQ(coverage, row.coverage) << row.name;
    EXPECT_FALSE(rc.quantize_lm_head) << row.name;
    const AttentionQuant att = resolve_attention(rc, 0, 2);
    EXPECT_EQ(describe(att.fwd) + ", " + describe(att.bwd),
              std::string(row.name) == "te_nvfp4_fp8_dpa" ? "fp8_e4m3/tensor fp32 1d rne bf16-in, fp8_e5m2/tensor fp32 1d rne bf16-in"
                                                          : "none, none")
        << row.name;
    if (*row.delayed) {
      EXPECT_EQ(std::to_string(rc.delayed.history_len) + "/" + to_string(rc.delayed.algo) + "/" +
                    std::to_string(int(rc.delayed.margin)),
                row.delayed);
    }
    tested.push_back(row.name);
  }
  std::vector<std::string> shipped = preset_names("recipe");
  std::sort(shipped.begin(), shipped.end());
  std::sort(tested.begin(), tested.end());
  EXPECT_EQ(shipped, tested) << "a shipped recipe preset is missing from this table";
}

TEST(Presets, EveryDialectHasItsOwnFingerprint) {
  std::vector<std::string> prints;
  for (const std::string& name : preset_names("recipe")) {
    ConfigBuilder b;
    b.add_override("recipe=" + name);
    prints.push_back(numerics_fingerprint(b.build().recipe));
  }
  for (const std::string variant : {"recipe.quantized.fprop_x.four_over_six=mse",
                                     "recipe.quantized.fprop_x.row_scaled=true",
                                     "recipe.amax_history_len=16",
                                     "recipe.quantized.wgrad_x.encode_window=64"}) {
    ConfigBuilder b;
    b.add_override(std::string("recipe=") + (variant.find("amax") != std::string::npos     ? "fp8_delayed"
                                             : variant.find("window") != std::string::npos ? "te_nvfp4"
                                                                                            : "te_nvfp4_4over6"));
    b.add_override(variant);
    prints.push_back(numerics_fingerprint(b.build().recipe));
  }
  std::vector<std::string> unique = prints;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  EXPECT_EQ(unique.size(), prints.size());
}

TEST(Presets, NewKeysAtTheirDefaultsLeaveConfigIdsUnchanged) {
  ConfigBuilder b;
  b.add_override("recipe=nvfp4");
  const std::string yaml = canonical_yaml(b.build());
  for (const char* key : {"operand_dtype", "four_over_six", "global_e4m3_max", "row_scaled", "scaling", "amax_history_len",
                          "encode_window"})
    EXPECT_EQ(yaml.find(key), std::string::npos) << key;
  ConfigBuilder te;
  te.add_override("recipe=te_nvfp4");
  EXPECT_NE(canonical_yaml(te.build()).find("operand_dtype: bf16"), std::string::npos);
}

}  // namespace
}  // namespace fp4lab
