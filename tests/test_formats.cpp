// Scalar codecs of core/formats: whole code spaces (decode, uniqueness, round trip), golden tables
// from core/quant/NUMERICS.md (ties, subnormals, saturation, NaN, both zeros), an independent
// brute-force nearest-even search over each decode table, and the exact SR carry-rule
// probabilities.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <vector>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/formats/ue8m0.hpp"
#include "tests/quant_test_support.hpp"

namespace fp4lab {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
using testing_support::bits_of;

struct MinifloatCodec {
  const char* name;
  int codes;             // 16 or 256
  uint8_t sign_bit;      // 0x8 or 0x80
  uint8_t max_magnitude;  // largest finite magnitude code
  std::function<float(uint8_t)> decode;
  std::function<uint8_t(float)> encode;
};

std::vector<MinifloatCodec> minifloat_codecs() {
  return {{"fp4_e2m1", 16, 0x8, 0x7, fp4_e2m1_decode, fp4_e2m1_encode_rne},
          {"fp8_e4m3", 256, 0x80, 0x7E, fp8_e4m3_decode, fp8_e4m3_encode_rne},
          {"fp8_e5m2", 256, 0x80, 0x7B, fp8_e5m2_decode, fp8_e5m2_encode_rne}};
}

// Independent definition of RNE satfinite: the nearest finite grid value by exhaustive search,
// ties to the even magnitude code, |x| beyond the maximum saturates, NaN handled by the caller.
uint8_t brute_force_nearest_even(const MinifloatCodec& f, float x) {
  const double a = std::fabs(static_cast<double>(x));
  const uint8_t sign = std::signbit(x) ? f.sign_bit : 0;
  if (a >= f.decode(f.max_magnitude)) return static_cast<uint8_t>(f.max_magnitude | sign);
  uint8_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int m = 0; m <= f.max_magnitude; ++m) {
    const double d = std::fabs(a - f.decode(static_cast<uint8_t>(m)));
    if (d < best_distance || (d == best_distance && m % 2 == 0)) {
      best_distance = d;
      best = static_cast<uint8_t>(m);
    }
  }
  return static_cast<uint8_t>(best | sign);
}

TEST(Formats, WholeCodeSpaceDecodesUniquelyAndRoundTrips) {
  for (const MinifloatCodec& f : minifloat_codecs()) {
    std::set<uint32_t> seen;
    int finite = 0;
    for (int c = 0; c < f.codes; ++c) {
      const float v = f.decode(static_cast<uint8_t>(c));
      if (std::isnan(v)) continue;
      EXPECT_TRUE(seen.insert(bits_of(v)).second) << f.name << " code " << c << " duplicates value " << v;
      if (std::isinf(v)) continue;
      ++finite;
      EXPECT_EQ(f.encode(v), c) << f.name << " code 0x" << std::hex << c << " value " << v << " does not round-trip";
    }
    const int expected_finite = f.codes == 16 ? 16 : (f.max_magnitude == 0x7E ? 254 : 248);
    EXPECT_EQ(finite, expected_finite) << f.name;
    // Positive magnitudes increase with the code.
    for (int m = 1; m <= f.max_magnitude; ++m)
      EXPECT_LT(f.decode(static_cast<uint8_t>(m - 1)), f.decode(static_cast<uint8_t>(m))) << f.name << " " << m;
  }
}

TEST(Formats, Fp4E2m1DecodeTable) {
  const float expected[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int c = 0; c < 16; ++c) {
    const float v = fp4_e2m1_decode(static_cast<uint8_t>(c));
    EXPECT_EQ(bits_of(v), bits_of(c < 8 ? expected[c] : -expected[c - 8])) << "code " << c;
  }
}

TEST(Formats, Fp4E2m1GoldenRoundNearestEven) {
  struct Case { float x; uint8_t code; };
  const Case cases[] = {
      {0.25f, 0x0}, {0.2500001f, 0x1}, {0.75f, 0x2}, {0.7499999f, 0x1}, {1.25f, 0x2}, {1.2500001f, 0x3},
      {1.75f, 0x4}, {2.5f, 0x4}, {2.5000002f, 0x5}, {3.5f, 0x6}, {5.0f, 0x6}, {5.0001f, 0x7}, {6.0f, 0x7},
      {6.5f, 0x7}, {1e30f, 0x7}, {FLT_MAX, 0x7}, {kInf, 0x7}, {-kInf, 0xF}, {kNan, 0x7}, {-kNan, 0x7},
      {0.0f, 0x0}, {-0.0f, 0x8}, {-0.1f, 0x8}, {-0.25f, 0x8}, {-0.2500001f, 0x9}, {0.1f, 0x0},
      {1e-45f, 0x0}, {-1e-45f, 0x8}, {-5.0f, 0xE}, {-3.0f, 0xD}, {-7.0f, 0xF}};
  for (const Case& c : cases) EXPECT_EQ(fp4_e2m1_encode_rne(c.x), c.code) << "x = " << c.x;
}

