// The format tables (core/quant/format_table.hpp): each element row agrees with its codec over the
// whole code space, each named format is valid, and every surface that lists formats or quantizer
// options (CLI help, `fp4lab formats`, config errors, results/SCHEMA.md) lists every one. The
// Python docstring is checked by tests/python_module.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config/config.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quant_options.hpp"
#include "tests/cli_support.hpp"

namespace fp4lab {
namespace {

using testing_cli::run_cli;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FormatTable, ElementRowsMatchTheirCodecs) {
  ASSERT_EQ(element_formats().size(), enum_values<ElementFormat>().size());
  for (const ElementFormatInfo& e : element_formats()) {
    SCOPED_TRACE(to_string(e.id));
    EXPECT_EQ(&element_info(e.id), &e);
    EXPECT_EQ(e.codes, e.bits <= 8);
    EXPECT_EQ(e.stochastic_rounding, e.encode_sr != nullptr);
    EXPECT_TRUE(!e.two_level_scales || e.scaled);
    if (e.decode == nullptr) {
      EXPECT_EQ(e.id, ElementFormat::none);
      continue;
    }
    // Over the whole code space: the largest finite and smallest positive values are the row's,
    // every finite value encodes back to a code of the same value, and emax is max's binade.
    float largest = 0.0f, smallest = INFINITY;
    for (uint32_t code = 0; code < (1u << e.bits); ++code) {
      const float v = e.decode(code);
      if (!std::isfinite(v)) continue;
      largest = std::fmax(largest, v);
      if (v > 0.0f) smallest = std::fmin(smallest, v);
      EXPECT_EQ(e.decode(e.encode(v)), v) << "code " << code;
    }
    EXPECT_EQ(largest, e.max);
    EXPECT_EQ(smallest, e.min_subnormal);
    EXPECT_EQ(std::ilogb(e.max), e.emax);
    for (const EdgeCase& edge : e.edges) EXPECT_NE(edge.note, nullptr);
  }
}

TEST(FormatTable, NamedFormatsAreValidAndFoundByName) {
  std::set<std::string> names;
  for (const NamedFormat& f : named_formats()) {
    SCOPED_TRACE(f.name);
    EXPECT_TRUE(names.insert(f.name).second) << "listed twice";
    EXPECT_EQ(validate(f.spec, 32, 64), "");
    EXPECT_FALSE(f.source.empty());
    QuantSpec s;
    ASSERT_TRUE(named_format(f.name, s));
    EXPECT_EQ(s, f.spec);
  }
  QuantSpec s;
  EXPECT_FALSE(named_format("nvfp5", s));
  EXPECT_EQ(named_format_list("|", "|").find("||"), std::string::npos);
}

// Every named format and every option on every surface that lists them.
TEST(FormatTable, EverySurfaceListsEveryFormatAndOption) {
  const std::string formats_help = run_cli("formats --help").output;
  const std::string formats_list = run_cli("formats").output;
  const std::string quantize_help = run_cli("quantize --help").output;
  const std::string gemm_help = run_cli("gemm --help").output;
  const std::string schema = read_text(std::string(FP4LAB_SOURCE_DIR) + "/results/SCHEMA.md");
  ASSERT_FALSE(schema.empty());
  std::string config_error;
  try {
    ConfigBuilder b;
    b.add_override("recipe.quantized.fprop_x=nvfp5");
    b.build();
  } catch (const ConfigError& e) {
    config_error = e.what();
  }
  ASSERT_NE(config_error.find("unknown format 'nvfp5'"), std::string::npos) << config_error;

  for (const NamedFormat& f : named_formats()) {
    SCOPED_TRACE(f.name);
    const std::string word = " " + f.name;
    EXPECT_NE(formats_help.find(f.name), std::string::npos) << formats_help;
    EXPECT_NE(formats_list.find(f.name + " "), std::string::npos) << formats_list;
    EXPECT_NE(quantize_help.find(f.name), std::string::npos) << quantize_help;
    EXPECT_NE(gemm_help.find(f.name), std::string::npos) << gemm_help;
    EXPECT_NE(config_error.find(f.name), std::string::npos) << config_error;
    EXPECT_NE(schema.find("| `" + f.name + "` |"), std::string::npos) << "SCHEMA.md's named-format table";
  }
  for (const ElementFormatInfo& e : element_formats())
    EXPECT_NE(schema.find("| `" + to_string(e.id) + "` |"), std::string::npos)
        << to_string(e.id) << " missing from SCHEMA.md's element-format table";
  for (const SpecField& f : spec_fields()) {
    SCOPED_TRACE(f.key);
    EXPECT_NE(schema.find("| `" + f.key + "` |"), std::string::npos) << "SCHEMA.md's quantizer-field table";
    if (f.option.empty()) continue;
    std::string flag = "--" + f.option;
    std::replace(flag.begin(), flag.end(), '_', '-');
    EXPECT_NE(quantize_help.find(flag), std::string::npos) << quantize_help;
    // The config takes the field by key under any operand.
    QuantSpec nvfp4;
    ASSERT_TRUE(named_format("nvfp4", nvfp4));
    ConfigBuilder b;
    b.add_override("recipe=nvfp4");
    b.add_override("recipe.quantized.fprop_x." + f.key + "=" + f.get(nvfp4));
    EXPECT_NO_THROW(b.build());
  }
}

}  // namespace
}  // namespace fp4lab
