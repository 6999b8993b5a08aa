// Direct FP4 quantization (see fp4_quantize.hpp), in one OpenMP region, over units of rows (16-row
// bands for 2D tiles, else whole rows of about 4096 elements together). Pass 1: bf16 rounding, the
// Hadamard transform (rht_row) and block amaxes, as quantize()'s first pass. Then the tensor amax
// and scaling; pass 2: the block scales (eight
// blocks per register, E4M3 rounded as quantize's BlockScaler rounds it) and the element loop,
// eight elements per register: y = x · encode rounded to the E2M1 grid (RNE, or SR with the same
// Philox bytes), stored as the integer 2 × value. Every lane runs the operations quantize's AVX2
// kernels run for that element, so the bits agree. Pass 1 takes the block maxima as integers, which
// also tells whether a NaN is among the values: a tensor without one, under a finite amax, can have
// no NaN y (finite x times a finite encode multiplier), and pass 2 leaves out the NaN rules. A
// transposed input (wgrad's Xᵀ, dYᵀ) is quantized as stored by the slab path (quantize_slabs), or,
// for specs outside it, transposed into scratch first. The element and block-scale kernels are AVX2
// in every build (on an AVX-512 Zen 4, sixteen-lane versions of them measured slower; CHANGELOG.md,
// 2026-11-27); the slab path's Hadamard tile runs on sixteen lanes in AVX-512 builds (rht16_down16,
// faster there).
#include "core/ops/fp4_quantize.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/formats/bf16.hpp"
#include "core/formats/fp8.hpp"
#include "core/formats/ue8m0.hpp"
#include "core/ops/matmul.hpp"
#include "core/profile/op_timer.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/encode_kernels.hpp"
#include "core/quant/philox.hpp"
#include "core/quant/rht.hpp"

