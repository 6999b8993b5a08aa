// Testing aids (no config key), as observers: a NaN injected into one quantized operand (for the
// non-finite sentinel's test) and a known gain on one GEMM output (for the fidelity records' test).
// Attach them before the observers that should see their effect.
#pragma once
#include <cstdint>

#include "core/model/observer.hpp"

namespace fp4lab {

// NaN into one quantized operand's quantizer input of linear `linear` (index in linear_names()) in
// the training pass of step `step`.
class NonfiniteProbe : public GemmObserver {
 public:
  NonfiniteProbe(int64_t step, int linear, NonfiniteInjection at) : step_(step), linear_(linear), at_(at) {}
  void begin_pass(const GemmPass& pass) override { armed_ = pass.training && pass.step == step_; }
  const NonfiniteInjection* injection(int linear) const override {
    return armed_ && linear == linear_ ? &at_ : nullptr;
  }

 private:
  int64_t step_;
  int linear_;
  NonfiniteInjection at_;
  bool armed_ = false;
};

// The training pass multiplies one GEMM output of linear `linear` by `factor` (fprop: its Y; wgrad:
// its dW). Throws std::invalid_argument for dgrad (dX accumulates over the layers reading X).
class OutputScaleProbe : public GemmObserver {
 public:
  OutputScaleProbe(int linear, GemmRole role, float factor);
  void begin_pass(const GemmPass& pass) override { training_ = pass.training; }
  void after_forward(const LinearCall& call) override;
  void after_backward(const LinearCall& call) override;

 private:
  int linear_;
  GemmRole role_;
  float factor_;
  bool training_ = false;
};

}  // namespace fp4lab
