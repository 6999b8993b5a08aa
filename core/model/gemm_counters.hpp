// The use counters behind the recipe manifest: an observer that counts, per GEMM site, format and
// GEMM numerics, how many times each operand ran (training and validation passes), so that the
// manifest records what ran, not what the config asked for. Not the manifest (core/train/manifest.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/model.hpp"
#include "core/model/observer.hpp"

namespace fp4lab {

// One GEMM-operand use counted for the recipe manifest.
struct GemmUse {
  GemmSite site;
  QuantSpec spec;
  GemmNumerics numerics = GemmNumerics::dequant_fp32;  // what the operand's GEMM computed
  int64_t count = 0;
};

class GemmCounters : public GemmObserver {
 public:
  explicit GemmCounters(const Model& model);
  // Uses since attached: the linears' in order of first use, then the attention products'.
  std::vector<GemmUse> uses() const;

  void after_forward(const LinearCall& call) override;
  void after_backward(const LinearCall& call) override;
  void attention(int block, AttentionSide side, const AttentionQuant& quant) override;

 private:
  void count(const LinearCall& call, GemmRole role);
  std::vector<GemmSite> sites_;       // per (linear, role, operand)
  std::vector<GemmUse> linear_uses_, attention_uses_;
  std::vector<int64_t> last_use_;     // per (linear, role, operand): index into linear_uses_, -1 if none
};

}  // namespace fp4lab
