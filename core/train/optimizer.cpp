// AdamW, schedules and clipping. Tensors are updated in parallel; reductions are per tensor in a
// fixed order, so the update is identical for every thread count.
#include "core/train/optimizer.hpp"

#include <algorithm>
#include <cmath>

#include "core/ops/reduce.hpp"
#include "core/profile/op_timer.hpp"

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
  const OpScope op_scope(OpGroup::optimizer);
  const int64_t tensors = int64_t(params_.size());
  std::vector<double> grad_sq(params_.size(), 0.0);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < tensors; ++i) {
    const float* gg = g + params_[i].offset;
    grad_sq[i] = sum4(params_[i].rows * params_[i].cols, [&](int64_t j) { return double(gg[j]) * gg[j]; });
  }
  double sq = 0;
  for (double s : grad_sq) sq += s;
  const double norm = std::sqrt(sq);
  const float clip = (cfg_.grad_clip > 0 && norm > cfg_.grad_clip) ? float(cfg_.grad_clip / norm) : 1.0f;
  ++t_;
  const float b1 = float(cfg_.beta1), b2 = float(cfg_.beta2), eps = float(cfg_.eps);
  const float bc1 = float(1.0 - std::pow(cfg_.beta1, double(t_)));
  const float bc2 = float(1.0 - std::pow(cfg_.beta2, double(t_)));
  const float flr = float(lr);
  if (norms) norms->assign(params_.size(), {});
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < tensors; ++i) {
    const auto& pi = params_[i];
    const float wd = pi.decay ? float(cfg_.weight_decay) : 0.0f;
    float* pp = p + pi.offset;
    const float* gg = g + pi.offset;
    float* mm = m_.data() + pi.offset;
    float* vv = v_.data() + pi.offset;
    const int64_t n = pi.rows * pi.cols;
    // Blocks of kBlock: the update loop vectorises (no reductions in it); the norms' sums then
    // run over the block in a fixed order.
    constexpr int64_t kBlock = 512;
    Sum4 upd_sq, m_sq, v_sq;
    for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
      const int64_t len = std::min(kBlock, n - j0);
      float u[kBlock];
      for (int64_t j = 0; j < len; ++j) {
        const float gj = gg[j0 + j] * clip;
        const float mj = b1 * mm[j0 + j] + (1 - b1) * gj;
        const float vj = b2 * vv[j0 + j] + (1 - b2) * gj * gj;
        mm[j0 + j] = mj;
        vv[j0 + j] = vj;
        const float mhat = mj / bc1, vhat = vj / bc2;
        u[j] = flr * (mhat / (std::sqrt(vhat) + eps) + wd * pp[j0 + j]);
        pp[j0 + j] -= u[j];
      }
      if (norms) {
        for (int64_t j = j0; j < j0 + len; ++j) {
          upd_sq.add(j, double(u[j - j0]) * u[j - j0]);
          m_sq.add(j, double(mm[j]) * mm[j]);
          v_sq.add(j, double(vv[j]) * vv[j]);
        }
      }
    }
    if (norms)
      (*norms)[i] = {std::sqrt(grad_sq[i]), std::sqrt(upd_sq.total()), std::sqrt(m_sq.total()), std::sqrt(v_sq.total())};
  }
  return norm;
}

}  // namespace fp4lab
