// Block-scaled FP4 GEMMs (see fp4_gemm.hpp). B is packed into panels of 16 columns: per group of 4
// k, 16 × 4 bytes. The AVX-512 VNNI kernel stores b + 12 (unsigned), so one vpdpbusd multiplies a
// broadcast group of A's row (signed) with 16 columns; the + 12 offset is removed by starting each
// block's integer sum at −12 · Σ a over the block. The AVX2 kernel turns the roles round: b stays
// signed (vpmaddubsw's memory operand), A's row is copied as a + 12 (unsigned, broadcast) and each
// block's sum is corrected by −12 · Σ b over the block, per column. Each output element runs the
// same fp32 operations in the same order in every kernel, so the AVX-512 VNNI, AVX2 and scalar
// kernels give the same bits.
#include "core/ops/fp4_gemm.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/formats/bf16.hpp"
#include "core/profile/op_timer.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/encode_kernels.hpp"

namespace fp4lab {
namespace {

constexpr int kPanel = 16;       // columns of C per packed panel of B (one zmm of fp32 / int32)
constexpr int kOffset = 12;      // b + 12 is in [0, 24]: vpdpbusd's unsigned operand
constexpr int64_t kTileRows = 64, kTilePanels = 4;  // the parallel work item: 64 rows × 64 columns

// 2 × E2M1 value of each code (0..15): the integers in [−12, 12].
constexpr int8_t kTwiceE2m1[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// out[i] = kTwiceE2m1[codes[i]] (codes 0..15), 32 at a time by a byte shuffle.
__attribute__((target("avx2"))) void twice_e2m1_avx2(const uint8_t* codes, int8_t* out, int64_t n) {
  const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kTwiceE2m1)));
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_shuffle_epi8(table, c));
  }
  for (; i < n; ++i) out[i] = kTwiceE2m1[codes[i] & 15];
}

void twice_e2m1(const uint8_t* codes, int8_t* out, int64_t n) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return twice_e2m1_avx2(codes, out, n);
  for (int64_t i = 0; i < n; ++i) out[i] = kTwiceE2m1[codes[i] & 15];
}

// The global factor G_ij = RN(RN(u_a,i · u_b,j) · RN(1 / (d_a · d_b))).
float global_factor(float ua, float ub, float recip_denom) { return (ua * ub) * recip_denom; }

struct Problem {
  int64_t m, n, k, blocks;
  int block;
  const int8_t* a;   // row i at a + i * lda
  int64_t lda;
  const float* sa;   // row i's block scales at sa + i * ldsa
  int64_t ldsa;
  const Fp4Operand* ao;
  const Fp4Operand* bo;
  int64_t b_k0;
  float recip_denom;
  bool accumulate, bf16;  // C += product, or C = product; the product rounded to bf16 first
  float ua(int64_t i) const { return ao->unit.size() == 1 ? ao->unit[0] : ao->unit[size_t(i)]; }
  float ub(int64_t j) const { return bo->unit.size() == 1 ? bo->unit[0] : bo->unit[size_t(j)]; }
};

// ---- scalar kernel: the formula read straight off the operands ----
bool scalar_kernel(float* c, const Problem& p) {
  const Fp4Operand& bo = *p.bo;
  const int64_t ldb = bo.k, ldsb = bo.k / p.block;
  const int8_t* b = bo.q.data() + p.b_k0;
  const float* sb = bo.scale.data() + p.b_k0 / p.block;
  unsigned bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (int64_t blk = 0; blk < p.blocks; ++blk) {
        int32_t dot = 0;
        const int8_t* ai = p.a + i * p.lda + blk * p.block;
        const int8_t* bj = b + j * ldb + blk * p.block;
        for (int e = 0; e < p.block; ++e) dot += int32_t(ai[e]) * int32_t(bj[e]);
        const float scale = p.sa[i * p.ldsa + blk] * (sb[j * ldsb + blk] * 0.25f);
        acc = std::fma(scale, float(dot), acc);
      }
      float v = acc * global_factor(p.ua(i), p.ub(j), p.recip_denom);
      if (p.bf16) v = bf16_round(v);
      float& out = c[i * p.n + j];
      out = p.accumulate ? out + v : v;
      bad |= !std::isfinite(out);
    }
  }
  return bad == 0;
}

