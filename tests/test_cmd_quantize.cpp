// The `fp4lab quantize`, `fp4lab gemm` and `fp4lab formats` commands, run as the built binary
// (FP4LAB_BINARY): outputs equal the in-process quantizer and GEMMs bit for bit; every usage error
// exits 2 with a one-line message and leaves no output file; conformance vectors re-quantize to
// themselves.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "tests/cli_support.hpp"
#include "tests/scratch_dir.hpp"
#include "core/io/h5.hpp"
#include "core/ops/fp4_gemm.hpp"
#include "core/ops/matmul.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quantize.hpp"
#include "tests/quant_test_support.hpp"

namespace fp4lab {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

using testing_cli::CliResult;
using testing_cli::run_cli;

class CmdQuantize : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    in_ = (dir_ / "in.h5").string();
    h5::File f = h5::File::create(in_);
    w_ = gaussian(48 * 80, 4, 2.0);
    f.write("w", w_, {48, 80});
    f.write("nested/w", w_, {48, 80});
    std::vector<int32_t> ints(48 * 80, 3);
    f.write("ints", ints, {48, 80});
    f.write("cube", std::vector<float>(2 * 16 * 16, 1.0f), {2, 16, 16});
    f.write("nan", std::vector<float>(4 * 32, std::numeric_limits<float>::quiet_NaN()), {4, 32});
    f.write("odd", std::vector<float>(5 * 40, 1.0f), {5, 40});
    f.write("empty", std::vector<float>{}, {0, 16});
  }
  std::string in_;
  std::vector<float> w_;
};

TEST_F(CmdQuantize, WritesCodesScalesDequantEqualToTheLibrary) {
  struct Case {
    std::string args;
    QuantSpec spec;
    QuantRandom random;
  };
  std::vector<Case> cases;
  QuantSpec s;
  named_format("nvfp4", s);
  cases.push_back({"--format nvfp4", s, {}});
  s.tile = Tile::d2;
  s.rht = true;
  s.rounding = Rounding::sr;
  s.formula = BlockScaleFormula::te_2_13;
  cases.push_back({"--format nvfp4 --tile 2d --rht --rounding sr --seed 3 --te-formula 2.13", s, {3, 0, 0}});
  named_format("nvfp4", s);
  s.four_over_six = FourOverSix::mse;
  s.global_e4m3_max = 256;
  s.tile = Tile::d2;
  s.operand_dtype = OperandDtype::bf16;
  cases.push_back({"--format nvfp4 --four-over-six mse --global-e4m3-max 256 --tile 2d --operand-dtype bf16", s, {}});
  named_format("nvfp4", s);
  s.row_scaled = true;
  cases.push_back({"--format nvfp4 --row-scaled", s, {}});
  named_format("nvfp4_ue5m3", s);
  s.scale_round = UfloatRounding::up;
  s.tile = Tile::d2;
  cases.push_back({"--format nvfp4_ue5m3 --scale-round up --tile 2d", s, {}});
  named_format("nvfp4", s);
  s.scale = ScaleFormat::ufloat;
  s.scale_exp_bits = 3;
  s.scale_man_bits = 2;
  s.scale_bias = 2;
  s.scale_specials = UfloatSpecials::finite;
  cases.push_back({"--format nvfp4 --scale ufloat --scale-exp-bits 3 --scale-man-bits 2 --scale-bias 2 "
                   "--scale-specials finite",
                   s, {}});
  named_format("nvfp4", s);
  s.encode_window = 80;
  s.rht = true;
  s.rounding = Rounding::sr;
  cases.push_back({"--format nvfp4 --encode-window 80 --rht --rounding sr --seed 4", s, {4, 0, 0}});
  s.encode_window = 16;
  s.tile = Tile::d2;
  s.rht = false;
  s.rounding = Rounding::rne;
  cases.push_back({"--format nvfp4 --encode-window 16 --tile 2d", s, {}});
  named_format("nvfp4", s);
  s.four_over_six = FourOverSix::mae;
  s.rht = true;
  s.rounding = Rounding::sr;
  cases.push_back({"--format nvfp4 --four-over-six mae --rht --rounding sr --seed 2", s, {2, 0, 0}});
  named_format("mxfp4", s);
  s.scale_rule = ScaleRule::ceil;
  s.block = 16;
  cases.push_back({"--format mxfp4 --scale-rule ceil --block 16", s, {}});
  named_format("fp8_e4m3", s);
  cases.push_back({"--format fp8_e4m3", s, {}});
  named_format("bf16", s);
  cases.push_back({"--format bf16", s, {}});
  for (const Case& c : cases) {
    const std::string out = path("out.h5");
    const CliResult r = run_cli("quantize " + in_ + " " + out + " --dataset w " + c.args);
    ASSERT_EQ(r.code, 0) << c.args << "\n" << r.output;
    std::vector<float> expected(w_.size());
    std::vector<uint8_t> codes, scales;
    std::vector<float> window_amax;
    float amax = 0;
    QuantOutputs extra{&codes, &scales, &amax, nullptr};
    extra.window_amax = &window_amax;
    quantize(w_.data(), expected.data(), 48, 80, c.spec, c.random, extra);
    const h5::File f = h5::File::open_ro(out);
    std::vector<uint64_t> shape;
    EXPECT_TRUE(float_bits_equal(expected, f.read<float>("dequant", &shape), c.args + " dequant"));
    EXPECT_EQ(shape, (std::vector<uint64_t>{48, 80}));
    EXPECT_EQ(f.has("codes"), !codes.empty()) << c.args;
    if (!codes.empty()) {
      EXPECT_TRUE(bytes_equal(codes, f.read<uint8_t>("codes", &shape), c.args + " codes"));
    }
    EXPECT_EQ(f.has("scales"), !scales.empty()) << c.args;
    if (!scales.empty()) {
      EXPECT_TRUE(bytes_equal(scales, f.read<uint8_t>("scales", &shape), c.args + " scales"));
      EXPECT_EQ(shape, (std::vector<uint64_t>{48, static_cast<uint64_t>(80 / c.spec.block)}));
    }
    EXPECT_EQ(f.has("window_amax"), c.spec.encode_window > 0) << c.args;
    if (c.spec.encode_window > 0) {
      EXPECT_TRUE(float_bits_equal(window_amax, f.read<float>("window_amax", &shape), c.args + " window_amax"));
      EXPECT_EQ(shape, (std::vector<uint64_t>{48, static_cast<uint64_t>(80 / c.spec.encode_window)}));
    }
    EXPECT_EQ(f.attr_double("/", "global_amax"), amax);
    EXPECT_EQ(f.attr_string("/", "format"), describe(c.spec));
    EXPECT_FALSE(temporaries_left());
  }
  EXPECT_EQ(run_cli("quantize " + in_ + " " + path("nested.h5") + " --dataset nested/w --format nvfp4").code, 0);
}

