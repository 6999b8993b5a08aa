// Quantizer statistics of every quantized GEMM operand at a telemetry step (QuantStatRecord): an
// observer that asks the pass's quantizers for statistics and reads them off each operand's copy.
// Not the statistics themselves (core/quant/quantize.hpp, quant_bias.hpp).
#pragma once
#include <vector>

#include "core/model/observer.hpp"
#include "core/model/telemetry.hpp"

namespace fp4lab {

// Appends one record per quantized operand use of each training pass to `records` (`tensor`: the
// linear's index, `step`: the pass's).
class QuantStatsObserver : public GemmObserver {
 public:
  explicit QuantStatsObserver(std::vector<QuantStatRecord>* records) : records_(records) {}
  void begin_pass(const GemmPass& pass) override;
  bool wants_stats() const override { return training_; }
  void after_forward(const LinearCall& call) override;
  void after_backward(const LinearCall& call) override;

 private:
  void record(const LinearCall& call, GemmRole role);
  std::vector<QuantStatRecord>* records_;
  bool training_ = false;
  int64_t step_ = 0;
};

}  // namespace fp4lab