// ---- packed B and A's per-block offsets for the vector kernels ----
enum class Form { vnni, avx2 };  // which operand carries the + 12 offset (see the top of the file)

struct Packed {
  int64_t panels = 0;
  std::vector<uint8_t> b;     // [panel][k / 4][16 columns][4]: b + 12 (vnni) or b (avx2)
  std::vector<float> sb4;     // [panel][block][16]: s_b / 4 (0 for padding columns)
  std::vector<float> ub;      // [panel][16]: u_b (0 for padding columns)
  std::vector<int32_t> ncorr; // vnni: [m][block], −12 · Σ a over the block
  std::vector<int32_t> bcorr; // avx2: [panel][block][16], −12 · Σ b over the block (0 for padding)
  std::vector<uint8_t> a12;   // avx2: [m][k], a + 12
};

// dst[g · 64 + e] = src[4g + e] + offset for the groups g of one column: 32 bytes offset at a
// time, then one 4-byte store per group.
void offset_groups(const int8_t* src, int64_t groups, uint8_t* dst, int offset_value) {
  int64_t g = 0;
#ifdef __AVX2__
  const __m256i offset = _mm256_set1_epi8(char(offset_value));
  for (; g + 8 <= groups; g += 8) {
    alignas(32) uint32_t words[8];
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 4 * g));
    _mm256_store_si256(reinterpret_cast<__m256i*>(words), _mm256_add_epi8(v, offset));
    for (int w = 0; w < 8; ++w) std::memcpy(dst + (g + w) * kPanel * 4, &words[w], 4);
  }
#endif
  for (; g < groups; ++g)
    for (int e = 0; e < 4; ++e) dst[g * kPanel * 4 + e] = uint8_t(src[4 * g + e] + offset_value);
}

// The full panel of 16 columns j0.. (B rows at src + c · ld): dst[g · 64 + c · 4 + e] = b + offset,
// 16 groups at a time as a 16 × 16 transpose of 32-bit words; the groups left over by offset_groups.
__attribute__((target("avx512f,avx512bw"))) void pack_panel_avx512(const int8_t* src, int64_t ld, int64_t groups,
                                                                   uint8_t* dst, int offset_value) {
  const __m512i offset = _mm512_set1_epi8(char(offset_value));
  int64_t g = 0;
  for (; g + 16 <= groups; g += 16) {
    __m512i r[16], t[16];
    for (int c = 0; c < 16; ++c) r[c] = _mm512_add_epi8(_mm512_loadu_si512(src + c * ld + 4 * g), offset);
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {  // r[4i + q], 128-bit lane L: rows 4i..4i+3 of word column 4L + q
      r[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
      r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
      r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
      r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (int q = 0; q < 4; ++q) {
      const __m512i v = _mm512_shuffle_i32x4(r[q], r[4 + q], 0x88), w = _mm512_shuffle_i32x4(r[q], r[4 + q], 0xDD);
      const __m512i v2 = _mm512_shuffle_i32x4(r[8 + q], r[12 + q], 0x88), w2 = _mm512_shuffle_i32x4(r[8 + q], r[12 + q], 0xDD);
      _mm512_storeu_si512(dst + (g + q) * kPanel * 4, _mm512_shuffle_i32x4(v, v2, 0x88));
      _mm512_storeu_si512(dst + (g + 8 + q) * kPanel * 4, _mm512_shuffle_i32x4(v, v2, 0xDD));
      _mm512_storeu_si512(dst + (g + 4 + q) * kPanel * 4, _mm512_shuffle_i32x4(w, w2, 0x88));
      _mm512_storeu_si512(dst + (g + 12 + q) * kPanel * 4, _mm512_shuffle_i32x4(w, w2, 0xDD));
    }
  }
  if (g < groups)
    for (int c = 0; c < 16; ++c) offset_groups(src + c * ld + 4 * g, groups - g, dst + g * kPanel * 4 + c * 4, offset_value);
}

// Σ a over each block of a row, for blocks of 16 or 32 bytes by psadbw on a + 128.
void block_sums(const int8_t* a, int64_t blocks, int block, int32_t* out) {
  if (block == 16 || block == 32) {
    const __m128i flip = _mm_set1_epi8(char(0x80)), zero = _mm_setzero_si128();
    for (int64_t b = 0; b < blocks; ++b) {
      __m128i sum = zero;
      for (int h = 0; h < block; h += 16)
        sum = _mm_add_epi64(sum, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + b * block + h)), flip), zero));
      out[b] = int32_t(_mm_cvtsi128_si64(sum) + _mm_extract_epi64(sum, 1)) - 128 * block;
    }
    return;
  }
  for (int64_t b = 0; b < blocks; ++b) {
    int32_t s = 0;
    for (int e = 0; e < block; ++e) s += a[b * block + e];
    out[b] = s;
  }
}

