// Scalar codecs of core/formats: whole code spaces (decode, uniqueness, round trip), golden tables
// from core/quant/NUMERICS.md (ties, subnormals, saturation, NaN, both zeros), an independent
// brute-force nearest-even search over each decode table, and the exact SR carry-rule
// probabilities. The run-time unsigned minifloats (ufloat, block scales) the same ways, in all
// three roundings and special-value conventions, and E4M3's parameters against the E4M3 codec.
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
#include "core/formats/ufloat.hpp"
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

// ---- ufloat: unsigned minifloats with run-time parameters (block scales) ----

constexpr UfloatRounding kUfloatRoundings[] = {UfloatRounding::nearest, UfloatRounding::up, UfloatRounding::down};

// Grids of every convention and shape: UE4M3 (E4M3's), UE5M3 (TE's prototype), narrow, wide,
// mantissa-only, exponent-only, and non-standard biases.
std::vector<Ufloat> ufloat_grids() {
  return {{4, 3, 7, UfloatSpecials::fn},      {5, 3, 15, UfloatSpecials::fn},    {5, 3, 15, UfloatSpecials::ieee},
          {5, 3, 15, UfloatSpecials::finite}, {3, 2, 3, UfloatSpecials::finite}, {2, 1, 1, UfloatSpecials::ieee},
          {6, 2, 20, UfloatSpecials::fn},     {1, 7, 0, UfloatSpecials::fn},     {7, 1, 63, UfloatSpecials::fn},
          {7, 0, 63, UfloatSpecials::finite}, {4, 4, -3, UfloatSpecials::ieee}, {2, 0, 1, UfloatSpecials::fn}};
}

// The finite values in code order (codes are ordered by value).
std::vector<double> ufloat_values(const Ufloat& g) {
  std::vector<double> v;
  for (uint32_t c = 0; c <= g.max_code(); ++c) v.push_back(g.decode(c));
  return v;
}

// An independent definition of each rounding: a search of the sorted finite values in double.
uint32_t ufloat_by_search(const Ufloat& g, const std::vector<double>& values, float x, UfloatRounding r) {
  const double a = x;
  const uint32_t top = g.max_code();
  if (a >= values[top]) return top;  // satfinite
  // values[lo] <= a < values[lo + 1]
  const uint32_t lo = uint32_t(std::upper_bound(values.begin(), values.end(), a) - values.begin()) - 1;
  if (values[lo] == a || r == UfloatRounding::down) return lo;
  if (r == UfloatRounding::up) return lo + 1;
  const double below = a - values[lo], above = values[lo + 1] - a;
  if (below != above) return below < above ? lo : lo + 1;
  return lo % 2 == 0 ? lo : lo + 1;
}