// E2M1's interval table (TE reference_nvfp4.py's explicit tests) as a second definition.
uint8_t e2m1_by_intervals(float x) {
  const float a = std::fabs(x);
  uint8_t m;
  if (a <= 0.25f) m = 0;
  else if (a < 0.75f) m = 1;
  else if (a <= 1.25f) m = 2;
  else if (a < 1.75f) m = 3;
  else if (a <= 2.5f) m = 4;
  else if (a < 3.5f) m = 5;
  else if (a <= 5.0f) m = 6;
  else m = 7;
  return static_cast<uint8_t>(m | (std::signbit(x) ? 0x8 : 0));
}

// Finite fp32 sweep: a strided walk over all bit patterns plus every code's neighbourhood
// (values, midpoints, and one ulp either side of each).
std::vector<float> sweep_for(const MinifloatCodec& f) {
  std::vector<float> xs;
  for (uint64_t b = 0; b < 0x7F800000ull; b += 4093) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  for (int m = 0; m <= f.max_magnitude; ++m) {
    const float v = f.decode(static_cast<uint8_t>(m));
    const float next = m < f.max_magnitude ? f.decode(static_cast<uint8_t>(m + 1)) : 2 * v;
    const float mid = static_cast<float>((static_cast<double>(v) + next) / 2);
    for (float p : {v, mid})
      for (float q : {std::nextafter(p, 0.0f), p, std::nextafter(p, kInf)}) xs.push_back(q);
  }
  const size_t n = xs.size();
  for (size_t i = 0; i < n; ++i) xs.push_back(-xs[i]);
  return xs;
}

TEST(Formats, RoundNearestEvenMatchesBruteForceSearch) {
  for (const MinifloatCodec& f : minifloat_codecs()) {
    int64_t misses = 0, first = -1;
    const std::vector<float> xs = sweep_for(f);
    for (size_t i = 0; i < xs.size(); ++i)
      if (f.encode(xs[i]) != brute_force_nearest_even(f, xs[i])) {
        if (misses++ == 0) first = static_cast<int64_t>(i);
      }
    EXPECT_EQ(misses, 0) << f.name << ": " << misses << " of " << xs.size() << " differ; first x = "
                         << (first >= 0 ? xs[first] : 0.0f) << " got 0x" << std::hex
                         << int(first >= 0 ? f.encode(xs[first]) : 0) << " expected 0x"
                         << int(first >= 0 ? brute_force_nearest_even(f, xs[first]) : 0);
  }
  const MinifloatCodec e2m1 = minifloat_codecs()[0];
  for (float x : sweep_for(e2m1)) ASSERT_EQ(fp4_e2m1_encode_rne(x), e2m1_by_intervals(x)) << "x = " << x;
}

TEST(Formats, Fp8E4m3Golden) {
  struct Case { float x; uint8_t code; };
  const Case cases[] = {
      {0x1p-10f, 0x00}, {0x1.8p-10f, 0x01}, {0x1.000002p-10f, 0x01}, {0x1p-9f, 0x01}, {0x1.4p-8f, 0x02},
      {0x1.cp-7f, 0x07}, {0x1p-6f, 0x08}, {1.0f, 0x38}, {1.0625f, 0x38}, {1.0625001f, 0x39}, {1.1875f, 0x3A},
      {448.0f, 0x7E}, {464.0f, 0x7E}, {465.0f, 0x7E}, {1e9f, 0x7E}, {FLT_MAX, 0x7E}, {kInf, 0x7E},
      {-kInf, 0xFE}, {-448.0f, 0xFE}, {kNan, 0x7F}, {-kNan, 0x7F}, {0.0f, 0x00}, {-0.0f, 0x80},
      {-0x1p-11f, 0x80}, {-1e-45f, 0x80}, {416.0f, 0x7D}, {432.0f, 0x7E}, {431.0f, 0x7D}, {-0x1p-9f, 0x81}};
  for (const Case& c : cases) EXPECT_EQ(fp8_e4m3_encode_rne(c.x), c.code) << "x = " << c.x;
  EXPECT_TRUE(std::isnan(fp8_e4m3_decode(0x7F)));
  EXPECT_TRUE(std::isnan(fp8_e4m3_decode(0xFF)));
  EXPECT_EQ(fp8_e4m3_decode(0x7E), 448.0f);
  EXPECT_EQ(fp8_e4m3_decode(0x01), 0x1p-9f);
  EXPECT_EQ(bits_of(fp8_e4m3_decode(0x80)), bits_of(-0.0f));
}

