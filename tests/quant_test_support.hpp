// Shared by the format/quantizer tests: bit-exact comparisons that report the first and worst
// mismatching index, expected and actual values and the mismatch count; the named statistical
// tolerances; named operand formats; deterministic test tensors (random and hostile). Test-only code.
#pragma once
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/quant/format_table.hpp"
#include "core/quant/quant_spec.hpp"

namespace fp4lab::testing_support {

// A named operand format (named_format), failing the test for an unknown name.
inline QuantSpec named(const std::string& name) {
  QuantSpec s;
  EXPECT_TRUE(named_format(name, s)) << name;
  return s;
}

// ---- Named tolerances (the only non-exact comparisons in the format/quantizer tests) ----
// Stochastic rounding: the sample mean of N draws is allowed this many standard errors
// (sqrt(p(1-p)/N) steps) away from its exact expectation; 6 sigma => ~1e-9 false-failure rate.
constexpr double kSrSigmas = 6.0;
// fp64 rounding of a sample mean of up to 2^16 grid values (a few ulps of 6).
constexpr double kSrMeanSlack = 1e-12;
// Double sums of the statistics are accumulated in a different order by the fast path.
constexpr double kEnergyRelTol = 1e-12;
// Pinned distortion: measured SQNR must stay within this many dB of the pinned value.
constexpr double kSqnrPinDb = 0.05;

inline uint32_t bits_of(float x) { return std::bit_cast<uint32_t>(x); }

// Bit-for-bit equality of two float arrays (NaN payloads included); any vector of floats.
template <class Expected, class Actual>
::testing::AssertionResult float_bits_equal(const Expected& expected, const Actual& actual, const std::string& what) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << what << ": size " << actual.size() << " != expected " << expected.size();
  int64_t count = 0, first = -1, worst = -1;
  double worst_diff = -1.0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (bits_of(expected[i]) == bits_of(actual[i])) continue;
    ++count;
    if (first < 0) first = static_cast<int64_t>(i);
    const double diff = std::fabs(static_cast<double>(expected[i]) - actual[i]);
    if (std::isnan(diff) || diff > worst_diff) {
      worst_diff = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff;
      worst = static_cast<int64_t>(i);
    }
  }
  if (count == 0) return ::testing::AssertionSuccess();
  std::ostringstream m;
  m.precision(9);
  m << what << ": " << count << " of " << expected.size() << " differ; first [" << first
    << "] expected " << expected[first] << " (0x" << std::hex << bits_of(expected[first]) << ") actual " << std::dec
    << actual[first] << " (0x" << std::hex << bits_of(actual[first]) << ")" << std::dec << "; worst [" << worst
    << "] expected " << expected[worst] << " actual " << actual[worst];
  return ::testing::AssertionFailure() << m.str();
}

template <class Expected, class Actual>
::testing::AssertionResult bytes_equal(const Expected& expected, const Actual& actual, const std::string& what) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << what << ": size " << actual.size() << " != expected " << expected.size();
  int64_t count = 0, first = -1;
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != actual[i]) {
      ++count;
      if (first < 0) first = static_cast<int64_t>(i);
    }
  if (count == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << count << " of " << expected.size() << " differ; first ["
                                       << first << "] expected 0x" << std::hex << int(expected[first]) << " actual 0x"
                                       << int(actual[first]);
}

// ---- Deterministic tensors ----
// Gaussian N(0, sigma^2) from a fixed-seed mt19937_64 (Box-Muller in double).
inline std::vector<float> gaussian(size_t n, uint64_t seed, double sigma = 1.0) {
  std::mt19937_64 gen(seed);
  std::vector<float> v(n);
  const double two_pi = 6.283185307179586;
  for (size_t i = 0; i < n; i += 2) {
    const double u1 = (static_cast<double>(gen() >> 11) + 1.0) * 0x1p-53;
    const double u2 = static_cast<double>(gen() >> 11) * 0x1p-53;
    const double r = std::sqrt(-2.0 * std::log(u1)) * sigma;
    v[i] = static_cast<float>(r * std::cos(two_pi * u2));
    if (i + 1 < n) v[i + 1] = static_cast<float>(r * std::sin(two_pi * u2));
  }
  return v;
}

// A rows x cols tensor that hits every special path: NaN, +-Inf, +-0, fp32 subnormals, an
// all-zero block, an underflowing block, one outlier per 16-block, values swept across binades,
// values at E2M1/E4M3 rounding ties, and near FLT_MAX. Deterministic in (rows, cols, seed).
inline std::vector<float> hostile(int64_t rows, int64_t cols, uint64_t seed, bool with_nonfinite = true) {
  std::vector<float> v = gaussian(static_cast<size_t>(rows * cols), seed);
  std::mt19937_64 gen(seed ^ 0x9E3779B97F4A7C15ull);
  const int64_t n = rows * cols;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t block = i / 16;
    const int64_t kind = block % 11;
    const int64_t j = i % 16;
    switch (kind) {
      case 0: break;                                        // plain Gaussian
      case 1: v[i] = j == 5 ? 1e4f : v[i] * 1e-2f; break;   // one outlier
      case 2: v[i] = 0.0f; break;                           // all-zero block
      case 3: v[i] = j % 2 ? -0.0f : 0.0f; break;           // signed zeros
      case 4: v[i] = std::ldexp(1.0f + static_cast<float>(j) / 16.0f, static_cast<int>(gen() % 60) - 30); break;
      case 5: v[i] = (j % 2 ? -1.0f : 1.0f) * 1e-39f * static_cast<float>(j + 1); break;  // subnormal
      case 6: v[i] = v[i] * 1e-6f; break;                   // tiny block (underflows beside big ones)
      case 7: {  // E2M1 ties (x 1/4 .. 5) and halfway points, both signs
        const float ties[8] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f};
        v[i] = (j % 2 ? -1.0f : 1.0f) * ties[j % 8] * (j < 8 ? 1.0f : 448.0f / 6.0f);
        break;
      }
      case 8: v[i] = (j % 3 == 0 ? -1.0f : 1.0f) * std::numeric_limits<float>::max() / static_cast<float>(1 + j); break;
      case 9: v[i] = static_cast<float>(static_cast<int64_t>(gen() % 2001) - 1000) * 0.125f; break;
      case 10:
        if (with_nonfinite) {
          const float specials[4] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::quiet_NaN()};
          if (j % 5 == 0) v[i] = specials[(j / 5) % 4];
        }
        break;
    }
  }
  return v;
}

inline std::vector<float> transpose(const std::vector<float>& a, int64_t rows, int64_t cols) {
  std::vector<float> t(a.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = a[r * cols + c];
  return t;
}

}  // namespace fp4lab::testing_support
