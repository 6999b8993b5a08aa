// FP4 E2M1 scalar codec: sign bit 3, two exponent bits (bias 1), one fraction bit.
// Rounding is done on the fp32 bit pattern by the shared minifloat helper.
#include "core/formats/fp4_e2m1.hpp"

#include <bit>

#include "core/formats/minifloat.hpp"

namespace fp4lab {
namespace {
constexpr detail::Minifloat kE2m1{/*man_bits=*/1, /*emin=*/0, /*max_mag_code=*/0x7};

uint8_t with_sign(uint32_t bits, uint32_t magnitude_code) {
  return static_cast<uint8_t>(((bits >> 28) & 0x8u) | magnitude_code);
}
}  // namespace

float fp4_e2m1_decode(uint8_t code) {
  const float magnitude = kE2m1.decode_magnitude(code & 0x7u);
  return (code & 0x8u) ? -magnitude : magnitude;
}

uint8_t fp4_e2m1_encode_rne(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return kFp4E2m1NanCode;
  return with_sign(bits, kE2m1.round_nearest_even(abs_bits));
}

uint8_t fp4_e2m1_encode_sr(float x, uint8_t random_bits) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return kFp4E2m1NanCode;
  return with_sign(bits, kE2m1.round_stochastic(abs_bits, random_bits));
}

}  // namespace fp4lab