TEST(Ufloat, ParametersAndSpecialCodes) {
  for (const Ufloat& g : ufloat_grids()) {
    ASSERT_EQ(ufloat_problem(g), "") << ufloat_name(g);
    int nan = 0, inf = 0;
    for (uint32_t c = 0; c < g.code_count(); ++c) {
      const float v = g.decode(c);
      nan += std::isnan(v);
      inf += std::isinf(v);
    }
    const int field_codes = 1 << g.man_bits;  // codes with the all-ones exponent field
    const int want_nan = g.specials == UfloatSpecials::fn ? 1 : g.specials == UfloatSpecials::ieee ? field_codes - 1 : 0;
    EXPECT_EQ(nan, want_nan) << ufloat_name(g);
    EXPECT_EQ(inf, g.specials == UfloatSpecials::ieee ? 1 : 0) << ufloat_name(g);
    EXPECT_TRUE(std::isnan(g.decode(g.code_count()))) << "a code past the format reads NaN";
    EXPECT_EQ(g.max_value(), g.decode(g.max_code()));
    EXPECT_EQ(bits_of(g.decode(0)), 0u);
    EXPECT_EQ(g.decode(1), std::ldexp(1.0f, 1 - g.bias - g.man_bits)) << ufloat_name(g) << ": smallest subnormal";
  }
  const Ufloat ue5m3{5, 3, 15, UfloatSpecials::fn};
  EXPECT_EQ(ue5m3.max_code(), 0xFEu);
  EXPECT_EQ(ue5m3.max_value(), 114688.0f);  // 1.75 * 2^16: TE's UE5M3 maximum
  EXPECT_TRUE(std::isnan(ue5m3.decode(0xFF)));
  EXPECT_EQ(ue5m3.decode(0x08), 0x1p-14f);  // smallest normal
  EXPECT_EQ(ue5m3.decode(0x78), 1.0f);
  EXPECT_EQ(Ufloat({5, 3, 15, UfloatSpecials::ieee}).max_value(), 61440.0f);  // 1.875 * 2^15
  EXPECT_EQ(Ufloat({5, 3, 15, UfloatSpecials::finite}).max_value(), 122880.0f);  // 1.875 * 2^16
  EXPECT_EQ(ufloat_name(ue5m3), "ue5m3");
  EXPECT_EQ(ufloat_name({5, 3, 14, UfloatSpecials::finite}), "ue5m3-b14-finite");
  EXPECT_EQ(ufloat_name({4, 3, 7, UfloatSpecials::ieee}), "ue4m3-ieee");
}

TEST(Ufloat, ProblemsAreOneLineMessages) {
  EXPECT_NE(ufloat_problem({5, 4, 15, UfloatSpecials::fn}).find("at most 8"), std::string::npos);
  EXPECT_NE(ufloat_problem({0, 3, 0, UfloatSpecials::fn}).find("exponent bits"), std::string::npos);
  EXPECT_NE(ufloat_problem({4, 8, 7, UfloatSpecials::fn}).find("mantissa bits"), std::string::npos);
  EXPECT_NE(ufloat_problem({4, 0, 7, UfloatSpecials::ieee}).find("ieee"), std::string::npos);
  EXPECT_NE(ufloat_problem({1, 0, 0, UfloatSpecials::fn}).find("no positive finite"), std::string::npos);
  EXPECT_NE(ufloat_problem({5, 3, 125, UfloatSpecials::fn}).find("bias too large"), std::string::npos);
  EXPECT_NE(ufloat_problem({8, 0, 0, UfloatSpecials::finite}).find("bias too small"), std::string::npos);
  // Eight exponent bits cannot fit: 6 * 2^(emax) finite needs a bias above 127, a normal 2^(1 - bias) one below.
  for (int bias = 100; bias <= 140; ++bias) EXPECT_NE(ufloat_problem({8, 0, bias, UfloatSpecials::fn}), "") << bias;
}

TEST(Ufloat, WholeCodeSpaceRoundTripsInEveryRounding) {
  for (const Ufloat& g : ufloat_grids()) {
    for (uint32_t c = 0; c <= g.max_code(); ++c) {
      const float v = g.decode(c);
      if (c > 0) {
        EXPECT_LT(g.decode(c - 1), v) << ufloat_name(g) << " code " << c;
      }
      for (UfloatRounding r : kUfloatRoundings)
        EXPECT_EQ(g.encode(v, r), c) << ufloat_name(g) << " rounding " << int(r) << " code " << c;
    }
  }
}