TEST_F(CmdQuantize, UsageErrorsExitTwoWithOneLineAndNoOutput) {
  const std::string out = path("bad.h5");
  struct Case {
    std::string args;
    std::string message;  // expected substring of the one-line message ("" for CLI11's own)
  };
  const std::string q = "quantize " + in_ + " " + out;  // then the flags
  const Case cases[] = {
      {q + " --dataset missing --format nvfp4", "dataset 'missing' not found"},
      {q + " --dataset ints --format nvfp4", "is int32; expected float32"},
      {q + " --dataset cube --format nvfp4", "has 3 dimensions"},
      {q + " --dataset nan --format nvfp4", "holds only NaN"},
      {q + " --dataset empty --format nvfp4", "is empty"},
      {q + " --dataset odd --format nvfp4", "block size 16 does not divide the last axis (40)"},
      {q + " --dataset w --format mxfp4", "block size 32 does not divide the last axis (80)"},
      {q + " --dataset w --format nvfp4 --block 7", "block size 7 does not divide"},
      {q + " --dataset odd --format nvfp4 --block 8 --tile 2d", "do not divide the first axis (5)"},
      {q + " --dataset w --format mxfp8 --rounding sr", "stochastic rounding is only defined"},
      {q + " --dataset w --format nvfp4 --rht --rht-size 12", "rht_size 12"},
      {q + " --dataset w --format nvfp4 --global-e4m3-max 256", "or 256 with 4over6"},
      {q + " --dataset w --format nvfp4 --encode-window 24",
       "encode_window 24 is not a multiple of the block (16)"},
      {"quantize " + path("missing.h5") + " " + out + " --dataset w --format nvfp4", "no such file"},
      {"quantize " + in_ + " " + in_ + " --dataset w --format nvfp4", "OUT must differ from IN"},
      {q + " --dataset w --format nvfp9", ""},
      {q + " --format nvfp4", ""},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << c.args;
    EXPECT_FALSE(temporaries_left()) << c.args;
    if (!c.message.empty()) {
      EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
      EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "not one line: " << r.output;
    }
  }
  EXPECT_TRUE(fs::exists(in_));
}

