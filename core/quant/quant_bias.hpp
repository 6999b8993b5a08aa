// Telemetry of a quantizer's signed bias: how much a dequantized copy shrinks (or grows) what it
// rounded, and how fast the mean of independent stochastic-rounding draws concentrates on the input
// (an unbiasedness check). Computed from the input and dequantized copies; not the quantizer.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/quant/quantize.hpp"

namespace fp4lab {

// x [rows, cols] = what quantize(in, ..., spec) rounds: `in` (rounded to bf16 for bf16 operands), or in·H along the last axis
// (rounded to bf16, the bits quantize() encodes) with spec.rht. The domain of quantize()'s output.
// Throws std::invalid_argument if validate(spec, rows, cols) fails.
void quantizer_domain(float* x, const float* in, int64_t rows, int64_t cols, const QuantSpec& spec);

// The signed bias of a dequantized copy q [rows, cols] of x [rows, cols] (finite), accumulated per
// row in double and summed in row order (independent of the thread count). NaN when x is all zero.
struct QuantBias {
  float shrinkage = 0;  // Σ q·x / Σ x² − 1: negative when q shrinks magnitudes (RNE on E2M1 does)
  float mean = 0;       // mean(q − x) / rms(x)
};
QuantBias quant_bias(const float* x, const float* q, int64_t rows, int64_t cols);

// Concentration of stochastic rounding: rms(mean of k draws − x) / rms(x) for each k below, over
// the leading rows of x (sr_subset_rows). An unbiased SR falls as 1/√k down to a floor: the
// resolution of its 8 random bits (1/256 of a grid step) and any deterministic error (clipping).
constexpr std::array<int, 4> kSrDrawCounts = {1, 4, 16, 64};
using SrConcentration = std::array<float, kSrDrawCounts.size()>;
// At least this many elements are drawn from (if x has them): enough for a ~2% standard error of
// each rms, small enough that 64 draws per SR operand stay a fraction of a telemetry step.
constexpr int64_t kSrSubsetElements = 2048;

// Rows of x [rows, cols] the concentration draws from: the fewest whole bands (one row, or a 2D
// tile's height) holding kSrSubsetElements elements, at most all rows.
int64_t sr_subset_rows(int64_t rows, int64_t cols, const QuantSpec& spec);

// A stand-in for x [rows, cols]: `copies` copies of its first `lead` rows (whole bands), one after
// the other, that quantize() rounds with the scales they have inside x: when lead < rows they are
// followed by one band that is zero but for one max|x|, so that the tensor scale (NVFP4's,
// per-tensor fp32) is x's; block scales depend on their own blocks only. The first copy also gets
// the random bits of x's leading rows (element indices are row-major). Returns [copies·lead, cols],
// or [copies·lead + band, cols] with the pad band.
std::vector<float> leading_rows_standin(const float* x, int64_t rows, int64_t cols, int64_t lead,
                                        const QuantSpec& spec, int copies = 1);

// The concentration of spec (rounding sr) on x [rows, cols] (finite), given in the quantizer's
// domain (quantizer_domain: the transform is not applied again). The 64 draws are 64 copies of the
// subset in one stand-in, quantized by one call (the fixed cost of 64 calls this small would
// dominate) with the stream QuantRandom{rnd.seed, rnd.tensor_id + 2³², rnd.step}, which no
// operand's own stream (tensor_id < 2³²) uses, so training's draws are untouched. Every element of
// every copy reads its own bits of that counter-based stream: the draws are independent. k = 1, 4,
// 16, 64 are running means of the first k copies. Independent of the thread count. Throws
// std::invalid_argument if validate(spec, rows, cols) fails.
SrConcentration sr_concentration(const float* x, int64_t rows, int64_t cols, const QuantSpec& spec,
                                 const QuantRandom& rnd);

}  // namespace fp4lab
