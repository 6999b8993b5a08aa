// What watches the model's GEMMs: one interface whose hooks the model calls at each pass boundary,
// after each linear layer's forward and around its backward, and at each block's quantized attention
// products. Use counters, quantizer statistics, GNR, fidelity and the testing probes are observers
// (gemm_counters.hpp, telemetry.hpp, fidelity.hpp, probes.hpp) that the trainer or a test attaches
// with Model::attach. Hooks run per GEMM call, never per element. Not the model's numerics.
#pragma once
#include <cstdint>
#include <vector>

#include "core/model/gemm_site.hpp"
#include "core/ops/attention.hpp"
#include "core/ops/linear.hpp"

namespace fp4lab {

// LinearState's and LinearRecipe's [role][operand] tables are indexed by GemmRole and Operand.
static_assert(int(GemmRole::fprop) == 0 && int(GemmRole::dgrad) == 1 && int(GemmRole::wgrad) == 2);
static_assert(int(Operand::a) == 0 && int(Operand::b) == 1);

// One forward_backward or forward_loss call as observers see it.
struct GemmPass {
  const int32_t* tokens = nullptr;  // [B, T+1] as the call got them (this rank's sequences)
  int B = 0, T = 0;
  uint64_t seed = 0;
  int64_t step = 0, tokens_seen = 0;
  bool training = false;  // forward_backward (false: forward_loss)
  int local_shards = 1;   // token shards of this rank (Model::set_data_parallel)
  int ranks = 1;          // ranks of the step: the loss gradient is a mean over ranks·B·T tokens
};

// One call of a linear layer's GEMMs. The pointers are valid during the hook only. Observers may
// scale `y` and `dw` (the testing probes do); everything else is read-only.
struct LinearCall {
  int linear = 0;                        // index in Model::linear_names()
  const LinearInput* input = nullptr;    // X [M, K]: input->m, input->k
  const float* weight = nullptr;         // W [N, K]
  int64_t n = 0;                         // N
  const LinearQuant* quant = nullptr;    // how the call quantized (recipe, random streams)
  const LinearState* state = nullptr;    // the copies each operand use read, what each GEMM ran in
  float* y = nullptr;                    // forward: Y [M, N]
  const float* dy = nullptr;             // backward: dY [M, N]
  const float* dx = nullptr;             // backward: dX [M, K], which the call accumulates into
  float* const* dw = nullptr;            // backward: dW [N, K] of each local token shard
  int shards = 1;                        // backward: entries of dw
};

class GemmObserver {
 public:
  virtual ~GemmObserver() = default;
  virtual void begin_pass(const GemmPass& pass) {}
  // Whether the quantizers of this pass collect statistics (OperandCopy::stats, what-if SQNRs, bias
  // and SR concentration); asked after begin_pass, heeded in training passes only.
  virtual bool wants_stats() const { return false; }
  // Testing: NaN to inject into an operand of linear `linear` in this pass (null: none).
  virtual const NonfiniteInjection* injection(int linear) const { return nullptr; }
  virtual void after_forward(const LinearCall& call) {}
  virtual void before_backward(const LinearCall& call) {}
  virtual void after_backward(const LinearCall& call) {}
  // Block `block`'s attention products of `side`, about to run quantized as `quant` (only blocks
  // whose attention is quantized).
  virtual void attention(int block, AttentionSide side, const AttentionQuant& quant) {}
  // After a training pass's backward (the gradient arena final), before the delayed-scaling update.
  virtual void end_pass(const GemmPass& pass) {}
};

// dW of a backward call summed over its shards in order (this rank's tokens), as [N, K].
std::vector<float> local_wgrad(const LinearCall& call);

}  // namespace fp4lab