TEST(Formats, Fp8E5m2Golden) {
  struct Case { float x; uint8_t code; };
  const Case cases[] = {
      {0x1p-16f, 0x01}, {0x1p-17f, 0x00}, {0x1.8p-17f, 0x01}, {0x1p-14f, 0x04}, {1.0f, 0x3C},
      {1.125f, 0x3C}, {1.375f, 0x3E}, {57344.0f, 0x7B}, {61440.0f, 0x7B}, {1e30f, 0x7B}, {kInf, 0x7B},
      {-kInf, 0xFB}, {kNan, 0x7F}, {-0.0f, 0x80}, {-1e-45f, 0x80}};
  for (const Case& c : cases) EXPECT_EQ(fp8_e5m2_encode_rne(c.x), c.code) << "x = " << c.x;
  EXPECT_EQ(fp8_e5m2_decode(0x7C), kInf);
  EXPECT_EQ(fp8_e5m2_decode(0xFC), -kInf);
  for (uint8_t c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) EXPECT_TRUE(std::isnan(fp8_e5m2_decode(c))) << int(c);
  EXPECT_EQ(fp8_e5m2_decode(0x7B), 57344.0f);
}

// SR: only the two neighbours, and over all 256 random bytes exactly floor(256 f) round away.
TEST(Formats, Fp4E2m1StochasticCarryRuleIsExact) {
  const MinifloatCodec e2m1 = minifloat_codecs()[0];
  std::vector<float> xs;
  for (int k = 0; k <= 7 * 4096; ++k) xs.push_back(static_cast<float>(k) / 4096.0f);
  const std::vector<float> sweep = sweep_for(e2m1);
  for (size_t i = 0; i < sweep.size(); i += 7)
    if (std::fabs(sweep[i]) < 8.0f) xs.push_back(sweep[i]);
  for (float x : xs) {
    const double a = std::fabs(static_cast<double>(x));
    if (a >= 6.0) {  // saturates whatever the random bits
      for (int r = 0; r < 256; ++r) ASSERT_EQ(fp4_e2m1_encode_sr(x, static_cast<uint8_t>(r)) & 0x7, 0x7);
      continue;
    }
    int lower = 0;
    while (lower < 7 && fp4_e2m1_decode(static_cast<uint8_t>(lower + 1)) <= a) ++lower;
    const double lo = fp4_e2m1_decode(static_cast<uint8_t>(lower));
    const double step = fp4_e2m1_decode(static_cast<uint8_t>(lower + 1)) - lo;
    const int expected_away = static_cast<int>(std::floor(256.0 * (a - lo) / step));
    int away = 0;
    for (int r = 0; r < 256; ++r) {
      const uint8_t code = fp4_e2m1_encode_sr(x, static_cast<uint8_t>(r));
      ASSERT_EQ(code & 0x8, std::signbit(x) ? 0x8 : 0) << "x = " << x;
      const int m = code & 0x7;
      ASSERT_TRUE(m == lower || m == lower + 1) << "x = " << x << " r = " << r << " code " << m;
      away += m == lower + 1;
      // The carry rule: away iff r + floor(256 f) >= 256.
      ASSERT_EQ(m == lower + 1, r + expected_away >= 256) << "x = " << x << " r = " << r;
    }
    ASSERT_EQ(away, expected_away) << "x = " << x;
  }
  EXPECT_EQ(fp4_e2m1_encode_sr(kNan, 255), 0x7);
  EXPECT_EQ(fp4_e2m1_encode_sr(-kInf, 0), 0xF);
  EXPECT_EQ(fp4_e2m1_encode_sr(-0.0f, 255), 0x8);
  for (int c = 0; c < 16; ++c)  // grid values never move
    for (int r = 0; r < 256; ++r)
      ASSERT_EQ(fp4_e2m1_encode_sr(fp4_e2m1_decode(static_cast<uint8_t>(c)), static_cast<uint8_t>(r)), c);
}

