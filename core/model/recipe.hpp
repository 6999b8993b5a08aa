// A precision recipe: how each operand of each GEMM of each linear layer is quantized, by layer
// kind and block index. Typed data only; named recipes are YAML files in experiments/recipes/.
// resolve_linear() is the single place that decides which spec a given layer uses.
#pragma once
#include <string>

#include "core/quant/quant_spec.hpp"

namespace fp4lab {

enum class LayerKind : uint8_t { q, k, v, attn_out, mlp_gate, mlp_up, mlp_down, lm_head };
std::string to_string(LayerKind);

// The six operands of a linear layer's three GEMMs (spec §3):
//   fprop  Y  = X · Wᵀ      operands x  (rowwise, blocks along K)   and w (rowwise)
//   dgrad  dX = dY · W      operands dy (rowwise, blocks along N)   and w (columnwise = Wᵀ)
//   wgrad  dW = dYᵀ · X     operands dy (columnwise, along tokens)  and x (columnwise, along tokens)
struct LinearRecipe {
  QuantSpec fprop_x, fprop_w, dgrad_dy, dgrad_w, wgrad_dy, wgrad_x;
  bool bf16_output = false;  // round each GEMM output to bf16, as the real recipe emits it
  bool operator==(const LinearRecipe&) const = default;
  bool any_quantized() const;
};

enum class Coverage : uint8_t {
  all_linear,  // q,k,v,o, gate, up, down of every block (TE / MaxText)
  mlp_only,    // gate, up, down
  attn_only,   // q, k, v, o
};

struct RecipeConfig {
  std::string name = "fp32";   // recipe preset name (informational)
  LinearRecipe quantized;      // used by covered layers
  LinearRecipe high_precision; // used by every other linear layer (fp32 or bf16 operands)
  Coverage coverage = Coverage::all_linear;
  bool quantize_lm_head = false;
  int keep_first = 0;  // first N blocks stay in high precision
  int keep_last = 0;   // last N blocks stay in high precision
  // Precision schedule: from this many tokens on (0 = never), every layer uses `high_precision`.
  int64_t switch_tokens = 0;
};

// The recipe for one linear layer (block index in [0, n_blocks); lm_head ignores it).
// `tokens_seen` drives the precision schedule.
const LinearRecipe& resolve_linear(const RecipeConfig& r, LayerKind kind, int block, int n_blocks,
                                   int64_t tokens_seen);

// Why a recipe cannot be run, or "" if it can. A random Hadamard transform rotates the reduction axis,
// so both operands of a GEMM must use the same transform (or none). Shape checks (block sizes against
// layer widths and token counts) are quantize()'s validate(spec, rows, cols).
std::string validate(const LinearRecipe& r);
std::string validate(const RecipeConfig& r);

}  // namespace fp4lab
