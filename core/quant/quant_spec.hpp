// QuantSpec: how one GEMM operand is quantized (element format, block, scale, tile, rounding, RHT).
// Plain data with named enum values; the recipe (core/model/recipe.hpp) picks one per operand. What
// each element format can do, and the named formats, are rows of core/quant/format_table.hpp.
// This file holds no numerics; see core/quant/quantize.hpp for the quantizer.
#pragma once
#include <cstdint>
#include <string>

#include "core/formats/enum_names.hpp"
#include "core/formats/ufloat.hpp"

namespace fp4lab {

// Each enum's names (configs, CLI flags, run files, reports) follow it (core/formats/enum_names.hpp).

enum class ElementFormat : uint8_t {
  none,      // pass-through fp32 (no quantization)
  bf16,      // round to bfloat16, RNE
  fp8_e4m3,  // OCP E4M3 "fn": max 448, satfinite, NaN 0x7F
  fp8_e5m2,  // OCP E5M2: max 57344, satfinite
  fp4_e2m1,  // OCP E2M1: max 6, NaN -> +6, sign of zero kept
};
template <>
struct EnumNames<ElementFormat> {
  static constexpr EnumName<ElementFormat> names[] = {{ElementFormat::none, "none"},
                                                      {ElementFormat::bf16, "bf16"},
                                                      {ElementFormat::fp8_e4m3, "fp8_e4m3"},
                                                      {ElementFormat::fp8_e5m2, "fp8_e5m2"},
                                                      {ElementFormat::fp4_e2m1, "fp4_e2m1"}};
};

enum class ScaleFormat : uint8_t {
  none,   // no scale: elements are cast directly (bf16, or raw FP8/FP4 casts); block must be 0
  fp32,   // one fp32 scale per block (block = 0: per tensor), TE current scaling: elements are
          // encoded as x * RN(max_elem / amax) and dequantized as value * RN(1 / scale)
  e4m3,   // NVFP4: E4M3 block scale under an fp32 per-tensor scale (NUMERICS.md, NVFP4)
  ue8m0,  // MX: power-of-two block scale (NUMERICS.md, MXFP4 and MXFP8), rule chosen by ScaleRule
  ufloat,  // NVFP4's two-level scaling with an unsigned minifloat block scale of any exponent and
           // mantissa width, bias and specials (QuantSpec::scale_exp_bits ..., core/formats/ufloat.hpp;
           // NUMERICS.md, Minifloat block scales); with E4M3's parameters it is e4m3 bit for bit
};
template <>
struct EnumNames<ScaleFormat> {
  static constexpr EnumName<ScaleFormat> names[] = {{ScaleFormat::none, "none"},
                                                    {ScaleFormat::fp32, "fp32"},
                                                    {ScaleFormat::e4m3, "e4m3"},
                                                    {ScaleFormat::ue8m0, "ue8m0"},
                                                    {ScaleFormat::ufloat, "ufloat"}};
  static constexpr EnumName<ScaleFormat> aliases[] = {{ScaleFormat::ue8m0, "e8m0"}};
};

enum class ScaleRule : uint8_t {
  floor,  // OCP MX / microxcaling: 2^(floor(log2 amax) - emax_elem); largest values may clip;
          // an all-zero block gives 2^-127, an infinite element the NaN scale 0xFF
  ceil,   // TE reference / MXFP8: 2^ceil(log2(RN(amax / max_elem))); never clips
          // (log2 exact on the fp32 bits in both rules; exponents clamped to [-127, 127])
};
template <>
struct EnumNames<ScaleRule> {
  static constexpr EnumName<ScaleRule> names[] = {{ScaleRule::floor, "floor"}, {ScaleRule::ceil, "ceil"}};
};

enum class Tile : uint8_t {
  d1,  // 1 x block along the contiguous (last) axis
  d2,  // block x block tiles (16 x 16 for NVFP4; weights): one scale per tile, still stored once
       // per row and block; Q(W^T) == Q(W)^T bit for bit (without SR and RHT)
};
template <>
struct EnumNames<Tile> {
  static constexpr EnumName<Tile> names[] = {{Tile::d1, "1d"}, {Tile::d2, "2d"}};
};

enum class Rounding : uint8_t {
  rne,  // round to nearest, ties to even
  sr,   // stochastic rounding with 8 random bits per element (NUMERICS.md, Rounding); FP4 only
};
template <>
struct EnumNames<Rounding> {
  static constexpr EnumName<Rounding> names[] = {{Rounding::rne, "rne"}, {Rounding::sr, "sr"}};
};

enum class BlockScaleFormula : uint8_t {
  te_2_14,  // TE >= 2.14: RN(block_amax * RN(S_enc * RN(1/6)))   (default; NUMERICS.md, NVFP4 step 2)
  te_2_13,  // TE 2.8..2.13: RN(RN(block_amax / 6) * S_enc)
};
template <>
struct EnumNames<BlockScaleFormula> {
  static constexpr EnumName<BlockScaleFormula> names[] = {{BlockScaleFormula::te_2_14, "te_2_14"},
                                                          {BlockScaleFormula::te_2_13, "te_2_13"}};
  static constexpr EnumName<BlockScaleFormula> aliases[] = {{BlockScaleFormula::te_2_14, "2.14"},
                                                            {BlockScaleFormula::te_2_13, "2.13"}};
};

enum class OperandDtype : uint8_t {
  inherit,  // the recipe's recipe.operand_dtype (resolve_linear); fp32 for a bare QuantSpec
  fp32,     // the fp32 tensor as is
  bf16,     // rounded to bf16 (RNE) first, as TE quantizes bf16 tensors: amax, RHT, block scales
            // and codes all come from the bf16 values
};
template <>
struct EnumNames<OperandDtype> {
  static constexpr EnumName<OperandDtype> names[] = {
      {OperandDtype::inherit, "inherit"}, {OperandDtype::fp32, "fp32"}, {OperandDtype::bf16, "bf16"}};
};

enum class FourOverSix : uint8_t {
  off,
  mae,  // TE 4over6 (NUMERICS.md, TE dialects): per block (or 16x16 tile) keep map-to-4 when its
        // summed |error| is smaller
  mse,  // same with the summed squared error
};
template <>
struct EnumNames<FourOverSix> {
  static constexpr EnumName<FourOverSix> names[] = {
      {FourOverSix::off, "off"}, {FourOverSix::mae, "mae"}, {FourOverSix::mse, "mse"}};
  static constexpr EnumName<FourOverSix> aliases[] = {{FourOverSix::mae, "MAE"}, {FourOverSix::mse, "MSE"}};
};

enum class Scaling : uint8_t {
  current,  // the scale comes from this tensor's amax (TE current scaling)
  delayed,  // per-tensor fp32 scale from an amax history of earlier steps (TE DelayedScaling);
            // quantize() takes the scale as an argument; the history lives in the linear's state
};
template <>
struct EnumNames<Scaling> {
  static constexpr EnumName<Scaling> names[] = {{Scaling::current, "current"}, {Scaling::delayed, "delayed"}};
};

// Where the backward copy of X (wgrad_x) or W (dgrad_w) is quantized from.
enum class CopySource : uint8_t {
  input,  // the original tensor (TE default, columnwise_source="original")
  fprop,  // the dequantized forward copy Q(X) or Q(W) (TE columnwise_source="rowwise_dequantized")
};
template <>
struct EnumNames<CopySource> {
  static constexpr EnumName<CopySource> names[] = {{CopySource::input, "input"}, {CopySource::fprop, "fprop"}};
  static constexpr EnumName<CopySource> aliases[] = {{CopySource::input, "original"},
                                                     {CopySource::fprop, "rowwise_dequantized"}};
};

template <>
struct EnumNames<UfloatSpecials> {
  static constexpr EnumName<UfloatSpecials> names[] = {
      {UfloatSpecials::fn, "fn"}, {UfloatSpecials::ieee, "ieee"}, {UfloatSpecials::finite, "finite"}};
};

template <>
struct EnumNames<UfloatRounding> {
  static constexpr EnumName<UfloatRounding> names[] = {
      {UfloatRounding::nearest, "nearest"}, {UfloatRounding::up, "up"}, {UfloatRounding::down, "down"}};
};

struct QuantSpec {
  ElementFormat element = ElementFormat::none;
  int block = 0;  // elements per block along the last axis; 0 = one scale for the whole tensor
  ScaleFormat scale = ScaleFormat::none;
  ScaleRule scale_rule = ScaleRule::floor;
  Tile tile = Tile::d1;
  Rounding rounding = Rounding::rne;
  bool rht = false;        // random Hadamard transform along the last axis before quantizing
  int rht_size = 16;       // transform length (power of two)
  uint64_t rht_sign_seed = 0;  // 0: TE's fixed sign mask 0xD7E8 (size 16; other sizes use the
                               // Philox signs of seed 0); otherwise a seeded random sign vector
  BlockScaleFormula formula = BlockScaleFormula::te_2_14;
  OperandDtype operand_dtype = OperandDtype::inherit;
  FourOverSix four_over_six = FourOverSix::off;
  int global_e4m3_max = 448;  // Q of NVFP4's tensor scale S_enc = RN(RN(6 Q) / amax): 448, or 256
                              // with 4over6 (so map-to-4's 1.5x block scale cannot saturate)
  bool row_scaled = false;    // NVFP4 with one fp32 amax per row instead of per tensor (TE
                              // NVTE_NVFP4_ROW_SCALED_ACTIVATION; 1D tiles)
  Scaling scaling = Scaling::current;
  CopySource source = CopySource::input;  // dgrad_w and wgrad_x only (validate(LinearRecipe))
  // The ufloat block-scale format (scale ufloat only); the defaults are E4M3's (UE4M3, fn).
  int scale_exp_bits = 4;
  int scale_man_bits = 3;
  int scale_bias = 7;
  UfloatSpecials scale_specials = UfloatSpecials::fn;
  // How the fp32 block scale is rounded to an e4m3 or ufloat scale grid, then saturated: nearest
  // (even; TE), up (no element exceeds 6 unless the scale saturates: NUMERICS.md) or down.
  UfloatRounding scale_round = UfloatRounding::nearest;
  int encode_window = 0;  // NVFP4 local encode scale: W elements along the last axis (W x W squares
                          // for 2d tiles) share one fp32 S_enc from their own amax (TE's proposed
                          // 1x64 local encode, NUMERICS.md); 0 = one S_enc per tensor

