// FP8 E4M3 (bias 7, 3 fraction bits) and E5M2 (bias 15, 2 fraction bits) scalar codecs, on the
// fp32 bit pattern via the shared minifloat helper. Only the special codes differ per format.
#include "core/formats/fp8.hpp"

#include <bit>
#include <limits>

#include "core/formats/minifloat.hpp"

namespace fp4lab {
namespace {
constexpr detail::Minifloat kE4m3{/*man_bits=*/3, /*emin=*/-6, /*max_mag_code=*/0x7E};
constexpr detail::Minifloat kE5m2{/*man_bits=*/2, /*emin=*/-14, /*max_mag_code=*/0x7B};

uint8_t encode_rne(const detail::Minifloat& format, float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return kFp8NanCode;
  return static_cast<uint8_t>(((bits >> 24) & 0x80u) | format.round_nearest_even(abs_bits));
}

float with_sign(uint8_t code, float magnitude) { return (code & 0x80u) ? -magnitude : magnitude; }
}  // namespace

float fp8_e4m3_decode(uint8_t code) {
  if ((code & 0x7Fu) == 0x7Fu) return std::numeric_limits<float>::quiet_NaN();
  return with_sign(code, kE4m3.decode_magnitude(code & 0x7Fu));
}

uint8_t fp8_e4m3_encode_rne(float x) { return encode_rne(kE4m3, x); }

float fp8_e5m2_decode(uint8_t code) {
  const uint32_t magnitude = code & 0x7Fu;
  if (magnitude > 0x7Cu) return std::numeric_limits<float>::quiet_NaN();
  if (magnitude == 0x7Cu) return with_sign(code, std::numeric_limits<float>::infinity());
  return with_sign(code, kE5m2.decode_magnitude(magnitude));
}

uint8_t fp8_e5m2_encode_rne(float x) { return encode_rne(kE5m2, x); }

}  // namespace fp4lab
