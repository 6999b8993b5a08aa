// bfloat16 scalar codec on bit patterns. The fp64 path rounds the 52-bit fraction straight to 7
// bits (normal range) or the double straight to a multiple of 2^-133 (subnormal range).
#include "core/formats/bf16.hpp"

#include <bit>
#include <cmath>

namespace fp4lab {

float bf16_decode(uint16_t code) { return std::bit_cast<float>(static_cast<uint32_t>(code) << 16); }

uint16_t bf16_encode_rne(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  const uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);  // a carry moves the exponent
  return static_cast<uint16_t>(rounded >> 16);
}

uint16_t bf16_encode_rne_from_double(double x) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  const double magnitude = std::fabs(x);
  if (std::isnan(x)) return static_cast<uint16_t>(sign | 0x7FC0u);
  if (magnitude < 0x1p-126) {  // subnormal (or zero) bf16: a multiple of 2^-133, at most 2^-126
    const double units = std::nearbyint(magnitude * 0x1p133);  // exact scaling, RNE to integer
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));  // 128 -> min normal 0x0080
  }
  constexpr int kDropped = 52 - 7;
  const uint64_t abs_bits = bits & 0x7FFFFFFFFFFFFFFFull;
  const uint64_t rounded = abs_bits + ((uint64_t{1} << (kDropped - 1)) - 1) + ((abs_bits >> kDropped) & 1u);
  const int exponent = static_cast<int>(rounded >> 52) - 1023;
  if (exponent > 127) return static_cast<uint16_t>(sign | 0x7F80u);  // overflow (or Inf) -> Inf
  const uint32_t fraction = static_cast<uint32_t>((rounded >> kDropped) & 0x7Fu);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent + 127) << 7) | fraction);
}

}  // namespace fp4lab