  bool quantized() const { return element != ElementFormat::none; }
  bool operator==(const QuantSpec&) const = default;
};

// One-line human description, e.g. "fp4_e2m1/16 e4m3 2d rne" or "fp4_e2m1/16 e4m3 1d sr rht16".
std::string describe(const QuantSpec&);

// The grid a block scale code lives on: E4M3 read as unsigned (4, 3, bias 7, fn) for e4m3 scales, the
// spec's scale_exp_bits, scale_man_bits, scale_bias and scale_specials for ufloat.
Ufloat block_scale_grid(const QuantSpec&);

// Why `spec` is impossible on a last axis of length `cols` (and `rows` for 2D tiles), or "" if valid:
// a one-line message. Rules: block divides cols; 2D tiles need a block and rows % block == 0; SR only
// on fp4_e2m1; e4m3 and ufloat scales only with fp4_e2m1; e4m3/ufloat/ue8m0 need block > 0; a
// ufloat grid passes ufloat_problem() and its fields stay at their defaults for other scales;
// scale_round only on e4m3/ufloat scales; scale none needs block 0;
// bf16/none take no scale or tile; rht_size a power of two >= 2 dividing cols; no rht on none;
// 4over6 only on NVFP4 (fp4_e2m1/16 e4m3; with RNE or SR, with or without RHT; scale_round
// nearest); global_e4m3_max 448, or 256 with 4over6; row_scaled only on 1D NVFP4 (e4m3 or ufloat);
// delayed scaling only with a per-tensor fp32 scale; encode_window only on NVFP4 without 4over6 or
// row_scaled, a multiple of the block dividing cols (and rows for 2D tiles).
std::string validate(const QuantSpec& spec, int64_t rows, int64_t cols);

}  // namespace fp4lab
