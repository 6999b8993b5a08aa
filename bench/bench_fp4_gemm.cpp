// Block-scaled FP4 GEMMs (core/ops/fp4_gemm.hpp) against the fp32 GEMM that dequant_fp32 runs,
// at the GEMM shapes of one `small` and one `medium` training step (4 sequences, as bench_gemm),
// in the layout the quantized linear feeds both: A [m, k] and B [n, k], blocks along k. Each
// iteration times both back to back on the same operands (the FP4 time includes packing B):
//   fp32_GF/s   matmul on this process's engine (Eigen or OpenBLAS per tile)
//   fp4_GF/s    fp4_matmul on this process's kernel, in fp32-equivalent GFLOP/s (2·m·n·k / s)
//   x_fp32      fp32 time / FP4 time (> 1: FP4 faster)
//   peak_frac   FP4 multiply-adds per second / the int8 peak BM_Int8Peak measures (the kernel's
//               multiply alone: vpdpbusd for AVX-512 VNNI, vpmaddubsw for AVX2)
// Operand formats: NVFP4 (16-blocks, E4M3) and MXFP4 (32-blocks, UE8M0). Not a correctness test
// (tests/test_fp4_gemm.cpp).
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/ops/fp4_gemm.hpp"
#include "core/ops/matmul.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab {
namespace {

constexpr int kSequences = 4;

struct Shape {
  int64_t m, n, k;
};

// The three GEMMs of a linear W [N, K] over M tokens, as (m, n, k) with k the contraction.
Shape shape_of(int64_t M, int64_t N, int64_t K, int role) {
  if (role == 0) return {M, N, K};  // fprop  Y  = X · Wᵀ
  if (role == 1) return {M, K, N};  // dgrad  dX = dY · W
  return {N, K, M};                 // wgrad  dW = dYᵀ · X
}

std::vector<std::pair<Shape, int64_t>> step_shapes(const char* model) {
  ConfigBuilder b;
  b.add_file(std::string(FP4LAB_SOURCE_DIR) + "/experiments/base/default.yaml");
  b.add_override(std::string("model=") + model);
  const ModelConfig c = b.build().model;
  const int64_t M = int64_t(kSequences) * c.seq_len, C = c.d_model, F = c.d_ff, L = c.n_layers;
  const std::pair<std::pair<int64_t, int64_t>, int64_t> kinds[] = {{{C, C}, 4 * L}, {{F, C}, 2 * L}, {{C, F}, L}};
  std::vector<std::pair<Shape, int64_t>> out;
  for (const auto& [nk, count] : kinds)
    for (int role = 0; role < 3; ++role) out.push_back({shape_of(M, nk.first, nk.second, role), count});
  return out;
}

struct Operands {
  std::vector<float> a, b, c;
  Fp4Operand qa, qb;
  Operands(const Shape& s, const char* format) : a(size_t(s.m * s.k)), b(size_t(s.n * s.k)), c(size_t(s.m * s.n)) {
    std::mt19937 gen(7);
    std::normal_distribution<float> u(0.0f, 1.0f);
    for (float& x : a) x = u(gen);
    for (float& x : b) x = u(gen);
    QuantSpec spec;
    named_format(format, spec);
    make(qa, a, s.m, s.k, spec);
    make(qb, b, s.n, s.k, spec);
  }
  static void make(Fp4Operand& op, std::vector<float>& x, int64_t rows, int64_t k, const QuantSpec& spec) {
    std::vector<uint8_t> codes, scales;
    std::vector<float> row_amax;
    float amax = 0;
    QuantOutputs out;
    out.codes = &codes;
    out.scales = &scales;
    out.global_amax = &amax;
    out.row_amax = &row_amax;
    quantize(x.data(), x.data(), rows, k, spec, {}, out);  // x becomes the dequantized copy
    fp4_operand_from_codes(op, spec, rows, k, codes, scales, amax, row_amax);
  }
};

using Clock = std::chrono::steady_clock;

// The int8 multiply-add peak of one core: independent vpdpbusd chains on registers.
__attribute__((target("avx512f,avx512vnni"))) double vnni_macs_per_second() {
  __m512i acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_epi32(i);
  const __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(5);
  const int64_t loops = 20'000'000;
  const auto t0 = Clock::now();
  for (int64_t l = 0; l < loops; ++l)
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], x, y);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  int sink = 0;
  for (int i = 0; i < 12; ++i) sink += _mm512_reduce_add_epi32(acc[i]);
  benchmark::DoNotOptimize(sink);
  return double(loops) * 12 * 64 / s;
}

