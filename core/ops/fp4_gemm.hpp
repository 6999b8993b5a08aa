// Block-scaled FP4 × FP4 products (`block_exact` GEMM numerics), computed the way a block-scaled
// MMA does: exact integer products inside each block, one scale multiply per block, fp32
// accumulation across blocks (core/quant/NUMERICS.md, FP4 × FP4 GEMMs). Both operands are stored
// [rows, k] with blocks along k (the contraction axis), as the quantizer writes a copy.
//
// For C [m, n] = A [m, k] · B [n, k]ᵀ, with a, b = 2 × the E2M1 values (integers in [−12, 12]),
// s_a, s_b the decoded block scales (E4M3, ufloat or UE8M0) and blocks β of `block` elements:
//   I_β   = Σ_{k∈β} a_ik · b_jk                         (exact integer, |I_β| ≤ block · 144)
//   p_β   = RN(s_a,iβ · (s_b,jβ / 4))                    (s_b / 4 exact; p_β exact unless it leaves
//                                                         fp32's range: only UE8M0 pairs can)
//   acc   = 0; for β ascending: acc = RN(acc + p_β · I_β)  (one rounding per block: a fused
//                                                         multiply-add; p_β · I_β itself is exact
//                                                         whenever p_β is and it does not overflow)
//   C_ij  = RN(acc · G_ij), G_ij = RN(RN(u_a,i · u_b,j) · RN(1 / (d_a · d_b)))
// where (u, d) is (tensor amax, 6·Q) for NVFP4 (amax per row for row-scaled NVFP4; Q = 448, or 256
// with 4over6, or a ufloat scale's largest value: 114688 for UE5M3) and (1, 1) for MX: G is cuBLASLt's alpha for NVFP4 (RN(RN(amax_A · amax_B) ·
// RN(1/7225344))) and 1 for MXFP4. `accumulate` adds RN(C_old + C_ij).
// Every element's arithmetic is fixed by (i, j) alone, so the bits never depend on the tiling,
// the thread count or the kernel: the AVX-512 VNNI, AVX2 and scalar kernels agree bit for bit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/scratch_vector.hpp"
#include "core/quant/quant_spec.hpp"

namespace fp4lab {

// The numerics of a GEMM whose operands are both FP4 blocks along the contraction axis.
enum class GemmNumerics : uint8_t {
  dequant_fp32,  // fp32 GEMM of the dequantized operands (TE's reference emulation)
  block_exact,   // the block-scaled integer products above
};
template <>
struct EnumNames<GemmNumerics> {
  static constexpr EnumName<GemmNumerics> names[] = {{GemmNumerics::dequant_fp32, "dequant_fp32"},
                                                     {GemmNumerics::block_exact, "block_exact"}};
};

// Whether a quantized copy made with `spec` can feed a block_exact GEMM: E2M1 elements with E4M3
// or UE8M0 block scales (any tile, rounding, RHT, 4over6, row scaling), or with ufloat scales whose
// products p_β are all exact in fp32 (at most 8 significant bits each, so exact unless the smallest
// nonzero product falls below FLT_MIN or the largest overflows: UE5M3 is exact, a ufloat with a
// wider range than fp32 can hold squared is not and its GEMMs run dequant_fp32), and no encode
// window: a window's S_enc changes along the contraction axis, so it cannot sit in the per-row
// global factor (such GEMMs run dequant_fp32).
bool fp4_blockable(const QuantSpec& spec);

// One operand in the kernels' input form, [rows, k] with blocks of `block` along k.
struct Fp4Operand {
  int64_t rows = 0, k = 0;
  int block = 0;
  ScratchVector<int8_t> q;     // [rows, k]: 2 × the E2M1 value
  ScratchVector<float> scale;  // [rows, k / block]: the decoded block scale
  std::vector<float> unit;    // u of the global factor: 1 value (per tensor) or `rows` (row-scaled)
  float denom = 1.0f;         // d of the global factor: 6·Q for NVFP4, 1 for MX
  bool valid = false;
};

// From the quantizer's outputs for a copy made with `spec` (fp4_blockable): element codes (0..15),
// raw scale bytes, the tensor amax and, for row-scaled NVFP4, the row amaxes.
void fp4_operand_from_codes(Fp4Operand& out, const QuantSpec& spec, int64_t rows, int64_t k,
                            const std::vector<uint8_t>& codes, const std::vector<uint8_t>& scales, float tensor_amax,
                            const std::vector<float>& row_amax);

// The operand of the transposed tensor, for a copy with 16×16 (2D) tiles: Q(Wᵀ) = Q(W)ᵀ.
// Needs rows % block == 0 and a per-tensor global factor.
void fp4_transpose_tiles(Fp4Operand& out, const Fp4Operand& in);

// Columns [k0, k0 + k) of an operand (a token shard of a wgrad copy); k0 and k multiples of its block.
struct Fp4View {
  const Fp4Operand* op = nullptr;
  int64_t k0 = 0, k = 0;
};
Fp4View whole(const Fp4Operand& op);

enum class Fp4Kernel : uint8_t { scalar, avx2, avx512_vnni };
template <>
struct EnumNames<Fp4Kernel> {
  static constexpr EnumName<Fp4Kernel> names[] = {
      {Fp4Kernel::scalar, "scalar"}, {Fp4Kernel::avx2, "avx2"}, {Fp4Kernel::avx512_vnni, "avx512_vnni"}};
};
// This process's kernel, chosen once from the CPU (AVX-512 VNNI, else AVX2, else scalar);
// FP4LAB_FP4_KERNEL=scalar|avx2|avx512_vnni overrides (one the CPU lacks is an error).
Fp4Kernel fp4_kernel();
bool fp4_kernel_supported(Fp4Kernel);

// C [m, n] (+)= A · Bᵀ by the formula above (m = a.op->rows, n = b.op->rows); with bf16_product
// each product RN(acc · G) is rounded to bf16 (RNE, NaN quieted, as the quantizer's bf16) before it
// is stored or added, as a recipe with bf16 GEMM outputs emits it. Returns whether every element
// written is finite (the non-finite sentinel). Throws std::invalid_argument when the shapes or
// blocks disagree.
bool fp4_matmul(float* c, const Fp4View& a, const Fp4View& b, bool accumulate, bool bf16_product = false);
bool fp4_matmul(Fp4Kernel kernel, float* c, const Fp4View& a, const Fp4View& b, bool accumulate,
                bool bf16_product = false);

}  // namespace fp4lab
