// The Llama-style decoder (DESIGN.md "The model"): embedding, per block RMSNorm → causal MHA with
// RoPE → residual, RMSNorm → SwiGLU MLP → residual, final RMSNorm, LM head, cross-entropy.
// Parameters, gradients and activations each live in one arena with named row-major views; every
// linear layer's three GEMMs are quantized per the recipe. Observers (observer.hpp) watch the GEMMs:
// use counters, telemetry, testing probes. Not the optimizer or the data loader.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/parallel.hpp"
#include "core/model/recipe.hpp"
#include "core/ops/linear.hpp"
#include "core/model/telemetry.hpp"

namespace fp4lab {

struct ModelConfig {
  int vocab = 256;
  int d_model = 64;
  int n_layers = 2;
  int n_heads = 4;
  int d_ff = 192;     // SwiGLU hidden size
  int seq_len = 64;
  double rope_theta = 10000.0;
  double norm_eps = 1e-5;
  double init_std = 0.02;  // normal init of every matrix; output projections scaled by 1/sqrt(2 n_layers)
};

// Non-embedding parameters, as scaling laws count model size: the blocks' linear weights,
// n_layers · (4 d_model² + 3 d_model d_ff) (norms, embeddings and the LM head left out).
int64_t non_embedding_params(const ModelConfig& m);

struct ParamInfo {
  std::string name;    // Llama name: embed_tokens, layers.{i}.self_attn.q_proj, ..., norm, lm_head
  int64_t offset = 0;  // into the parameter arena (floats)
  int64_t rows = 0, cols = 0;  // PyTorch layout: Linear weight [out, in]; norms [1, d]
  bool is_linear = false;
  LayerKind kind = LayerKind::q;  // valid when is_linear
  int block = -1;                 // block index, -1 for embed/norm/lm_head
  bool decay = true;              // AdamW weight decay applies (not to norms)
};

// Telemetry for one forward_backward call (benchmarks and tests; the trainer attaches its own
// observers): the stock observers (quant_stats.hpp, gnr.hpp, fidelity.hpp) attached for that call
// only. Null members: not collected; gnr and fidelity need quant_stats. Record `tensor` fields are
// linear indices (linear_names()).
struct StepTelemetry {
  bool quant_stats = false;  // fill `quant` with one record per quantized operand
  std::vector<QuantStatRecord>* quant = nullptr;
  std::vector<GnrRecord>* gnr = nullptr;  // one record per linear layer
  std::vector<FidelityRecord>* fidelity = nullptr;  // one record per linear layer and GEMM role
};

class GemmObserver;

class Model {
 public:
  // Throws std::invalid_argument for impossible sizes (d_model / n_heads must be even) or a recipe
  // that validate(RecipeConfig) rejects.
  Model(const ModelConfig& cfg, const RecipeConfig& recipe);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  void init_parameters(uint64_t seed);  // deterministic in seed, independent of thread count

  const ModelConfig& config() const;
  const std::vector<ParamInfo>& params() const;
  std::vector<std::string> linear_names() const;  // quantizable linears, index = QuantStatRecord::tensor
  int64_t num_params() const;
  float* param_data();  // the parameter arena
  const float* param_data() const;
  float* grad_data();   // the gradient arena (same layout)

  // tokens: [B, T+1] row-major; inputs are tokens[:, :T], targets tokens[:, 1:].
  // Computes the mean cross-entropy and overwrites the gradient arena. `step` and `seed` key the
  // stochastic-rounding streams; `tokens_seen` drives the recipe's precision schedule.
  // Results are bit-identical for the same arguments whatever the OpenMP thread count.
  // Throws std::invalid_argument when T > seq_len or a quantized operand cannot take its shape
  // (e.g. B·T not a multiple of a token-axis block; the message names layer, GEMM and operand),
  // std::out_of_range for a token id outside [0, vocab), and NonfiniteError (finding.layer and
  // finding.step filled in) at the first NaN/Inf in a linear layer's quantizers or GEMM outputs.
  double forward_backward(const int32_t* tokens, int B, int T, uint64_t seed, int64_t step,
                          int64_t tokens_seen);
  double forward_backward(const int32_t* tokens, int B, int T, uint64_t seed, int64_t step,
                          int64_t tokens_seen, StepTelemetry* telemetry);  // telemetry null: none
  // Mean cross-entropy without gradients (validation / eval); quantized as in fprop.
  double forward_loss(const int32_t* tokens, int B, int T, int64_t tokens_seen);
  // Logits [B*T, vocab] of the last forward (for cross-checks); valid until the next call.
  const float* last_logits() const;

  // Observers (core/model/observer.hpp) see every later pass, in the order attached; not owned: an
  // observer stays attached until detached and must outlive that.
  void attach(GemmObserver* observer);
  void detach(GemmObserver* observer);

  // Data parallelism (train.batch_shards; default 1 shard, one rank): the global batch of a step is
  // `shards` shards of consecutive sequences, shards / comm->size() of them on this rank, which
  // then passes only its own sequences to forward_backward. Each parameter gradient is computed per
  // shard and summed over the shards in a fixed binary tree (shards: a power of two), and every token operand takes the global tensor
  // amax and global SR positions, so the loss and gradients are bit-identical for any number of
  // ranks dividing `shards`. comm null or of size 1: one rank. Validation passes stay local.
  void set_data_parallel(int shards, Collective* comm);
  // The fp32 shadow's replay of one rank's part of a step (fidelity.hpp): the loss gradient as a
  // mean over `ranks` times this model's tokens (default: the ranks of set_data_parallel).
  void set_loss_ranks(int ranks);

  // Delayed-scaling state of the operands that use it, for checkpoints: one row per operand of
  // 3 + amax_history_len floats (operand slot, scale, fp8 max, history). Empty when none does.
  std::vector<float> delayed_scaling_state() const;
  void set_delayed_scaling_state(const std::vector<float>& rows);

 private:
  struct Impl;
  Impl* impl_;
};

// Observers attached to a model for one scope (a telemetry step), detached when it ends.
class AttachedObservers {
 public:
  AttachedObservers(Model& model, std::vector<GemmObserver*> observers);
  ~AttachedObservers();
  AttachedObservers(const AttachedObservers&) = delete;
  AttachedObservers& operator=(const AttachedObservers&) = delete;

 private:
  Model& model_;
  std::vector<GemmObserver*> observers_;
};

}  // namespace fp4lab
