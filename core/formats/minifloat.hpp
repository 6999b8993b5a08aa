// Internal: bit-level scalar codec shared by the small IEEE-like formats (E2M1, E4M3, E5M2).
// Round-to-nearest-even with satfinite, and truncation plus the fraction below the kept bits
// (for stochastic rounding). Not a public API: use fp4_e2m1.hpp and fp8.hpp.
#pragma once
#include <bit>
#include <cstdint>

namespace fp4lab::detail {

// A sign-magnitude binary format with `kManBits` fraction bits and minimum normal exponent
// `kEmin` (unbiased). Magnitude codes are (biased exponent << kManBits) | fraction, with the
// exponent field 0 holding subnormals. `kMaxMagCode` is the largest finite magnitude code.
template <int kManBits, int kEmin, uint32_t kMaxMagCode>
struct Minifloat {
  // |x| (finite fp32) as the magnitude code of the grid point at or below it (may exceed
  // kMaxMagCode; callers saturate) and the distance above that point in units of one step, as a
  // 0.32 fixed-point fraction (exact; when 32 or more bits are dropped |x| is under 2^-8 of a step,
  // which neither rounding rule below can round up, and it reads as 0).
  struct Split {
    uint32_t code;
    uint64_t fraction;
  };

  static Split split(uint32_t abs_bits) {
    const int field = static_cast<int>(abs_bits >> 23);
    // |x| = significand * 2^(exponent - 23) with a 24-bit significand (no hidden bit for fp32
    // subnormals, whose field 0 means exponent -126).
    const uint32_t significand = field ? ((abs_bits & 0x7FFFFFu) | 0x800000u) : abs_bits;
    const int exponent = field ? field - 127 : -126;
    // The target's step at |x| is 2^(max(exponent, kEmin) - kManBits).
    const int target_exponent = exponent > kEmin ? exponent : kEmin;
    const int shift = 23 - kManBits + (target_exponent - exponent);  // >= 23 - kManBits > 0
    if (shift >= 32) return {0u, 0u};  // |x| < 2^-8 steps
    const uint32_t kept = significand >> shift;
    const uint64_t dropped = significand & ((1u << shift) - 1u);
    // For normal targets `kept` carries the hidden bit (1 << kManBits), which supplies the +1 of
    // the biased exponent field; for subnormal targets target_exponent == kEmin and kept is the code.
    const uint32_t code = (static_cast<uint32_t>(target_exponent - kEmin) << kManBits) + kept;
    return {code, (dropped << 32) >> shift};
  }

  // Round-to-nearest-even magnitude code of finite or infinite |x|, saturated to kMaxMagCode.
  static uint32_t round_nearest_even(uint32_t abs_bits) {
    if (abs_bits >= 0x7F800000u) return kMaxMagCode;  // +-Inf (NaN is handled by the caller)
    const Split s = split(abs_bits);
    constexpr uint64_t kHalf = uint64_t{1} << (31);
    const bool up = s.fraction > kHalf || (s.fraction == kHalf && (s.code & 1u));
    const uint32_t code = s.code + (up ? 1u : 0u);  // a carry moves to the next binade exactly
    return code > kMaxMagCode ? kMaxMagCode : code;
  }

  // Stochastic rounding with 8 random bits by the carry rule: add the random byte to the top 8
  // dropped bits; a carry out rounds away from zero. P(away) = floor(256 f) / 256.
  static uint32_t round_stochastic(uint32_t abs_bits, uint8_t random_bits) {
    if (abs_bits >= 0x7F800000u) return kMaxMagCode;
    const Split s = split(abs_bits);
    if (s.code >= kMaxMagCode) return kMaxMagCode;
    const uint32_t top8 = static_cast<uint32_t>(s.fraction >> (24));
    const uint32_t code = s.code + ((top8 + random_bits) >> 8);
    return code > kMaxMagCode ? kMaxMagCode : code;
  }

  // Value of a finite magnitude code.
  static float decode_magnitude(uint32_t mag_code) {
    const uint32_t field = mag_code >> kManBits;
    const uint32_t fraction = mag_code & ((1u << kManBits) - 1u);
    if (field == 0) {  // subnormal: fraction * 2^(kEmin - kManBits)
      return static_cast<float>(fraction) * std::bit_cast<float>(static_cast<uint32_t>(kEmin - kManBits + 127) << 23);
    }
    const uint32_t bits = ((field - 1 + kEmin + 127) << 23) | (fraction << (23 - kManBits));
    return std::bit_cast<float>(bits);
  }
};

}  // namespace fp4lab::detail
