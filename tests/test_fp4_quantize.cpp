// Direct FP4 quantization (core/ops/fp4_quantize.hpp) against the general path it replaces for
// block_exact operands: quantize() then fp4_operand_from_codes. The operand (int8 values, decoded
// scales, global factor), the tensor amax and the non-finite sentinel agree bit for bit on hostile
// and Gaussian tensors, for every supported variant, at 1 and 2 threads, with a data-parallel
// amax hook and global SR offsets.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops/fp4_gemm.hpp"
#include "core/ops/fp4_quantize.hpp"
#include "core/quant/quantize.hpp"
#include "tests/quant_test_support.hpp"

namespace fp4lab {
namespace {

using testing_support::bytes_equal;
using testing_support::float_bits_equal;
using testing_support::gaussian;
using testing_support::hostile;
using testing_support::named;

struct Result {
  Fp4Operand op;
  float amax = 0.0f;
  bool nonfinite = false;
};

Result general(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec, const QuantRandom& rnd,
               const std::function<float(float)>* reduce) {
  Result r;
  std::vector<float> out(x.size());
  std::vector<uint8_t> codes, scales;
  std::vector<float> row_amax;
  QuantOutputs extra;
  extra.codes = &codes;
  extra.scales = &scales;
  extra.global_amax = &r.amax;
  extra.row_amax = &row_amax;
  extra.nonfinite = &r.nonfinite;
  extra.reduce_amax = reduce;
  quantize(x.data(), out.data(), rows, cols, spec, rnd, extra);
  fp4_operand_from_codes(r.op, spec, rows, cols, codes, scales, r.amax, row_amax);
  return r;
}

Result direct(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec, const QuantRandom& rnd,
              const std::function<float(float)>* reduce, bool in_place) {
  Result r;
  std::vector<float> input = x, scratch(x.size());
  QuantOutputs extra;
  extra.global_amax = &r.amax;
  extra.nonfinite = &r.nonfinite;
  extra.reduce_amax = reduce;
  quantize_fp4_operand(input.data(), in_place ? input.data() : scratch.data(), rows, cols, spec, rnd, extra, r.op);
  return r;
}

// direct() from x's transpose as stored ([cols, rows], as wgrad's Xᵀ and dYᵀ are): the quantizer
// reads it down the columns, or transposes it first for the specs it cannot.
Result direct_from_transpose(const std::vector<float>& x, int64_t rows, int64_t cols, const QuantSpec& spec,
                             const QuantRandom& rnd, const std::function<float(float)>* reduce) {
  Result r;
  std::vector<float> stored(x.size()), scratch(x.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) stored[size_t(j * rows + i)] = x[size_t(i * cols + j)];
  QuantOutputs extra;
  extra.global_amax = &r.amax;
  extra.nonfinite = &r.nonfinite;
  extra.reduce_amax = reduce;
  quantize_fp4_operand(stored.data(), scratch.data(), rows, cols, spec, rnd, extra, r.op, true);
  return r;
}

void expect_same(const Result& want, const Result& got, const std::string& what) {
  EXPECT_EQ(want.op.rows, got.op.rows) << what;
  EXPECT_EQ(want.op.k, got.op.k) << what;
  EXPECT_EQ(want.op.block, got.op.block) << what;
  EXPECT_TRUE(bytes_equal(want.op.q, got.op.q, what + " q"));
  EXPECT_TRUE(float_bits_equal(want.op.scale, got.op.scale, what + " scales"));
  EXPECT_TRUE(float_bits_equal(want.op.unit, got.op.unit, what + " unit"));
  EXPECT_EQ(testing_support::bits_of(want.op.denom), testing_support::bits_of(got.op.denom)) << what;
  EXPECT_EQ(testing_support::bits_of(want.amax), testing_support::bits_of(got.amax)) << what << " amax";
  EXPECT_EQ(want.nonfinite, got.nonfinite) << what << " sentinel";
  EXPECT_TRUE(got.op.valid) << what;
}

struct Variant {
  std::string name;
  QuantSpec spec;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  auto add = [&](const std::string& name, const char* format, auto&& edit) {
    QuantSpec s = named(format);
    edit(s);
    v.push_back({name, s});
  };
  add("nvfp4 1d rne", "nvfp4", [](QuantSpec&) {});
  add("nvfp4 1d sr", "nvfp4", [](QuantSpec& s) { s.rounding = Rounding::sr; });
  add("nvfp4 2d rne", "nvfp4", [](QuantSpec& s) { s.tile = Tile::d2; });
  add("nvfp4 2d sr", "nvfp4", [](QuantSpec& s) { s.tile = Tile::d2, s.rounding = Rounding::sr; });
  add("nvfp4 rht rne", "nvfp4", [](QuantSpec& s) { s.rht = true; });
  add("nvfp4 rht sr", "nvfp4", [](QuantSpec& s) { s.rht = true, s.rounding = Rounding::sr; });
  add("nvfp4 rht32 seeded", "nvfp4", [](QuantSpec& s) { s.rht = true, s.rht_size = 32, s.rht_sign_seed = 5; });
  add("nvfp4 te_2_13", "nvfp4", [](QuantSpec& s) { s.formula = BlockScaleFormula::te_2_13; });
  add("nvfp4 block 48 sr", "nvfp4", [](QuantSpec& s) { s.block = 48, s.rounding = Rounding::sr; });  // not a power of two
  add("nvfp4 bf16 1d", "nvfp4", [](QuantSpec& s) { s.operand_dtype = OperandDtype::bf16; });
  add("nvfp4 bf16 2d", "nvfp4", [](QuantSpec& s) { s.operand_dtype = OperandDtype::bf16, s.tile = Tile::d2; });
  add("nvfp4 bf16 rht sr", "nvfp4",
      [](QuantSpec& s) { s.operand_dtype = OperandDtype::bf16, s.rht = true, s.rounding = Rounding::sr; });
  add("nvfp4 4over6 mae", "nvfp4", [](QuantSpec& s) { s.four_over_six = FourOverSix::mae; });
  add("nvfp4 4over6 mse 2d q256", "nvfp4",
      [](QuantSpec& s) { s.four_over_six = FourOverSix::mse, s.tile = Tile::d2, s.global_e4m3_max = 256; });
  add("nvfp4 4over6 mae q256 rht sr", "nvfp4", [](QuantSpec& s) {
    s.four_over_six = FourOverSix::mae, s.global_e4m3_max = 256, s.rht = true, s.rounding = Rounding::sr;
  });
  add("nvfp4 4over6 mse bf16 2d sr", "nvfp4", [](QuantSpec& s) {
    s.four_over_six = FourOverSix::mse, s.operand_dtype = OperandDtype::bf16, s.tile = Tile::d2, s.rounding = Rounding::sr;
  });
  add("mxfp4 floor", "mxfp4", [](QuantSpec&) {});
  add("mxfp4 ceil sr", "mxfp4", [](QuantSpec& s) { s.scale_rule = ScaleRule::ceil, s.rounding = Rounding::sr; });
  add("mxfp4 rht16", "mxfp4", [](QuantSpec& s) { s.rht = true; });
  add("mxfp4 bf16 rht32", "mxfp4", [](QuantSpec& s) { s.rht = true, s.rht_size = 32, s.operand_dtype = OperandDtype::bf16; });
  return v;
}

TEST(Fp4Quantize, SupportedSpecs) {
  for (const Variant& v : variants()) EXPECT_EQ(fp4_direct_supported(v.spec), fp4_direct_supported(named("nvfp4"))) << v.name;
  QuantSpec s = named("nvfp4");
  s.global_e4m3_max = 256;  // Q = 256 only with 4over6 (validate)
  EXPECT_FALSE(fp4_direct_supported(s));
  s = named("nvfp4");
  s.row_scaled = true;
  EXPECT_FALSE(fp4_direct_supported(s));
  s = named("nvfp4");
  s.encode_window = 32;
  EXPECT_FALSE(fp4_direct_supported(s));
  s = named("nvfp4");
  s.scale_round = UfloatRounding::up;
  EXPECT_FALSE(fp4_direct_supported(s));
  EXPECT_FALSE(fp4_direct_supported(named("nvfp4_ue5m3")));
  EXPECT_FALSE(fp4_direct_supported(named("mxfp8")));
  EXPECT_FALSE(fp4_direct_supported(named("bf16")));
}

// check(variant, rows, cols, x, what) for every variant and shape (those it can take), on hostile,
// Gaussian, tiny and huge tensors, at 1 and 2 threads.
template <class Check>
void for_each_case(const std::vector<std::array<int64_t, 2>>& shapes, Check check) {
  for (const Variant& v : variants())
    for (const auto& [rows, cols] : shapes) {
      if (cols % v.spec.block != 0 || (v.spec.tile == Tile::d2 && rows % v.spec.block != 0)) continue;
      // NaNs of both signs under a finite amax, and Infs without NaNs (Inf · 0 is NaN): the NaN rules
      // must run for both (the encoder leaves them out only for finite tensors)
      std::vector<float> nans = gaussian(size_t(rows * cols), 8), infs = gaussian(size_t(rows * cols), 9);
      for (size_t i = 3; i < nans.size(); i += 37) nans[i] = i % 2 ? -std::nanf("") : std::nanf("");
      for (size_t i = 5; i < infs.size(); i += 41) infs[i] = i % 2 ? -INFINITY : INFINITY;
      const std::vector<std::pair<std::string, std::vector<float>>> tensors = {
          {"hostile", hostile(rows, cols, 3)},
          {"hostile finite", hostile(rows, cols, 4, false)},
          {"gaussian", gaussian(size_t(rows * cols), 5)},
          {"tiny", gaussian(size_t(rows * cols), 6, 1e-30)},
          {"huge", gaussian(size_t(rows * cols), 7, 1e36)},
          {"nans", nans},
          {"infs", infs},
      };
      for (const auto& [tname, x] : tensors)
        for (int threads : {1, 2}) {
          omp_set_num_threads(threads);
          check(v, rows, cols, x,
                v.name + " " + tname + " [" + std::to_string(rows) + ", " + std::to_string(cols) + "] threads " +
                    std::to_string(threads));
        }
    }
  omp_set_num_threads(2);
}

TEST(Fp4Quantize, SameOperandAsQuantizeThenCodes) {
  if (!fp4_direct_supported(named("nvfp4"))) GTEST_SKIP() << "this build has no AVX2: every operand takes the general path";
  const QuantRandom rnd{11, 3, 7};
  for_each_case({{32, 64}, {48, 96}, {16, 512}}, [&](const Variant& v, int64_t rows, int64_t cols,
                                                     const std::vector<float>& x, const std::string& what) {
    expect_same(general(x, rows, cols, v.spec, rnd, nullptr), direct(x, rows, cols, v.spec, rnd, nullptr, false), what);
    expect_same(general(x, rows, cols, v.spec, rnd, nullptr), direct(x, rows, cols, v.spec, rnd, nullptr, true),
                what + " in place");
  });
}

// A rank's slice: the amax hook (here: the max with another rank's 1e3) and SR bytes keyed by the
// global index.
TEST(Fp4Quantize, DataParallelSlice) {
  if (!fp4_direct_supported(named("nvfp4"))) GTEST_SKIP() << "this build has no AVX2: every operand takes the general path";
  const std::function<float(float)> reduce = [](float a) { return std::max(a, 1e3f); };
  QuantRandom rnd{11, 3, 7};
  rnd.col_offset = 64;
  rnd.global_cols = 256;
  const std::vector<float> x = gaussian(size_t(32 * 64), 8);
  QuantRandom rows_slice{11, 3, 7};  // a token slice: rows 48.. of the global tensor
  rows_slice.row_offset = 48;
  const std::vector<float> tall = gaussian(size_t(160 * 64), 9);  // several units of whole rows
  for (const Variant& v : variants()) {
    if (64 % v.spec.block != 0) continue;  // the shapes here take blocks of 16 and 32
    expect_same(general(x, 32, 64, v.spec, rnd, &reduce), direct(x, 32, 64, v.spec, rnd, &reduce, false), v.name);
    expect_same(general(tall, 160, 64, v.spec, rows_slice, &reduce), direct(tall, 160, 64, v.spec, rows_slice, &reduce, false),
                v.name + " row slice");
  }
  // A hook that fails (a collective timing out) fails the call, from inside the parallel region.
  const std::function<float(float)> failing = [](float) -> float { throw std::runtime_error("collective timed out"); };
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    EXPECT_THROW(direct(x, 32, 64, named("nvfp4"), rnd, &failing, false), std::runtime_error);
  }
  omp_set_num_threads(2);
}

// A transposed input: read down its columns in slabs of one block (1D specs, whole 16-column
// tiles), or transposed first (2D, 4over6, an RHT of 32, columns left over), at 1 and 2 threads,
// alone and as a rank's slice.
TEST(Fp4Quantize, TransposedInput) {
  if (!fp4_direct_supported(named("nvfp4"))) GTEST_SKIP() << "this build has no AVX2: every operand takes the general path";
  const std::function<float(float)> reduce = [](float a) { return std::max(a, 3.0f); };
  const QuantRandom rnd{11, 3, 7};
  QuantRandom slice = rnd;
  slice.col_offset = 64;
  slice.global_cols = 1024;
  for_each_case({{32, 64}, {24, 96}, {20, 96}, {48, 512}, {8, 32}}, [&](const Variant& v, int64_t rows, int64_t cols,
                                                                        const std::vector<float>& x, const std::string& what) {
    expect_same(general(x, rows, cols, v.spec, rnd, nullptr), direct_from_transpose(x, rows, cols, v.spec, rnd, nullptr), what);
    expect_same(general(x, rows, cols, v.spec, slice, &reduce), direct_from_transpose(x, rows, cols, v.spec, slice, &reduce),
                what + " slice");
  });
  std::vector<float> x(32 * 16, 1.0f);
  Fp4Operand op;
  EXPECT_THROW(quantize_fp4_operand(x.data(), x.data(), 16, 32, named("nvfp4"), {}, {}, op, true), std::logic_error);
}

TEST(Fp4Quantize, Errors) {
  if (!fp4_direct_supported(named("nvfp4"))) GTEST_SKIP() << "this build has no AVX2: every operand takes the general path";
  std::vector<float> x(16 * 40, 1.0f), scratch(x.size());
  Fp4Operand op;
  EXPECT_THROW(quantize_fp4_operand(x.data(), scratch.data(), 16, 40, named("nvfp4"), {}, {}, op), std::invalid_argument);
  EXPECT_THROW(quantize_fp4_operand(x.data(), scratch.data(), 16, 32, named("mxfp8"), {}, {}, op), std::logic_error);
  std::vector<uint8_t> codes;
  QuantOutputs extra;
  extra.codes = &codes;
  EXPECT_THROW(quantize_fp4_operand(x.data(), scratch.data(), 16, 32, named("nvfp4"), {}, extra, op), std::logic_error);
}

}  // namespace
}  // namespace fp4lab