namespace fp4lab {

#ifdef __AVX2__
namespace {

constexpr int kLanes = 16;  // elements per block: a multiple of 16 (fp4_direct_supported)

// Elements in a unit of the row path's short rows (quantize_fp4_operand): enough to amortise a
// row's fixed costs, few enough for the unit's SR bytes and encode multipliers to stay in L1.
constexpr int64_t kUnitElements = 4096;

// Columns of the slab path's tiles: sixteen where the transform runs on sixteen lanes
// (rht16_down16), else eight.
#ifdef __AVX512F__
constexpr int kTile = 16;
#else
constexpr int kTile = 8;
#endif

// Where stored column `col`, stored rows h.. of a slab lie in its scratch tiles (`tiles`: the
// slab's [rows / kTile][block][kTile]); the row stride is kTile.
inline float* tile_at(float* tiles, int64_t block, int64_t col, int64_t h) {
  return tiles + (col - col % kTile) * block + h * kTile + col % kTile;
}

// UE8M0 codes' decoded scale (0xFF: NaN) and encode multiplier.
struct CodeTables {
  std::array<float, 256> ue8m0, ue8m0_encode;
  CodeTables() {
    for (int c = 0; c < 256; ++c) {
      const auto code = uint8_t(c);
      ue8m0[size_t(c)] = ue8m0_decode(code);
      ue8m0_encode[size_t(c)] = code == kUe8m0NanCode ? std::numeric_limits<float>::quiet_NaN()
                                                      : std::ldexp(1.0f, -ue8m0_unbiased_exponent(code));
    }
  }
};
const CodeTables& tables() {
  static const CodeTables t;
  return t;
}

// RN(1 / RN(6 Q)) of an E4M3-scaled spec: Q = 448, or 256 (4over6).
float recip_6q(const QuantSpec& spec) { return spec.global_e4m3_max == 256 ? kRecip1536 : kRecip2688; }

// block_scales for UE8M0 scales: mx_block_scale_code's decoded scale and encode multiplier.
bool ue8m0_block_scales(const QuantSpec& spec, const float* amax, int64_t n, float* scale, float* encode) {
  const CodeTables& tab = tables();
  bool suspect = false;
  for (int64_t b = 0; b < n; ++b) {
    const uint8_t code = mx_block_scale_code(amax[b], spec.element, spec.scale_rule);
    scale[b] = tab.ue8m0[code];
    encode[b] = tab.ue8m0_encode[code];
    suspect = suspect || !(scale[b] * kFp4E2m1Max <= FLT_MAX);
  }
  return suspect;
}

// Block amaxes (>= 0, NaN-free) of raw values turned into those of the bf16-rounded values.
void round_bf16_amax(float* amax, int64_t n) {
  int64_t b = 0;
  for (; b + 8 <= n; b += 8) _mm256_storeu_ps(amax + b, detail::bf16_round8(_mm256_loadu_ps(amax + b)));
  for (; b < n; ++b) amax[b] = bf16_round(amax[b]);
}

// out = bf16_round(x), n a multiple of 8.
void round_bf16(const float* x, float* out, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) _mm256_storeu_ps(out + i, detail::bf16_round8(_mm256_loadu_ps(x + i)));
}

// n elements (a multiple of 16) in a row: q = 2 × the E2M1 value of x · encode[i >> shift] (NaN ->
// +12, as code 7), x rounded to bf16 first with kBf16; returns whether a y was NaN (the sentinel of
// quantize's fp4 kernels). Blocks of 2^shift elements (at least 16; per_block_of_pow2 makes any
// other block length so), indexed by a shift: a division per step cost a row of 1024 about 4 %.
// 32 elements per step, packed to bytes by two in-lane packs and one cross-lane permutation; a
// last 16 alone. kNoNan: the caller knows x and the encode multipliers are finite (no NaN among x,
// a finite tensor amax), so no y is NaN and the NaN rules of the bf16 rounding and the element
// kernel are left out.
template <bool kSr, bool kBf16, bool kNoNan>
bool encode_row(const float* x, int8_t* q, const uint8_t* random, int64_t n, const float* encode, int shift) {
  using detail::fp4_twice_signed8;
  int nan = 0;
  auto twice = [&](int64_t i, __m256 enc) {
    __m256 v = _mm256_loadu_ps(x + i);
    if constexpr (kBf16) v = kNoNan ? detail::bf16_round_finite8(v) : detail::bf16_round8(v);
    return fp4_twice_signed8<kSr, kNoNan>(v, enc, kSr ? random + i : nullptr, nan);
  };
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 enc0 = _mm256_set1_ps(encode[i >> shift]), enc1 = _mm256_set1_ps(encode[(i + 16) >> shift]);
    // the packs work per 128-bit lane: the bytes come out as elements 0-3, 8-11, 16-19, 24-27,
    // 4-7, 12-15, 20-23, 28-31 (four per dword); one dword permutation restores the order
    const __m256i words0 = _mm256_packs_epi32(twice(i, enc0), twice(i + 8, enc0));
    const __m256i words1 = _mm256_packs_epi32(twice(i + 16, enc1), twice(i + 24, enc1));
    const __m256i bytes = _mm256_packs_epi16(words0, words1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i),
                        _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  }
  if (i < n) {  // sixteen left
    const __m256 enc = _mm256_set1_ps(encode[i >> shift]);
    const __m256i lo = twice(i, enc), hi = twice(i + 8, enc);
    const __m128i words_lo = _mm_packs_epi32(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1));
    const __m128i words_hi = _mm_packs_epi32(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi16(words_lo, words_hi));
  }
  return nan != 0;
}

// encode_row for run-time flags.
template <bool kNoNan>
bool encode_row_for(bool sr, bool bf16, const float* x, int8_t* q, const uint8_t* random, int64_t n,
                    const float* encode, int shift) {
  return sr ? (bf16 ? encode_row<true, true, kNoNan>(x, q, random, n, encode, shift)
                    : encode_row<true, false, kNoNan>(x, q, random, n, encode, shift))
            : (bf16 ? encode_row<false, true, kNoNan>(x, q, random, n, encode, shift)
                    : encode_row<false, false, kNoNan>(x, q, random, n, encode, shift));
}
bool encode_row_for(bool sr, bool bf16, bool no_nan, const float* x, int8_t* q, const uint8_t* random, int64_t n,
                    const float* encode, int shift) {
  return no_nan ? encode_row_for<true>(sr, bf16, x, q, random, n, encode, shift)
                : encode_row_for<false>(sr, bf16, x, q, random, n, encode, shift);
}

// `blocks` encode multipliers of blocks of `block` elements (a multiple of 16) as multipliers of
// blocks of 2^shift elements: `encode` itself when `block` is a power of two, else one per sixteen
// elements written into `out`.
const float* per_block_of_pow2(const float* encode, int64_t block, int64_t blocks, std::vector<float>& out, int& shift) {
  if (std::has_single_bit(uint64_t(block))) {
    shift = std::countr_zero(uint64_t(block));
    return encode;
  }
  shift = 4;
  const int64_t repeat = block / 16;
  out.resize(size_t(blocks * repeat));
  for (int64_t b = 0; b < blocks; ++b) std::fill_n(out.begin() + b * repeat, repeat, encode[b]);
  return out.data();
}

