// The Llama decoder's forward and backward over three arenas (see model.hpp), llm.c style: named
// views into one parameter arena, a gradient arena with the same layout, and one activation arena
// sized for (B, T). The backward walks the forward's ops in reverse; every *_backward accumulates.
// Not the optimizer, the data loader or the run file.
#include "core/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>
#include <stdexcept>
#include <utility>

#include "core/model/observer.hpp"
#include "core/ops/attention.hpp"
#include "core/ops/cross_entropy.hpp"
#include "core/ops/embedding.hpp"
#include "core/ops/linear.hpp"
#include "core/ops/rmsnorm.hpp"
#include "core/ops/rope.hpp"
#include "core/ops/swiglu.hpp"
#include "core/profile/op_timer.hpp"
#include "core/quant/philox.hpp"

namespace fp4lab {

int64_t non_embedding_params(const ModelConfig& m) {
  const int64_t d = m.d_model, ff = m.d_ff;
  return int64_t(m.n_layers) * (4 * d * d + 3 * d * ff);
}

namespace {

constexpr int kParamsPerBlock = 9;   // input_layernorm, q, k, v, o, post_attention_layernorm, gate, up, down
constexpr int kLinearsPerBlock = 7;  // q, k, v, o, gate, up, down
constexpr int64_t kArenaAlign = 16;  // activation views start on 16-float (64-byte) offsets
constexpr int64_t kInitChunk = 4096;  // elements per init task (fixed: results ignore thread count)
constexpr uint64_t kInitStep = ~uint64_t(0);  // Philox counter word reserved for init (never a step)

// One block's weights (or their gradients): views into a parameter-layout arena.
struct BlockWeights {
  float* input_layernorm;           // [C]
  float* q_proj;                    // [C, C]
  float* k_proj;                    // [C, C]
  float* v_proj;                    // [C, C]
  float* o_proj;                    // [C, C]
  float* post_attention_layernorm;  // [C]
  float* gate_proj;                 // [F, C]
  float* up_proj;                   // [F, C]
  float* down_proj;                 // [C, F]
};

struct Weights {
  float* embed_tokens;  // [V, C]
  std::vector<BlockWeights> layers;
  float* norm;     // [C]
  float* lm_head;  // [V, C]
};

// One block's saved activations (M = B·T rows).
struct BlockActs {
  float* res_in;   // [M, C] residual stream entering the block
  float* ln1;      // [M, C] input_layernorm output
  float* rstd1;    // [M]
  float* q;        // [M, C] after RoPE
  float* k;        // [M, C] after RoPE
  float* v;        // [M, C]
  float* att;      // [B, H, T, T] softmax probabilities
  float* atty;     // [M, C] attention output, o_proj input
  float* res_mid;  // [M, C] residual stream after attention
  float* ln2;      // [M, C] post_attention_layernorm output
  float* rstd2;    // [M]
  float* gate;     // [M, F]
  float* up;       // [M, F]
  float* h;        // [M, F] silu(gate)·up, down_proj input
};

struct Acts {
  std::vector<BlockActs> layers;
  float* res_out;  // [M, C] residual stream after the last block
  float* lnf;      // [M, C] final norm output
  float* rstdf;    // [M]
  float* logits;   // [M, V]
  float* probs;    // [M, V]
  float* losses;   // [M]
  float* proj;     // [M, C] o_proj / down_proj output before the residual add
  float* rope_cos;  // [T, hd/2]
  float* rope_sin;  // [T, hd/2]
  // Gradient buffers, reused by every block (zeroed before each use).
  float* dres;     // [M, C] gradient of the residual stream
  float* dln;      // [M, C] gradient of a norm output
  float* datty;    // [M, C]
  float* dq;       // [M, C] after RoPE
  float* dk;       // [M, C] after RoPE
  float* dv;       // [M, C]
  float* dq_pre;   // [M, C] before RoPE (q_proj output)
  float* dk_pre;   // [M, C]
  float* dh;       // [M, F]
  float* dgate;    // [M, F]
  float* dup;      // [M, F]
  float* dlogits;  // [M, V]
};

// Views laid out back to back in one allocation.
class ArenaLayout {
 public:
  void add(float*& view, int64_t n) {
    views_.emplace_back(&view, size_);
    size_ += (n + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
  }
  int64_t size() const { return size_; }
  void bind(float* base) const {
    for (const auto& [view, offset] : views_) *view = base + offset;
  }

 private:
  std::vector<std::pair<float**, int64_t>> views_;
  int64_t size_ = 0;
};

// p[0, n) = 0, in chunks across the threads (a gradient arena is tens of MB).
void zero(float* p, int64_t n) {
  const OpScope op_scope(OpGroup::norm_elementwise);
  constexpr int64_t kChunk = int64_t(1) << 16;  // floats per work item
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c)
    std::memset(p + c * kChunk, 0, sizeof(float) * size_t(std::min(kChunk, n - c * kChunk)));
}

// out [n] = a + b
void add(float* out, const float* a, const float* b, int64_t n) {
  const OpScope op_scope(OpGroup::norm_elementwise);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// out [n] ~ normal(0, std) by Box–Muller; element i takes bytes 8i .. 8i+7 of the Philox stream
// (seed, tensor, kInitStep) as two little-endian uint32 uniforms.
void normal_fill(float* out, int64_t n, uint64_t seed, uint64_t tensor, double std_dev) {
  const PhiloxStream rng(QuantRandom{seed, tensor, kInitStep});
  const int64_t chunks = (n + kInitChunk - 1) / kInitChunk;
#pragma omp parallel for schedule(static)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    const int64_t e0 = ch * kInitChunk, count = std::min(kInitChunk, n - e0);
    std::vector<uint32_t> words(size_t(2 * count));  // two uniform words per element
    rng.fill(uint64_t(8 * e0), 8 * count, reinterpret_cast<uint8_t*>(words.data()));
    for (int64_t i = 0; i < count; ++i) {
      const double u1 = (double(words[size_t(2 * i)]) + 0.5) * 0x1p-32;  // (0, 1)
      const double u2 = double(words[size_t(2 * i + 1)]) * 0x1p-32;       // [0, 1)
      const double radius = std::sqrt(-2.0 * std::log(u1));
      out[e0 + i] = float(std_dev * radius * std::cos(2.0 * std::numbers::pi * u2));
    }
  }
}

}  // namespace

struct Model::Impl {
  ModelConfig cfg;
  RecipeConfig recipe;
  int64_t C, F, V, H, hd, L;
  std::vector<ParamInfo> infos;
  std::vector<float> params, grads;
  Weights w, g;

