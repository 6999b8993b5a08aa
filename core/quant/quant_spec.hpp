// QuantSpec: how one GEMM operand is quantized (element format, block, scale, tile, rounding, RHT).
// Plain data with named enum values; the recipe (core/model/recipe.hpp) picks one per operand.
// This file holds no numerics; see core/quant/quantize.hpp for the quantizer.
#pragma once
#include <cstdint>
#include <string>

namespace fp4lab {

enum class ElementFormat : uint8_t {
  none,      // pass-through fp32 (no quantization)
  bf16,      // round to bfloat16, RNE
  fp8_e4m3,  // OCP E4M3 "fn": max 448, satfinite, NaN 0x7F
  fp8_e5m2,  // OCP E5M2: max 57344, satfinite
  fp4_e2m1,  // OCP E2M1: max 6, NaN -> +6, sign of zero kept
};

enum class ScaleFormat : uint8_t {
  none,   // no scale: elements are cast directly (bf16, or raw FP8/FP4 casts); block must be 0
  fp32,   // one fp32 scale per block (block = 0: per tensor), TE current scaling: elements are
          // encoded as x * RN(max_elem / amax) and dequantized as value * RN(1 / scale)
  e4m3,   // NVFP4: E4M3 block scale under an fp32 per-tensor scale (spec §2)
  ue8m0,  // MX: power-of-two block scale (spec §7), rule chosen by ScaleRule
};

enum class ScaleRule : uint8_t {
  floor,  // OCP MX / microxcaling: 2^(floor(log2 amax) - emax_elem); largest values may clip;
          // an all-zero block gives 2^-127, an infinite element the NaN scale 0xFF
  ceil,   // TE reference / MXFP8: 2^ceil(log2(RN(amax / max_elem))); never clips
          // (log2 exact on the fp32 bits in both rules; exponents clamped to [-127, 127])
};

enum class Tile : uint8_t {
  d1,  // 1 x block along the contiguous (last) axis
  d2,  // block x block tiles (16 x 16 for NVFP4; weights): one scale per tile, still stored once
       // per row and block; Q(W^T) == Q(W)^T bit for bit (without SR and RHT)
};

enum class Rounding : uint8_t {
  rne,  // round to nearest, ties to even
  sr,   // stochastic rounding with 8 random bits per element (spec §5); FP4 only
};

enum class BlockScaleFormula : uint8_t {
  te_2_14,  // TE >= 2.14: RN(block_amax * RN(S_enc * RN(1/6)))   (default, spec §2.2)
  te_2_13,  // TE 2.8..2.13: RN(RN(block_amax / 6) * S_enc)
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

  bool quantized() const { return element != ElementFormat::none; }
  bool operator==(const QuantSpec&) const = default;
};

// Names used in configs, CLI flags, run files and reports (one table per enum).
std::string to_string(ElementFormat);
std::string to_string(ScaleFormat);
std::string to_string(ScaleRule);
std::string to_string(Tile);
std::string to_string(Rounding);
std::string to_string(BlockScaleFormula);
bool parse(const std::string&, ElementFormat&);
bool parse(const std::string&, ScaleFormat&);
bool parse(const std::string&, ScaleRule&);
bool parse(const std::string&, Tile&);
bool parse(const std::string&, Rounding&);
bool parse(const std::string&, BlockScaleFormula&);

// One-line human description, e.g. "fp4_e2m1/16 e4m3 2d rne" or "fp4_e2m1/16 e4m3 1d sr rht16".
std::string describe(const QuantSpec&);

// Named presets of a single operand format (nvfp4, mxfp4, mxfp8, fp8_e4m3, fp8_e5m2, bf16, fp32).
// Returns false for an unknown name.
bool named_format(const std::string& name, QuantSpec& out);

// Why `spec` is impossible on a last axis of length `cols` (and `rows` for 2D tiles), or "" if valid:
// a one-line message. Rules: block divides cols; 2D tiles need a block and rows % block == 0; SR only
// on fp4_e2m1; e4m3 scales only with fp4_e2m1; e4m3/ue8m0 need block > 0; scale none needs block 0;
// bf16/none take no scale or tile; rht_size a power of two >= 2 dividing cols; no rht on none.
std::string validate(const QuantSpec& spec, int64_t rows, int64_t cols);

}  // namespace fp4lab