#ifndef __AVX512VL__
// The lane mask of the first n of eight lanes.
__m256i first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#endif

// Eight decoded E4M3 block scales s_b (the first `lanes` of them) stored with their encode
// multipliers (nvfp4_encode_multiplier: min_ps gives FLT_MAX for a NaN, as fmin). Returns whether a
// decode multiplier (nvfp4_decode_multiplier) times 6 overflows.
bool store_e4m3_scales(__m256 s_b, int lanes, const TensorScaling& t, float recip, float* scale, float* encode) {
  const __m256 flt_max = _mm256_set1_ps(FLT_MAX);
  const __m256 block_decode = _mm256_mul_ps(s_b, _mm256_set1_ps(t.s_dec));
  const __m256 enc = _mm256_min_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), block_decode), flt_max);
  const __m256 decode = _mm256_mul_ps(_mm256_mul_ps(s_b, _mm256_set1_ps(t.amax)), _mm256_set1_ps(recip));
  // AVX2's masked stores are slow on some CPUs (microcoded on AMD Zen): only for a tail, and with
  // AVX-512 a mask register's store instead (a row of twelve blocks 5 % faster on a Zen 4)
  if (lanes == 8) {
    _mm256_storeu_ps(scale, s_b);
    _mm256_storeu_ps(encode, enc);
  } else {
#ifdef __AVX512VL__
    const __mmask8 k = __mmask8((1u << lanes) - 1);
    _mm256_mask_storeu_ps(scale, k, s_b);
    _mm256_mask_storeu_ps(encode, k, enc);
#else
    const __m256i mask = first_lanes(lanes);
    _mm256_maskstore_ps(scale, mask, s_b);
    _mm256_maskstore_ps(encode, mask, enc);
#endif
  }
  const int over = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(decode, _mm256_set1_ps(kFp4E2m1Max)), flt_max, _CMP_NLE_UQ));
  return (over & ((1 << lanes) - 1)) != 0;
}

// Up to eight floats from p, zeros after n.
__m256 load_first(const float* p, int n) {
#ifdef __AVX512VL__
  return n == 8 ? _mm256_loadu_ps(p) : _mm256_maskz_loadu_ps(__mmask8((1u << n) - 1), p);
#else
  return n == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, first_lanes(n));
#endif
}

bool block_scales(const QuantSpec& spec, const TensorScaling& t, const float* amax, int64_t n, float* scale,
                  float* encode) {
  if (spec.scale == ScaleFormat::ue8m0) return ue8m0_block_scales(spec, amax, n, scale, encode);
  bool suspect = false;
  const __m256 factor = _mm256_set1_ps(t.s_enc * kRecipSix), s_enc = _mm256_set1_ps(t.s_enc);
  for (int64_t b = 0; b < n; b += 8) {
    const int lanes = int(std::min<int64_t>(8, n - b));
    const __m256 a = load_first(amax + b, lanes);
    const __m256 s_dec_b = spec.formula == BlockScaleFormula::te_2_14
                               ? _mm256_mul_ps(a, factor)
                               : _mm256_mul_ps(_mm256_div_ps(a, _mm256_set1_ps(6.0f)), s_enc);
    const __m256 s_b = detail::fp8_rne_value<3, -6>(_mm256_min_ps(s_dec_b, _mm256_set1_ps(FLT_MAX)), kFp8E4m3Max);
    suspect = store_e4m3_scales(s_b, lanes, t, recip_6q(spec), scale + b, encode + b) || suspect;
  }
  return suspect;
}

bool four_over_six_block_scales(const QuantSpec& spec, const TensorScaling& t, const float* x, int64_t cols,
                                int64_t band_rows, const float* amax, int64_t n, uint8_t* codes, float* scale,
                                float* encode) {
  four_over_six_scale_codes(spec, t, x, cols, band_rows, amax, codes);
  const std::array<float, 256>& e4m3 = e4m3_decode_table();
  bool suspect = false;
  for (int64_t b = 0; b < n; b += 8) {
    const int lanes = int(std::min<int64_t>(8, n - b));
    alignas(32) float s_b[8] = {};
    for (int l = 0; l < lanes; ++l) s_b[l] = e4m3[codes[b + l]];
    suspect = store_e4m3_scales(_mm256_load_ps(s_b), lanes, t, recip_6q(spec), scale + b, encode + b) || suspect;
  }
  return suspect;
}

