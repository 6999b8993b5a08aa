// FP4 E2M1 (OCP MX element format, NVFP4 element): scalar bit-level codec (core/quant/NUMERICS.md,
// Element formats and Rounding).
// Codes 0..15, magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6}, code 8 is -0, no Inf/NaN encodings.
// Encoders saturate to +-6 (satfinite), send NaN to +6 (code 7) and keep the sign of zero.
// Not the block quantizer (core/quant) and not a packed (two codes per byte) layout.
#pragma once
#include <cstdint>

namespace fp4lab {

constexpr float kFp4E2m1Max = 6.0f;
constexpr int kFp4E2m1Emax = 2;     // exponent of the largest binade: 6 = 1.5 * 2^2 (OCP emax_elem)
constexpr uint8_t kFp4E2m1NanCode = 0x7;  // NaN -> +6, as cvt.rn.satfinite.e2m1x2.f32

// Value of the low nibble of `code` (8 -> -0.0f).
float fp4_e2m1_decode(uint8_t code);

// Round to nearest, ties to even (0.25->0, 0.75->1, 1.25->1, 1.75->2, 2.5->2, 3.5->4, 5->4),
// satfinite (|x| > 6 and +-Inf -> +-6), NaN -> 7, -0 and small negatives -> 8.
uint8_t fp4_e2m1_encode_rne(float x);

// Stochastic rounding with one random byte: between the two neighbouring grid points, round away
// from zero iff random_bits + floor(256 f) >= 256, f the distance above the lower point in steps
// (the carry rule; P(away) = floor(256 f)/256). Saturation, NaN and signed zero as in _rne.
uint8_t fp4_e2m1_encode_sr(float x, uint8_t random_bits);

}  // namespace fp4lab
