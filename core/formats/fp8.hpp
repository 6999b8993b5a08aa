// FP8 E4M3 ("fn": no Inf, max 448, NaN = 0x7F/0xFF) and E5M2 (IEEE-like: Inf, NaN, max 57344):
// scalar bit-level codecs. Encoders round to nearest even and saturate (satfinite, as
// __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...)): finite overflow and +-Inf -> +-max, NaN -> 0x7F.
// Subnormals are kept; the sign of zero is kept. Not the block quantizer (core/quant).
#pragma once
#include <cstdint>

namespace fp4lab {

constexpr float kFp8E4m3Max = 448.0f;    // 0x7E
constexpr int kFp8E4m3Emax = 8;          // 448 = 1.75 * 2^8
constexpr float kFp8E5m2Max = 57344.0f;  // 0x7B
constexpr int kFp8E5m2Emax = 15;         // 57344 = 1.75 * 2^15
constexpr uint8_t kFp8NanCode = 0x7F;    // what both encoders return for NaN

float fp8_e4m3_decode(uint8_t code);   // 0x7F, 0xFF -> NaN
uint8_t fp8_e4m3_encode_rne(float x);  // e.g. 2^-10 -> 0x00, 1.5*2^-10 -> 0x01, 1.0625 -> 0x38

float fp8_e5m2_decode(uint8_t code);   // 0x7C/0xFC -> +-Inf, 0x7D..0x7F and 0xFD..0xFF -> NaN
uint8_t fp8_e5m2_encode_rne(float x);  // +-Inf -> +-57344 (0x7B/0xFB)

}  // namespace fp4lab