// Whether a row's dequantized values (|q| / 2 · decode) hold a NaN or Inf: quantize's output check
// for rows whose decode multipliers could overflow.
bool row_dequant_nonfinite(const QuantSpec& spec, const TensorScaling& t, const int8_t* q, const float* scale,
                           int64_t block, int64_t blocks) {
  for (int64_t b = 0; b < blocks; ++b) {
    const float decode =
        spec.scale == ScaleFormat::e4m3 ? nvfp4_decode_multiplier(scale[b], t.amax, recip_6q(spec)) : scale[b];
    for (int64_t i = b * block; i < (b + 1) * block; ++i)
      if (!std::isfinite(float(std::abs(q[i])) * 0.5f * decode)) return true;
  }
  return false;
}

// The tensor amax from the units' maxima (rows or slabs), reduce_amax applied (an error kept for
// the caller to rethrow after the parallel region), and the tensor's scaling.
TensorScaling scale_tensor(const QuantSpec& spec, const QuantOutputs& extra, const float* unit_max, int64_t units,
                           float& amax, std::exception_ptr& hook_error) {
  for (int64_t u = 0; u < units; ++u) amax = unit_max[u] > amax ? unit_max[u] : amax;
  try {
    if (extra.reduce_amax && needs_tensor_amax(spec)) amax = (*extra.reduce_amax)(amax);
  } catch (...) {
    hook_error = std::current_exception();
  }
  return tensor_scaling(spec, amax);
}

// The operand's global factor and the caller's outputs, once the codes and scales are written.
void finish_operand(const QuantSpec& spec, const QuantOutputs& extra, float amax, bool nonfinite, Fp4Operand& out) {
  nonfinite = nonfinite || amax == std::numeric_limits<float>::infinity();
  if (spec.scale == ScaleFormat::ue8m0) {
    out.unit.assign(1, 1.0f);
    out.denom = 1.0f;
  } else {
    out.unit.assign(1, amax);
    out.denom = 6.0f * float(spec.global_e4m3_max);  // exact
  }
  out.valid = true;
  if (extra.global_amax) *extra.global_amax = amax;
  if (extra.nonfinite) *extra.nonfinite = nonfinite;
}

// Whether quantize_fp4_operand reads a transposed input in stored slabs (quantize_slabs): 1D blocks
// of 16 or 32 along the stored rows, no 4over6, an RHT of 16 if any, whole 16-column tiles,
// and SR groups that start at block boundaries (the operand's global row length and column offset
// multiples of 16).
bool slab_path(const QuantSpec& spec, const QuantRandom& rnd, int64_t rows, int64_t cols) {
  if (spec.tile != Tile::d1 || spec.four_over_six != FourOverSix::off || rows % 16 != 0) return false;
  if (spec.block != 16 && spec.block != 32) return false;
  if (spec.rht && spec.rht_size != 16) return false;
  const int64_t row_length = rnd.global_cols > 0 ? rnd.global_cols : cols;
  return spec.rounding != Rounding::sr || (row_length % 16 == 0 && rnd.col_offset % 16 == 0);
}

// A [16, 8] tile of codes (lane j of c[i]: stored row i, column j) written as eight operand rows of
// sixteen: q[j · ld + i]. Packs leave rows 4g .. 4g + 3 of columns 0-3 in the low 128-bit lane of
// r[g] (byte 4 · row + column) and of columns 4-7 in the high one; a byte shuffle makes each column
// one dword, and two rounds of unpacks gather a column's four dwords.
inline void store_codes_transposed(const __m256i (&c)[16], int8_t* q, int64_t ld) {
  const __m256i by_column = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                             0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m256i r[4];
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g)
    r[g] = _mm256_shuffle_epi8(_mm256_packs_epi16(_mm256_packs_epi32(c[4 * g], c[4 * g + 1]),
                                                  _mm256_packs_epi32(c[4 * g + 2], c[4 * g + 3])),
                               by_column);
  const __m256i u0 = _mm256_unpacklo_epi32(r[0], r[1]), u1 = _mm256_unpackhi_epi32(r[0], r[1]);
  const __m256i u2 = _mm256_unpacklo_epi32(r[2], r[3]), u3 = _mm256_unpackhi_epi32(r[2], r[3]);
  const __m256i col[4] = {_mm256_unpacklo_epi64(u0, u2), _mm256_unpackhi_epi64(u0, u2),
                          _mm256_unpacklo_epi64(u1, u3), _mm256_unpackhi_epi64(u1, u3)};
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + j * ld), _mm256_castsi256_si128(col[j]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + (j + 4) * ld), _mm256_extracti128_si256(col[j], 1));
  }
}

