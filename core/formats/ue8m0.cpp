// UE8M0 scalar codec: the exponent-only code, read off the fp32 bit pattern (exact floor/ceil of
// log2, no fp32 log2 call). No block-scale rules here (see core/quant/block_scale.cpp).
#include "core/formats/ue8m0.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace fp4lab {

float ue8m0_decode(uint8_t code) {
  if (code == kUe8m0NanCode) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, ue8m0_unbiased_exponent(code));
}

int ue8m0_unbiased_exponent(uint8_t code) { return static_cast<int>(code) - 127; }

uint8_t ue8m0_encode_exponent(int exponent) {
  if (exponent < kUe8m0MinExponent) exponent = kUe8m0MinExponent;
  if (exponent > kUe8m0MaxExponent) exponent = kUe8m0MaxExponent;
  return static_cast<uint8_t>(exponent + 127);
}

int floor_log2_exact(float x) {
  const uint32_t abs_bits = std::bit_cast<uint32_t>(x) & 0x7FFFFFFFu;
  const int field = static_cast<int>(abs_bits >> 23);
  if (field != 0) return field - 127;
  return (31 - std::countl_zero(abs_bits)) - 149;  // subnormal: abs_bits * 2^-149
}

int ceil_log2_exact(float x) {
  const uint32_t abs_bits = std::bit_cast<uint32_t>(x) & 0x7FFFFFFFu;
  const bool normal = (abs_bits >> 23) != 0;
  const bool power_of_two = normal ? (abs_bits & 0x7FFFFFu) == 0 : std::has_single_bit(abs_bits);
  return floor_log2_exact(x) + (power_of_two ? 0 : 1);
}

uint8_t ue8m0_encode_floor(float x) {
  if (std::isnan(x)) return kUe8m0NanCode;
  if (std::isinf(x)) return ue8m0_encode_exponent(kUe8m0MaxExponent);
  if (x == 0.0f) return ue8m0_encode_exponent(kUe8m0MinExponent);
  return ue8m0_encode_exponent(floor_log2_exact(x));
}

uint8_t ue8m0_encode_ceil(float x) {
  if (std::isnan(x)) return kUe8m0NanCode;
  if (std::isinf(x)) return ue8m0_encode_exponent(kUe8m0MaxExponent);
  if (x == 0.0f) return ue8m0_encode_exponent(kUe8m0MinExponent);
  return ue8m0_encode_exponent(ceil_log2_exact(x));
}

}  // namespace fp4lab
