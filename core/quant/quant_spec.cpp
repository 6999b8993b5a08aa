// QuantSpec one-line descriptions and validation.
// No numerics here.
#include "core/quant/quant_spec.hpp"

#include <type_traits>

#include "core/quant/format_table.hpp"

namespace fp4lab {
namespace {

// Concatenates strings and integers by appending (GCC 12 warns falsely on "literal" + std::string).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  auto append = [&out](const auto& part) {
    if constexpr (std::is_integral_v<std::decay_t<decltype(part)>>) out += std::to_string(part);
    else out += part;
  };
  (append(parts), ...);
  return out;
}

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The element formats that have `flag`, e.g. "fp4_e2m1" (for error messages).
std::string elements_with(bool ElementFormatInfo::*flag) {
  std::string names;
  for (const ElementFormatInfo& e : element_formats())
    if (e.*flag) names += (names.empty() ? "" : " or ") + to_string(e.id);
  return names;
}

}  // namespace

std::string describe(const QuantSpec& s) {
  if (!s.quantized()) return "none";
  std::string d = to_string(s.element);
  if (s.scale != ScaleFormat::none) {
    d += s.block > 0 ? cat("/", s.block) : std::string("/tensor");
    d += cat(" ", s.scale == ScaleFormat::ufloat ? ufloat_name(block_scale_grid(s)) : to_string(s.scale));
    if (s.scale == ScaleFormat::ue8m0) d += cat("-", to_string(s.scale_rule));
    d += cat(" ", to_string(s.tile));
  }
  d += cat(" ", to_string(s.rounding));
  if (s.rht) {
    d += cat(" rht", s.rht_size);
    if (s.rht_sign_seed != 0) d += cat(":", s.rht_sign_seed);
  }
  if (s.scale == ScaleFormat::e4m3 && s.formula != BlockScaleFormula::te_2_14 && s.four_over_six == FourOverSix::off)
    d += cat(" ", to_string(s.formula));
  if (s.four_over_six != FourOverSix::off) d += cat(" 4over6-", to_string(s.four_over_six));
  if (s.global_e4m3_max != 448) d += cat(" q", s.global_e4m3_max);
  if (s.row_scaled) d += " row-scaled";
  if (s.scaling == Scaling::delayed) d += " delayed";
  if (s.operand_dtype == OperandDtype::bf16) d += " bf16-in";
  if (s.source == CopySource::fprop) d += " from-fprop";
  if (s.scale_round != UfloatRounding::nearest) d += cat(" scale-", to_string(s.scale_round));
  if (s.encode_window > 0) d += cat(" window", s.encode_window);
  return d;
}

Ufloat block_scale_grid(const QuantSpec& s) {
  if (s.scale != ScaleFormat::ufloat) return Ufloat{};  // E4M3's parameters
  return Ufloat{s.scale_exp_bits, s.scale_man_bits, s.scale_bias, s.scale_specials};
}