  // One linear layer: its parameter, kind, block and state; `recipe` is resolved per pass.
  struct Linear {
    int param = 0;
    LayerKind kind = LayerKind::q;
    int block = -1;
    LinearRecipe recipe;
    LinearState state;
  };
  std::vector<Linear> linears;
  LinearInput input;
  LinearScratch scratch;
  // Per input of the linears (four per block, then the LM head's): the wgrad copies a training
  // forward pass makes early, for the backward pass after it (EarlyWgradCopy).
  static constexpr int kInputsPerBlock = 4;
  std::vector<EarlyWgradCopy> early_wgrad;
  // input = x [M, k], input `site` of the model (block · kInputsPerBlock + 0..3: ln1, atty, ln2, h;
  // kInputsPerBlock · L: the final norm's output), with its early copy in training passes.
  void bind_input(const float* x, int64_t k, int site) {
    input.bind(x, M, k, pass.training ? &early_wgrad[size_t(site)] : nullptr);
  }

  int B = 0, T = 0;
  int64_t M = 0;
  std::vector<float> acts_arena;
  Acts a;
  std::vector<int32_t> inputs, targets;  // [M]

  // Data parallelism (set_data_parallel): the global batch is cut into `shards` shards of
  // consecutive sequences, `local_shards` of them on this rank; each parameter gradient is computed
  // per shard (shard_grads: local_shards arenas of the parameter layout) and summed in a fixed tree (reduce_gradients).
  int shards = 1, local_shards = 1;
  Collective* comm = nullptr;  // null: one rank
  int loss_ranks = 0;          // set_loss_ranks (0: ranks())
  std::vector<float> shard_grads, all_shard_grads, local_losses, all_losses;
  std::function<float(float)> reduce_amax;  // the max over ranks, for token operands' amaxes

