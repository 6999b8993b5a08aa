// The recipe manifest's sites are typed: checkpoint lines name kind, layer, tensor, role and operand
// and read back as written; the lines of older checkpoints (integer roles and operands, attention as
// "layers.N.self_attn.core") still read; malformed lines throw; the YAML lists each use with kind,
// layer, role and operand names and the keys older readers use; the coverage line keeps its text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/config/value.hpp"
#include "core/train/manifest.hpp"

namespace fp4lab {
namespace {

ManifestEntry entry(const GemmSite& site, ElementFormat element, const std::string& format, int64_t count,
                    GemmNumerics numerics = GemmNumerics::dequant_fp32) {
  return ManifestEntry{site, element, format, count, numerics};
}

void expect_same(const std::vector<ManifestEntry>& got, const std::vector<ManifestEntry>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(got[i].site == want[i].site) << i << ": " << got[i].site.tensor << " " << got[i].site.role_name();
    EXPECT_EQ(got[i].element, want[i].element) << i;
    EXPECT_EQ(got[i].format, want[i].format) << i;
    EXPECT_EQ(got[i].count, want[i].count) << i;
    EXPECT_EQ(got[i].numerics, want[i].numerics) << i;
  }
}

const std::string kFp4 = "fp4_e2m1/16 e4m3 1d rne", kFp4Sr = "fp4_e2m1/16 e4m3 1d sr rht16";
const std::string kE4m3 = "fp8_e4m3/tensor fp32 1d rne", kE5m2 = "fp8_e5m2/tensor fp32 1d rne";

// Every kind of site once: a block linear's three GEMMs, the LM head, both sides of attention.
std::vector<ManifestEntry> every_kind() {
  return {entry(linear_site("layers.0.self_attn.q_proj", 0, GemmRole::fprop, Operand::a), ElementFormat::fp4_e2m1, kFp4, 7),
          entry(linear_site("layers.0.self_attn.q_proj", 0, GemmRole::fprop, Operand::b), ElementFormat::fp4_e2m1, kFp4, 7,
                GemmNumerics::block_exact),
          entry(linear_site("layers.1.mlp.down_proj", 1, GemmRole::dgrad, Operand::a), ElementFormat::fp4_e2m1, kFp4Sr, 5),
          entry(linear_site("layers.1.mlp.down_proj", 1, GemmRole::wgrad, Operand::b), ElementFormat::fp4_e2m1, kFp4Sr, 5),
          entry(linear_site("lm_head", -1, GemmRole::wgrad, Operand::a), ElementFormat::bf16, "bf16 rne", 5),
          entry(attention_site(1, AttentionSide::fwd), ElementFormat::fp8_e4m3, kE4m3, 7),
          entry(attention_site(1, AttentionSide::bwd), ElementFormat::fp8_e5m2, kE5m2, 5)};
}

TEST(Manifest, TypedSitesRoundTripByName) {
  const auto entries = every_kind();
  const std::string text = serialize_manifest(entries);
  EXPECT_EQ(text,
            "linear\t0\tlayers.0.self_attn.q_proj\tfprop\tx\t" + kFp4 + "\t7\tdequant_fp32\n"
            "linear\t0\tlayers.0.self_attn.q_proj\tfprop\tw\t" + kFp4 + "\t7\tblock_exact\n"
            "linear\t1\tlayers.1.mlp.down_proj\tdgrad\tdy\t" + kFp4Sr + "\t5\tdequant_fp32\n"
            "linear\t1\tlayers.1.mlp.down_proj\twgrad\tx\t" + kFp4Sr + "\t5\tdequant_fp32\n"
            "linear\t-1\tlm_head\twgrad\tdy\tbf16 rne\t5\tdequant_fp32\n"
            "attention\t1\tlayers.1.self_attn.core\tfwd\tqkvp\t" + kE4m3 + "\t7\tdequant_fp32\n"
            "attention\t1\tlayers.1.self_attn.core\tbwd\tdout_ds\t" + kE5m2 + "\t5\tdequant_fp32\n");
  expect_same(parse_manifest(text), entries);
}

// Lines of checkpoints written before sites were typed: five fields (before GEMM numerics) or six.
TEST(Manifest, OlderCheckpointLinesStillRead) {
  const std::string old = "layers.0.self_attn.q_proj\t0\t0\t" + kFp4 + "\t7\n"
                          "layers.0.self_attn.q_proj\t0\t1\t" + kFp4 + "\t7\tblock_exact\n"
                          "layers.1.mlp.down_proj\t1\t0\t" + kFp4Sr + "\t5\tdequant_fp32\n"
                          "layers.1.mlp.down_proj\t2\t1\t" + kFp4Sr + "\t5\n"
                          "lm_head\t2\t0\tbf16 rne\t5\tdequant_fp32\n"
                          "layers.1.self_attn.core\t0\t0\t" + kE4m3 + "\t7\tdequant_fp32\n"
                          "layers.1.self_attn.core\t1\t0\t" + kE5m2 + "\t5\n";
  const auto entries = parse_manifest(old);
  expect_same(entries, every_kind());
  expect_same(parse_manifest(serialize_manifest(entries)), entries);  // rewritten by name
  const std::vector<std::string> names = {"layers.0.self_attn.q_proj", "layers.1.mlp.down_proj", "lm_head"};
  EXPECT_EQ(recipe_coverage(entries, names).summary(),
            "2/2 linear layers quantized (4/12 GEMM operands): " + kFp4 + ", " + kFp4Sr +
                "; lm_head bf16 rne; FP4 x FP4 GEMMs block_exact; attention products fwd " + kE4m3 + ", bwd " + kE5m2);
}

TEST(Manifest, MalformedLinesThrow) {
  for (const std::string& line : std::vector<std::string>{
           "linear\t0\tlayers.0.mlp.up_proj\tfprop\tdy\t" + kFp4 + "\t1\tdequant_fp32",   // dy is no fprop operand
           "linear\t0\tlayers.0.mlp.up_proj\t0\t1\t" + kFp4 + "\t1\tdequant_fp32",         // integers in the typed form
           "linear\tzero\tlayers.0.mlp.up_proj\tfprop\tx\t" + kFp4 + "\t1\tdequant_fp32",
           "conv\t0\tlayers.0.mlp.up_proj\tfprop\tx\t" + kFp4 + "\t1\tdequant_fp32",
           "linear\t0\tlayers.0.mlp.up_proj\tfprop\tx\t" + kFp4 + "\t1\texact",
           "linear\t0\tlayers.0.mlp.up_proj\tfprop\tx\t" + kFp4 + "\tmany\tdequant_fp32",
           "attention\t0\tlayers.0.self_attn.core\tfwd\tdout_ds\t" + kE4m3 + "\t1\tdequant_fp32",
           "attention\t0\tlayers.1.self_attn.core\tfwd\tqkvp\t" + kE4m3 + "\t1\tdequant_fp32",  // layer and name disagree
           "attention\t-1\tlayers.-1.self_attn.core\tfwd\tqkvp\t" + kE4m3 + "\t1\tdequant_fp32",
           "attention\t0\tlayers.0.self_attn.core\tfprop\tqkvp\t" + kE4m3 + "\t1\tdequant_fp32",
           "linear\t0\tlayers.0.mlp.up_proj\tfprop\tx\t" + kFp4 + "\t1",                       // seven fields
           "layers.0.mlp.up_proj\t3\t0\t" + kFp4 + "\t1",                                      // old: no role 3
           "layers.0.mlp.up_proj\t0\t2\t" + kFp4 + "\t1",
           "layers.0.self_attn.core\t2\t0\t" + kE4m3 + "\t1",                                 // old attention: fwd or bwd
           "layers.0.mlp.up_proj\t0\t1\t" + kFp4 + "\t5\texact",
           "layers.0.mlp.up_proj\t0\t1\tfp5_e2m2/16\t5"})
    EXPECT_THROW(parse_manifest(line + "\n"), std::runtime_error) << line;
}

// Each use lists kind, layer, tensor, role and operand by name, and `gemm` (the role under the key
// older files have) with format, numerics and count.
TEST(Manifest, YamlListsEachUseByName) {
  const auto entries = every_kind();
  const std::vector<std::string> names = {"layers.0.self_attn.q_proj", "layers.1.mlp.down_proj", "lm_head"};
  const std::string yaml = manifest_yaml(entries, recipe_coverage(entries, names));
  EXPECT_NE(yaml.find("  - {kind: linear, layer: 0, tensor: \"layers.0.self_attn.q_proj\", role: fprop, operand: x, "
                      "gemm: fprop, format: \"" + kFp4 + "\", numerics: dequant_fp32, count: 7}\n"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("  - {kind: attention, layer: 1, tensor: \"layers.1.self_attn.core\", role: bwd, operand: "
                      "dout_ds, gemm: bwd, format: \"" + kE5m2 + "\", numerics: dequant_fp32, count: 5}\n"),
            std::string::npos)
      << yaml;
  const Value doc = parse_yaml_string(yaml, "recipe_manifest");
  const Value* uses = doc.find("uses");
  ASSERT_TRUE(uses && uses->is_list());
  ASSERT_EQ(uses->items().size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const Value& u = uses->items()[i];
    const GemmSite& s = entries[i].site;
    EXPECT_EQ(u.find("kind")->text(), to_string(s.kind));
    EXPECT_EQ(u.find("layer")->as_int("layer"), s.layer);
    EXPECT_EQ(u.find("tensor")->text(), s.tensor);
    EXPECT_EQ(u.find("role")->text(), s.role_name());
    EXPECT_EQ(u.find("gemm")->text(), s.role_name());
    EXPECT_EQ(u.find("operand")->text(), s.operand_name());
    EXPECT_EQ(u.find("format")->text(), entries[i].format);
    EXPECT_EQ(u.find("count")->as_int("count"), entries[i].count);
  }
}

}  // namespace
}  // namespace fp4lab