// Sixteen stored rows of eight columns encoded with the columns' encode multipliers `enc` and
// written transposed into q (row stride ld); SR takes draw j of `words` for column j, its byte i for
// row i. kNoNan as encode_row's.
template <bool kSr, bool kNoNan>
void encode_tile(const float* x, int64_t ld_x, __m256 enc, const __m256i (&words)[4], int8_t* q, int64_t ld_q,
                 int& nan) {
  __m256i c[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) {
    __m256i bytes = _mm256_setzero_si256();
    if constexpr (kSr) bytes = _mm256_and_si256(_mm256_srli_epi32(words[i / 4], 8 * (i % 4)), _mm256_set1_epi32(0xFF));
    c[i] = detail::fp4_twice_signed8<kSr, kNoNan>(_mm256_loadu_ps(x + i * ld_x), enc, bytes, nan);
  }
  store_codes_transposed(c, q, ld_q);
}

// quantize_fp4_operand of a transposed input (slab_path): `in` is stored [cols, rows] and the
// operand's blocks run down its columns, so each slab of `block` stored rows holds one block of
// every operand row. Pass 1 over slabs, in [16, kTile] tiles: bf16 rounding and the RHT down the
// columns (rht16_down16 or rht16_down8), the block amaxes as column maxima (NaN for a column
// holding one, which marks the tensor and is then redone with NaN ignored), and the values into
// scratch tile by tile ([slab][rows / kTile][block rows][kTile]: sequential for pass 2). Pass 2:
// each slab's block scales, then its tiles eight columns at a time with the columns' encode
// multipliers, the codes written transposed (store_codes_transposed). No fp32 transpose of the operand; its block scales ([slabs, rows], 1/16
// of its size) are transposed at the end.
void quantize_slabs(const float* in, float* scratch, int64_t rows, int64_t cols, const QuantSpec& spec,
                    const QuantRandom& rnd, const QuantOutputs& extra, Fp4Operand& out) {
  const int64_t block = spec.block, slabs = cols / block;
  const bool bf16 = spec.operand_dtype == OperandDtype::bf16;
  const bool sr = spec.rounding == Rounding::sr;
  const Rht rht = spec.rht ? make_rht(16, spec.rht_sign_seed) : Rht{};
  const PhiloxStream stream(rnd);
  const uint64_t group_stride = uint64_t(rnd.global_cols > 0 ? rnd.global_cols : cols) / 16;
  out.rows = rows;
  out.k = cols;
  out.block = int(block);
  out.q.resize(size_t(rows * cols));
  out.scale.resize(size_t(rows * slabs));
  // [slabs, rows]: the column maxima, and the block scales (transposed into out.scale at the end)
  thread_local std::vector<float> slab_amax, slab_scale, slab_max;
  slab_amax.resize(size_t(slabs * rows));
  slab_scale.resize(size_t(slabs * rows));
  slab_max.resize(size_t(slabs));
  float* const amax_data = slab_amax.data();
  float* const max_data = slab_max.data();
  float* const scale_data = slab_scale.data();
  int8_t* const q_data = out.q.data();
  float amax = 0.0f;
  TensorScaling tensor;
  std::exception_ptr hook_error;
  bool nonfinite = false, nan_seen = false;
#pragma omp parallel reduction(|| : nonfinite)
  {
#pragma omp for schedule(static) reduction(|| : nan_seen)
    for (int64_t sl = 0; sl < slabs; ++sl) {
      const float* x = in + sl * block * rows;
      float* tiles = scratch + sl * block * rows;  // [rows / kTile][block][kTile]
      __m256 slab_m = _mm256_setzero_ps();
      for (int64_t c = 0; c < rows; c += kTile) {
        for (int64_t h = 0; h < block; h += 16) {
          float* tile = tile_at(tiles, block, c, h);
          __m256 m[kTile / 8];  // the tile's column maxima, NaN for a column that holds a NaN
          if (spec.rht) {
#ifdef __AVX512F__
            const __m512 m16 = rht16_down16(rht, x + h * rows + c, rows, bf16, tile);
            m[0] = _mm512_castps512_ps256(m16);
            m[1] = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(m16), 1));
#else
            m[0] = rht16_down8(rht, x + h * rows + c, rows, bf16, tile);
#endif
          } else {
            for (int half = 0; half < kTile / 8; ++half) {
              m[half] = _mm256_setzero_ps();
              for (int i = 0; i < 16; ++i) {
                __m256 e = _mm256_loadu_ps(x + (h + i) * rows + c + 8 * half);
                if (bf16) e = detail::bf16_round8(e);
                m[half] = detail::abs_max_bits(e, m[half]);
                _mm256_storeu_ps(tile + kTile * i + 8 * half, e);
              }
            }
          }
          for (int half = 0; half < kTile / 8; ++half) {
            if (_mm256_movemask_ps(_mm256_cmp_ps(m[half], m[half], _CMP_UNORD_Q))) {  // the maxima with NaN ignored
              nan_seen = true;
              m[half] = _mm256_setzero_ps();
              for (int i = 0; i < 16; ++i)
                m[half] = _mm256_max_ps(detail::abs_ps(_mm256_loadu_ps(tile + kTile * i + 8 * half)), m[half]);
            }
            float* column_max = amax_data + sl * rows + c + 8 * half;
            _mm256_storeu_ps(column_max, h ? _mm256_max_ps(m[half], _mm256_loadu_ps(column_max)) : m[half]);
            slab_m = _mm256_max_ps(m[half], slab_m);
          }
        }
      }
      alignas(32) float lanes[8];
      _mm256_store_ps(lanes, slab_m);
      max_data[sl] = *std::max_element(lanes, lanes + 8);
    }