  int ranks() const { return comm ? comm->size() : 1; }
  bool split() const { return pass.training && ranks() > 1; }
  // Shard s's copy of a gradient view `g_view` (a pointer into `grads`).
  float* shard_view(int s, const float* g_view) {
    if (shards == 1) return const_cast<float*>(g_view);
    return shard_grads.data() + int64_t(s) * num_params() + (g_view - grads.data());
  }

  // The current pass and who watches it.
  GemmPass pass;
  bool collect_stats = false;  // an observer wants quantizer statistics (training passes only)
  std::vector<GemmObserver*> observers;

  std::vector<AttentionQuant> attention;  // per block

  // Block l's attention quantization for this pass (null when its products stay fp32).
  const AttentionQuant* attention_quant(int l, AttentionSide side) {
    const AttentionQuant& q = attention[size_t(l)];
    if (!q.quantized()) return nullptr;
    for (GemmObserver* o : observers) o->attention(l, side, q);
    return &q;
  }
  const AmaxReduce* attention_amax() const { return split() ? &reduce_amax : nullptr; }

  Impl(const ModelConfig& c, const RecipeConfig& r) : cfg(c), recipe(r) {
    if (c.vocab < 1 || c.d_model < 1 || c.n_layers < 1 || c.n_heads < 1 || c.d_ff < 1 ||
        c.seq_len < 1) {
      throw std::invalid_argument("model: every size must be positive");
    }
    if (c.d_model % c.n_heads != 0 || (c.d_model / c.n_heads) % 2 != 0) {
      throw std::invalid_argument("model: d_model / n_heads must be an even integer (RoPE pairs)");
    }
    if (std::string why = validate(r); !why.empty()) throw std::invalid_argument("recipe: " + why);
    C = c.d_model, F = c.d_ff, V = c.vocab, H = c.n_heads, hd = C / H, L = c.n_layers;
    for (int l = 0; l < int(L); ++l) attention.push_back(resolve_attention(r, l, int(L)));
    build_params();
    params.assign(size_t(num_params()), 0.f);
    grads.assign(size_t(num_params()), 0.f);
    w = views(params.data());
    g = views(grads.data());
    early_wgrad.resize(size_t(kInputsPerBlock * L + 1));
  }

  int64_t num_params() const { return infos.back().offset + infos.back().rows * infos.back().cols; }

  void add_param(const std::string& name, int64_t rows, int64_t cols, bool is_linear,
                 LayerKind kind, int block) {
    ParamInfo p;
    p.name = name;
    p.offset = infos.empty() ? 0 : infos.back().offset + infos.back().rows * infos.back().cols;
    p.rows = rows;
    p.cols = cols;
    p.is_linear = is_linear;
    p.kind = kind;
    p.block = block;
    p.decay = rows > 1;  // norms [1, d] are not decayed
    if (is_linear) linears.push_back(Linear{int(infos.size()), kind, block, {}, {}});
    infos.push_back(p);
  }

  // Parameter order: embed_tokens; per block the Llama order below; norm; lm_head.
  void build_params() {
    add_param("embed_tokens", V, C, false, LayerKind::q, -1);
    for (int l = 0; l < L; ++l) {
      const std::string p = "layers." + std::to_string(l) + ".";
      add_param(p + "input_layernorm", 1, C, false, LayerKind::q, l);
      add_param(p + "self_attn.q_proj", C, C, true, LayerKind::q, l);
      add_param(p + "self_attn.k_proj", C, C, true, LayerKind::k, l);
      add_param(p + "self_attn.v_proj", C, C, true, LayerKind::v, l);
      add_param(p + "self_attn.o_proj", C, C, true, LayerKind::attn_out, l);
      add_param(p + "post_attention_layernorm", 1, C, false, LayerKind::q, l);
      add_param(p + "mlp.gate_proj", F, C, true, LayerKind::mlp_gate, l);
      add_param(p + "mlp.up_proj", F, C, true, LayerKind::mlp_up, l);
      add_param(p + "mlp.down_proj", C, F, true, LayerKind::mlp_down, l);
    }
    add_param("norm", 1, C, false, LayerKind::q, -1);
    add_param("lm_head", V, C, true, LayerKind::lm_head, -1);
  }