TEST_F(CmdQuantize, FormatsListsDescribesAndWritesVectors) {
  CliResult r = run_cli("formats");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("fp4_e2m1/16 e4m3 1d rne"), std::string::npos) << r.output;
  r = run_cli("formats nvfp4");
  EXPECT_EQ(r.code, 0);
  for (const char* text : {"tie -> 0 (even)", "NaN -> +6", "min subnormal", "2688", "floor(256 f)/256"})
    EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
  r = run_cli("formats mxfp4");
  EXPECT_NE(r.output.find("floor rule"), std::string::npos) << r.output;
  EXPECT_EQ(run_cli("formats nvfp5").code, 2);

  const std::string vectors = path("vectors.h5");
  r = run_cli("formats nvfp4 --vectors " + vectors);
  ASSERT_EQ(r.code, 0) << r.output;
  const h5::File f = h5::File::open_ro(vectors);
  for (const char* variant : {"base", "2d", "sr_seed1", "rht", "te_2_13"})
    for (const char* c : {"ties", "nonfinite", "hostile", "gaussian"}) {
      const std::string group = std::string("/nvfp4/") + variant + "/" + c;
      ASSERT_TRUE(f.has(group + "/input")) << group;
      std::vector<uint64_t> shape;
      const std::vector<float> input = f.read<float>(group + "/input", &shape);
      QuantSpec spec;
      named_format("nvfp4", spec);
      spec.tile = f.attr_string(group, "tile") == "2d" ? Tile::d2 : Tile::d1;
      spec.rht = f.attr_int(group, "rht") != 0;
      parse(f.attr_string(group, "rounding"), spec.rounding);
      parse(f.attr_string(group, "formula"), spec.formula);
      const QuantRandom rnd{static_cast<uint64_t>(f.attr_int(group, "seed")), 0, 0};
      std::vector<float> out(input.size());
      std::vector<uint8_t> codes, scales;
      quantize_reference(input.data(), out.data(), static_cast<int64_t>(shape[0]), static_cast<int64_t>(shape[1]),
                         spec, rnd, {&codes, &scales, nullptr, nullptr});
      EXPECT_TRUE(bytes_equal(codes, f.read<uint8_t>(group + "/codes"), group + " codes"));
      EXPECT_TRUE(bytes_equal(scales, f.read<uint8_t>(group + "/scales"), group + " scales"));
      EXPECT_TRUE(float_bits_equal(out, f.read<float>(group + "/dequant"), group + " dequant"));
    }
  // The ties case puts E2M1 ties at scale 1: 0.25 -> 0, 0.75 -> 2 (1.0), 5 -> 6 (4.0).
  const std::vector<uint8_t> codes = f.read<uint8_t>("/nvfp4/base/ties/codes");
  EXPECT_EQ(codes[1], 0x0);
  EXPECT_EQ(codes[2], 0x2);
  EXPECT_EQ(codes[7], 0x6);
  EXPECT_EQ(codes[9], 0x8);  // -0
  r = run_cli("formats --vectors " + path("all.h5"));
  ASSERT_EQ(r.code, 0) << r.output;
  const h5::File all = h5::File::open_ro(path("all.h5"));
  for (const char* group : {"/mxfp4/ceil/hostile/codes", "/mxfp8/floor/ties/scales", "/fp8_e5m2/base/gaussian/codes",
                            "/bf16/base/nonfinite/dequant", "/fp32/base/ties/dequant",
                            "/nvfp4_ue5m3/scale_round_up/hostile/scales", "/nvfp4_ue5m3/row_scaled/gaussian/codes",
                            "/nvfp4/scale_round_down/ties/scales"})
    EXPECT_TRUE(all.has(group)) << group;
  // e4m3 spelled as a ufloat writes the same vectors.
  for (const char* c : {"ties", "nonfinite", "hostile", "gaussian"})
    for (const char* data : {"codes", "scales"})
      EXPECT_TRUE(bytes_equal(all.read<uint8_t>(std::string("/nvfp4/base/") + c + "/" + data),
                              all.read<uint8_t>(std::string("/nvfp4/ufloat_e4m3/") + c + "/" + data), c));
  r = run_cli("formats nvfp4_ue5m3");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("114688"), std::string::npos) << r.output;
}