#pragma omp master
    tensor = scale_tensor(spec, extra, max_data, slabs, amax, hook_error);
#pragma omp barrier
    thread_local std::vector<float> encode;
    encode.resize(size_t(rows));
    int nan = 0;
    const bool no_nan = !nan_seen && amax < std::numeric_limits<float>::infinity();  // then no y is NaN
#pragma omp for schedule(static)
    for (int64_t sl = 0; sl < (hook_error ? 0 : slabs); ++sl) {
      const bool suspect = block_scales(spec, tensor, amax_data + sl * rows, rows, scale_data + sl * rows, encode.data());
      float* tiles = scratch + sl * block * rows;
      for (int64_t c = 0; c < rows; c += 16)  // two tiles side by side: one Philox call for both
        for (int64_t h = 0; h < block; h += 16) {
          const int64_t t = sl * block + h;  // the operand column of the tiles' first row
          __m256i words[2][4];
          if (sr) stream.group_words16(rnd.global_index(c, t, cols) / 16, group_stride, words);
          for (int half = 0; half < 2; ++half) {
            const int64_t c8 = c + 8 * half;
            const __m256 enc = _mm256_loadu_ps(encode.data() + c8);
            const float* x = tile_at(tiles, block, c8, h);
            int8_t* q = q_data + c8 * cols + t;
            if (sr && no_nan) encode_tile<true, true>(x, kTile, enc, words[half], q, cols, nan);
            else if (sr) encode_tile<true, false>(x, kTile, enc, words[half], q, cols, nan);
            else if (no_nan) encode_tile<false, true>(x, kTile, enc, words[half], q, cols, nan);
            else encode_tile<false, false>(x, kTile, enc, words[half], q, cols, nan);
          }
        }
      if (suspect)
        for (int64_t r = 0; r < rows; ++r)
          nonfinite = nonfinite ||
                      row_dequant_nonfinite(spec, tensor, q_data + r * cols + sl * block, scale_data + sl * rows + r, block, 1);
    }
    nonfinite = nonfinite || nan != 0;
  }
  if (hook_error) std::rethrow_exception(hook_error);
  transpose(out.scale.data(), scale_data, slabs, rows);
  finish_operand(spec, extra, amax, nonfinite, out);
}

}  // namespace

bool fp4_direct_supported(const QuantSpec& spec) {
  if (spec.element != ElementFormat::fp4_e2m1 || spec.block % kLanes != 0 || spec.block <= 0) return false;
  if (spec.row_scaled || spec.encode_window != 0 || spec.scaling != Scaling::current) return false;
  if (spec.scale == ScaleFormat::e4m3)
    return spec.scale_round == UfloatRounding::nearest &&
           (spec.global_e4m3_max == 448 || spec.four_over_six != FourOverSix::off);
  return spec.scale == ScaleFormat::ue8m0;
}

