// The quantized linear layer Y = X·Wᵀ (no bias; W stored [N, K] as PyTorch stores it) and its three
// GEMMs, each operand quantized by quantize() per the layer's LinearRecipe (the table in
// core/quant/NUMERICS.md, Operands and copies):
//   fprop  Y  [M,N] = Q(X) [M,K] · Q(W)ᵀ            rowwise copies, blocks along K
//   dgrad  dX [M,K] = Q(dY) [M,N] · Q(Wᵀ)ᵀ          dY rowwise (along N); W columnwise, Wᵀ [K,N] along N
//   wgrad  dW [N,K] = Q(dYᵀ) [N,M] · Q(Xᵀ)ᵀ         columnwise copies along the tokens M (RHT if asked)
// An operand whose spec has element `none` is used as is, without a copy. Every call also runs the
// non-finite sentinel (quantizer inputs/outputs and GEMM outputs) and throws NonfiniteError at the
// first NaN/Inf. Not the quantizer.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops/fp4_gemm.hpp"
#include "core/quant/quant_bias.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab {

// The six operands of a linear layer's three GEMMs (core/quant/NUMERICS.md, Operands and copies):
//   fprop  Y  = X · Wᵀ      operands x  (rowwise, blocks along K)   and w (rowwise)
//   dgrad  dX = dY · W      operands dy (rowwise, blocks along N)   and w (columnwise = Wᵀ)
//   wgrad  dW = dYᵀ · X     operands dy (columnwise, along tokens)  and x (columnwise, along tokens)
struct LinearRecipe {
  QuantSpec fprop_x, fprop_w, dgrad_dy, dgrad_w, wgrad_dy, wgrad_x;
  bool bf16_output = false;  // round each GEMM output to bf16, as the real recipe emits it
  // How a GEMM whose operands are both FP4 blocks along its contraction axis is computed (see
  // uses_block_exact); every other GEMM is an fp32 product of the dequantized operands.
  GemmNumerics numerics = GemmNumerics::dequant_fp32;
  bool operator==(const LinearRecipe&) const = default;
  bool any_quantized() const;
};

// Why a linear recipe cannot be run, or "" if it can. A random Hadamard transform rotates the
// reduction axis, so both operands of a GEMM must use the same transform (or none). Only dgrad_w and
// wgrad_x may take `source: fprop` (a copy of the dequantized forward copy Q(W) or Q(X)). Shape checks
// (block sizes against layer widths and token counts) are quantize()'s validate(spec, rows, cols).
std::string validate(const LinearRecipe& r);

// Whether a GEMM with operand specs a and b runs block_exact under `numerics`: both FP4 blocks
// (fp4_blockable) of one block size. A wgrad GEMM cut into token shards also needs shards of whole
// blocks; linear_backward falls back to dequant_fp32 otherwise (LinearState::numerics says which ran).
bool uses_block_exact(GemmNumerics numerics, const QuantSpec& a, const QuantSpec& b);

// TE DelayedScaling (recipe.amax_history_len, amax_compute_algo, margin): an operand whose spec has
// Scaling::delayed is quantized with a per-tensor fp32 scale computed from the amaxes of earlier steps.
enum class AmaxAlgo : uint8_t { max, most_recent };
template <>
struct EnumNames<AmaxAlgo> {
  static constexpr EnumName<AmaxAlgo> names[] = {{AmaxAlgo::max, "max"}, {AmaxAlgo::most_recent, "most_recent"}};
};
struct DelayedScalingConfig {
  int history_len = 1024;
  AmaxAlgo algo = AmaxAlgo::max;
  double margin = 0.0;
  bool operator==(const DelayedScalingConfig&) const = default;
};