  Weights views(float* arena) const {
    auto at = [&](int64_t index) { return arena + infos[size_t(index)].offset; };
    Weights v;
    v.embed_tokens = at(0);
    for (int64_t l = 0; l < L; ++l) {
      const int64_t p = 1 + kParamsPerBlock * l;
      v.layers.push_back(BlockWeights{at(p), at(p + 1), at(p + 2), at(p + 3), at(p + 4), at(p + 5),
                                      at(p + 6), at(p + 7), at(p + 8)});
    }
    v.norm = at(1 + kParamsPerBlock * L);
    v.lm_head = at(2 + kParamsPerBlock * L);
    return v;
  }

  void ensure_acts(int b, int t) {
    if (b == B && t == T) return;
    B = b, T = t, M = int64_t(b) * t;
    a = Acts{};
    a.layers.resize(size_t(L));
    ArenaLayout lay;
    for (BlockActs& la : a.layers) {
      for (float** p : {&la.res_in, &la.ln1, &la.q, &la.k, &la.v, &la.atty, &la.res_mid, &la.ln2}) {
        lay.add(*p, M * C);
      }
      lay.add(la.rstd1, M);
      lay.add(la.rstd2, M);
      lay.add(la.att, int64_t(B) * H * T * T);
      for (float** p : {&la.gate, &la.up, &la.h}) lay.add(*p, M * F);
    }
    for (float** p : {&a.res_out, &a.lnf, &a.proj, &a.dres, &a.dln, &a.datty, &a.dq, &a.dk, &a.dv,
                      &a.dq_pre, &a.dk_pre}) {
      lay.add(*p, M * C);
    }
    for (float** p : {&a.dh, &a.dgate, &a.dup}) lay.add(*p, M * F);
    for (float** p : {&a.logits, &a.probs, &a.dlogits}) lay.add(*p, M * V);
    lay.add(a.rstdf, M);
    lay.add(a.losses, M);
    lay.add(a.rope_cos, int64_t(T) * hd / 2);
    lay.add(a.rope_sin, int64_t(T) * hd / 2);
    // Grow only: alternating training and evaluation shapes re-lays the views without reallocating.
    if (size_t(lay.size()) > acts_arena.size()) acts_arena.resize(size_t(lay.size()));
    lay.bind(acts_arena.data());
    rope_tables(a.rope_cos, a.rope_sin, T, hd, cfg.rope_theta);
  }

  void begin_pass(const int32_t* tokens, int b, int t, uint64_t pass_seed, int64_t pass_step,
                  int64_t tokens_seen, bool train_pass) {
    if (b < 1 || t < 1 || t > cfg.seq_len) {
      throw std::invalid_argument("model: need B >= 1 and 1 <= T <= seq_len");
    }
    ensure_acts(b, t);
    inputs.resize(size_t(M));
    targets.resize(size_t(M));
    for (int64_t r = 0; r < B; ++r) {
      for (int64_t i = 0; i < T; ++i) {
        inputs[size_t(r * T + i)] = tokens[r * (T + 1) + i];
        targets[size_t(r * T + i)] = tokens[r * (T + 1) + i + 1];
      }
    }
    for (int32_t tok : inputs) {
      if (tok < 0 || tok >= V) throw std::out_of_range("model: token id outside [0, vocab)");
    }
    for (int32_t tok : targets) {
      if (tok < 0 || tok >= V) throw std::out_of_range("model: token id outside [0, vocab)");
    }
    for (Linear& lin : linears) {
      lin.recipe = resolve_linear(recipe, lin.kind, lin.block, int(L), tokens_seen);
    }
    pass = GemmPass{tokens, b, t, pass_seed, pass_step, tokens_seen, train_pass, local_shards, ranks()};
    for (GemmObserver* o : observers) o->begin_pass(pass);
    collect_stats = false;
    for (const GemmObserver* o : observers) collect_stats = collect_stats || (train_pass && o->wants_stats());
  }

  LinearQuant quant(int li) const {
    const NonfiniteInjection* inject = nullptr;  // testing only
    for (const GemmObserver* o : observers)
      if (!inject) inject = o->injection(li);
    LinearQuant q{&linears[size_t(li)].recipe, pass.seed, uint64_t(pass.step), uint64_t(li), collect_stats,
                  inject, &recipe.delayed, pass.training};
    if (split()) {
      q.token_offset = M * comm->rank();
      q.global_tokens = M * ranks();
      q.reduce_amax = &reduce_amax;
    }
    return q;
  }

