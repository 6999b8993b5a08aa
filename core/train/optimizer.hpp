// AdamW over the flat parameter arena (fp32 master weights), the learning-rate schedules (lengths
// in tokens) and global-norm gradient clipping. Per-tensor norms come out of the same pass.
// Not the model and not the loop (trainer.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "core/config/config.hpp"

namespace fp4lab {

// Learning rate for the step that ends at `tokens_after` tokens.
double learning_rate(const OptimConfig& o, int64_t total_tokens, int64_t tokens_after);

struct TensorNorms {  // per parameter tensor, L2
  double grad = 0, update = 0, m = 0, v = 0;
};

class AdamW {
 public:
  AdamW(const OptimConfig& cfg, const std::vector<ParamInfo>& params, int64_t n);
  // Clips `grads` to cfg.grad_clip (global norm), then updates `params` in place.
  // Returns the global gradient norm before clipping; fills per-tensor norms if given.
  double step(float* params, float* grads, double lr, std::vector<TensorNorms>* norms = nullptr);

  int64_t t() const { return t_; }
  void set_t(int64_t t) { t_ = t; }
  std::vector<float>& m() { return m_; }
  std::vector<float>& v() { return v_; }

 private:
  OptimConfig cfg_;
  std::vector<ParamInfo> params_;
  std::vector<float> m_, v_;
  int64_t t_ = 0;
};

}  // namespace fp4lab
