// What the model reports at a telemetry step, per linear layer: quantization statistics of each
// GEMM operand, the weight gradient's gradient-to-noise ratio and each GEMM output's fidelity
// against an fp32 replay of the step. Defined below the model so that its observers
// (quant_stats.hpp, gnr.hpp, fidelity.hpp) fill them without depending on the trainer; the run file
// (core/train/run_file.hpp) stores them. `tensor` fields index the run's tensor names (RunMeta::tensor_names).
#pragma once
#include <cstdint>
#include <string>

#include "core/formats/enum_names.hpp"

namespace fp4lab {

// GEMM roles and operands of a linear layer (core/quant/NUMERICS.md, Operands and copies).
enum class GemmRole : uint8_t { fprop = 0, dgrad = 1, wgrad = 2 };
template <>
struct EnumNames<GemmRole> {
  static constexpr EnumName<GemmRole> names[] = {
      {GemmRole::fprop, "fprop"}, {GemmRole::dgrad, "dgrad"}, {GemmRole::wgrad, "wgrad"}};
  static constexpr const char* unknown = "unknown";  // a role number read from a file may be out of range
};
enum class Operand : uint8_t { a = 0, b = 1 };  // fprop: a=X b=W; dgrad: a=dY b=W; wgrad: a=dY b=X
std::string operand_name(GemmRole, Operand);  // "x", "w", "dy"

struct QuantStatRecord {  // one quantized GEMM operand of one tensor at a telemetry step
  int64_t step = 0;
  int32_t tensor = 0;  // index into the run's tensor names ("layers.3.mlp.down_proj")
  // role/operand: which GEMM and which input of it (see operand_name for x / w / dy).
  GemmRole role = GemmRole::fprop;
  Operand operand = Operand::a;
  float amax = 0;
  float frac_flushed = 0, frac_saturated = 0, sqnr_db = 0;
  float scale_min = 0, scale_max = 0, scale_std = 0;  // decoded block scales over valid blocks
  // SQNR the same operand would have as plain nvfp4 / mxfp4 (NaN: shape not divisible); schema 2.
  float whatif_nvfp4_sqnr_db = 0, whatif_mxfp4_sqnr_db = 0;
  // Signed bias against what the quantizer rounds (after any RHT), schema 4: Σ q·x / Σ x² − 1 and
  // mean(q − x) / rms(x). Stochastic rounding only (NaN otherwise): rms(mean of k extra SR draws − x)
  // / rms(x) over the operand's leading rows, k = 1, 4, 16, 64 (core/quant/quant_bias.hpp).
  float bias_shrinkage = 0, bias_mean = 0;
  float sr_rms_k1 = 0, sr_rms_k4 = 0, sr_rms_k16 = 0, sr_rms_k64 = 0;
};

// Gradient-to-noise ratio of one linear layer's weight gradient at a telemetry step (Chmiel et al.,
// "FP4 All the Way"): dW_ref = dYᵀ·X from unquantized fp32 operands, dW_q the gradient training used,
// noise_rms σ_q = rms(dW_q − dW_ref), gnr = ‖dW_ref‖ / (σ_q·√d) = rms(dW_ref) / σ_q (d elements).
// Progress stalls once gnr falls below √3 (kGnrThreshold). Infinite when dW_q == dW_ref.
constexpr double kGnrThreshold = 1.7320508075688772;
struct GnrRecord {
  int64_t step = 0;
  int32_t tensor = 0;  // index into the run's tensor names
  float grad_norm = 0;  // ‖dW_ref‖
  float noise_rms = 0;  // σ_q
  float gnr = 0;
};

// Fidelity of one GEMM output of one linear layer at a telemetry step: the training pass's tensor g
// (fprop Y, dgrad dX, wgrad dW; the layer's own contribution, this rank's tokens) against g_ref, the
// same tensor in a replay of the step with every GEMM in fp32 (the fp32 shadow: same weights, same
// batch, no quantization, no bf16 rounding). The errors of earlier layers reach g_ref's inputs only
// in the training pass, so these measure the accumulated error up to that GEMM. NaN when ‖g_ref‖ = 0.
// sr_bias and sr_rel_std split a GEMM with a stochastically rounded operand into bias and variance:
// its product recomputed kFidelityDraws times on the training pass's own inputs, each time with
// fresh SR draws, against g_local, the fp32 product of those same (unquantized) inputs:
//   sr_bias    = ‖mean_d g_d − g_local‖ / ‖g_local‖
//   sr_rel_std = √(Σ_d ‖g_d − mean_d g_d‖² / (k − 1)) / ‖g_local‖    (k = kFidelityDraws)
// An unbiased rounding leaves sr_bias at its noise floor sr_rel_std / √k. NaN for GEMMs without an
// SR operand.
constexpr int kFidelityDraws = 8;
struct FidelityRecord {
  int64_t step = 0;
  int32_t tensor = 0;  // index into the run's tensor names
  GemmRole role = GemmRole::fprop;
  float rel_err = 0;  // ‖g − g_ref‖ / ‖g_ref‖
  float gain = 0;     // ⟨g, g_ref⟩ / ⟨g_ref, g_ref⟩: 1 for an unbiased GEMM, < 1 when it shrinks
  float cosine = 0;   // ⟨g, g_ref⟩ / (‖g‖·‖g_ref‖)
  float sr_bias = 0, sr_rel_std = 0;
};

}  // namespace fp4lab
