// UE8M0 (OCP MX shared scale): an unsigned power of two 2^(code - 127), code 0xFF = NaN.
// Scalar codec with the two rounding directions hardware offers for it (CUDA
// __nv_cvt_float_to_e8m0: toward zero and toward +Inf; there is no round-to-nearest mode, so none
// is defined here). The MX block-scale rules built on these live in core/quant.
#pragma once
#include <cstdint>

namespace fp4lab {

constexpr uint8_t kUe8m0NanCode = 0xFF;
constexpr int kUe8m0MinExponent = -127;  // code 0x00 = 2^-127 (an fp32 subnormal)
constexpr int kUe8m0MaxExponent = 127;   // code 0xFE = 2^127

float ue8m0_decode(uint8_t code);  // 2^(code - 127), exact in fp32; 0xFF -> NaN
int ue8m0_unbiased_exponent(uint8_t code);  // code - 127 (for finite codes)

// 2^e with e clamped to [-127, 127].
uint8_t ue8m0_encode_exponent(int exponent);

// Exact floor(log2|x|) / ceil(log2|x|) of a finite nonzero fp32 value (subnormals included).
int floor_log2_exact(float x);
int ceil_log2_exact(float x);

// Largest power of two <= |x| (round toward zero) and smallest power of two >= |x| (round up),
// exponents clamped to [-127, 127] (so 0 -> 0x00), +-Inf -> 0xFE (satfinite), NaN -> 0xFF.
uint8_t ue8m0_encode_floor(float x);
uint8_t ue8m0_encode_ceil(float x);

}  // namespace fp4lab