std::string validate(const QuantSpec& s, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0) return cat("negative shape ", rows, "x", cols);
  const std::string element = to_string(s.element);
  if (s.block < 0) return cat("block size ", s.block, " is negative");
  const ElementFormatInfo& info = element_info(s.element);
  if (s.rounding == Rounding::sr && !info.stochastic_rounding)
    return cat("stochastic rounding is only defined for ", elements_with(&ElementFormatInfo::stochastic_rounding),
               " elements, not ", element);
  if (!info.scaled) {
    if (s.scale != ScaleFormat::none || s.block != 0 || s.tile != Tile::d1)
      return cat(element, " takes no scale, block or tile options");
    if (s.element == ElementFormat::none && s.rht)
      return "rht needs a quantized element format (its output is rounded to bf16)";
  } else if (!info.two_level_scales && (s.scale == ScaleFormat::e4m3 || s.scale == ScaleFormat::ufloat)) {
    return cat(s.scale == ScaleFormat::ufloat ? "a " : "an ", to_string(s.scale), " block scale needs ",
               elements_with(&ElementFormatInfo::two_level_scales), " elements (NVFP4), not ", element);
  }
  if (s.scale == ScaleFormat::none && s.block != 0)
    return cat("block size ", s.block, " needs a scale format (scale is none)");
  const bool minifloat_scale = s.scale == ScaleFormat::e4m3 || s.scale == ScaleFormat::ufloat;
  if ((minifloat_scale || s.scale == ScaleFormat::ue8m0) && s.block == 0)
    return cat(s.scale == ScaleFormat::ufloat ? "a " : "an ", to_string(s.scale), " block scale needs a block size > 0");
  if (s.scale == ScaleFormat::none && s.tile != Tile::d1) return "2d tiles need a block scale";
  if (s.block > 0 && cols % s.block != 0)
    return cat("block size ", s.block, " does not divide the last axis (", cols, ")");
  if (s.tile == Tile::d2) {
    if (s.block == 0) return "2d tiles need a block size > 0 (tiles are block x block)";
    if (rows % s.block != 0)
      return cat("2d tiles of ", s.block, "x", s.block, " do not divide the first axis (", rows, ")");
  }
  if (s.scale == ScaleFormat::ufloat) {
    if (const std::string problem = ufloat_problem(block_scale_grid(s)); !problem.empty()) return problem;
  } else if (block_scale_grid(s) != Ufloat{s.scale_exp_bits, s.scale_man_bits, s.scale_bias, s.scale_specials}) {
    return cat("scale_exp_bits, scale_man_bits, scale_bias and scale_specials describe a ufloat scale, not ",
               to_string(s.scale));
  }
  if (s.scale_round != UfloatRounding::nearest && !minifloat_scale)
    return cat("scale_round ", to_string(s.scale_round), " needs e4m3 or ufloat block scales, not ", to_string(s.scale));
  const bool nvfp4 = s.element == ElementFormat::fp4_e2m1 && s.scale == ScaleFormat::e4m3 && s.block == 16;
  if (s.four_over_six != FourOverSix::off) {
    if (!nvfp4) return "4over6 needs NVFP4 (fp4_e2m1, block 16, e4m3 scales)";
  }
  if (s.four_over_six != FourOverSix::off && s.scale_round != UfloatRounding::nearest)
    return "4over6 rounds its candidate scales to nearest: it takes no scale_round";
  if (s.global_e4m3_max != 448 && !(s.global_e4m3_max == 256 && s.four_over_six != FourOverSix::off))
    return cat("global_e4m3_max ", s.global_e4m3_max, ": must be 448, or 256 with 4over6");
  if (s.row_scaled && !(minifloat_scale && s.tile == Tile::d1))
    return "row_scaled needs NVFP4 (e4m3 or ufloat) scales with 1d blocks";
  if (s.scaling == Scaling::delayed && !(s.scale == ScaleFormat::fp32 && s.block == 0))
    return "delayed scaling needs a per-tensor fp32 scale (scale fp32, block 0)";
  if (s.encode_window < 0) return cat("encode_window ", s.encode_window, " is negative");
  if (s.encode_window > 0) {
    if (!nvfp4) return "encode_window needs NVFP4 (fp4_e2m1, block 16, e4m3 scales)";
    if (s.scale_round != UfloatRounding::nearest) return "encode_window rounds its block scales to nearest: it takes no scale_round";
    if (s.four_over_six != FourOverSix::off || s.row_scaled)
      return "encode_window replaces the tensor (or row) amax: it takes no 4over6 or row_scaled";
    if (s.encode_window % s.block != 0)
      return cat("encode_window ", s.encode_window, " is not a multiple of the block (", s.block, ")");
    if (cols % s.encode_window != 0)
      return cat("encode_window ", s.encode_window, " does not divide the last axis (", cols, ")");
    if (s.tile == Tile::d2 && rows % s.encode_window != 0)
      return cat("2d tiles take ", s.encode_window, "x", s.encode_window, " windows, which do not divide the first axis (",
                 rows, ")");
  }
  if (s.rht) {
    if (!is_power_of_two(s.rht_size) || s.rht_size < 2)
      return cat("rht_size ", s.rht_size, " is not a power of two >= 2");
    if (cols % s.rht_size != 0)
      return cat("rht_size ", s.rht_size, " does not divide the last axis (", cols, ")");
  }
  return "";
}

}  // namespace fp4lab