// One delayed-scaling operand (TE amax_and_scale_update): a step quantizes with `scale` and
// records its amax in history[0]; update() at the end of the step takes the amax of the history
// (max, or history[0] for most_recent), rolls it (history[0] moves to the end, the oldest entry
// drops out, slot 0 restarts at 0), and sets scale = RN(RN(fp8_max * 2^-margin) / amax) when that
// amax is finite and > 0 (else the scale stays). So the scale used at step t comes from steps < t;
// step 1 uses 1.0, as TE initialises it.
struct DelayedScaling {
  std::vector<float> history;  // empty until the operand is first quantized
  float scale = 1.0f;
  float fp8_max = 0.0f;  // largest value of the operand's element format
  void record(float amax, float element_max, int history_len);
  void update(const DelayedScalingConfig& cfg);
};

// The six operand uses, indexed [role][operand] with the numbering of the run file's GemmRole and
// Operand: role fprop 0, dgrad 1, wgrad 2; operand a 0 (X or dY), b 1 (W or X).
constexpr int kGemmRoles = 3;
constexpr int kGemmOperands = 2;
constexpr int kGemmOutput = kGemmOperands;  // NonfiniteFinding::operand of a GEMM's output

// The "what-if" formats of the telemetry: the SQNR each quantized operand would have as plain
// nvfp4 (fp4_e2m1/16 e4m3 1d rne) and as plain mxfp4 (fp4_e2m1/32 ue8m0-floor 1d rne).
constexpr int kWhatIfFormats = 2;
constexpr const char* kWhatIfFormatNames[kWhatIfFormats] = {"nvfp4", "mxfp4"};

// One quantized copy of an operand: dequantized fp32 values in the layout its GEMM consumes, plus the
// quantizer's telemetry when it was asked for.
struct OperandCopy {
  // The dequantized copy; holds other data (a scratch) when has_values is false, which only a
  // block_exact copy quantized straight into `fp4` is (core/ops/fp4_quantize.hpp).
  ScratchVector<float> values;
  bool has_values = false;
  QuantStats stats;  // telemetry only
  // Telemetry only: SQNR (dB) of the same input (before any RHT) under kWhatIfFormatNames; NaN when
  // the format cannot take the shape.
  float whatif_sqnr_db[kWhatIfFormats] = {};
  // Telemetry only (core/quant/quant_bias.hpp): the signed bias of `values` against what the
  // quantizer rounded (after any RHT), and with stochastic rounding the concentration of 64 extra
  // draws on that input (NaN with round-to-nearest).
  QuantBias bias;
  SrConcentration sr_rms = {};
  QuantSpec spec;  // the spec `values` were made with
  // The same copy as codes and block scales for block_exact GEMMs (fp4.valid when made).
  Fp4Operand fp4;
  std::vector<uint8_t> codes, scale_bytes;  // the quantizer's outputs behind fp4
  std::vector<float> row_amax;
  float amax = 0.0f;  // the quantizer input's amax (delayed-scaling operands only)
  bool valid = false;
};

// Where the non-finite sentinel found the first NaN/Inf of a linear call, with the tensor itself.
// Layouts are those the GEMM reads: fprop X [M,K] and W [N,K]; dgrad dY [M,N] and Wᵀ [K,N]; wgrad
// dYᵀ [N,M] and Xᵀ [K,M]; outputs Y [M,N], dX [M,K], dW [N,K].
struct NonfiniteFinding {
  std::string layer;  // the linear layer's name and the pass's step: filled in by the model
  int64_t step = -1;
  int role = 0;     // 0 fprop, 1 dgrad, 2 wgrad
  int operand = 0;  // 0 a (X or dY), 1 b (W or X), kGemmOutput: the GEMM's output
  // "input": the operand before quantization (or a pass-through operand); "transformed": its RHT
  // (the input was finite); "dequant": the quantized copy (the input was finite); "output".
  std::string where;
  int64_t rows = 0, cols = 0;
  int64_t index = -1;  // row-major index into [rows, cols] of the first non-finite element
  int64_t block = -1;  // its block: row·(cols/block) + col/block (the scale's index); -1 without blocks
  QuantSpec spec;      // the operand's format (element none: pass-through, and for outputs)
  std::vector<float> input;    // [rows, cols] the operand before quantization, or the output
  std::vector<float> dequant;  // [rows, cols] the quantized copy; empty for pass-through and outputs
  std::string describe() const;  // "layers.1.mlp.down_proj wgrad x input, block 37 (index 1234 of [64, 256])"
};