  // Shape problems of a quantized operand, named by the linear layer they occur in; the sentinel's
  // finding gets the layer and the step.
  template <class Op>
  void with_layer_name(int li, Op op) const {
    const std::string& name = infos[size_t(linears[size_t(li)].param)].name;
    try {
      op();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(name + " " + e.what());
    } catch (NonfiniteError& e) {
      NonfiniteFinding f = std::move(e.finding);
      f.layer = name;
      f.step = pass.step;
      throw NonfiniteError(std::move(f));
    }
  }

  // Linear li's call as observers see it (forward: y; backward: dy, dx, dw).
  LinearCall call_of(int li, const float* weight, int64_t n, const LinearQuant& q) const {
    LinearCall c;
    c.linear = li;
    c.input = &input;
    c.weight = weight;
    c.n = n;
    c.quant = &q;
    c.state = &linears[size_t(li)].state;
    return c;
  }

  // y [M, n] = linear li applied to the bound input.
  void fwd(int li, float* y, const float* weight, int64_t n) {
    const LinearQuant q = quant(li);
    with_layer_name(li, [&] { linear_forward(y, input, weight, n, q, linears[size_t(li)].state); });
    LinearCall c = call_of(li, weight, n, q);
    c.y = y;
    for (GemmObserver* o : observers) o->after_forward(c);
  }

  // dx [M, K] += , dw [n, K] += (each local shard's copy of it) for linear li with output gradient dy [M, n].
  void bwd(int li, float* dx, float* dw, const float* dy, const float* weight, int64_t n) {
    std::vector<float*> dws(static_cast<size_t>(local_shards), nullptr);
    for (int s = 0; s < local_shards; ++s) dws[size_t(s)] = shard_view(s, dw);
    const LinearQuant q = quant(li);
    LinearCall c = call_of(li, weight, n, q);
    c.dy = dy;
    c.dx = dx;
    c.dw = dws.data();
    c.shards = local_shards;
    for (GemmObserver* o : observers) o->before_backward(c);
    with_layer_name(li, [&] {
      linear_backward(dx, dws.data(), local_shards, dy, input, weight, n, q, linears[size_t(li)].state, scratch);
    });
    for (GemmObserver* o : observers) o->after_backward(c);
  }

  // RMSNorm backward with its weight gradient summed per shard of the tokens.
  void norm_bwd(float* dx, float* dw, const float* dout, const float* x, const float* weight, const float* rstd) {
    const int64_t ms = M / local_shards;
    for (int s = 0; s < local_shards; ++s)
      rmsnorm_backward(dx + s * ms * C, shard_view(s, dw), dout + s * ms * C, x + s * ms * C, weight, rstd + s * ms,
                       ms, C);
  }

  // The gradient over the global batch: the shards' gradients summed in a fixed binary tree,
  // ((g_0 + g_1) + (g_2 + g_3)) + ..., the same on every rank whatever the number of ranks (a power
  // of two dividing the power-of-two shard count): each rank sums its own subtree, an all-gather of
  // one gradient per rank follows, and every rank sums the ranks' subtrees in the same tree.
  // The sum of `count` arenas of P values into `out` (which may be the first arena); the last
  // level of the tree writes `out` directly.
  static void tree_sum(float* arenas, int count, int64_t P, float* out) {
    if (count == 1 && out != arenas) {
#pragma omp parallel for schedule(static)
      for (int64_t j = 0; j < P; ++j) out[j] = arenas[j];
    }
    for (int width = 1; width < count; width *= 2)
      for (int i = 0; i + width < count; i += 2 * width) {
        const float* a = arenas + int64_t(i) * P;
        const float* b = arenas + int64_t(i + width) * P;
        float* sum = 2 * width >= count ? out : arenas + int64_t(i) * P;
#pragma omp parallel for schedule(static)
        for (int64_t j = 0; j < P; ++j) sum[j] = a[j] + b[j];
      }
  }