// Every rounding against the search definition on a strided walk over the non-negative fp32 line
// plus each code's neighbourhood (values, midpoints, one ulp either side); NaN, Inf and negatives.
TEST(Ufloat, EveryRoundingMatchesASearchOfTheGrid) {
  for (const Ufloat& g : ufloat_grids()) {
    const std::vector<double> values = ufloat_values(g);
    std::vector<float> xs;
    for (uint64_t b = 0; b < 0x7F800000ull; b += 40009) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
    for (size_t m = 0; m < values.size(); ++m) {
      const double next = m + 1 < values.size() ? values[m + 1] : 2 * values[m];
      for (double p : {values[m], (values[m] + next) / 2})
        for (float q : {std::nextafter(float(p), 0.0f), float(p), std::nextafter(float(p), kInf)}) xs.push_back(q);
    }
    xs.push_back(FLT_MAX);
    for (UfloatRounding r : kUfloatRoundings) {
      int64_t misses = 0;
      float first = 0.0f;
      for (float x : xs)
        if (g.encode(x, r) != ufloat_by_search(g, values, x, r) && misses++ == 0) first = x;
      EXPECT_EQ(misses, 0) << ufloat_name(g) << " rounding " << int(r) << ": " << misses << " of " << xs.size()
                           << " differ; first x = " << first << " got " << g.encode(first, r) << " expected "
                           << ufloat_by_search(g, values, first, r);
      EXPECT_EQ(g.encode(kInf, r), g.max_code()) << "satfinite";
      EXPECT_EQ(g.encode(kNan, r), g.nan_code());
      for (float neg : {-0.0f, -1e-45f, -1.0f, -kInf}) EXPECT_EQ(g.encode(neg, r), 0u) << neg;
    }
  }
}

// ufloat with E4M3's parameters is the E4M3 codec on every non-negative value and every code.
TEST(Ufloat, E4m3ParametersAreTheE4m3Codec) {
  const Ufloat ue4m3;
  for (uint32_t c = 0; c < 0x7F; ++c) EXPECT_EQ(bits_of(ue4m3.decode(c)), bits_of(fp8_e4m3_decode(uint8_t(c)))) << c;
  EXPECT_TRUE(std::isnan(ue4m3.decode(0x7F)) && std::isnan(fp8_e4m3_decode(0x7F)));
  const MinifloatCodec e4m3 = minifloat_codecs()[1];
  int64_t misses = 0;
  for (float x : sweep_for(e4m3))
    if (!std::signbit(x)) misses += ue4m3.encode(x) != fp8_e4m3_encode_rne(x);
  EXPECT_EQ(misses, 0);
  EXPECT_EQ(ue4m3.encode(kNan), fp8_e4m3_encode_rne(kNan));
  EXPECT_EQ(ue4m3.encode(kInf), fp8_e4m3_encode_rne(kInf));
}

// Golden UE5M3 values (bias 15, NaN 0xFF, max 114688), by rounding.
TEST(Ufloat, Ue5m3Golden) {
  const Ufloat g{5, 3, 15, UfloatSpecials::fn};
  struct Case { float x; uint32_t nearest, up, down; };
  const Case cases[] = {
      {0.0f, 0x00, 0x00, 0x00},          {1e-45f, 0x00, 0x01, 0x00},      {0x1p-18f, 0x00, 0x01, 0x00},  // tie -> 0
      {0x1p-17f, 0x01, 0x01, 0x01},      {0x1.8p-17f, 0x02, 0x02, 0x01},  // tie -> even 2^-16
      {0x1p-14f, 0x08, 0x08, 0x08},      {1.0f, 0x78, 0x78, 0x78},        {1.0625f, 0x78, 0x79, 0x78},  // tie -> 1
      {1.1875f, 0x7A, 0x7A, 0x79},       {1.0000001f, 0x78, 0x79, 0x78},  {28672.0f, 0xEE, 0xEE, 0xEE},
      {57344.0f, 0xF6, 0xF6, 0xF6},      {114688.0f, 0xFE, 0xFE, 0xFE},   {110592.0f, 0xFE, 0xFE, 0xFD},  // tie -> 0xFE
      {122880.0f, 0xFE, 0xFE, 0xFE},     {FLT_MAX, 0xFE, 0xFE, 0xFE}};
  for (const Case& c : cases) {
    EXPECT_EQ(g.encode(c.x, UfloatRounding::nearest), c.nearest) << c.x;
    EXPECT_EQ(g.encode(c.x, UfloatRounding::up), c.up) << c.x;
    EXPECT_EQ(g.encode(c.x, UfloatRounding::down), c.down) << c.x;
  }
}

}  // namespace
}  // namespace fp4lab