// Thrown by linear_forward / linear_backward at the first non-finite value they meet.
struct NonfiniteError : std::runtime_error {
  explicit NonfiniteError(NonfiniteFinding f);
  NonfiniteFinding finding;
};

// Testing aid: poisons element `index` (row-major in the operand's GEMM layout) of one quantized
// operand's quantizer input with NaN, so the sentinel can be checked end to end.
struct NonfiniteInjection {
  int role = 0, operand = 0;
  int64_t index = 0;
};

// The wgrad copy Q(Xᵀ) of one input made early: by the forward pass of a training step, right after
// the fprop copy, while X is still in cache (read cold in backward it cost a small model's step
// about 5 % of its quantizer time). Only block_exact copies that the direct quantizer makes
// (codes and scales, no dequantized values), without telemetry, on one rank. The backward pass
// takes it when it was made from the same X with the spec and random stream backward would use,
// else makes its own; the caller clears `valid` before each forward pass.
struct EarlyWgradCopy {
  Fp4Operand fp4;
  QuantSpec spec;
  QuantRandom random;
  const float* x = nullptr;
  int64_t m = 0, k = 0;
  bool valid = false;
};

// The input X [M, K] of one or more linears. Linears reading the same X (q, k, v; gate, up) share
// its copies, as a fused projection would: the fprop copy Q(X) [M,K] and the wgrad copy Q(Xᵀ) [K,M]
// are made by the first consumer that needs them and reused by the others when the spec is equal
// (with the first consumer's random stream). The ops take it by non-const reference for this cache
// only; X itself is never written. `early`, when set, is where a training forward pass leaves the
// wgrad copy for backward: the caller keeps one per input from forward to backward and binds it
// with the input both times.
struct LinearInput {
  const float* x = nullptr;  // [M, K]
  int64_t m = 0, k = 0;
  OperandCopy fprop;  // [M, K]
  OperandCopy wgrad;  // [K, M]
  EarlyWgradCopy* early = nullptr;
  // new contents: drops both copies (not `early`'s, which is checked against X when used)
  void bind(const float* x_new, int64_t m_new, int64_t k_new, EarlyWgradCopy* early_copy = nullptr);
};

// What keys one linear's quantization: recipe, random streams, telemetry.
struct LinearQuant {
  const LinearRecipe* recipe = nullptr;
  uint64_t seed = 0;
  uint64_t step = 0;
  uint64_t stream = 0;  // the linear's index; operand (role r, operand o) draws tensor_id 6·stream + 2r + o
  bool collect_stats = false;  // fill OperandCopy::stats, whatif_sqnr_db, bias and sr_rms
  const NonfiniteInjection* inject = nullptr;  // testing only
  const DelayedScalingConfig* delayed = nullptr;  // needed by delayed-scaling operands
  bool record_amax = false;  // a training pass: delayed-scaling operands record their amax
  // Data parallelism: the tokens are rows [token_offset, token_offset + M) of global_tokens (0: not
  // split). X and dY operands then draw SR bits by global position and take the global tensor amax
  // through reduce_amax (the max over ranks); W operands are whole on every rank.
  int64_t token_offset = 0, global_tokens = 0;
  const std::function<float(float)>* reduce_amax = nullptr;
};

// Per-linear state: Q(W) made in fprop, which dgrad reuses when Q(Wᵀ) is its exact transpose (16×16
// tiles, same spec, round-to-nearest, no RHT), and which copy each operand use read in the last
// call (null: used as is). `used` points into this state, the LinearInput or the LinearScratch and
// is valid until the next call on any of them.
struct LinearState {
  OperandCopy w_fprop;  // [N, K]
  const OperandCopy* used[kGemmRoles][kGemmOperands] = {};
  DelayedScaling delayed[kGemmRoles][kGemmOperands];  // per operand use; the model calls update()
  GemmNumerics numerics[kGemmRoles] = {};  // what each GEMM ran in the last call
};