TEST(Formats, Ue8m0CodeSpaceAndRoundingDirections) {
  for (int c = 0; c < 255; ++c) {
    const float v = ue8m0_decode(static_cast<uint8_t>(c));
    EXPECT_EQ(v, std::ldexp(1.0f, c - 127)) << c;
    EXPECT_EQ(ue8m0_encode_floor(v), c) << c;
    EXPECT_EQ(ue8m0_encode_ceil(v), c) << c;
  }
  EXPECT_TRUE(std::isnan(ue8m0_decode(0xFF)));
  struct Case { float x; uint8_t floor_code, ceil_code; };
  const Case cases[] = {{1.5f, 127, 128},     {0.75f, 126, 127},       {1.0f, 127, 127},
                        {0.0f, 0, 0},         {0x1p-130f, 0, 0},       {0x1.8p-127f, 0, 1},
                        {0x3p-149f, 0, 0},    {0x1p-127f, 0, 0},       {FLT_MAX, 254, 254},
                        {kInf, 254, 254},     {kNan, 255, 255},        {-6.0f, 129, 130},
                        {0x1.000002p+0f, 127, 128}, {0x1.fffffep-1f, 126, 127}};
  for (const Case& c : cases) {
    EXPECT_EQ(ue8m0_encode_floor(c.x), c.floor_code) << "floor x = " << c.x;
    EXPECT_EQ(ue8m0_encode_ceil(c.x), c.ceil_code) << "ceil x = " << c.x;
  }
  EXPECT_EQ(floor_log2_exact(0x1p-149f), -149);
  EXPECT_EQ(ceil_log2_exact(0x3p-149f), -147);
  EXPECT_EQ(floor_log2_exact(0x1.fffffep+127f), 127);
}

TEST(Formats, Bf16WholeCodeSpaceAndGolden) {
  for (uint32_t c = 0; c < 65536; ++c) {
    const float v = bf16_decode(static_cast<uint16_t>(c));
    EXPECT_EQ(bits_of(v), c << 16);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(bf16_decode(bf16_encode_rne(v))));
      continue;
    }
    ASSERT_EQ(bf16_encode_rne(v), c) << c;
    ASSERT_EQ(bf16_encode_rne_from_double(v), c) << c;
  }
  struct Case { float x; uint16_t code; };
  const Case cases[] = {{1.0f + 0x1p-8f, 0x3F80}, {1.0f + 0x3p-8f, 0x3F82}, {1.0f + 0x1p-8f + 0x1p-20f, 0x3F81},
                        {FLT_MAX, 0x7F80},        {kBf16Max, 0x7F7F},      {-0.0f, 0x8000},
                        {0x1p-133f, 0x0001},      {0x1p-134f, 0x0000},     {-kInf, 0xFF80}};
  for (const Case& c : cases) EXPECT_EQ(bf16_encode_rne(c.x), c.code) << "x = " << c.x;
  // From fp64 with a single rounding: the fp32 detour would round 1 + 2^-8 + 2^-40 to the tie.
  EXPECT_EQ(bf16_encode_rne_from_double(1.0 + 0x1p-8 + 0x1p-40), 0x3F81);
  EXPECT_EQ(bf16_encode_rne_from_double(-(1.0 + 0x1p-8 + 0x1p-40)), 0xBF81);
  EXPECT_EQ(bf16_encode_rne_from_double(1.0 + 0x1p-8), 0x3F80);
  EXPECT_EQ(bf16_encode_rne_from_double(0x1p-134 + 0x1p-180), 0x0001);
  EXPECT_EQ(bf16_encode_rne_from_double(0x1p-134), 0x0000);
  EXPECT_EQ(bf16_encode_rne_from_double(0x1.ffp-127), 0x0080);  // rounds up to the min normal
  EXPECT_EQ(bf16_encode_rne_from_double(0x1p128), 0x7F80);
  EXPECT_EQ(bf16_encode_rne_from_double(-0.0), 0x8000);
  EXPECT_EQ(bf16_encode_rne_from_double(std::nan("")) & 0x7FC0, 0x7FC0);
  // Agrees with the fp32 path on every fp32 value of a strided sweep.
  for (uint64_t b = 0; b < 0x100000000ull; b += 65521) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(b));
    if (std::isnan(x)) continue;
    ASSERT_EQ(bf16_encode_rne_from_double(x), bf16_encode_rne(x)) << "x = " << x;
  }
}

}  // namespace
}  // namespace fp4lab
