// Quantizer statistics per GEMM operand (see quant_stats.hpp).
#include "core/model/quant_stats.hpp"

namespace fp4lab {

void QuantStatsObserver::begin_pass(const GemmPass& pass) {
  training_ = pass.training;
  step_ = pass.step;
}

void QuantStatsObserver::after_forward(const LinearCall& call) { record(call, GemmRole::fprop); }

void QuantStatsObserver::after_backward(const LinearCall& call) {
  record(call, GemmRole::dgrad);
  record(call, GemmRole::wgrad);
}

// The operands of GEMM `role` that ran from a quantized copy (a pass-through operand has none).
void QuantStatsObserver::record(const LinearCall& call, GemmRole role) {
  if (!training_) return;
  for (int op = 0; op < kGemmOperands; ++op) {
    const OperandCopy* copy = call.state->used[int(role)][op];
    if (!copy) continue;
    QuantStatRecord rec;
    rec.step = step_;
    rec.tensor = call.linear;
    rec.role = role;
    rec.operand = Operand(op);
    const QuantStats& s = copy->stats;
    rec.amax = s.amax;
    rec.frac_flushed = s.count ? float(double(s.flushed) / double(s.count)) : 0.f;
    rec.frac_saturated = s.count ? float(double(s.saturated) / double(s.count)) : 0.f;
    rec.sqnr_db = float(s.sqnr_db());
    rec.scale_min = s.scale_min;
    rec.scale_max = s.scale_max;
    rec.scale_std = float(s.scale_std());
    rec.whatif_nvfp4_sqnr_db = copy->whatif_sqnr_db[0];
    rec.whatif_mxfp4_sqnr_db = copy->whatif_sqnr_db[1];
    static_assert(kSrDrawCounts == std::array{1, 4, 16, 64});  // the sr_rms_k* fields
    rec.bias_shrinkage = copy->bias.shrinkage;
    rec.bias_mean = copy->bias.mean;
    rec.sr_rms_k1 = copy->sr_rms[0];
    rec.sr_rms_k4 = copy->sr_rms[1];
    rec.sr_rms_k16 = copy->sr_rms[2];
    rec.sr_rms_k64 = copy->sr_rms[3];
    records_->push_back(rec);
  }
}

}  // namespace fp4lab