// dst = src + 12, as unsigned bytes (the AVX2 kernel's A).
void offset_row(const int8_t* src, int64_t n, uint8_t* dst) {
  int64_t e = 0;
#ifdef __AVX2__
  const __m256i offset = _mm256_set1_epi8(kOffset);
  for (; e + 32 <= n; e += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + e),
                        _mm256_add_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + e)), offset));
#endif
  for (; e < n; ++e) dst[e] = uint8_t(src[e] + kOffset);
}

// Packs into the calling thread's buffers (kept between calls: no allocation or page faults per
// GEMM) in the kernel's form; the reference stays valid until this thread's next pack.
const Packed& pack(const Problem& p, Form form) {
  thread_local Packed buffers;
  Packed& pk = buffers;  // a plain reference: the OpenMP threads below share it (by name they would
                         // each see their own thread_local)
  const bool avx2 = form == Form::avx2;
  const int offset = avx2 ? 0 : kOffset;
  pk.panels = ceil_div(p.n, kPanel);
  const int64_t groups = p.k / 4;
  pk.b.resize(size_t(pk.panels * groups * kPanel * 4));
  pk.sb4.resize(size_t(pk.panels * p.blocks * kPanel));
  pk.ub.resize(size_t(pk.panels * kPanel));
  pk.ncorr.resize(avx2 ? 0 : size_t(p.m * p.blocks));
  pk.bcorr.resize(avx2 ? size_t(pk.panels * p.blocks * kPanel) : 0);
  pk.a12.resize(avx2 ? size_t(p.m * p.k) : 0);
  const Fp4Operand& bo = *p.bo;
  const int64_t ldsb = bo.k / p.block;
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#pragma omp parallel
  {
    thread_local std::vector<int32_t> sums;
    sums.resize(size_t(p.blocks));
#pragma omp for schedule(static)
    for (int64_t pn = 0; pn < pk.panels; ++pn) {
      const bool full = avx512 && (pn + 1) * kPanel <= p.n;
      if (full)
        pack_panel_avx512(bo.q.data() + pn * kPanel * bo.k + p.b_k0, bo.k, groups,
                          pk.b.data() + size_t(pn * groups * kPanel * 4), offset);
      for (int col = 0; col < kPanel; ++col) {
        const int64_t j = pn * kPanel + col;
        uint8_t* dst = pk.b.data() + size_t(pn * groups * kPanel * 4) + size_t(col * 4);
        float* sb4 = pk.sb4.data() + size_t(pn * p.blocks * kPanel + col);
        int32_t* bcorr = avx2 ? pk.bcorr.data() + size_t(pn * p.blocks * kPanel + col) : nullptr;
        if (j >= p.n) {  // padding: b = 0, no scale
          for (int64_t g = 0; g < groups; ++g) std::memset(dst + g * kPanel * 4, offset, 4);
          for (int64_t blk = 0; blk < p.blocks; ++blk) sb4[blk * kPanel] = 0.0f;
          if (avx2)
            for (int64_t blk = 0; blk < p.blocks; ++blk) bcorr[blk * kPanel] = 0;
          pk.ub[size_t(pn * kPanel + col)] = 0.0f;
          continue;
        }
        const int8_t* bj = bo.q.data() + j * bo.k + p.b_k0;
        if (!full) offset_groups(bj, groups, dst, offset);
        const float* sbj = bo.scale.data() + j * ldsb + p.b_k0 / p.block;
        for (int64_t blk = 0; blk < p.blocks; ++blk) sb4[blk * kPanel] = sbj[blk] * 0.25f;
        if (avx2) {
          block_sums(bj, p.blocks, p.block, sums.data());
          for (int64_t blk = 0; blk < p.blocks; ++blk) bcorr[blk * kPanel] = -kOffset * sums[size_t(blk)];
        }
        pk.ub[size_t(pn * kPanel + col)] = p.ub(j);
      }
    }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < p.m; ++i) {
      if (avx2) {
        offset_row(p.a + i * p.lda, p.k, pk.a12.data() + i * p.k);
        continue;
      }
      int32_t* ncorr = pk.ncorr.data() + i * p.blocks;
      block_sums(p.a + i * p.lda, p.blocks, p.block, ncorr);
      for (int64_t blk = 0; blk < p.blocks; ++blk) ncorr[blk] *= -kOffset;
    }
  }
  return pk;
}

