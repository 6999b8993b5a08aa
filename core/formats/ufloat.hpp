// Unsigned minifloats whose parameters are chosen at run time, for block scales: `exp_bits`
// exponent and `man_bits` mantissa bits (at most 8 together, so a code fits one byte), an exponent
// bias and a convention for the top codes. Field 0 holds zero and the subnormals, as in IEEE 754.
// UE4M3 (4, 3, bias 7, fn) is NVFP4's E4M3 scale without its sign bit; UE5M3 (5, 3, bias 15, fn)
// is the block scale of TransformerEngine's prototype NVFP4 with UE5M3 scales (max 114688).
// Scalar bit-level codec only; the block quantizer is core/quant.
#pragma once
#include <cstdint>
#include <string>

namespace fp4lab {

// Which codes are not numbers.
enum class UfloatSpecials : uint8_t {
  fn,      // only the all-ones code is NaN, no Inf (OCP E4M3 "fn", PTX ue4m3 / ue5m3)
  ieee,    // the all-ones exponent field is +Inf (mantissa 0) or NaN (IEEE 754; needs man_bits >= 1)
  finite,  // every code is a number; no NaN, no Inf
};

// How a value between two grid points is rounded (then saturated to the largest finite value).
enum class UfloatRounding : uint8_t {
  nearest,  // to nearest, ties to the even code
  up,       // toward +Inf: the smallest grid value >= x
  down,     // toward zero: the largest grid value <= x
};

struct Ufloat {
  int exp_bits = 4;
  int man_bits = 3;
  int bias = 7;
  UfloatSpecials specials = UfloatSpecials::fn;

  bool operator==(const Ufloat&) const = default;

  uint32_t code_count() const { return 1u << (exp_bits + man_bits); }
  uint32_t max_code() const;  // the largest finite code (the largest value: codes are ordered)
  float max_value() const;    // decode(max_code())
  // What NaN encodes as: the all-ones code (fn, ieee), or max_code() (finite, which has no NaN).
  uint32_t nan_code() const;
  // The value of a code: NaN and +Inf codes by `specials`; codes >= code_count() read NaN.
  float decode(uint32_t code) const;
  // x >= 0 rounded to the grid, saturating (satfinite: values above the largest finite value and
  // +Inf give max_code()). Negative x and -0 give 0 (code 0), NaN gives nan_code().
  uint32_t encode(float x, UfloatRounding rounding = UfloatRounding::nearest) const;
};

// Why `f` cannot be a block-scale format, or "": bit counts (exp_bits 1..8, man_bits 0..7, at most
// 8 together), ieee without a mantissa bit, no positive finite value, a subnormal step below
// FLT_MIN, or a largest value v with 6 v beyond FLT_MAX (NVFP4's tensor scale needs RN(6 v)).
std::string ufloat_problem(const Ufloat& f);

// "ue5m3"; with "-b<bias>" when the bias is not 2^(exp_bits-1) - 1 and "-ieee" / "-finite" for
// those conventions, e.g. "ue5m3-b14-finite".
std::string ufloat_name(const Ufloat& f);

}  // namespace fp4lab
