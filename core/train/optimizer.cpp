// AdamW, schedules and clipping. Reductions are per tensor in a fixed order (no threading), so
// the update is identical for every thread count.
#include "core/train/optimizer.hpp"

#include <algorithm>
#include <cmath>

namespace fp4lab {

double learning_rate(const OptimConfig& o, int64_t total, int64_t tokens_after) {
  const double warmup = o.warmup_tokens > 0 ? double(o.warmup_tokens) : o.warmup_fraction * double(total);
  const double t = double(tokens_after);
  const double lr_min = o.lr * o.min_lr_ratio;
  if (warmup > 0 && t < warmup) return o.lr * t / warmup;
  switch (o.schedule) {
    case LrSchedule::constant:
      return o.lr;
    case LrSchedule::cosine: {
      const double span = std::max(1.0, double(total) - warmup);
      const double p = std::clamp((t - warmup) / span, 0.0, 1.0);
      return lr_min + (o.lr - lr_min) * 0.5 * (1.0 + std::cos(M_PI * p));
    }
    case LrSchedule::wsd: {
      const double decay_start = double(total) * (1.0 - o.decay_fraction);
      if (t <= decay_start) return o.lr;
      const double p = std::clamp((t - decay_start) / std::max(1.0, double(total) - decay_start), 0.0, 1.0);
      return o.lr + (lr_min - o.lr) * p;
    }
  }
  return o.lr;
}

AdamW::AdamW(const OptimConfig& cfg, const std::vector<ParamInfo>& params, int64_t n)
    : cfg_(cfg), params_(params), m_(n, 0.f), v_(n, 0.f) {}

double AdamW::step(float* p, float* g, double lr, std::vector<TensorNorms>* norms) {
  double sq = 0;
  std::vector<double> grad_sq(params_.size(), 0.0);
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& pi = params_[i];
    double s = 0;
    for (int64_t j = 0; j < pi.rows * pi.cols; ++j) s += double(g[pi.offset + j]) * g[pi.offset + j];
    grad_sq[i] = s;
    sq += s;
  }
  const double norm = std::sqrt(sq);
  const float clip = (cfg_.grad_clip > 0 && norm > cfg_.grad_clip) ? float(cfg_.grad_clip / norm) : 1.0f;
  ++t_;
  const float b1 = float(cfg_.beta1), b2 = float(cfg_.beta2), eps = float(cfg_.eps);
  const float bc1 = float(1.0 - std::pow(cfg_.beta1, double(t_)));
  const float bc2 = float(1.0 - std::pow(cfg_.beta2, double(t_)));
  const float flr = float(lr);
  if (norms) norms->assign(params_.size(), {});
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& pi = params_[i];
    const float wd = pi.decay ? float(cfg_.weight_decay) : 0.0f;
    double upd_sq = 0, m_sq = 0, v_sq = 0;
    float* pp = p + pi.offset;
    const float* gg = g + pi.offset;
    float* mm = m_.data() + pi.offset;
    float* vv = v_.data() + pi.offset;
    const int64_t n = pi.rows * pi.cols;
    for (int64_t j = 0; j < n; ++j) {
      const float gj = gg[j] * clip;
      mm[j] = b1 * mm[j] + (1 - b1) * gj;
      vv[j] = b2 * vv[j] + (1 - b2) * gj * gj;
      const float mhat = mm[j] / bc1, vhat = vv[j] / bc2;
      const float upd = flr * (mhat / (std::sqrt(vhat) + eps) + wd * pp[j]);
      pp[j] -= upd;
      if (norms) {
        upd_sq += double(upd) * upd;
        m_sq += double(mm[j]) * mm[j];
        v_sq += double(vv[j]) * vv[j];
      }
    }
    if (norms) (*norms)[i] = {std::sqrt(grad_sq[i]), std::sqrt(upd_sq), std::sqrt(m_sq), std::sqrt(v_sq)};
  }
  return norm;
}

}  // namespace fp4lab