int32_t load_group(const void* x) {  // four bytes of a row, as one lane to broadcast
  int32_t v;
  std::memcpy(&v, x, 4);
  return v;
}

// ---- AVX-512 VNNI: R rows × P panels of 16 columns, over all blocks ----
#define FP4LAB_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,fma")))

template <int R, int P, int G>
FP4LAB_VNNI bool vnni_rows(float* c, const Problem& p, const Packed& pk, int64_t i0, int64_t pn) {
  __m512 acc[R][P];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int q = 0; q < P; ++q) acc[r][q] = _mm512_setzero_ps();
  const int64_t panel_bytes = (p.k / 4) * kPanel * 4, panel_scales = p.blocks * kPanel;
  const uint8_t* bp = pk.b.data() + size_t(pn * panel_bytes);
  const float* sb4 = pk.sb4.data() + size_t(pn * panel_scales);
  const int8_t* a0 = p.a + i0 * p.lda;
  const int32_t* ncorr = pk.ncorr.data() + i0 * p.blocks;
  const float* sa = p.sa + i0 * p.ldsa;
#pragma GCC unroll 1
  for (int64_t blk = 0; blk < p.blocks; ++blk) {
    __m512i bv[P][G];
    __m512 sb[P];
#pragma GCC unroll 2
    for (int q = 0; q < P; ++q) {
#pragma GCC unroll 8
      for (int g = 0; g < G; ++g) bv[q][g] = _mm512_loadu_si512(bp + q * panel_bytes + (blk * G + g) * kPanel * 4);
      sb[q] = _mm512_loadu_ps(sb4 + q * panel_scales + blk * kPanel);
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const int8_t* ai = a0 + r * p.lda + blk * p.block;
      const __m512i start = _mm512_set1_epi32(ncorr[r * p.blocks + blk]);
      __m512i dot[P];
#pragma GCC unroll 2
      for (int q = 0; q < P; ++q) dot[q] = start;
#pragma GCC unroll 8
      for (int g = 0; g < G; ++g) {
        const __m512i ag = _mm512_set1_epi32(load_group(ai + 4 * g));
#pragma GCC unroll 2
        for (int q = 0; q < P; ++q) dot[q] = _mm512_dpbusd_epi32(dot[q], bv[q][g], ag);
      }
      const __m512 sar = _mm512_set1_ps(sa[r * p.ldsa + blk]);
#pragma GCC unroll 2
      for (int q = 0; q < P; ++q) acc[r][q] = _mm512_fmadd_ps(_mm512_mul_ps(sar, sb[q]), _mm512_cvtepi32_ps(dot[q]), acc[r][q]);
    }
  }
  const __m512 rden = _mm512_set1_ps(p.recip_denom);
  __mmask16 bad = 0;
#pragma GCC unroll 2
  for (int q = 0; q < P; ++q) {
    const int64_t j0 = (pn + q) * kPanel;
    const __mmask16 mask = p.n - j0 >= kPanel ? __mmask16(0xFFFF) : __mmask16((1u << (p.n - j0)) - 1);
    const __m512 ub = _mm512_loadu_ps(pk.ub.data() + (pn + q) * kPanel);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const int64_t i = i0 + r;
      const __m512 g = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(p.ua(i)), ub), rden);
      __m512 v = _mm512_mul_ps(acc[r][q], g);
      if (p.bf16) v = detail::bf16_round16(v);
      float* out = c + i * p.n + j0;
      if (p.accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, out), v);
      _mm512_mask_storeu_ps(out, mask, v);
      bad |= _mm512_mask_fpclass_ps_mask(mask, v, 0x99);  // QNaN, SNaN, +Inf, -Inf
    }
  }
  return bad == 0;
}

