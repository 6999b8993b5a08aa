// Bias telemetry (core/quant/quant_bias): the quantizer's domain (after the RHT), the signed bias on
// tensors with hand-computed answers, the leading-rows stand-in (and its stacked copies) against
// the whole tensor bit for bit, and the SR concentration's 1/√k fall on values halfway between grid
// points.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/quant/format_table.hpp"
#include "core/quant/quant_bias.hpp"
#include "tests/quant_test_support.hpp"

namespace fp4lab {
namespace {

using namespace testing_support;

QuantSpec named(const std::string& name, Rounding rounding = Rounding::rne) {
  QuantSpec s;
  EXPECT_TRUE(named_format(name, s)) << name;
  s.rounding = rounding;
  return s;
}

std::vector<float> quantized(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
                             const QuantRandom& rnd = {}) {
  std::vector<float> q(x.size());
  quantize(x.data(), q.data(), rows, cols, spec, rnd);
  return q;
}

// Blocks of 32 (mxfp4) that each hold one 6: the UE8M0 floor scale is 2^(2 − 2) = 1, so elements
// are rounded on the E2M1 grid itself; the other 31 take `rest`.
std::vector<float> blocks_of_six_and(float rest, int64_t rows, int64_t cols) {
  std::vector<float> x(size_t(rows * cols), rest);
  for (size_t i = 0; i < x.size(); i += 32) x[i] = 6.0f;
  return x;
}

constexpr double kFloatSumTol = 1e-6;  // the bias is returned in float

TEST(QuantBias, QuantizerDomainIsWhatQuantizeRounds) {
  // quantize(x, spec with RHT) == quantize(x·H, spec without RHT), SR bits included.
  const int64_t rows = 24, cols = 48;
  const std::vector<float> x = gaussian(size_t(rows * cols), 7);
  for (Rounding rounding : {Rounding::rne, Rounding::sr}) {
    QuantSpec spec = named("nvfp4", rounding), plain = spec;
    spec.rht = true;
    std::vector<float> xh(x.size());
    quantizer_domain(xh.data(), x.data(), rows, cols, spec);
    const QuantRandom rnd{3, 4, 5};
    EXPECT_TRUE(float_bits_equal(quantized(x, rows, cols, spec, rnd), quantized(xh, rows, cols, plain, rnd), "rht"));
    std::vector<float> same(x.size());
    quantizer_domain(same.data(), x.data(), rows, cols, plain);
    EXPECT_TRUE(float_bits_equal(x, same, "no rht"));
  }
  std::vector<float> out(x.size());
  QuantSpec bad = named("nvfp4");
  bad.rht = true;
  bad.rht_size = 32;  // does not divide 48
  EXPECT_THROW(quantizer_domain(out.data(), x.data(), rows, cols, bad), std::invalid_argument);
}

TEST(QuantBias, RepresentableTensorHasNone) {
  const int64_t rows = 5, cols = 64;  // two blocks per row, an odd row count
  const float grid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, -6.0f};
  std::vector<float> x = blocks_of_six_and(0.0f, rows, cols);
  for (size_t i = 0; i < x.size(); ++i)
    if (i % 32) x[i] = (i % 3 ? 1.0f : -1.0f) * grid[i % 8];
  const std::vector<float> q = quantized(x, rows, cols, named("mxfp4"));
  ASSERT_TRUE(float_bits_equal(x, q, "representable"));
  const QuantBias b = quant_bias(x.data(), q.data(), rows, cols);
  EXPECT_EQ(b.shrinkage, 0.0f);
  EXPECT_EQ(b.mean, 0.0f);
}

TEST(QuantBias, RoundToNearestShrinksByTheHandComputedAmount) {
  // 2.25 lies between the E2M1 points 2 and 3: round to nearest gives 2, shrinking every value.
  // Per block: Σ x² = 36 + 31·2.25², Σ q·x = 36 + 31·2·2.25; Σ (q − x) = −31·0.25.
  const double energy = 36 + 31 * 2.25 * 2.25, product = 36 + 31 * 2 * 2.25;
  std::vector<float> x = blocks_of_six_and(2.25f, 2, 32);
  for (size_t i = 32; i < 64; ++i) x[i] = -x[i];  // row 1 mirrors row 0: magnitudes shrink alike
  const std::vector<float> q = quantized(x, 2, 32, named("mxfp4"));
  EXPECT_EQ(q[1], 2.0f);
  EXPECT_EQ(q[33], -2.0f);
  const QuantBias both = quant_bias(x.data(), q.data(), 2, 32);
  EXPECT_NEAR(both.shrinkage, product / energy - 1, kFloatSumTol);  // −0.0904
  EXPECT_EQ(both.mean, 0.0f);  // the signed errors cancel
  const QuantBias positive = quant_bias(x.data(), q.data(), 1, 32);
  EXPECT_NEAR(positive.shrinkage, product / energy - 1, kFloatSumTol);
  EXPECT_NEAR(positive.mean, (-31 * 0.25 / 32) / std::sqrt(energy / 32), kFloatSumTol);  // −0.0986
}

TEST(QuantBias, AllZeroIsNan) {
  const std::vector<float> zero(64, 0.0f);
  const QuantBias b = quant_bias(zero.data(), zero.data(), 2, 32);
  EXPECT_TRUE(std::isnan(b.shrinkage));
  EXPECT_TRUE(std::isnan(b.mean));
}

TEST(SrConcentration, SubsetIsWholeBandsOfLeadingRows) {
  const QuantSpec d1 = named("nvfp4", Rounding::sr);
  QuantSpec d2 = d1;
  d2.tile = Tile::d2;
  ASSERT_EQ(kSrSubsetElements, 2048);
  EXPECT_EQ(sr_subset_rows(1000, 48, d1), 43);  // ceil(2048 / 48)
  EXPECT_EQ(sr_subset_rows(1000, 48, d2), 48);  // whole 16-row tiles
  EXPECT_EQ(sr_subset_rows(1000, 4096, d1), 1);
  EXPECT_EQ(sr_subset_rows(1000, 4096, d2), 16);
  EXPECT_EQ(sr_subset_rows(40, 32, d1), 40);  // the whole tensor
  QuantSpec windows = d2;
  windows.encode_window = 32;
  EXPECT_EQ(sr_subset_rows(1000, 4096, windows), 32);  // whole 32 x 32 encode windows
  EXPECT_EQ(leading_rows_standin(gaussian(64 * 64, 3).data(), 64, 64, 32, windows).size(), size_t((32 + 32) * 64));
}

TEST(SrConcentration, LeadingRowsStandinQuantizesLikeTheWholeTensor) {
  // The tensor's amax sits outside the leading rows, so NVFP4's tensor scale of the leading rows
  // alone would differ; the stand-in's pad band restores it. 80 x 48: awkward but tileable.
  const int64_t rows = 80, cols = 48, lead = 32;
  std::vector<float> x = gaussian(size_t(rows * cols), 11);
  x[size_t(rows * cols - 7)] = 40.0f;
  for (Tile tile : {Tile::d1, Tile::d2}) {
    QuantSpec spec = named("nvfp4", Rounding::sr);
    spec.tile = tile;
    const QuantRandom rnd{1, 2, 3};
    const std::vector<float> standin = leading_rows_standin(x.data(), rows, cols, lead, spec);
    const int64_t standin_rows = int64_t(standin.size()) / cols;
    ASSERT_EQ(standin_rows, lead + (tile == Tile::d2 ? 16 : 1));
    const std::vector<float> whole = quantized(x, rows, cols, spec, rnd);
    const std::vector<float> part = quantized(standin, standin_rows, cols, spec, rnd);
    const std::vector<float> expected(whole.begin(), whole.begin() + lead * cols);
    EXPECT_TRUE(float_bits_equal(expected, std::vector<float>(part.begin(), part.begin() + lead * cols), "standin"));
    const std::vector<float> alone(x.begin(), x.begin() + lead * cols);  // without the pad
    EXPECT_FALSE(float_bits_equal(expected, quantized(alone, lead, cols, spec, rnd), "alone"));
    // Stacked copies keep the scales: with round to nearest every copy is x's leading rows.
    spec.rounding = Rounding::rne;
    const std::vector<float> rne = quantized(x, rows, cols, spec);
    const std::vector<float> copies = leading_rows_standin(x.data(), rows, cols, lead, spec, 3);
    ASSERT_EQ(int64_t(copies.size()), (3 * lead + (standin_rows - lead)) * cols);  // and the pad band
    const std::vector<float> q3 = quantized(copies, int64_t(copies.size()) / cols, cols, spec);
    for (int64_t c = 0; c < 3; ++c)
      EXPECT_TRUE(float_bits_equal(std::vector<float>(rne.begin(), rne.begin() + lead * cols),
                                   std::vector<float>(q3.begin() + c * lead * cols, q3.begin() + (c + 1) * lead * cols),
                                   "copy " + std::to_string(c)));
  }
  EXPECT_EQ(leading_rows_standin(x.data(), rows, cols, rows, named("nvfp4")), x);  // no pad needed
}

TEST(SrConcentration, HalfwayValuesFallAsOneOverRootK) {
  // 5 is halfway between the E2M1 points 4 and 6: each draw errs by exactly ±1 with p = 1/2 (128
  // of the 256 random bytes), so the mean of k draws has E[e²] = 1/k; the 6s are exact. The first
  // kSrSubsetElements elements are drawn from (whole rows of 32).
  const int64_t rows = 200, cols = 32, n = kSrSubsetElements;
  const std::vector<float> x = blocks_of_six_and(5.0f, rows, cols);
  ASSERT_EQ(sr_subset_rows(rows, cols, named("mxfp4", Rounding::sr)) * cols, n);
  const SrConcentration rms = sr_concentration(x.data(), rows, cols, named("mxfp4", Rounding::sr), QuantRandom{9, 6, 4});
  const double halfway = 31.0 / 32, rms_x = std::sqrt((36 + 31 * 25.0) / 32);
  // e_k² averages n·31/32 terms of variance ~2/k²: the relative standard error of the mean square
  // is sqrt(2 / (n·31/32)), half that for its square root.
  const double rel_tol = kSrSigmas * 0.5 * std::sqrt(2.0 / (n * halfway));
  for (size_t j = 0; j < kSrDrawCounts.size(); ++j) {
    const double expected = std::sqrt(halfway / kSrDrawCounts[j]) / rms_x;
    EXPECT_NEAR(rms[j], expected, rel_tol * expected) << "k = " << kSrDrawCounts[j];
    if (j > 0) {
      EXPECT_LT(rms[j], rms[j - 1]);
    }
  }
  EXPECT_NEAR(rms[0], std::sqrt(halfway) / rms_x, kFloatSumTol);  // one draw: |e| = 1 exactly
}

}  // namespace
}  // namespace fp4lab
