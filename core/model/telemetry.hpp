// What the model reports at a telemetry step, per linear layer: quantization statistics of each
// GEMM operand and the weight gradient's gradient-to-noise ratio. Defined below the model so that
// the model fills them without depending on the trainer; the run file (core/train/run_file.hpp)
// stores them. `tensor` fields index the run's tensor names (RunMeta::tensor_names).
#pragma once
#include <cstdint>
#include <string>

#include "core/config/enum_names.hpp"

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

}  // namespace fp4lab