  void reduce_gradients() {
    if (shards == 1) return;
    const int64_t P = num_params();
    if (ranks() == 1) {
      tree_sum(shard_grads.data(), local_shards, P, grads.data());
      return;
    }
    tree_sum(shard_grads.data(), local_shards, P, shard_grads.data());
    all_shard_grads.resize(size_t(P * ranks()));
    comm->allgather(shard_grads.data(), P, all_shard_grads.data());
    tree_sum(all_shard_grads.data(), ranks(), P, grads.data());
  }

  // The mean loss over the global batch, summed in global row order as cross_entropy_forward does.
  double global_loss() {
    local_losses.assign(a.losses, a.losses + M);
    all_losses.resize(size_t(M * ranks()));
    comm->allgather(local_losses.data(), M, all_losses.data());
    double total = 0.0;
    for (float l : all_losses) total += double(l);
    return total / double(all_losses.size());
  }

  double forward() {
    const int Li = int(L);
    for (EarlyWgradCopy& e : early_wgrad) e.valid = false;  // made afresh by this pass
    embedding_forward(a.layers[0].res_in, inputs.data(), w.embed_tokens, M, C);
    for (int l = 0; l < Li; ++l) {
      BlockActs& la = a.layers[size_t(l)];
      const BlockWeights& lw = w.layers[size_t(l)];
      const int li = kLinearsPerBlock * l;
      float* res_next = l + 1 < Li ? a.layers[size_t(l + 1)].res_in : a.res_out;

      rmsnorm_forward(la.ln1, la.rstd1, la.res_in, lw.input_layernorm, M, C, cfg.norm_eps);
      bind_input(la.ln1, C, kInputsPerBlock * l + 0);
      fwd(li + 0, la.q, lw.q_proj, C);
      fwd(li + 1, la.k, lw.k_proj, C);
      fwd(li + 2, la.v, lw.v_proj, C);
      rope_forward(la.q, la.q, a.rope_cos, a.rope_sin, B, T, H, hd);
      rope_forward(la.k, la.k, a.rope_cos, a.rope_sin, B, T, H, hd);
      attention_forward(la.atty, la.att, la.q, la.k, la.v, B, T, H, hd, attention_quant(l, AttentionSide::fwd),
                        attention_amax());
      bind_input(la.atty, C, kInputsPerBlock * l + 1);
      fwd(li + 3, a.proj, lw.o_proj, C);
      add(la.res_mid, la.res_in, a.proj, M * C);

      rmsnorm_forward(la.ln2, la.rstd2, la.res_mid, lw.post_attention_layernorm, M, C,
                      cfg.norm_eps);
      bind_input(la.ln2, C, kInputsPerBlock * l + 2);
      fwd(li + 4, la.gate, lw.gate_proj, F);
      fwd(li + 5, la.up, lw.up_proj, F);
      swiglu_forward(la.h, la.gate, la.up, M * F);
      bind_input(la.h, F, kInputsPerBlock * l + 3);
      fwd(li + 6, a.proj, lw.down_proj, C);
      add(res_next, la.res_mid, a.proj, M * C);
    }
    rmsnorm_forward(a.lnf, a.rstdf, a.res_out, w.norm, M, C, cfg.norm_eps);
    bind_input(a.lnf, C, kInputsPerBlock * Li);
    fwd(kLinearsPerBlock * Li, a.logits, w.lm_head, V);
    return cross_entropy_forward(a.probs, a.losses, a.logits, targets.data(), M, V);
  }