// `gemm`: each operand group equals `quantize` with the same options, and C equals fp4_matmul
// (block_exact) or the fp32 product of the dequantized operands (dequant_fp32), bit for bit.
TEST_F(CmdQuantize, GemmWritesTheProductOfTheQuantizedOperands) {
  {
    h5::File f = h5::File::open_rw(in_);
    f.write("a", hostile(32, 80, 9, false), {32, 80});
  }
  struct Case {
    std::string options, numerics;
    QuantSpec a, b;
  };
  QuantSpec nv, nv2d, nv_sr_rows, mx, fp8;
  named_format("nvfp4", nv);
  named_format("mxfp4", mx);
  named_format("fp8_e4m3", fp8);
  mx.block = 16;  // 80 columns
  QuantSpec mx_ceil = mx;
  mx_ceil.scale_rule = ScaleRule::ceil;
  nv2d = nv;
  nv2d.tile = Tile::d2;
  nv_sr_rows = nv;
  nv_sr_rows.rounding = Rounding::sr;
  nv_sr_rows.row_scaled = true;
  const Case cases[] = {
      {"--a-format nvfp4 --a-rounding sr --a-row-scaled --a-seed 5 --b-format nvfp4 --b-tile 2d", "block_exact", nv_sr_rows, nv2d},
      {"--a-format nvfp4 --b-format nvfp4 --b-tile 2d --numerics dequant_fp32", "dequant_fp32", nv, nv2d},
      {"--a-format mxfp4 --a-block 16 --b-format mxfp4 --b-block 16 --b-scale-rule ceil", "block_exact", mx, mx_ceil},
      {"--a-format fp8_e4m3 --b-format nvfp4 --numerics dequant_fp32", "dequant_fp32", fp8, nv},
  };
  for (const Case& c : cases) {
    const std::string out = path("c.h5");
    fs::remove(out);
    const CliResult r = run_cli("gemm " + in_ + " " + in_ + " " + out + " --a-dataset a --b-dataset w " + c.options);
    ASSERT_EQ(r.code, 0) << c.options << ": " << r.output;
    const h5::File f = h5::File::open_ro(out);
    EXPECT_EQ(f.attr_string("/", "numerics"), c.numerics);
    const std::vector<float> a = f.read<float>("a/dequant"), b = f.read<float>("b/dequant");
    std::vector<float> want(32 * 48);
    if (c.numerics == "block_exact") {
      Fp4Operand fa, fb;
      std::vector<uint8_t> codes, scales;
      std::vector<float> rows, values(32 * 80);
      float amax = 0;
      QuantOutputs qo{&codes, &scales, &amax, nullptr};
      qo.row_amax = &rows;
      const std::vector<float> xa = hostile(32, 80, 9, false);
      quantize(xa.data(), values.data(), 32, 80, c.a, QuantRandom{c.a.rounding == Rounding::sr ? 5u : 0u, 0, 0}, qo);
      EXPECT_TRUE(bytes_equal(codes, f.read<uint8_t>("a/codes"), c.options + " a codes"));
      fp4_operand_from_codes(fa, c.a, 32, 80, codes, scales, amax, rows);
      values.resize(48 * 80);
      quantize(w_.data(), values.data(), 48, 80, c.b, {}, qo);
      EXPECT_TRUE(bytes_equal(scales, f.read<uint8_t>("b/scales"), c.options + " b scales"));
      fp4_operand_from_codes(fb, c.b, 48, 80, codes, scales, amax, rows);
      fp4_matmul(want.data(), whole(fa), whole(fb), false);
    } else {
      matmul(want.data(), a.data(), Trans::n, b.data(), Trans::t, 32, 48, 80, false);
    }
    EXPECT_TRUE(float_bits_equal(want, f.read<float>("c"), c.options));
  }
  const std::string out = path("bad.h5");
  const std::string base = "gemm " + in_ + " " + in_ + " " + out + " --a-dataset a --b-dataset w ";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {base + "--a-format fp8_e4m3 --b-format nvfp4", "block_exact needs both operands FP4"},
           {base + "--a-format nvfp4 --b-format nvfp4 --b-block 8", "of one block size"},
           {"gemm " + in_ + " " + in_ + " " + out + " --a-dataset a --b-dataset odd --a-format nvfp4 --b-format nvfp4 --b-block 8",
            "the contraction axes (the last) differ"},
           {base + "--a-format nvfp4 --b-format nvfp4 --numerics exact", ""}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    if (!message.empty()) {
      EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
    }
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

}  // namespace
}  // namespace fp4lab
