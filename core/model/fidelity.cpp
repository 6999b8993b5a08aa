// GEMM output fidelity against the fp32 shadow (see fidelity.hpp).
#include "core/model/fidelity.hpp"

#include <algorithm>
#include <cmath>

namespace fp4lab {

GemmOutputs::Outputs& GemmOutputs::at(int linear) {
  if (size_t(linear) >= linears_.size()) linears_.resize(size_t(linear) + 1);
  return linears_[size_t(linear)];
}

void GemmOutputs::after_forward(const LinearCall& call) {
  Outputs& o = at(call.linear);
  o.out[0].assign(call.y, call.y + call.input->m * call.n);
  if (sr_split_)
    o.sr[0] = linear_sr_split(0, nullptr, *call.input, call.weight, call.n, *call.quant, *call.state, kFidelityDraws);
}

void GemmOutputs::before_backward(const LinearCall& call) {
  dx_before_.assign(call.dx, call.dx + call.input->m * call.input->k);
}

void GemmOutputs::after_backward(const LinearCall& call) {
  Outputs& o = at(call.linear);
  o.out[1].resize(dx_before_.size());
  for (size_t i = 0; i < dx_before_.size(); ++i) o.out[1][i] = call.dx[i] - dx_before_[i];  // this linear's part of dX
  o.out[2] = local_wgrad(call);
  if (!sr_split_) return;
  for (int role : {1, 2})
    o.sr[role] = linear_sr_split(role, call.dy, *call.input, call.weight, call.n, *call.quant, *call.state, kFidelityDraws);
}

FidelityObserver::FidelityObserver(const Model& model, std::vector<FidelityRecord>* records)
    : model_(model), records_(records) {}

FidelityObserver::~FidelityObserver() = default;

void FidelityObserver::after_forward(const LinearCall& call) {
  if (training_) trained_.after_forward(call);
}

void FidelityObserver::before_backward(const LinearCall& call) { trained_.before_backward(call); }
void FidelityObserver::after_backward(const LinearCall& call) { trained_.after_backward(call); }

// Replays the step just trained (same parameters, same tokens, this rank's shards, the loss scaled
// as over the step's ranks) and compares each linear's outputs with the shadow's.
void FidelityObserver::end_pass(const GemmPass& pass) {
  if (!shadow_) {
    shadow_ = std::make_unique<Model>(model_.config(), RecipeConfig{});
    shadow_->attach(&replayed_);
  }
  Model& sh = *shadow_;
  sh.set_data_parallel(pass.local_shards, nullptr);  // the same shard sums as the training pass
  sh.set_loss_ranks(pass.ranks);
  std::copy(model_.param_data(), model_.param_data() + model_.num_params(), sh.param_data());
  try {
    sh.forward_backward(pass.tokens, pass.B, pass.T, pass.seed, pass.step, pass.tokens_seen);
  } catch (const NonfiniteError&) {
    return;
  }
  const int linears = int(model_.linear_names().size());
  for (int li = 0; li < linears; ++li)
    for (int role = 0; role < kGemmRoles; ++role) {
      const std::vector<float>& g = trained_.out(li, GemmRole(role));
      const std::vector<float>& ref = replayed_.out(li, GemmRole(role));
      double dot = 0, ref_sq = 0, g_sq = 0, err_sq = 0;
      for (size_t i = 0; i < ref.size(); ++i) {
        const double gi = g[i], ri = ref[i];
        dot += gi * ri;
        ref_sq += ri * ri;
        g_sq += gi * gi;
        err_sq += (gi - ri) * (gi - ri);
      }
      FidelityRecord rec;
      rec.step = pass.step;
      rec.tensor = int32_t(li);
      rec.role = GemmRole(role);
      rec.rel_err = float(std::sqrt(err_sq / ref_sq));  // NaN when ref_sq = 0
      rec.gain = float(dot / ref_sq);
      rec.cosine = float(dot / std::sqrt(g_sq * ref_sq));
      const SrSplit sr = trained_.sr(li, GemmRole(role));
      rec.sr_bias = sr.bias;
      rec.sr_rel_std = sr.rel_std;
      records_->push_back(rec);
    }
}

}  // namespace fp4lab
