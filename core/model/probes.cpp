// The testing probes' output scaling (see probes.hpp).
#include "core/model/probes.hpp"

#include <stdexcept>

namespace fp4lab {

OutputScaleProbe::OutputScaleProbe(int linear, GemmRole role, float factor)
    : linear_(linear), role_(role), factor_(factor) {
  if (role == GemmRole::dgrad) throw std::invalid_argument("output scale probe: fprop or wgrad only");
}

void OutputScaleProbe::after_forward(const LinearCall& call) {
  if (!training_ || role_ != GemmRole::fprop || call.linear != linear_ || factor_ == 1.0f) return;
  for (int64_t i = 0; i < call.input->m * call.n; ++i) call.y[i] *= factor_;
}

void OutputScaleProbe::after_backward(const LinearCall& call) {
  if (role_ != GemmRole::wgrad || call.linear != linear_ || factor_ == 1.0f) return;
  for (int s = 0; s < call.shards; ++s)
    for (int64_t i = 0; i < call.n * call.input->k; ++i) call.dw[s][i] *= factor_;
}

}  // namespace fp4lab