// The same for the AVX2 kernel's multiply, vpmaddubsw (32 byte products, summed in pairs): twelve
// independent chains in registers, written as one asm block so that the compiler can neither drop
// nor spill them (with intrinsics GCC rotated the chains through the stack, and the stores, not
// the multiplies, set the pace: about two thirds of this rate).
__attribute__((target("avx2"))) double avx2_macs_per_second() {
  __m256i a0 = _mm256_set1_epi8(1), a1 = _mm256_set1_epi8(2), a2 = _mm256_set1_epi8(3), a3 = _mm256_set1_epi8(4),
          a4 = _mm256_set1_epi8(5), a5 = _mm256_set1_epi8(6), a6 = _mm256_set1_epi8(7), a7 = _mm256_set1_epi8(8),
          a8 = _mm256_set1_epi8(9), a9 = _mm256_set1_epi8(10), a10 = _mm256_set1_epi8(11), a11 = _mm256_set1_epi8(12);
  const __m256i y = _mm256_set1_epi8(5);
  const int64_t loops = 20'000'000;
  const auto t0 = Clock::now();
  for (int64_t l = 0; l < loops; ++l)
    __asm__ volatile(
        "vpmaddubsw %12, %0, %0\n\tvpmaddubsw %12, %1, %1\n\tvpmaddubsw %12, %2, %2\n\t"
        "vpmaddubsw %12, %3, %3\n\tvpmaddubsw %12, %4, %4\n\tvpmaddubsw %12, %5, %5\n\t"
        "vpmaddubsw %12, %6, %6\n\tvpmaddubsw %12, %7, %7\n\tvpmaddubsw %12, %8, %8\n\t"
        "vpmaddubsw %12, %9, %9\n\tvpmaddubsw %12, %10, %10\n\tvpmaddubsw %12, %11, %11"
        : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9),
          "+x"(a10), "+x"(a11)
        : "x"(y));
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  const __m256i sum = _mm256_add_epi16(
      _mm256_add_epi16(_mm256_add_epi16(_mm256_add_epi16(a0, a1), _mm256_add_epi16(a2, a3)),
                       _mm256_add_epi16(_mm256_add_epi16(a4, a5), _mm256_add_epi16(a6, a7))),
      _mm256_add_epi16(_mm256_add_epi16(a8, a9), _mm256_add_epi16(a10, a11)));
  benchmark::DoNotOptimize(_mm256_extract_epi32(sum, 0));
  return double(loops) * 12 * 32 / s;
}

// The peak of the kernel this process runs (0 for the scalar kernel).
double int8_peak_per_thread() {
  static const double peak = fp4_kernel() == Fp4Kernel::avx512_vnni ? vnni_macs_per_second()
                             : fp4_kernel() == Fp4Kernel::avx2     ? avx2_macs_per_second()
                                                                   : 0.0;
  return peak;
}

void BM_Int8Peak(benchmark::State& state) {
  for (auto _ : state) state.counters["int8_GMAC/s_per_core"] = int8_peak_per_thread() / 1e9;
}
BENCHMARK(BM_Int8Peak)->Iterations(1)->Unit(benchmark::kMillisecond);

// args: model (0 small, 1 medium), format (0 nvfp4, 1 mxfp4). Every GEMM of one step, each with its count.
void BM_Fp4GemmStep(benchmark::State& state) {
  const char* model = state.range(0) == 0 ? "small" : "medium";
  const char* format = state.range(1) == 0 ? "nvfp4" : "mxfp4";
  const auto shapes = step_shapes(model);
  std::vector<Operands> ops;
  double flops = 0;
  for (const auto& [s, count] : shapes) {
    ops.emplace_back(s, format);
    flops += 2.0 * double(s.m) * double(s.n) * double(s.k) * double(count);
  }
  double fp32 = 0, fp4 = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i].first;
      for (int64_t r = 0; r < shapes[i].second; ++r)
        matmul(ops[i].c.data(), ops[i].a.data(), Trans::n, ops[i].b.data(), Trans::t, s.m, s.n, s.k, false);
    }
    benchmark::ClobberMemory();
    auto t1 = Clock::now();
    for (size_t i = 0; i < shapes.size(); ++i)
      for (int64_t r = 0; r < shapes[i].second; ++r) fp4_matmul(ops[i].c.data(), whole(ops[i].qa), whole(ops[i].qb), false);
    benchmark::ClobberMemory();
    auto t2 = Clock::now();
    fp32 += std::chrono::duration<double>(t1 - t0).count();
    fp4 += std::chrono::duration<double>(t2 - t1).count();
  }
  const double it = double(state.iterations());
  state.counters["fp32_GF/s"] = flops * it / fp32 / 1e9;
  state.counters["fp4_GF/s"] = flops * it / fp4 / 1e9;
  state.counters["x_fp32"] = fp32 / fp4;
  const double peak = int8_peak_per_thread() * omp_get_max_threads();
  if (peak > 0) state.counters["peak_frac"] = flops / 2 * it / fp4 / peak;
  state.SetLabel(std::string(model) + " " + format + " " + to_string(fp4_kernel()) + " " +
                 gemm_engine_name(gemm_engine()) + " " + std::to_string(omp_get_max_threads()) + "thr");
}
BENCHMARK(BM_Fp4GemmStep)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond)->MinTime(1.0);

// One shape per GEMM of a step: args (model, index into step_shapes), NVFP4.
void BM_Fp4GemmShape(benchmark::State& state) {
  const char* model = state.range(0) == 0 ? "small" : "medium";
  const Shape s = step_shapes(model)[size_t(state.range(1))].first;
  Operands o(s, "nvfp4");
  double fp32 = 0, fp4 = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    matmul(o.c.data(), o.a.data(), Trans::n, o.b.data(), Trans::t, s.m, s.n, s.k, false);
    benchmark::ClobberMemory();
    auto t1 = Clock::now();
    fp4_matmul(o.c.data(), whole(o.qa), whole(o.qb), false);
    benchmark::ClobberMemory();
    auto t2 = Clock::now();
    fp32 += std::chrono::duration<double>(t1 - t0).count();
    fp4 += std::chrono::duration<double>(t2 - t1).count();
  }
  const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k) * double(state.iterations());
  state.counters["fp32_GF/s"] = flops / fp32 / 1e9;
  state.counters["fp4_GF/s"] = flops / fp4 / 1e9;
  state.counters["x_fp32"] = fp32 / fp4;
  const double peak = int8_peak_per_thread() * omp_get_max_threads();
  if (peak > 0) state.counters["peak_frac"] = flops / 2 / fp4 / peak;
  state.SetLabel(std::string(model) + " m" + std::to_string(s.m) + " n" + std::to_string(s.n) + " k" + std::to_string(s.k));
}
BENCHMARK(BM_Fp4GemmShape)->ArgsProduct({{0, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8}})->Unit(benchmark::kMicrosecond)->MinTime(0.3);

}  // namespace
}  // namespace fp4lab
