// Recipe manifest and coverage (see manifest.hpp): merging the model's counters into a run's
// totals, the checkpoint's line format, the YAML attribute and the one-line coverage summary.
#include "core/train/manifest.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fp4lab {
namespace {

constexpr const char* kLmHead = "lm_head";
constexpr const char* kAttentionCore = ".self_attn.core";  // attention products: "layers.3.self_attn.core"

bool is_attention_core(const std::string& tensor) {
  return tensor.size() > std::string(kAttentionCore).size() &&
         tensor.compare(tensor.size() - std::string(kAttentionCore).size(), std::string::npos, kAttentionCore) == 0;
}

// The operand column of the manifest: the linear's x / w / dy, or the attention products' sides.
std::string operand_text(const ManifestEntry& e) {
  if (is_attention_core(e.tensor)) return e.role == GemmRole::fprop ? "qkvp" : "dout_ds";
  return operand_name(e.role, e.operand);
}

bool low_precision(ElementFormat e) {
  return e == ElementFormat::fp4_e2m1 || e == ElementFormat::fp8_e4m3 || e == ElementFormat::fp8_e5m2;
}

void add_unique(std::vector<std::string>& list, const std::string& s) {
  if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The element format a describe() string starts with ("fp4_e2m1/16 e4m3 ..." -> fp4_e2m1).
ElementFormat element_of(const std::string& format) {
  if (format == "none") return ElementFormat::none;
  ElementFormat e = ElementFormat::none;
  if (!parse(format.substr(0, format.find_first_of("/ ")), e))
    throw std::runtime_error("recipe manifest: unknown format '" + format + "'");
  return e;
}

}  // namespace

std::vector<ManifestEntry> manifest_entries(const GemmCounters& counters, const std::vector<ManifestEntry>& carried) {
  std::vector<ManifestEntry> out = carried;
  for (const GemmUse& u : counters.uses()) {
    const bool linear = u.site.kind == SiteKind::linear;
    const GemmRole role = linear ? u.site.role : u.site.side == AttentionSide::fwd ? GemmRole::fprop : GemmRole::dgrad;
    ManifestEntry e{u.site.tensor, role, linear ? u.site.operand : Operand::a, u.spec.element, describe(u.spec), u.count,
                    u.numerics};
    auto same = [&](const ManifestEntry& x) {
      return x.tensor == e.tensor && x.role == e.role && x.operand == e.operand && x.format == e.format &&
             x.numerics == e.numerics;
    };
    if (auto it = std::find_if(out.begin(), out.end(), same); it != out.end()) it->count += e.count;
    else out.push_back(e);
  }
  return out;
}

std::string serialize_manifest(const std::vector<ManifestEntry>& entries) {
  std::ostringstream out;
  for (const auto& e : entries)
    out << e.tensor << '\t' << int(e.role) << '\t' << int(e.operand) << '\t' << e.format << '\t' << e.count << '\t'
        << to_string(e.numerics) << '\n';
  return out.str();
}

std::vector<ManifestEntry> parse_manifest(const std::string& text) {
  std::vector<ManifestEntry> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    for (size_t i = 0, j; i <= line.size(); i = j + 1) {
      j = std::min(line.find('\t', i), line.size());
      f.push_back(line.substr(i, j - i));
    }
    GemmNumerics numerics = GemmNumerics::dequant_fp32;
    if ((f.size() != 5 && f.size() != 6) || (f[1] != "0" && f[1] != "1" && f[1] != "2") || (f[2] != "0" && f[2] != "1") ||
        (f.size() == 6 && !parse(f[5], numerics)))
      throw std::runtime_error("recipe manifest: malformed line '" + line + "'");
    out.push_back(ManifestEntry{f[0], GemmRole(std::stoi(f[1])), Operand(std::stoi(f[2])), element_of(f[3]), f[3],
                                std::stoll(f[4]), numerics});
  }
  return out;
}

RecipeCoverage recipe_coverage(const std::vector<ManifestEntry>& entries, const std::vector<std::string>& linear_names) {
  RecipeCoverage c;
  // Per block linear: (role, operand) slots that ran low / high precision.
  std::map<std::string, std::set<std::pair<int, int>>> low, high;
  for (const auto& e : entries) {
    if (e.count <= 0) continue;
    if (e.numerics == GemmNumerics::block_exact) c.block_exact_uses += e.count;
    if (e.tensor == kLmHead) {
      add_unique(c.lm_head_formats, e.format);
      continue;
    }
    if (is_attention_core(e.tensor)) {
      add_unique(c.attention_formats, (e.role == GemmRole::fprop ? "fwd " : "bwd ") + e.format);
      continue;
    }
    const std::pair<int, int> slot{int(e.role), int(e.operand)};
    if (low_precision(e.element)) {
      low[e.tensor].insert(slot);
      add_unique(c.quantized_formats, e.format);
    } else {
      high[e.tensor].insert(slot);
      add_unique(c.other_formats, e.format);
    }
  }
  for (const auto& name : linear_names) {
    if (name == kLmHead) continue;
    ++c.block_linears;
    c.operand_slots += 6;
    const auto it = low.find(name);
    if (it == low.end()) continue;
    ++c.quantized_linears;
    c.quantized_slots += int(it->second.size());
    for (const auto& slot : it->second) c.switched_slots += high.count(name) && high.at(name).count(slot);
  }
  return c;
}

std::string RecipeCoverage::summary() const {
  if (quantized_formats.empty() && other_formats.empty() && lm_head_formats.empty()) return "no GEMM has run yet";
  std::string s = std::to_string(quantized_linears) + "/" + std::to_string(block_linears) + " linear layers quantized (" +
                  std::to_string(quantized_slots) + "/" + std::to_string(operand_slots) + " GEMM operands)";
  if (!quantized_formats.empty()) s += ": " + join(quantized_formats);
  if (!other_formats.empty()) s += (quantized_linears ? "; high precision: " : ": ") + join(other_formats);
  if (switched_slots) s += "; " + std::to_string(switched_slots) + " operands switched precision during the run";
  if (!lm_head_formats.empty()) s += "; lm_head " + join(lm_head_formats);
  if (block_exact_uses > 0) s += "; FP4 x FP4 GEMMs block_exact";
  if (!attention_formats.empty()) s += "; attention products " + join(attention_formats);
  return s;
}

std::string manifest_yaml(const std::vector<ManifestEntry>& entries, const RecipeCoverage& coverage) {
  std::ostringstream out;
  out << "coverage: \"" << coverage.summary() << "\"\n";
  out << "linear_layers: " << coverage.block_linears << "\n";
  out << "linear_layers_quantized: " << coverage.quantized_linears << "\n";
  out << "gemm_operands: " << coverage.operand_slots << "\n";
  out << "gemm_operands_quantized: " << coverage.quantized_slots << "\n";
  out << "uses:\n";
  for (const auto& e : entries)
    out << "  - {tensor: \"" << e.tensor << "\", gemm: " << to_string(e.role) << ", operand: "
        << operand_text(e) << ", format: \"" << e.format << "\", numerics: " << to_string(e.numerics)
        << ", count: " << e.count << "}\n";
  return out.str();
}

}  // namespace fp4lab
