// A precision recipe: how each operand of each GEMM of each linear layer is quantized, by layer
// kind and block index. Typed data only; named recipes are YAML files in experiments/recipes/.
// resolve_linear() is the single place that decides which spec a given layer uses.
#pragma once
#include <string>

#include "core/ops/attention.hpp"
#include "core/ops/linear.hpp"

namespace fp4lab {

enum class LayerKind : uint8_t { q, k, v, attn_out, mlp_gate, mlp_up, mlp_down, lm_head };
template <>
struct EnumNames<LayerKind> {
  static constexpr EnumName<LayerKind> names[] = {{LayerKind::q, "q"},
                                                  {LayerKind::k, "k"},
                                                  {LayerKind::v, "v"},
                                                  {LayerKind::attn_out, "attn_out"},
                                                  {LayerKind::mlp_gate, "mlp_gate"},
                                                  {LayerKind::mlp_up, "mlp_up"},
                                                  {LayerKind::mlp_down, "mlp_down"},
                                                  {LayerKind::lm_head, "lm_head"}};
};

// When a precision schedule switches to the high-precision operands (see RecipeConfig).
enum class SwitchAt : uint8_t {
  never,     // no switch
  tokens,    // at switch_tokens
  fraction,  // at switch_fraction of the token budget
  decay,     // where the learning rate starts to decay (wsd: (1 - decay_fraction) of the budget;
             // cosine: the end of warmup)
};
template <>
struct EnumNames<SwitchAt> {
  static constexpr EnumName<SwitchAt> names[] = {{SwitchAt::never, "never"},
                                                 {SwitchAt::tokens, "tokens"},
                                                 {SwitchAt::fraction, "fraction"},
                                                 {SwitchAt::decay, "decay"}};
};

enum class Coverage : uint8_t {
  all_linear,  // q,k,v,o, gate, up, down of every block (TE / MaxText)
  mlp_only,    // gate, up, down
  attn_only,   // q, k, v, o
};
template <>
struct EnumNames<Coverage> {
  static constexpr EnumName<Coverage> names[] = {
      {Coverage::all_linear, "all_linear"}, {Coverage::mlp_only, "mlp_only"}, {Coverage::attn_only, "attn_only"}};
};

struct RecipeConfig {
  std::string name = "fp32";   // recipe preset name (informational)
  LinearRecipe quantized;      // used by covered layers
  LinearRecipe high_precision; // used by every other linear layer (fp32 or bf16 operands)
  Coverage coverage = Coverage::all_linear;
  bool quantize_lm_head = false;
  int keep_first = 0;  // first N blocks stay in high precision
  int keep_last = 0;   // last N blocks stay in high precision
  // Precision schedule: a step whose tokens seen before it are >= the switch point runs the GEMM
  // roles chosen by switch_fprop/dgrad/wgrad with `high_precision`'s operands, in every layer
  // (bf16_output follows `high_precision` only when all three roles switch). The model takes only
  // never and tokens: fraction and decay depend on the run's budget and are resolved to tokens
  // first (run_recipe() in core/config/config.hpp).
  SwitchAt switch_at = SwitchAt::never;
  int64_t switch_tokens = 0;     // switch_at tokens: the switch point
  double switch_fraction = 0.0;  // switch_at fraction: the switch point / train.tokens, in (0, 1)
  bool switch_fprop = true, switch_dgrad = true, switch_wgrad = true;
  // The operand dtype of every operand whose spec says `inherit` (fp32, or bf16 as TE).
  OperandDtype operand_dtype = OperandDtype::fp32;
  DelayedScalingConfig delayed;  // amax history of Scaling::delayed operands
  // FP4 × FP4 GEMMs: dequantize to fp32 and multiply, or block-scaled integer products
  // (core/ops/fp4_gemm.hpp); every LinearRecipe resolve_linear returns carries it.
  GemmNumerics gemm_numerics = GemmNumerics::dequant_fp32;
  // Attention's own products (scores Q·Kᵀ, context P·V and their backward products), quantized as
  // TE's fp8_dpa does (core/ops/attention.hpp): `fwd` for Q, K, V and the probabilities P, `bwd` for
  // the output gradient dO and the score gradient dS; per-tensor formats only. none (default): the
  // attention core stays fp32. Blocks outside keep_first/keep_last only.
  AttentionQuant attention;
};

// The recipe for one linear layer (block index in [0, n_blocks); lm_head ignores it).
// `tokens_seen` (tokens consumed before the step) drives the precision schedule. Every operand
// spec comes back with its operand dtype resolved (never `inherit`).
LinearRecipe resolve_linear(const RecipeConfig& r, LayerKind kind, int block, int n_blocks,
                            int64_t tokens_seen);

// The attention quantization of a block (none outside keep_first/keep_last), operand dtypes resolved.
AttentionQuant resolve_attention(const RecipeConfig& r, int block, int n_blocks);

// Why a recipe cannot be run, or "" if it can (each LinearRecipe by validate(LinearRecipe), plus the
// coverage, schedule and attention fields).
std::string validate(const RecipeConfig& r);

}  // namespace fp4lab
