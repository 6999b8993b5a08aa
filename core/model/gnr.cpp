// Gradient-to-noise ratio of the weight gradients (see gnr.hpp).
#include "core/model/gnr.hpp"

#include <cmath>

namespace fp4lab {

// dW here is this rank's (the sum of its shards); the gradient arena is zeroed before each backward,
// so it is this layer's alone.
void GnrObserver::after_backward(const LinearCall& call) {
  const std::vector<float> dw = local_wgrad(call);
  const int64_t d = int64_t(dw.size());
  reference_.resize(dw.size());
  linear_wgrad_reference(reference_.data(), call.dy, *call.input, call.n, call.shards);
  double ref_sq = 0.0, err_sq = 0.0;
  for (int64_t i = 0; i < d; ++i) {
    const double ref = reference_[size_t(i)], err = double(dw[size_t(i)]) - ref;
    ref_sq += ref * ref;
    err_sq += err * err;
  }
  GnrRecord rec;
  rec.step = step_;
  rec.tensor = call.linear;
  rec.grad_norm = float(std::sqrt(ref_sq));
  rec.noise_rms = float(std::sqrt(err_sq / double(d)));
  rec.gnr = err_sq > 0.0 ? float(std::sqrt(ref_sq / err_sq)) : INFINITY;  // ‖ref‖ / (σ_q·√d)
  records_->push_back(rec);
}

}  // namespace fp4lab
