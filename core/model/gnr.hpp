// Gradient-to-noise ratio of each linear layer's weight gradient at a telemetry step (GnrRecord):
// an observer that compares the training pass's dW with dYᵀ·X from the unquantized fp32 operands.
#pragma once
#include <vector>

#include "core/model/observer.hpp"
#include "core/model/telemetry.hpp"

namespace fp4lab {

// Appends one record per linear layer of each training pass to `records` (`tensor`: the linear's
// index, `step`: the pass's).
class GnrObserver : public GemmObserver {
 public:
  explicit GnrObserver(std::vector<GnrRecord>* records) : records_(records) {}
  void begin_pass(const GemmPass& pass) override { step_ = pass.step; }
  void after_backward(const LinearCall& call) override;

 private:
  std::vector<GnrRecord>* records_;
  int64_t step_ = 0;
  std::vector<float> reference_;  // dW from the fp32 operands
};

}  // namespace fp4lab