// ---- AVX2: R rows × one panel of 16 columns (two halves of 8), over all blocks ----
// Per group of 4 k, the panel's two 32-byte vectors (one per half) are loaded once and serve all R
// rows: per row one broadcast of a + 12 and two vpmaddubsw. The int16 pair sums of a block's G
// groups add up in int16 (|Σ| ≤ G · 2 · 24 · 12 ≤ 4608: no wrap), then vpmaddwd by ones gives the
// int32 block sum, and the column correction −12 · Σ b makes it the exact I_b.
#define FP4LAB_AVX2 __attribute__((target("avx2,fma")))

// The value stored for eight outputs (see scalar_kernel): bf16 rounding, then accumulation.
FP4LAB_AVX2 inline __m256 finish8(__m256 v, const float* out, bool bf16, bool accumulate) {
  if (bf16) v = detail::bf16_round8(v);
  return accumulate ? _mm256_add_ps(_mm256_loadu_ps(out), v) : v;
}

// Whether any of eight values is NaN or Inf.
FP4LAB_AVX2 inline bool nonfinite8(__m256 v) {
  const __m256 exponent = _mm256_castsi256_ps(_mm256_set1_epi32(0x7F800000));
  return _mm256_movemask_ps(_mm256_cmp_ps(_mm256_and_ps(v, exponent), exponent, _CMP_EQ_OQ)) != 0;
}

template <int R, int G>
FP4LAB_AVX2 bool avx2_rows(float* c, const Problem& p, const Packed& pk, int64_t i0, int64_t pn) {
  __m256 acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  const __m256i* bp = reinterpret_cast<const __m256i*>(pk.b.data() + size_t(pn * (p.k / 4) * kPanel * 4));
  const float* sb4 = pk.sb4.data() + size_t(pn * p.blocks * kPanel);
  const int32_t* bcorr = pk.bcorr.data() + size_t(pn * p.blocks * kPanel);
  const uint8_t* a0 = pk.a12.data() + i0 * p.k;
  const float* sa = p.sa + i0 * p.ldsa;
  const __m256i ones = _mm256_set1_epi16(1);
#pragma GCC unroll 1
  for (int64_t blk = 0; blk < p.blocks; ++blk) {
    const __m256i* bb = bp + blk * G * 2;
    __m256i d[R][2];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) d[r][0] = d[r][1] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      __m256i b0 = _mm256_loadu_si256(bb + 2 * g), b1 = _mm256_loadu_si256(bb + 2 * g + 1);
      // The asm statements pin the group's two vectors in registers for all R rows, and each row's
      // sums in order: without them GCC folds the loads back into every vpmaddubsw and spills.
      __asm__("" : "+x"(b0), "+x"(b1));
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m256i av = _mm256_set1_epi32(load_group(a0 + r * p.k + blk * (4 * G) + 4 * g));
        d[r][0] = _mm256_add_epi16(d[r][0], _mm256_maddubs_epi16(av, b0));
        d[r][1] = _mm256_add_epi16(d[r][1], _mm256_maddubs_epi16(av, b1));
        __asm__("" : "+x"(d[r][0]), "+x"(d[r][1]));
      }
    }
    const __m256i* corr = reinterpret_cast<const __m256i*>(bcorr + blk * kPanel);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 sar = _mm256_set1_ps(sa[r * p.ldsa + blk]);
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const __m256i ib = _mm256_add_epi32(_mm256_madd_epi16(d[r][h], ones), _mm256_loadu_si256(corr + h));
        acc[r][h] = _mm256_fmadd_ps(_mm256_mul_ps(sar, _mm256_loadu_ps(sb4 + blk * kPanel + 8 * h)),
                                    _mm256_cvtepi32_ps(ib), acc[r][h]);
      }
    }
  }
  const int64_t j0 = pn * kPanel;
  const int64_t cols = std::min<int64_t>(kPanel, p.n - j0);
  const __m256 rden = _mm256_set1_ps(p.recip_denom);
  bool bad = false;
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const int64_t i = i0 + r;
    const __m256 ua = _mm256_set1_ps(p.ua(i));
    float* out = c + i * p.n + j0;
    __m256 v[2];
    for (int h = 0; h < 2; ++h) {
      const __m256 g = _mm256_mul_ps(_mm256_mul_ps(ua, _mm256_loadu_ps(pk.ub.data() + j0 + h * 8)), rden);
      v[h] = _mm256_mul_ps(acc[r][h], g);
    }
    if (cols == kPanel) {
      for (int h = 0; h < 2; ++h) {
        const __m256 x = finish8(v[h], out + h * 8, p.bf16, p.accumulate);
        _mm256_storeu_ps(out + h * 8, x);
        bad = bad || nonfinite8(x);
      }
    } else {
      alignas(32) float tmp[kPanel];
      _mm256_store_ps(tmp, v[0]);
      _mm256_store_ps(tmp + 8, v[1]);
      for (int64_t col = 0; col < cols; ++col) {
        const float x = p.bf16 ? bf16_round(tmp[col]) : tmp[col];
        out[col] = p.accumulate ? out[col] + x : x;
        bad = bad || !std::isfinite(out[col]);
      }
    }
  }
  return !bad;
}

