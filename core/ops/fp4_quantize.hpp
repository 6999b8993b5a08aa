// Quantizing straight into a block_exact GEMM operand: the int8 values (2 × E2M1) and decoded block
// scales the FP4 kernels read, without the dequantized fp32 copy, the codes or the raw scale bytes.
// One contract with the general path: quantize_fp4_operand gives the operand that
// fp4_operand_from_codes builds from quantize()'s codes and scales, and the same tensor amax and
// non-finite sentinel, bit for bit, for any thread count (tests/test_fp4_quantize.cpp).
#pragma once
#include <cstdint>

#include "core/ops/fp4_gemm.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab {

// Whether this build quantizes `spec` directly: E2M1 elements in blocks of 16 or 32 with E4M3
// block scales rounded to nearest under a per-tensor scale (Q = 448, or 4over6 with Q = 448 or 256;
// no row scaling, encode window or delayed scaling) or UE8M0 scales; 1D or 2D tiles, RNE or SR,
// with or without RHT, fp32 or bf16 operands; and a build with AVX2 (every build but one for a CPU
// without it). Otherwise callers take quantize() and fp4_operand_from_codes.
bool fp4_direct_supported(const QuantSpec& spec);

// `out` = fp4_operand_from_codes of quantize(in, rows, cols, spec, rnd, ...), with the tensor amax
// in *extra.global_amax and the sentinel in *extra.nonfinite when set, and extra.reduce_amax applied
// as quantize() applies it. Other outputs of `extra` must be null. `scratch` [rows, cols] receives
// the bf16-rounded or Hadamard-transformed tensor when the spec has one (it may be `in`); its
// contents afterwards are not a dequantized copy. With `transposed`, `in` is stored [cols, rows]
// (the operand is its transpose, as wgrad's Xᵀ and dYᵀ are) and must not be `scratch`: 1D
// blocks of 16 or 32 are quantized from the stored layout, down its columns (no fp32 transpose);
// other specs are transposed into scratch first. Throws std::invalid_argument as quantize() does, and
// std::logic_error for a spec fp4_direct_supported() rejects.
void quantize_fp4_operand(const float* in, float* scratch, int64_t rows, int64_t cols, const QuantSpec& spec,
                          const QuantRandom& rnd, const QuantOutputs& extra, Fp4Operand& out, bool transposed = false);

}  // namespace fp4lab
