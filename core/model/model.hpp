// The Llama-style decoder (DESIGN.md "The model"): embedding, per block RMSNorm → causal MHA with
// RoPE → residual, RMSNorm → SwiGLU MLP → residual, final RMSNorm, LM head, cross-entropy.
// Parameters, gradients and activations each live in one arena with named row-major views; every
// linear layer's three GEMMs are quantized per the recipe. Not the optimizer or the data loader.
#pragma once
#include <cstdint>
#include <optional>
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

// Telemetry requested for one step (null members: not collected). Record `tensor` fields are linear
// indices (linear_names()).
struct StepTelemetry {
  bool quant_stats = false;                   // fill `quant` with one record per quantized operand
  std::vector<QuantStatRecord>* quant = nullptr;
  std::vector<GnrRecord>* gnr = nullptr;      // with quant_stats: one record per linear layer
  // With quant_stats: one record per linear layer and GEMM role, from a replay of the step with
  // every GEMM in fp32 (the fp32 shadow, run after the training pass on this rank's tokens; it
  // changes nothing of the training pass and reads no random stream the training pass reads).
  std::vector<FidelityRecord>* fidelity = nullptr;
};

// Testing aid (no config key): the training pass multiplies one GEMM output of linear `linear` by
// `factor` (fprop: its Y; wgrad: its dW), so that the fidelity records have a known gain.
struct OutputScaleProbe {
  int linear = 0;
  GemmRole role = GemmRole::fprop;  // fprop or wgrad
  float factor = 1.0f;
};

// Testing aid (no config key): NaN into one quantized operand's quantizer input of linear `linear`
// (index in linear_names()) in the training pass of step `step`, for the non-finite sentinel.
struct NonfiniteProbe {
  int64_t step = 0;
  int linear = 0;
  NonfiniteInjection at;
};

// One GEMM-operand use counted for the recipe manifest.
struct GemmUse {
  int32_t tensor = 0;  // index of the linear layer in linear_names()
  GemmRole role = GemmRole::fprop;
  Operand operand = Operand::a;
  QuantSpec spec;
  GemmNumerics numerics = GemmNumerics::dequant_fp32;  // what the operand's GEMM computed
  int64_t count = 0;
};

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
                          int64_t tokens_seen, StepTelemetry* telemetry = nullptr);
  // Mean cross-entropy without gradients (validation / eval); quantized as in fprop.
  double forward_loss(const int32_t* tokens, int B, int T, int64_t tokens_seen);
  // Logits [B*T, vocab] of the last forward (for cross-checks); valid until the next call.
  const float* last_logits() const;

  const std::vector<GemmUse>& gemm_uses() const;  // counters since construction
  // Quantized attention products (RecipeConfig::attention) since construction: `tensor` is the
  // block, role fprop the forward products' operands (q, k, v, P), dgrad the backward ones (dO, dS).
  const std::vector<GemmUse>& attention_uses() const;

  // Data parallelism (train.batch_shards; default 1 shard, one rank): the global batch of a step is
  // `shards` shards of consecutive sequences, shards / comm->size() of them on this rank, which
  // then passes only its own sequences to forward_backward. Each parameter gradient is computed per
  // shard and summed over the shards in a fixed binary tree (shards: a power of two), and every token operand takes the global tensor
  // amax and global SR positions, so the loss and gradients are bit-identical for any number of
  // ranks dividing `shards`. comm null or of size 1: one rank. Validation passes stay local.
  void set_data_parallel(int shards, Collective* comm);

  // Delayed-scaling state of the operands that use it, for checkpoints: one row per operand of
  // 3 + amax_history_len floats (operand slot, scale, fp8 max, history). Empty when none does.
  std::vector<float> delayed_scaling_state() const;
  void set_delayed_scaling_state(const std::vector<float>& rows);
  void set_nonfinite_probe(const std::optional<NonfiniteProbe>& probe);
  // Throws std::invalid_argument for a dgrad probe (dX accumulates over the layers reading X).
  void set_output_scale_probe(const std::optional<OutputScaleProbe>& probe);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace fp4lab
