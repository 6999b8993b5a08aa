// Unsigned minifloat codec with run-time parameters, on the fp32 bit pattern via the shared
// minifloat helper (the same rounding code as E2M1, E4M3 and E5M2).
#include "core/formats/ufloat.hpp"

#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>

#include "core/formats/minifloat.hpp"

namespace fp4lab {
namespace {

detail::Minifloat grid(const Ufloat& f) { return detail::Minifloat{f.man_bits, 1 - f.bias, f.max_code()}; }

uint32_t all_ones_field(const Ufloat& f) { return (1u << f.exp_bits) - 1u; }

}  // namespace

uint32_t Ufloat::max_code() const {
  switch (specials) {
    case UfloatSpecials::fn: return code_count() - 2;
    case UfloatSpecials::ieee: return (all_ones_field(*this) << man_bits) - 1;
    case UfloatSpecials::finite: break;
  }
  return code_count() - 1;
}

float Ufloat::max_value() const { return decode(max_code()); }

uint32_t Ufloat::nan_code() const { return specials == UfloatSpecials::finite ? max_code() : code_count() - 1; }

float Ufloat::decode(uint32_t code) const {
  if (code >= code_count()) return std::numeric_limits<float>::quiet_NaN();
  if (code > max_code()) {  // fn: the all-ones code; ieee: the all-ones exponent field
    const bool inf = specials == UfloatSpecials::ieee && (code & ((1u << man_bits) - 1u)) == 0;
    return inf ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  }
  return grid(*this).decode_magnitude(code);
}

uint32_t Ufloat::encode(float x, UfloatRounding rounding) const {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return nan_code();
  if (bits >> 31) return 0;  // negative (-0 and -Inf included): an unsigned format's 0
  const detail::Minifloat g = grid(*this);
  switch (rounding) {
    case UfloatRounding::nearest: return g.round_nearest_even(bits);
    case UfloatRounding::up: return g.round_away_from_zero(bits);
    case UfloatRounding::down: return g.round_toward_zero(bits);
  }
  return 0;
}

std::string ufloat_problem(const Ufloat& f) {
  const std::string name = "ufloat scale " + ufloat_name(f);
  if (f.exp_bits < 1 || f.exp_bits > 8) return name + ": exponent bits must be 1 to 8";
  if (f.man_bits < 0 || f.man_bits > 7) return name + ": mantissa bits must be 0 to 7";
  if (f.exp_bits + f.man_bits > 8) return name + ": exponent + mantissa bits must be at most 8 (one byte per scale)";
  if (f.specials == UfloatSpecials::ieee && f.man_bits == 0) return name + ": ieee specials need a mantissa bit (NaN codes)";
  if (f.max_code() == 0) return name + ": has no positive finite value";
  // The subnormal step 2^(1 - bias - man_bits) must be an fp32 normal (the decoder builds it from
  // its bits), and the top finite binade 2^(field - bias) must stay below 2^128 with 6 v finite.
  if (1 - f.bias - f.man_bits < -126) return name + ": bias too large (smallest step below 2^-126)";
  const int top_field = static_cast<int>(f.max_code() >> f.man_bits);
  const double max_value = std::ldexp(1.0 + double(f.max_code() & ((1u << f.man_bits) - 1u)) / double(1u << f.man_bits),
                                      (top_field == 0 ? 1 : top_field) - f.bias) -
                           (top_field == 0 ? std::ldexp(1.0, 1 - f.bias) : 0.0);
  if (6.0 * max_value > double(FLT_MAX)) return name + ": bias too small (6 x the largest value exceeds FLT_MAX)";
  return "";
}

std::string ufloat_name(const Ufloat& f) {
  std::string name = "ue" + std::to_string(f.exp_bits) + "m" + std::to_string(f.man_bits);
  if (f.exp_bits >= 1 && f.exp_bits <= 31 && f.bias != (1 << (f.exp_bits - 1)) - 1) name += "-b" + std::to_string(f.bias);
  if (f.specials == UfloatSpecials::ieee) name += "-ieee";
  if (f.specials == UfloatSpecials::finite) name += "-finite";
  return name;
}

}  // namespace fp4lab