using RowsFn = bool (*)(float*, const Problem&, const Packed&, int64_t, int64_t);

// rows_fn<Kernel, P, G>(r): the kernel for r rows (1..8) of P panels and G groups per block.
template <template <int, int, int> class Pick, int P, int G>
RowsFn rows_fn(int r) {
  switch (r) {
    case 1: return Pick<1, P, G>::fn;
    case 2: return Pick<2, P, G>::fn;
    case 3: return Pick<3, P, G>::fn;
    case 4: return Pick<4, P, G>::fn;
    case 5: return Pick<5, P, G>::fn;
    case 6: return Pick<6, P, G>::fn;
  }
  return nullptr;
}
template <int R, int P, int G>
struct VnniPick {
  static constexpr RowsFn fn = vnni_rows<R, P, G>;
};
template <int R, int P, int G>
struct Avx2Pick {  // one panel per call
  static constexpr RowsFn fn = avx2_rows<R, G>;
};

constexpr int kVnniRows = 6, kAvx2Rows = 4;

bool vector_kernel(Fp4Kernel kernel, float* c, const Problem& p) {
  const bool vnni = kernel == Fp4Kernel::avx512_vnni;
  const Packed& pk = pack(p, vnni ? Form::vnni : Form::avx2);
  const int rows = vnni ? kVnniRows : kAvx2Rows;
  const int step = vnni ? 2 : 1;  // panels per call
  auto fn = [&](int r, int panels) -> RowsFn {
    const bool g4 = p.block == 16;
    if (!vnni) return g4 ? rows_fn<Avx2Pick, 1, 4>(r) : rows_fn<Avx2Pick, 1, 8>(r);
    if (panels == 2) return g4 ? rows_fn<VnniPick, 2, 4>(r) : rows_fn<VnniPick, 2, 8>(r);
    return g4 ? rows_fn<VnniPick, 1, 4>(r) : rows_fn<VnniPick, 1, 8>(r);
  };
  const int64_t row_tiles = ceil_div(p.m, kTileRows), panel_tiles = ceil_div(pk.panels, kTilePanels);
  unsigned finite = 1;
#pragma omp parallel for schedule(dynamic, 1) reduction(& : finite)
  for (int64_t t = 0; t < row_tiles * panel_tiles; ++t) {
    const int64_t r0 = (t / panel_tiles) * kTileRows, r1 = std::min(p.m, r0 + kTileRows);
    const int64_t p0 = (t % panel_tiles) * kTilePanels, p1 = std::min(pk.panels, p0 + kTilePanels);
    for (int64_t pn = p0; pn < p1; pn += step) {
      const int panels = int(std::min<int64_t>(step, p1 - pn));
      const RowsFn full = fn(rows, panels);
      int64_t i = r0;
      for (; i + rows <= r1; i += rows) finite &= full(c, p, pk, i, pn);
      if (i < r1) finite &= fn(int(r1 - i), panels)(c, p, pk, i, pn);
    }
  }
  return finite != 0;
}

bool cpu_has(Fp4Kernel k) {
  switch (k) {
    case Fp4Kernel::scalar: return true;
    case Fp4Kernel::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Fp4Kernel::avx512_vnni:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("fma");
  }
  return false;
}