// Buffers for one backward call, shared by all linears of a model.
struct LinearScratch {
  OperandCopy dy_dgrad;  // Q(dY) [M, N]
  OperandCopy w_dgrad;   // Q(Wᵀ) [K, N], when not the transpose of Q(W)
  OperandCopy dy_wgrad;  // Q(dYᵀ) [N, M]
  Fp4Operand w_dgrad_fp4;  // Q(Wᵀ) as the transpose of the forward copy's codes (block_exact reuse)
  std::vector<float> out;  // a GEMM output before bf16 rounding and accumulation
  std::vector<float> shard_dy, shard_x;  // one shard's tokens of the wgrad operands
};

// y [M, N] = X·Wᵀ (overwritten); x.x [M, K]; w [N, K]. With recipe.bf16_output, y is rounded to
// bf16. Throws std::invalid_argument (naming the GEMM and operand) for a shape a spec cannot take,
// NonfiniteError at a NaN/Inf in a quantizer's input or output or in the GEMM's output.
void linear_forward(float* y, LinearInput& x, const float* w, int64_t n, const LinearQuant& q,
                    LinearState& st);

// dx [M, K] += dY·W; dw [N, K] += dYᵀ·X; dy [M, N]; x and w as in forward (forward must have run on
// the same w when dgrad reuses its Q(W)). With recipe.bf16_output each product is rounded to bf16
// before it is added.
void linear_backward(float* dx, float* dw, const float* dy, LinearInput& x, const float* w,
                     int64_t n, const LinearQuant& q, LinearState& st, LinearScratch& sc);
// The same with the tokens cut into `shards` equal consecutive shards: dw[s] [N, K] += the wgrad
// product of shard s alone (the operands are quantized once, over all M tokens), so a gradient
// summed over shards in a fixed order does not depend on how shards are spread over ranks.
void linear_backward(float* dx, float* const* dw, int shards, const float* dy, LinearInput& x, const float* w,
                     int64_t n, const LinearQuant& q, LinearState& st, LinearScratch& sc);

// dw [N, K] = dYᵀ·X in fp32 (overwritten): no quantization, no bf16 rounding, summed over `shards`
// token shards in order as the sharded linear_backward sums. The reference the gradient-to-noise
// ratio compares the quantized wgrad with (telemetry only).
void linear_wgrad_reference(float* dw, const float* dy, const LinearInput& x, int64_t n, int shards = 1);

// Telemetry: the bias/variance split of stochastic rounding in GEMM `role` (0 fprop, 1 dgrad, 2
// wgrad) of one linear, right after the call that trained with it (FidelityRecord in
// core/model/telemetry.hpp). The GEMM is recomputed `draws` times from the inputs that call quantized
// (dy [M, N] for dgrad and wgrad, null for fprop; x and w as in forward; a `source: fprop` operand
// from the forward copy x or st holds): draw d quantizes each SR operand with the stream
// QuantRandom{seed, tensor_id + (2 + d)·2³², step}, which neither training (tensor_id < 2³²) nor
// sr_concentration (+ 2³²) reads; a deterministic operand is quantized once, with its own stream.
// Each product is the fp32 product of the dequantized copies, rounded to bf16 when the recipe rounds
// GEMM outputs; g_local is the fp32 product of the unquantized inputs. A token operand takes this
// rank's amax (no reduction across data-parallel ranks). NaN, NaN when neither operand rounds
// stochastically or g_local is zero.
struct SrSplit {
  float bias = 0;     // ‖mean_d g_d − g_local‖ / ‖g_local‖
  float rel_std = 0;  // √(Σ_d ‖g_d − mean‖² / (draws − 1)) / ‖g_local‖
};
SrSplit linear_sr_split(int role, const float* dy, const LinearInput& x, const float* w, int64_t n, const LinearQuant& q,
                        const LinearState& st, int draws);

}  // namespace fp4lab
