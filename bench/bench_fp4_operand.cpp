// The block_exact operand quantizer: quantize_fp4_operand (straight into the kernels' form) against
// the general path it replaces (quantize(), which also writes the dequantized copy, then
// fp4_operand_from_codes), timed alternately in the same iterations on the operands of one
// training step of `small` (4 sequences of 128 tokens: d_model 192, d_ff 512). Reports ns per
// element of each path and x = general time / direct time. Not a correctness test
// (tests/test_fp4_quantize.cpp checks the two give the same bits).
#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "core/ops/fp4_gemm.hpp"
#include "core/ops/fp4_quantize.hpp"
#include "core/ops/matmul.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quantize.hpp"

namespace fp4lab {
namespace {

struct OperandCase {
  const char* name;
  int64_t rows, cols;
  Tile tile;
  Rounding rounding;
  bool rht, bf16;
  FourOverSix four_over_six = FourOverSix::off;
};

// The nvfp4 preset's operands of the qkv projection (output 576) and, with bf16 operands, te_nvfp4's
// and te_nvfp4_4over6's.
const OperandCase kCases[] = {
    {"fprop_x_512x192", 512, 192, Tile::d1, Rounding::rne, false, false},
    {"fprop_w_576x192_2d", 576, 192, Tile::d2, Rounding::rne, false, false},
    {"dgrad_dy_512x576_sr", 512, 576, Tile::d1, Rounding::sr, false, false},
    {"wgrad_dy_576x512_rht_sr", 576, 512, Tile::d1, Rounding::sr, true, false},
    {"wgrad_x_192x512_rht", 192, 512, Tile::d1, Rounding::rne, true, false},
    {"te_dgrad_dy_512x576_sr_bf16", 512, 576, Tile::d1, Rounding::sr, false, true},
    {"te_wgrad_dy_576x512_rht_sr_bf16", 576, 512, Tile::d1, Rounding::sr, true, true},
    {"te_fprop_x_512x192_4over6_bf16", 512, 192, Tile::d1, Rounding::rne, false, true, FourOverSix::mae},
    {"te_fprop_w_576x192_2d_4over6_bf16", 576, 192, Tile::d2, Rounding::rne, false, true, FourOverSix::mae},
};

// The case's nvfp4 spec.
QuantSpec spec_of(const OperandCase& c) {
  QuantSpec spec;
  named_format("nvfp4", spec);
  spec.tile = c.tile;
  spec.rounding = c.rounding;
  spec.rht = c.rht;
  if (c.bf16) spec.operand_dtype = OperandDtype::bf16;
  spec.four_over_six = c.four_over_six;
  return spec;
}

// The case's input: Gaussian, sigma 1e-3.
std::vector<float> input_of(const OperandCase& c) {
  std::vector<float> x(size_t(c.rows * c.cols));
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.0f, 1e-3f);
  for (float& v : x) v = normal(gen);
  return x;
}

// Two paths' total seconds over the iterations as ns per element each, and x = a / b.
void report(benchmark::State& state, const OperandCase& c, const std::string& a, double a_seconds, const std::string& b,
            double b_seconds) {
  const double elements = double(state.iterations()) * double(c.rows * c.cols);
  state.counters[a + "_ns_per_el"] = 1e9 * a_seconds / elements;
  state.counters[b + "_ns_per_el"] = 1e9 * b_seconds / elements;
  state.counters["x"] = a_seconds / b_seconds;
}

void BM_Fp4Operand(benchmark::State& state, OperandCase c) {
  const QuantSpec spec = spec_of(c);
  if (!fp4_direct_supported(spec)) {
    state.SkipWithError("no direct path on this build (it needs AVX-512 or AVX2)");
    return;
  }
  const std::vector<float> x = input_of(c);
  std::vector<float> out(x.size()), scratch(x.size());
  std::vector<uint8_t> codes, scales;
  std::vector<float> row_amax;
  float amax = 0.0f;
  bool nonfinite = false;
  QuantOutputs general_out{&codes, &scales, &amax};
  general_out.row_amax = &row_amax;
  general_out.nonfinite = &nonfinite;
  QuantOutputs direct_out;
  direct_out.global_amax = &amax;
  direct_out.nonfinite = &nonfinite;
  Fp4Operand general_op, direct_op;
  using Clock = std::chrono::steady_clock;
  double general_seconds = 0.0, direct_seconds = 0.0;
  uint64_t step = 0;
  for (auto _ : state) {
    const QuantRandom rnd{1, 2, step++};
    const auto t0 = Clock::now();
    quantize(x.data(), out.data(), c.rows, c.cols, spec, rnd, general_out);
    fp4_operand_from_codes(general_op, spec, c.rows, c.cols, codes, scales, amax, row_amax);
    const auto t1 = Clock::now();
    quantize_fp4_operand(x.data(), scratch.data(), c.rows, c.cols, spec, rnd, direct_out, direct_op);
    benchmark::DoNotOptimize(direct_op.q.data());
    benchmark::ClobberMemory();
    const auto t2 = Clock::now();
    general_seconds += std::chrono::duration<double>(t1 - t0).count();
    direct_seconds += std::chrono::duration<double>(t2 - t1).count();
  }
  report(state, c, "general", general_seconds, "direct", direct_seconds);
}

// wgrad's operands are transposes of tensors stored [tokens, features] (Xᵀ, dYᵀ): the quantizer
// reads them as stored (quantize_fp4_operand's `transposed`) against an fp32 transpose then the
// direct quantizer, alternately, with the source evicted from the caches before each call (as in a
// step, where X was written in the forward pass) when `cold`. Reports ns per element of each and
// x = transpose-first time / as-stored time.
void BM_Fp4OperandTransposed(benchmark::State& state, OperandCase c, bool cold) {
  const QuantSpec spec = spec_of(c);
  if (!fp4_direct_supported(spec)) {
    state.SkipWithError("no direct path on this build (it needs AVX-512 or AVX2)");
    return;
  }
  const std::vector<float> stored = input_of(c);  // [cols, rows]: the operand's transpose as stored
  std::vector<float> scratch(stored.size());
  std::vector<char> flush(cold ? size_t(32) << 20 : 0);
  auto evict = [&] {
    for (size_t i = 0; i < flush.size(); i += 64) flush[i] = char(flush[i] + 1);
    benchmark::ClobberMemory();
  };
  float amax = 0.0f;
  bool nonfinite = false;
  QuantOutputs out;
  out.global_amax = &amax;
  out.nonfinite = &nonfinite;
  Fp4Operand first_op, stored_op;
  using Clock = std::chrono::steady_clock;
  double first_seconds = 0.0, stored_seconds = 0.0;
  uint64_t step = 0;
  for (auto _ : state) {
    const QuantRandom rnd{1, 2, step++};
    evict();
    const auto t0 = Clock::now();
    transpose(scratch.data(), stored.data(), c.cols, c.rows);
    quantize_fp4_operand(scratch.data(), scratch.data(), c.rows, c.cols, spec, rnd, out, first_op);
    benchmark::DoNotOptimize(first_op.q.data());
    const auto t1 = Clock::now();
    evict();
    const auto t2 = Clock::now();
    quantize_fp4_operand(stored.data(), scratch.data(), c.rows, c.cols, spec, rnd, out, stored_op, true);
    benchmark::DoNotOptimize(stored_op.q.data());
    benchmark::ClobberMemory();
    const auto t3 = Clock::now();
    first_seconds += std::chrono::duration<double>(t1 - t0).count();
    stored_seconds += std::chrono::duration<double>(t3 - t2).count();
  }
  report(state, c, "transpose_first", first_seconds, "as_stored", stored_seconds);
}

const OperandCase kTransposedCases[] = {
    {"wgrad_dy_576x512_rht_sr", 576, 512, Tile::d1, Rounding::sr, true, false},
    {"wgrad_x_192x512_rht", 192, 512, Tile::d1, Rounding::rne, true, false},
    {"wgrad_x_512x512_rht", 512, 512, Tile::d1, Rounding::rne, true, false},
    {"te_wgrad_dy_576x512_rht_sr_bf16", 576, 512, Tile::d1, Rounding::sr, true, true},
    {"te_wgrad_x_512x512_rht_bf16", 512, 512, Tile::d1, Rounding::rne, true, true},
    {"medium_wgrad_x_1024x1024_rht", 1024, 1024, Tile::d1, Rounding::rne, true, false},
};

[[maybe_unused]] const bool kRegistered = [] {
  for (const OperandCase& c : kCases)
    benchmark::RegisterBenchmark((std::string("Fp4Operand/") + c.name).c_str(), BM_Fp4Operand, c)
        ->Unit(benchmark::kMicrosecond);
  for (const OperandCase& c : kTransposedCases)
    for (bool cold : {false, true})
      benchmark::RegisterBenchmark((std::string("Fp4OperandTransposed/") + c.name + (cold ? "/cold" : "/hot")).c_str(),
                                   BM_Fp4OperandTransposed, c, cold)
          ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace fp4lab

// main() is bench_quant.cpp's: every bench/*.cpp links into the one fp4lab_bench binary.