Fp4Kernel choose_kernel() {
  const char* forced = std::getenv("FP4LAB_FP4_KERNEL");
  if (forced && *forced) {
    Fp4Kernel k{};
    if (parse(forced, k)) {
      if (!cpu_has(k)) throw std::invalid_argument(std::string("FP4LAB_FP4_KERNEL=") + forced + ": this CPU lacks it");
      return k;
    }
    throw std::invalid_argument(std::string("FP4LAB_FP4_KERNEL=") + forced + ": expected scalar, avx2 or avx512_vnni");
  }
  if (cpu_has(Fp4Kernel::avx512_vnni)) return Fp4Kernel::avx512_vnni;
  if (cpu_has(Fp4Kernel::avx2)) return Fp4Kernel::avx2;
  return Fp4Kernel::scalar;
}

}  // namespace

// out[c · ld_out + r] = in[r · ld_in + c] for a 16 × 16 block of bytes: four rounds of SSE2
// unpacks (bytes, words, dwords, qwords).
void transpose16x16(int8_t* out, int64_t ld_out, const int8_t* in, int64_t ld_in) {
  __m128i a[16], b[16];
  for (int i = 0; i < 16; ++i) a[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i * ld_in));
  for (int i = 0; i < 8; ++i) {
    b[i] = _mm_unpacklo_epi8(a[2 * i], a[2 * i + 1]);
    b[i + 8] = _mm_unpackhi_epi8(a[2 * i], a[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm_unpacklo_epi16(b[2 * i], b[2 * i + 1]);
    a[i + 8] = _mm_unpackhi_epi16(b[2 * i], b[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    b[i] = _mm_unpacklo_epi32(a[2 * i], a[2 * i + 1]);
    b[i + 8] = _mm_unpackhi_epi32(a[2 * i], a[2 * i + 1]);
  }
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm_unpacklo_epi64(b[2 * i], b[2 * i + 1]);
    a[i + 8] = _mm_unpackhi_epi64(b[2 * i], b[2 * i + 1]);
  }
  // a[j] now holds column perm(j) of the input; perm is the bit reversal of j's four bits.
  for (int j = 0; j < 16; ++j) {
    const int c = ((j & 1) << 3) | ((j & 2) << 1) | ((j & 4) >> 1) | ((j & 8) >> 3);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c * ld_out), a[j]);
  }
}

bool fp4_blockable(const QuantSpec& spec) {
  if (spec.element != ElementFormat::fp4_e2m1 || spec.block <= 0 || spec.encode_window != 0) return false;
  if (spec.scale == ScaleFormat::ufloat) {
    // p = RN(s_a * (s_b / 4)) is exact when the scales' significands (at most 8 bits each) multiply
    // inside fp32's normal range: the smallest nonzero product at least FLT_MIN, the largest finite.
    const Ufloat grid = block_scale_grid(spec);
    const double smallest = std::ldexp(1.0, 1 - grid.bias - grid.man_bits), largest = grid.max_value();
    return smallest * smallest / 4 >= double(FLT_MIN) && largest * largest / 4 <= double(FLT_MAX);
  }
  return spec.scale == ScaleFormat::e4m3 || spec.scale == ScaleFormat::ue8m0;
}

void fp4_operand_from_codes(Fp4Operand& out, const QuantSpec& spec, int64_t rows, int64_t k,
                            const std::vector<uint8_t>& codes, const std::vector<uint8_t>& scales, float tensor_amax,
                            const std::vector<float>& row_amax) {
  if (!fp4_blockable(spec)) throw std::logic_error("fp4_operand_from_codes: " + describe(spec) + " is not FP4 blocks");
  const int64_t blocks = k / spec.block;
  if (int64_t(codes.size()) != rows * k || int64_t(scales.size()) != rows * blocks)
    throw std::logic_error("fp4_operand_from_codes: codes or scales of the wrong size");
  out.rows = rows;
  out.k = k;
  out.block = spec.block;
  out.q.resize(size_t(rows * k));
  out.scale.resize(size_t(rows * blocks));
  const bool nvfp4 = spec.scale != ScaleFormat::ue8m0;  // e4m3 or ufloat: two-level scaling
  float decoded[256];
  for (int code = 0; code < 256; ++code) decoded[code] = decode_scale_code(spec, uint8_t(code));
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    twice_e2m1(codes.data() + r * k, out.q.data() + r * k, k);
    for (int64_t b = r * blocks; b < (r + 1) * blocks; ++b) out.scale[size_t(b)] = decoded[scales[size_t(b)]];
  }
  if (!nvfp4) {
    out.unit.assign(1, 1.0f);
    out.denom = 1.0f;
  } else {
    out.unit = spec.row_scaled ? row_amax : std::vector<float>{tensor_amax};
    if (spec.row_scaled && int64_t(row_amax.size()) != rows) throw std::logic_error("fp4_operand_from_codes: row amaxes missing");
    out.denom = 6.0f * nvfp4_scale_max(spec);  // exact
  }
  out.valid = true;
}