void quantize_fp4_operand(const float* in, float* scratch, int64_t rows, int64_t cols, const QuantSpec& spec,
                          const QuantRandom& rnd, const QuantOutputs& extra, Fp4Operand& out, bool transposed) {
  const OpScope op_scope(OpGroup::quantizer);
  if (transposed && in == scratch) throw std::logic_error("quantize_fp4_operand: a transposed input cannot be the scratch");
  if (!fp4_direct_supported(spec)) throw std::logic_error("quantize_fp4_operand: " + describe(spec) + " is not supported");
  if (extra.codes || extra.scales || extra.stats || extra.row_amax || extra.window_amax)
    throw std::logic_error("quantize_fp4_operand: only the amax and sentinel outputs");
  const std::string problem = validate(spec, rows, cols);
  if (!problem.empty()) throw std::invalid_argument(problem);
  if (transposed) {
    if (slab_path(spec, rnd, rows, cols)) return quantize_slabs(in, scratch, rows, cols, spec, rnd, extra, out);
    transpose(scratch, in, cols, rows);  // then as stored, in place
    in = scratch;
  }
  const int64_t block = spec.block, blocks = cols / block;
  const bool bf16 = spec.operand_dtype == OperandDtype::bf16;
  // bf16 operands without RHT or 4over6 are rounded where they are read, not into scratch: the block
  // amaxes of the rounded values are the rounded amaxes (bf16 rounding is monotone and odd)
  const bool bf16_on_the_fly = bf16 && !spec.rht && spec.four_over_six == FourOverSix::off;
  const bool transformed = (bf16 && !bf16_on_the_fly) || spec.rht;
  const float* src = transformed ? scratch : in;

  out.rows = rows;
  out.k = cols;
  out.block = int(block);
  out.q.resize(size_t(rows * cols));
  out.scale.resize(size_t(rows * blocks));
  const Rht rht = spec.rht ? make_rht(spec.rht_size, spec.rht_sign_seed) : Rht{};
  const bool rht_gives_blocks = spec.rht && spec.rht_size == block;
  const int64_t band = spec.tile == Tile::d2 ? block : 1;
  const bool sr = spec.rounding == Rounding::sr;
  // The rows are taken in units: a band of 2D tiles, else as many whole rows as make about
  // kUnitElements, which pass 2 treats as one long row (their blocks, scales and codes are
  // contiguous, and so are their SR bytes unless the operand is a column slice of a wider one):
  // short rows would otherwise pay a row's fixed costs for a few blocks.
  const bool random_contiguous = !sr || rnd.global_cols == 0 || (rnd.global_cols == cols && rnd.col_offset == 0);
  const int64_t unit_rows = band > 1 ? band : random_contiguous ? std::max<int64_t>(1, kUnitElements / cols) : 1;
  const int64_t units = (rows + unit_rows - 1) / unit_rows;
  thread_local std::vector<float> kept_amax, unit_amax;  // [rows, blocks], [units]
  kept_amax.resize(size_t(rows * blocks));
  unit_amax.resize(size_t(units));
  const PhiloxStream stream(rnd);
  float* const amax_data = kept_amax.data();
  float* const unit_data = unit_amax.data();
  float* const scale_data = out.scale.data();
  int8_t* const q_data = out.q.data();
  float amax = 0.0f;
  TensorScaling tensor;
  std::exception_ptr hook_error;  // from reduce_amax, rethrown after the parallel region
  bool nonfinite = false, nan_possible = false;
  // One parallel region: pass 1 over units (bf16 rounding and RHT into scratch row by row, block
  // amaxes), the tensor amax and scaling on the master thread (reduce_amax may communicate), then
  // pass 2 over units: block scales, then the elements.
#pragma omp parallel reduction(|| : nonfinite)
  {
#pragma omp for schedule(static) reduction(|| : nan_possible)
    for (int64_t u = 0; u < units; ++u) {
      const int64_t r0 = u * unit_rows, n = std::min(unit_rows, rows - r0);
      float m = 0.0f;
      if (transformed) {
        for (int64_t r = r0; r < r0 + n; ++r) {
          const float* x = in + r * cols;
          float* s = scratch + r * cols;
          if (bf16 && !bf16_on_the_fly) {
            round_bf16(x, s, cols);
            x = s;
          }
          if (spec.rht) m = std::max(m, rht_row(rht, x, s, cols, rht_gives_blocks ? amax_data + r * blocks : nullptr));
        }
      }
      float* const block_amax = amax_data + r0 * blocks;
      if (rht_gives_blocks) {
        nan_possible = true;  // rht_row's maxima do not tell
      } else {
        float top = 0.0f;
        const bool clean = detail::block_abs_max_no_nan(src + r0 * cols, block, n * blocks, block_amax, top);
        nan_possible = !clean || nan_possible;
        if (bf16_on_the_fly) round_bf16_amax(block_amax, n * blocks);
        if (clean)  // bf16 rounding is monotone: the largest rounded maximum is the largest one rounded
          m = std::max(m, bf16_on_the_fly ? bf16_round(top) : top);
        else
          for (int64_t b = 0; b < n * blocks; ++b) m = block_amax[b] > m ? block_amax[b] : m;
      }
      unit_data[u] = m;
    }
#pragma omp master
    tensor = scale_tensor(spec, extra, unit_data, units, amax, hook_error);
#pragma omp barrier
    thread_local std::vector<uint8_t> random;
    thread_local std::vector<float> encode, enc16, tile_amax;
    thread_local std::vector<uint8_t> codes;  // 4over6's scale codes
    random.resize(sr ? size_t(unit_rows * cols) : 0);
    encode.resize(size_t(unit_rows * blocks));
    codes.resize(size_t(unit_rows * blocks));
    tile_amax.resize(size_t(blocks));
    const bool no_nan = !nan_possible && amax < std::numeric_limits<float>::infinity();  // then no y is NaN
#pragma omp for schedule(static)
    for (int64_t u = 0; u < (hook_error ? 0 : units); ++u) {
      const int64_t r0 = u * unit_rows, n = std::min(unit_rows, rows - r0);
      // the unit's scale blocks: a band's tiles (one scale per tile, for each of its rows) or the
      // blocks of its n rows, in a row of `scaled` blocks
      const float* unit_block_amax = amax_data + r0 * blocks;
      const int64_t scaled = band > 1 ? blocks : n * blocks;
      if (band > 1) {  // the tile's amax: the max over its rows' block amaxes (max_ps(a, m) is a > m ? a : m)
        int64_t b = 0;
        for (; b + 8 <= blocks; b += 8) {
          __m256 m = _mm256_setzero_ps();
          for (int64_t r = 0; r < band; ++r) m = _mm256_max_ps(_mm256_loadu_ps(unit_block_amax + r * blocks + b), m);
          _mm256_storeu_ps(tile_amax.data() + b, m);
        }
        for (; b < blocks; ++b) {
          float m = 0.0f;
          for (int64_t r = 0; r < band; ++r) m = unit_block_amax[r * blocks + b] > m ? unit_block_amax[r * blocks + b] : m;
          tile_amax[size_t(b)] = m;
        }
        unit_block_amax = tile_amax.data();
      }
      float* const scale_u = scale_data + r0 * blocks;
      const bool suspect = spec.four_over_six != FourOverSix::off
                               ? four_over_six_block_scales(spec, tensor, src + r0 * cols, band > 1 ? cols : n * cols,
                                                            band, unit_block_amax, scaled, codes.data(), scale_u,
                                                            encode.data())
                               : block_scales(spec, tensor, unit_block_amax, scaled, scale_u, encode.data());
      if (band > 1)  // every row of a band has its tiles' scales
        for (int64_t r = 1; r < band; ++r) std::copy(scale_u, scale_u + blocks, scale_u + r * blocks);
      // the elements: a 1D unit as one row, else row by row (a 2D band's rows share its one row
      // of multipliers; a unit whose SR bytes are not contiguous across rows is one row)
      const bool whole = band == 1 && random_contiguous;
      const int64_t len_rows = whole ? n : 1, len = len_rows * cols;
      int shift = 0;
      const float* e = per_block_of_pow2(encode.data(), block, scaled, enc16, shift);
      for (int64_t r = r0; r < r0 + n; r += len_rows) {
        int8_t* q = q_data + r * cols;
        if (sr) stream.fill(rnd.global_index(r, 0, cols), len, random.data());
        bool row_nan = encode_row_for(sr, bf16_on_the_fly, no_nan, src + r * cols, q, sr ? random.data() : nullptr,
                                      len, e, shift);
        if (!row_nan && suspect) row_nan = row_dequant_nonfinite(spec, tensor, q, scale_data + r * blocks, block, len_rows * blocks);
        nonfinite = nonfinite || row_nan;
      }
    }
  }
  if (hook_error) std::rethrow_exception(hook_error);
  finish_operand(spec, extra, amax, nonfinite, out);
}

#else  // no AVX2: every caller takes the general path

bool fp4_direct_supported(const QuantSpec&) { return false; }

void quantize_fp4_operand(const float*, float*, int64_t, int64_t, const QuantSpec& spec, const QuantRandom&,
                          const QuantOutputs&, Fp4Operand&, bool) {
  throw std::logic_error("quantize_fp4_operand: " + describe(spec) + " is not supported by this build");
}

#endif

}  // namespace fp4lab
