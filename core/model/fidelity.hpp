// Fidelity of each linear layer's GEMM outputs at a telemetry step (FidelityRecord): an observer
// that keeps the training pass's outputs (with the SR bias/variance split of each GEMM), replays the
// step in the fp32 shadow (a second model, every GEMM fp32, same weights and tokens) and compares.
// The shadow changes nothing of the training pass and reads no random stream the training pass reads.
#pragma once
#include <memory>
#include <vector>

#include "core/model/model.hpp"
#include "core/model/observer.hpp"
#include "core/model/telemetry.hpp"

namespace fp4lab {

// Each linear's GEMM outputs in one pass: fprop Y [M, N]; dgrad its own part of dX [M, K]; wgrad
// dW [N, K] summed over this rank's shards; with `sr_split`, the SR bias/variance split of each.
class GemmOutputs : public GemmObserver {
 public:
  explicit GemmOutputs(bool sr_split) : sr_split_(sr_split) {}
  void before_backward(const LinearCall& call) override;
  void after_forward(const LinearCall& call) override;
  void after_backward(const LinearCall& call) override;
  const std::vector<float>& out(int linear, GemmRole role) const { return at(linear).out[int(role)]; }
  SrSplit sr(int linear, GemmRole role) const { return at(linear).sr[int(role)]; }

 private:
  struct Outputs {
    std::vector<float> out[kGemmRoles];
    SrSplit sr[kGemmRoles];
  };
  Outputs& at(int linear);
  const Outputs& at(int linear) const { return linears_.at(size_t(linear)); }
  bool sr_split_;
  std::vector<Outputs> linears_;
  std::vector<float> dx_before_;  // dX before the current backward call added its part
};

// Appends one record per linear layer and GEMM role of each training pass to `records` (`tensor`:
// the linear's index, `step`: the pass's). A replay that overflows records nothing.
class FidelityObserver : public GemmObserver {
 public:
  FidelityObserver(const Model& model, std::vector<FidelityRecord>* records);
  ~FidelityObserver() override;
  void begin_pass(const GemmPass& pass) override { training_ = pass.training; }
  void after_forward(const LinearCall& call) override;
  void before_backward(const LinearCall& call) override;
  void after_backward(const LinearCall& call) override;
  void end_pass(const GemmPass& pass) override;

 private:
  const Model& model_;
  std::vector<FidelityRecord>* records_;
  bool training_ = false;
  GemmOutputs trained_{true};
  GemmOutputs replayed_{false};
  std::unique_ptr<Model> shadow_;  // made at the first replay
};

}  // namespace fp4lab
