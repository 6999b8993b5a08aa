// The quantized linear layer Y = X·Wᵀ (no bias; W stored [N, K] as PyTorch stores it) and its three
// GEMMs, each operand quantized by quantize() per the layer's LinearRecipe (spec §3's table):
//   fprop  Y  [M,N] = Q(X) [M,K] · Q(W)ᵀ            rowwise copies, blocks along K
//   dgrad  dX [M,K] = Q(dY) [M,N] · Q(Wᵀ)ᵀ          dY rowwise (along N); W columnwise, Wᵀ [K,N] along N
//   wgrad  dW [N,K] = Q(dYᵀ) [N,M] · Q(Xᵀ)ᵀ         columnwise copies along the tokens M (RHT if asked)
// An operand whose spec has element `none` is used as is, without a copy. Not the quantizer.
#pragma once
#include <cstdint>
#include <vector>

#include "core/model/recipe.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab {

// The six operand uses, indexed [role][operand] with the numbering of the run file's GemmRole and
// Operand: role fprop 0, dgrad 1, wgrad 2; operand a 0 (X or dY), b 1 (W or X).
constexpr int kGemmRoles = 3;
constexpr int kGemmOperands = 2;

// One quantized copy of an operand: dequantized fp32 values in the layout its GEMM consumes, plus the
// quantizer's telemetry when it was asked for.
struct OperandCopy {
  std::vector<float> values;
  std::vector<uint8_t> scales;  // raw block-scale bits (telemetry only)
  QuantStats stats;             // telemetry only
  float global_amax = 0.f;      // telemetry only
  QuantSpec spec;               // the spec `values` were made with
  bool valid = false;
};

// The input X [M, K] of one or more linears. Linears reading the same X (q, k, v; gate, up) share
// its copies, as a fused projection would: the fprop copy Q(X) [M,K] and the wgrad copy Q(Xᵀ) [K,M]
// are made by the first consumer that needs them and reused by the others when the spec is equal
// (with the first consumer's random stream). The ops take it by non-const reference for this cache
// only; X itself is never written.
struct LinearInput {
  const float* x = nullptr;  // [M, K]
  int64_t m = 0, k = 0;
  OperandCopy fprop;  // [M, K]
  OperandCopy wgrad;  // [K, M]
  void bind(const float* x_new, int64_t m_new, int64_t k_new);  // new contents: drops both copies
};

// What keys one linear's quantization: recipe, random streams, telemetry.
struct LinearQuant {
  const LinearRecipe* recipe = nullptr;
  uint64_t seed = 0;
  uint64_t step = 0;
  uint64_t stream = 0;  // the linear's index; operand (role r, operand o) draws tensor_id 6·stream + 2r + o
  bool collect_stats = false;  // fill OperandCopy::stats/scales/global_amax
};

// Per-linear state: Q(W) made in fprop, which dgrad reuses when Q(Wᵀ) is its exact transpose (16×16
// tiles, same spec, round-to-nearest, no RHT), and which copy each operand use read in the last
// call (null: used as is). `used` points into this state, the LinearInput or the LinearScratch and
// is valid until the next call on any of them.
struct LinearState {
  OperandCopy w_fprop;  // [N, K]
  const OperandCopy* used[kGemmRoles][kGemmOperands] = {};
};

// Buffers for one backward call, shared by all linears of a model.
struct LinearScratch {
  OperandCopy dy_dgrad;  // Q(dY) [M, N]
  OperandCopy w_dgrad;   // Q(Wᵀ) [K, N], when not the transpose of Q(W)
  OperandCopy dy_wgrad;  // Q(dYᵀ) [N, M]
  std::vector<float> out;  // a GEMM output before bf16 rounding and accumulation
};

// y [M, N] = X·Wᵀ (overwritten); x.x [M, K]; w [N, K]. With recipe.bf16_output, y is rounded to
// bf16. Throws std::invalid_argument (naming the GEMM and operand) for a shape a spec cannot take.
void linear_forward(float* y, LinearInput& x, const float* w, int64_t n, const LinearQuant& q,
                    LinearState& st);

// dx [M, K] += dY·W; dw [N, K] += dYᵀ·X; dy [M, N]; x and w as in forward (forward must have run on
// the same w when dgrad reuses its Q(W)). With recipe.bf16_output each product is rounded to bf16
// before it is added.
void linear_backward(float* dx, float* dw, const float* dy, LinearInput& x, const float* w,
                     int64_t n, const LinearQuant& q, LinearState& st, LinearScratch& sc);

}  // namespace fp4lab
