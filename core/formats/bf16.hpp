// bfloat16: the top 16 bits of an fp32. Scalar codec with round-to-nearest-even from fp32 and,
// without double rounding, from fp64 (used for the exactly summed Hadamard transform outputs).
// Overflow rounds to +-Inf (no saturation); NaN stays NaN (quiet, sign kept); subnormals kept.
#pragma once
#include <cstdint>

namespace fp4lab {

constexpr float kBf16Max = 0x1.FEp127f;  // 0x7F7F

float bf16_decode(uint16_t code);
uint16_t bf16_encode_rne(float x);
uint16_t bf16_encode_rne_from_double(double x);  // one rounding of the double's exact value
inline float bf16_round(float x) { return bf16_decode(bf16_encode_rne(x)); }

}  // namespace fp4lab
