// Internal: bit-level scalar codec shared by the small IEEE-like formats (E2M1, E4M3, E5M2 and the
// unsigned block-scale minifloats of ufloat.hpp). Round-to-nearest-even, toward zero or away from
// zero with satfinite, and truncation plus the fraction below the kept bits (for stochastic
// rounding). Not a public API: use fp4_e2m1.hpp, fp8.hpp and ufloat.hpp.
#pragma once
#include <bit>
#include <cstdint>

namespace fp4lab::detail {

// A sign-magnitude binary format with `man_bits` fraction bits and minimum normal exponent
// `emin` (unbiased). Magnitude codes are (biased exponent << man_bits) | fraction, with the
// exponent field 0 holding subnormals. `max_mag_code` is the largest finite magnitude code.
// The fixed formats hold one as a constexpr object, so their parameters fold at compile time.
struct Minifloat {
  int man_bits;
  int emin;
  uint32_t max_mag_code;

  // |x| (finite fp32) as the magnitude code of the grid point at or below it (may exceed
  // max_mag_code; callers saturate) and the distance above that point in units of one step, as a
  // 0.32 fixed-point fraction (exact; when 32 or more bits are dropped |x| is under 2^-8 of a step:
  // the fraction is then 1, a sticky bit that only directed rounding away from zero reads, or 0
  // for x = 0).
  struct Split {
    uint32_t code;
    uint64_t fraction;
  };

  constexpr Split split(uint32_t abs_bits) const {
    const int field = static_cast<int>(abs_bits >> 23);
    // |x| = significand * 2^(exponent - 23) with a 24-bit significand (no hidden bit for fp32
    // subnormals, whose field 0 means exponent -126).
    const uint32_t significand = field ? ((abs_bits & 0x7FFFFFu) | 0x800000u) : abs_bits;
    const int exponent = field ? field - 127 : -126;
    // The target's step at |x| is 2^(max(exponent, emin) - man_bits).
    const int target_exponent = exponent > emin ? exponent : emin;
    const int shift = 23 - man_bits + (target_exponent - exponent);  // >= 23 - man_bits > 0
    if (shift >= 32) return {0u, significand != 0 ? 1u : 0u};  // |x| < 2^-8 steps
    const uint32_t kept = significand >> shift;
    const uint64_t dropped = significand & ((1u << shift) - 1u);
    // For normal targets `kept` carries the hidden bit (1 << man_bits), which supplies the +1 of
    // the biased exponent field; for subnormal targets target_exponent == emin and kept is the code.
    const uint32_t code = (static_cast<uint32_t>(target_exponent - emin) << man_bits) + kept;
    return {code, (dropped << 32) >> shift};
  }

  constexpr uint32_t saturate(uint32_t code) const { return code > max_mag_code ? max_mag_code : code; }

  // Round-to-nearest-even magnitude code of finite or infinite |x|, saturated to max_mag_code.
  constexpr uint32_t round_nearest_even(uint32_t abs_bits) const {
    if (abs_bits >= 0x7F800000u) return max_mag_code;  // +-Inf (NaN is handled by the caller)
    const Split s = split(abs_bits);
    constexpr uint64_t kHalf = uint64_t{1} << (31);
    const bool up = s.fraction > kHalf || (s.fraction == kHalf && (s.code & 1u));
    return saturate(s.code + (up ? 1u : 0u));  // a carry moves to the next binade exactly
  }

  // Directed rounding of |x| toward zero (truncation) or away from zero (any nonzero fraction
  // carries), saturated to max_mag_code.
  constexpr uint32_t round_toward_zero(uint32_t abs_bits) const {
    if (abs_bits >= 0x7F800000u) return max_mag_code;
    return saturate(split(abs_bits).code);
  }
  constexpr uint32_t round_away_from_zero(uint32_t abs_bits) const {
    if (abs_bits >= 0x7F800000u) return max_mag_code;
    const Split s = split(abs_bits);
    return saturate(s.code + (s.fraction != 0 ? 1u : 0u));
  }

  // Stochastic rounding with 8 random bits by the carry rule: add the random byte to the top 8
  // dropped bits; a carry out rounds away from zero. P(away) = floor(256 f) / 256.
  constexpr uint32_t round_stochastic(uint32_t abs_bits, uint8_t random_bits) const {
    if (abs_bits >= 0x7F800000u) return max_mag_code;
    const Split s = split(abs_bits);
    if (s.code >= max_mag_code) return max_mag_code;
    const uint32_t top8 = static_cast<uint32_t>(s.fraction >> (24));
    return saturate(s.code + ((top8 + random_bits) >> 8));
  }

  // Value of a finite magnitude code.
  float decode_magnitude(uint32_t mag_code) const {
    const uint32_t field = mag_code >> man_bits;
    const uint32_t fraction = mag_code & ((1u << man_bits) - 1u);
    if (field == 0) {  // subnormal: fraction * 2^(emin - man_bits)
      return static_cast<float>(fraction) * std::bit_cast<float>(static_cast<uint32_t>(emin - man_bits + 127) << 23);
    }
    const uint32_t bits = ((field - 1 + emin + 127) << 23) | (fraction << (23 - man_bits));
    return std::bit_cast<float>(bits);
  }
};

}  // namespace fp4lab::detail
