// Recipe resolution and checks (see recipe.hpp): which LinearRecipe a layer uses at a given point of
// training.
#include "core/model/recipe.hpp"

namespace fp4lab {
namespace {

bool covered(Coverage c, LayerKind kind) {
  const bool attn = kind == LayerKind::q || kind == LayerKind::k || kind == LayerKind::v ||
                    kind == LayerKind::attn_out;
  switch (c) {
    case Coverage::all_linear: return true;
    case Coverage::mlp_only: return !attn;
    case Coverage::attn_only: return attn;
  }
  return false;
}

}  // namespace

static const LinearRecipe& layer_recipe(const RecipeConfig& r, LayerKind kind, int block, int n_blocks) {
  if (kind == LayerKind::lm_head) return r.quantize_lm_head ? r.quantized : r.high_precision;
  if (!covered(r.coverage, kind)) return r.high_precision;
  if (block < r.keep_first || block >= n_blocks - r.keep_last) return r.high_precision;
  return r.quantized;
}

LinearRecipe resolve_linear(const RecipeConfig& r, LayerKind kind, int block, int n_blocks,
                            int64_t tokens_seen) {
  LinearRecipe out = layer_recipe(r, kind, block, n_blocks);
  if (r.switch_at == SwitchAt::tokens && tokens_seen >= r.switch_tokens) {
    const LinearRecipe& hp = r.high_precision;
    if (r.switch_fprop) out.fprop_x = hp.fprop_x, out.fprop_w = hp.fprop_w;
    if (r.switch_dgrad) out.dgrad_dy = hp.dgrad_dy, out.dgrad_w = hp.dgrad_w;
    if (r.switch_wgrad) out.wgrad_dy = hp.wgrad_dy, out.wgrad_x = hp.wgrad_x;
    if (r.switch_fprop && r.switch_dgrad && r.switch_wgrad) out.bf16_output = hp.bf16_output;
  }
  for (QuantSpec* s : {&out.fprop_x, &out.fprop_w, &out.dgrad_dy, &out.dgrad_w, &out.wgrad_dy, &out.wgrad_x})
    if (s->operand_dtype == OperandDtype::inherit) s->operand_dtype = r.operand_dtype;
  out.numerics = r.gemm_numerics;
  return out;
}

AttentionQuant resolve_attention(const RecipeConfig& r, int block, int n_blocks) {
  if (block < r.keep_first || block >= n_blocks - r.keep_last) return {};
  AttentionQuant q = r.attention;
  for (QuantSpec* s : {&q.fwd, &q.bwd})
    if (s->operand_dtype == OperandDtype::inherit) s->operand_dtype = r.operand_dtype;
  return q;
}

std::string validate(const RecipeConfig& r) {
  if (std::string why = validate(r.attention); !why.empty()) return "attention: " + why;
  if (std::string why = validate(r.quantized); !why.empty()) return "quantized: " + why;
  if (std::string why = validate(r.high_precision); !why.empty()) return "high_precision: " + why;
  if (r.keep_first < 0 || r.keep_last < 0) return "keep_first and keep_last must be >= 0";
  if (r.switch_tokens < 0) return "switch_tokens must be >= 0";
  if (r.switch_at == SwitchAt::fraction || r.switch_at == SwitchAt::decay)
    return "switch_at " + to_string(r.switch_at) + " must be resolved to a token count against the budget first";
  if (r.switch_at == SwitchAt::tokens && r.switch_tokens <= 0) return "switch_at tokens needs switch_tokens > 0";
  if (r.operand_dtype == OperandDtype::inherit) return "operand_dtype must be fp32 or bf16";
  if (r.delayed.history_len < 1) return "amax_history_len must be >= 1";
  return "";
}

}  // namespace fp4lab