  void backward() {
    const int Li = int(L);
    if (M % local_shards != 0)
      throw std::invalid_argument("model: " + std::to_string(local_shards) + " batch shards do not divide the batch");
    if (shards > 1) {  // every gradient goes to a shard arena; reduce_gradients writes `grads`
      shard_grads.resize(size_t(num_params() * local_shards));
      zero(shard_grads.data(), num_params() * local_shards);
    } else {
      zero(grads.data(), num_params());
    }
    zero(a.dlogits, M * V);
    const int mean_ranks = loss_ranks > 0 ? loss_ranks : split() ? ranks() : 1;
    cross_entropy_backward(a.dlogits, a.probs, targets.data(), M, V, M * mean_ranks);
    zero(a.dln, M * C);
    bind_input(a.lnf, C, kInputsPerBlock * Li);
    bwd(kLinearsPerBlock * Li, a.dln, g.lm_head, a.dlogits, w.lm_head, V);
    zero(a.dres, M * C);
    norm_bwd(a.dres, g.norm, a.dln, a.res_out, w.norm, a.rstdf);

    for (int l = Li - 1; l >= 0; --l) {
      const BlockActs& la = a.layers[size_t(l)];
      const BlockWeights& lw = w.layers[size_t(l)];
      const BlockWeights& lg = g.layers[size_t(l)];
      const int li = kLinearsPerBlock * l;
      // a.dres holds the gradient of the block output = of res_mid through the skip connection.
      zero(a.dh, M * F);
      bind_input(la.h, F, kInputsPerBlock * l + 3);
      bwd(li + 6, a.dh, lg.down_proj, a.dres, lw.down_proj, C);
      zero(a.dgate, M * F);
      zero(a.dup, M * F);
      swiglu_backward(a.dgate, a.dup, a.dh, la.gate, la.up, M * F);
      zero(a.dln, M * C);
      bind_input(la.ln2, C, kInputsPerBlock * l + 2);
      bwd(li + 4, a.dln, lg.gate_proj, a.dgate, lw.gate_proj, F);
      bwd(li + 5, a.dln, lg.up_proj, a.dup, lw.up_proj, F);
      norm_bwd(a.dres, lg.post_attention_layernorm, a.dln, la.res_mid, lw.post_attention_layernorm, la.rstd2);
      // a.dres now holds the gradient of res_mid = of res_in through the skip connection.
      zero(a.datty, M * C);
      bind_input(la.atty, C, kInputsPerBlock * l + 1);
      bwd(li + 3, a.datty, lg.o_proj, a.dres, lw.o_proj, C);
      for (float* p : {a.dq, a.dk, a.dv, a.dq_pre, a.dk_pre}) zero(p, M * C);
      attention_backward(a.dq, a.dk, a.dv, a.datty, la.q, la.k, la.v, la.att, B, T, H, hd,
                         attention_quant(l, AttentionSide::bwd), attention_amax());
      rope_backward(a.dq_pre, a.dq, a.rope_cos, a.rope_sin, B, T, H, hd);
      rope_backward(a.dk_pre, a.dk, a.rope_cos, a.rope_sin, B, T, H, hd);
      zero(a.dln, M * C);
      bind_input(la.ln1, C, kInputsPerBlock * l + 0);
      bwd(li + 0, a.dln, lg.q_proj, a.dq_pre, lw.q_proj, C);
      bwd(li + 1, a.dln, lg.k_proj, a.dk_pre, lw.k_proj, C);
      bwd(li + 2, a.dln, lg.v_proj, a.dv, lw.v_proj, C);
      norm_bwd(a.dres, lg.input_layernorm, a.dln, la.res_in, lw.input_layernorm, la.rstd1);
    }
    const int64_t ms = M / local_shards;
    for (int s = 0; s < local_shards; ++s)
      embedding_backward(shard_view(s, g.embed_tokens), a.dres + s * ms * C, inputs.data() + s * ms, ms, C);
    reduce_gradients();
  }
};

Model::Model(const ModelConfig& cfg, const RecipeConfig& recipe) : impl_(new Impl(cfg, recipe)) {}
Model::~Model() { delete impl_; }

void Model::init_parameters(uint64_t seed) {
  Impl& m = *impl_;
  const double out_scale = 1.0 / std::sqrt(2.0 * double(m.L));
  for (size_t p = 0; p < m.infos.size(); ++p) {
    const ParamInfo& info = m.infos[p];
    float* data = m.params.data() + info.offset;
    const int64_t n = info.rows * info.cols;
    if (!info.is_linear && info.name != "embed_tokens") {
      std::fill(data, data + n, 1.f);  // norm weights
      continue;
    }
    const bool out_proj = info.is_linear && (info.kind == LayerKind::attn_out ||
                                             info.kind == LayerKind::mlp_down);
    normal_fill(data, n, seed, p, m.cfg.init_std * (out_proj ? out_scale : 1.0));
  }
}

const ModelConfig& Model::config() const { return impl_->cfg; }
const std::vector<ParamInfo>& Model::params() const { return impl_->infos; }
int64_t Model::num_params() const { return impl_->num_params(); }
float* Model::param_data() { return impl_->params.data(); }
const float* Model::param_data() const { return impl_->params.data(); }
float* Model::grad_data() { return impl_->grads.data(); }
const float* Model::last_logits() const { return impl_->a.logits; }
void Model::attach(GemmObserver* observer) { impl_->observers.push_back(observer); }
void Model::detach(GemmObserver* observer) { std::erase(impl_->observers, observer); }
void Model::set_loss_ranks(int ranks) { impl_->loss_ranks = ranks; }

AttachedObservers::AttachedObservers(Model& model, std::vector<GemmObserver*> observers)
    : model_(model), observers_(std::move(observers)) {
  for (GemmObserver* o : observers_) model_.attach(o);
}
AttachedObservers::~AttachedObservers() {
  for (GemmObserver* o : observers_) model_.detach(o);
}

std::vector<std::string> Model::linear_names() const {
  std::vector<std::string> names;
  for (const auto& lin : impl_->linears) names.push_back(impl_->infos[size_t(lin.param)].name);
  return names;
}

double Model::forward_backward(const int32_t* tokens, int B, int T, uint64_t seed, int64_t step,
                               int64_t tokens_seen) {
  impl_->begin_pass(tokens, B, T, seed, step, tokens_seen, true);
  double loss = impl_->forward();
  if (impl_->split()) loss = impl_->global_loss();
  impl_->backward();
  for (GemmObserver* o : impl_->observers) o->end_pass(impl_->pass);
  for (auto& lin : impl_->linears)  // delayed scaling: next step's scales from this step's amaxes
    for (auto& role : lin.state.delayed)
      for (DelayedScaling& d : role) d.update(impl_->recipe.delayed);
  return loss;
}

void Model::set_data_parallel(int shards, Collective* comm) {
  Impl& m = *impl_;
  const int ranks = comm ? comm->size() : 1;
  if (shards < 1 || shards % ranks != 0 || (shards & (shards - 1)) != 0)
    throw std::invalid_argument("model: " + std::to_string(ranks) + " ranks do not divide " + std::to_string(shards) +
                                " batch shards (a power of two)");
  m.shards = shards;
  m.local_shards = shards / ranks;
  m.comm = ranks > 1 ? comm : nullptr;
  m.reduce_amax = [c = m.comm](float local) { return c ? c->max(local) : local; };
}

std::vector<float> Model::delayed_scaling_state() const {
  std::vector<float> rows;
  const auto& lins = impl_->linears;
  for (size_t li = 0; li < lins.size(); ++li)
    for (int r = 0; r < kGemmRoles; ++r)
      for (int o = 0; o < kGemmOperands; ++o) {
        const DelayedScaling& d = lins[li].state.delayed[r][o];
        if (d.history.empty()) continue;
        rows.push_back(float((li * kGemmRoles + size_t(r)) * kGemmOperands + size_t(o)));
        rows.push_back(d.scale);
        rows.push_back(d.fp8_max);
        rows.insert(rows.end(), d.history.begin(), d.history.end());
      }
  return rows;
}

void Model::set_delayed_scaling_state(const std::vector<float>& rows) {
  const size_t width = 3 + size_t(impl_->recipe.delayed.history_len);
  if (rows.size() % width != 0) throw std::invalid_argument("delayed scaling state: rows do not match amax_history_len");
  auto& lins = impl_->linears;
  for (size_t i = 0; i < rows.size(); i += width) {
    const size_t slot = size_t(rows[i]), li = slot / (kGemmRoles * kGemmOperands);
    if (li >= lins.size()) throw std::invalid_argument("delayed scaling state: no such linear layer");
    DelayedScaling& d = lins[li].state.delayed[(slot / kGemmOperands) % kGemmRoles][slot % kGemmOperands];
    d.scale = rows[i + 1];
    d.fp8_max = rows[i + 2];
    d.history.assign(rows.begin() + std::ptrdiff_t(i + 3), rows.begin() + std::ptrdiff_t(i + width));
  }
}

double Model::forward_loss(const int32_t* tokens, int B, int T, int64_t tokens_seen) {
  impl_->begin_pass(tokens, B, T, 0, 0, tokens_seen, false);
  return impl_->forward();
}

}  // namespace fp4lab