void fp4_transpose_tiles(Fp4Operand& out, const Fp4Operand& in) {
  if (in.rows % in.block != 0 || in.unit.size() != 1)
    throw std::logic_error("fp4_transpose_tiles: needs whole tiles and a per-tensor global factor");
  const int64_t rows = in.k, k = in.rows, bs = in.block;
  out.rows = rows;
  out.k = k;
  out.block = in.block;
  out.q.resize(size_t(rows * k));
  out.scale.resize(size_t(rows * (k / bs)));
  // Sixteen output rows at a time (in.rows and in.k are multiples of 16: whole tiles): their values
  // 16 × 16 bytes at a time, then their scales, tile (b, r / bs) of the input's first row's.
#pragma omp parallel for schedule(static)
  for (int64_t r0 = 0; r0 < rows; r0 += 16) {
    for (int64_t e0 = 0; e0 < k; e0 += 16) transpose16x16(out.q.data() + r0 * k + e0, k, in.q.data() + e0 * in.k + r0, in.k);
    for (int64_t r = r0; r < r0 + 16; ++r)
      for (int64_t b = 0; b < k / bs; ++b) out.scale[size_t(r * (k / bs) + b)] = in.scale[size_t(b * bs * (in.k / bs) + r / bs)];
  }
  out.unit = in.unit;
  out.denom = in.denom;
  out.valid = true;
}

Fp4View whole(const Fp4Operand& op) { return Fp4View{&op, 0, op.k}; }

Fp4Kernel fp4_kernel() {
  static const Fp4Kernel kernel = choose_kernel();
  return kernel;
}

bool fp4_kernel_supported(Fp4Kernel k) { return cpu_has(k); }

bool fp4_matmul(float* c, const Fp4View& a, const Fp4View& b, bool accumulate, bool bf16_product) {
  return fp4_matmul(fp4_kernel(), c, a, b, accumulate, bf16_product);
}

bool fp4_matmul(Fp4Kernel kernel, float* c, const Fp4View& a, const Fp4View& b, bool accumulate, bool bf16_product) {
  const OpScope op_scope(OpGroup::gemm);
  const Fp4Operand& ao = *a.op;
  const Fp4Operand& bo = *b.op;
  if (!ao.valid || !bo.valid || ao.block != bo.block || a.k != b.k || a.k % ao.block != 0 || a.k0 % ao.block != 0 ||
      b.k0 % bo.block != 0 || a.k0 + a.k > ao.k || b.k0 + b.k > bo.k)
    throw std::invalid_argument("fp4_matmul: operands of other blocks or contraction lengths");
  if (!cpu_has(kernel)) throw std::invalid_argument("fp4_matmul: this CPU cannot run the " + to_string(kernel) + " kernel");
  Problem p;
  p.m = ao.rows;
  p.n = bo.rows;
  p.k = a.k;
  p.block = ao.block;
  p.blocks = a.k / ao.block;
  p.a = ao.q.data() + a.k0;
  p.lda = ao.k;
  p.sa = ao.scale.data() + a.k0 / ao.block;
  p.ldsa = ao.k / ao.block;
  p.ao = &ao;
  p.bo = &bo;
  p.b_k0 = b.k0;
  p.recip_denom = 1.0f / (ao.denom * bo.denom);
  p.accumulate = accumulate;
  p.bf16 = bf16_product;
  if (p.m == 0 || p.n == 0) return true;
  // The vector kernels take blocks of 16 and 32 (NVFP4, MXFP4); other blocks run the scalar one.
  if (kernel == Fp4Kernel::scalar || (p.block != 16 && p.block != 32)) return scalar_kernel(c, p);
  return vector_kernel(kernel, c, p);
}

}  // namespace fp4lab
