// Recipe manifest and coverage (see manifest.hpp): merging the counters into a run's totals, the
// checkpoint's line format (and the older one), the YAML attribute and the one-line coverage summary.
#include "core/train/manifest.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/quant/format_table.hpp"

namespace fp4lab {
namespace {

constexpr const char* kLmHead = "lm_head";

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

// A decimal integer filling all of `text`; false otherwise.
bool parse_int(const std::string& text, int64_t& out) {
  if (text.empty() || text.size() > 18) return false;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  for (size_t j = i; j < text.size(); ++j)
    if (text[j] < '0' || text[j] > '9') return false;
  out = std::stoll(text);
  return true;
}

// An older checkpoint's line: tensor, role, operand, format, count[, numerics] (see manifest.hpp).
bool parse_untyped(const std::vector<std::string>& f, ManifestEntry& e) {
  if (f.size() != 5 && f.size() != 6) return false;
  if ((f[1] != "0" && f[1] != "1" && f[1] != "2") || (f[2] != "0" && f[2] != "1")) return false;
  if (f.size() == 6 && !parse(f[5], e.numerics)) return false;
  const std::string& tensor = f[0];
  const int role = f[1][0] - '0', operand = f[2][0] - '0';
  int layer = -1;  // "layers.N.…"; lm_head: -1
  size_t dot = 0;
  if (tensor.rfind("layers.", 0) == 0) {
    int64_t n = 0;
    dot = tensor.find('.', 7);
    if (dot == std::string::npos || !parse_int(tensor.substr(7, dot - 7), n) || n < 0) return false;
    layer = int(n);
  }
  if (layer >= 0 && tensor.compare(dot, std::string::npos, ".self_attn.core") == 0) {  // role 0: fwd, 1: bwd
    if (role == 2 || operand != 0) return false;
    e.site = attention_site(layer, AttentionSide(role));
  } else {
    e.site = linear_site(tensor, layer, GemmRole(role), Operand(operand));
  }
  e.format = f[3];
  return parse_int(f[4], e.count);
}

// A line of the current form: kind, layer, tensor, role, operand, format, count, numerics.
bool parse_typed(const std::vector<std::string>& f, ManifestEntry& e) {
  SiteKind kind{};
  int64_t layer = 0;
  if (f.size() != 8 || !parse(f[0], kind) || !parse_int(f[1], layer) || layer < -1) return false;
  if (!site_from_names(kind, int(layer), f[2], f[3], f[4], e.site) || e.site.tensor != f[2]) return false;
  e.format = f[5];
  return parse_int(f[6], e.count) && parse(f[7], e.numerics);
}

}  // namespace

std::vector<ManifestEntry> manifest_entries(const GemmCounters& counters, const std::vector<ManifestEntry>& carried) {
  std::vector<ManifestEntry> out = carried;
  for (const GemmUse& u : counters.uses()) {
    ManifestEntry e{u.site, u.spec.element, describe(u.spec), u.count, u.numerics};
    auto same = [&](const ManifestEntry& x) { return x.site == e.site && x.format == e.format && x.numerics == e.numerics; };
    if (auto it = std::find_if(out.begin(), out.end(), same); it != out.end()) it->count += e.count;
    else out.push_back(e);
  }
  return out;
}

std::string serialize_manifest(const std::vector<ManifestEntry>& entries) {
  std::ostringstream out;
  for (const auto& e : entries)
    out << to_string(e.site.kind) << '\t' << e.site.layer << '\t' << e.site.tensor << '\t' << e.site.role_name() << '\t'
        << e.site.operand_name() << '\t' << e.format << '\t' << e.count << '\t' << to_string(e.numerics) << '\n';
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
    ManifestEntry e;
    if (!(f.size() == 8 ? parse_typed(f, e) : parse_untyped(f, e)))
      throw std::runtime_error("recipe manifest: malformed line '" + line + "'");
    e.element = element_of(e.format);
    out.push_back(e);
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
    if (e.site.kind == SiteKind::attention) {
      add_unique(c.attention_formats, e.site.role_name() + " " + e.format);
      continue;
    }
    if (e.site.tensor == kLmHead) {
      add_unique(c.lm_head_formats, e.format);
      continue;
    }
    const std::pair<int, int> slot{int(e.site.role), int(e.site.operand)};
    if (element_info(e.element).codes) {  // an 8- or 4-bit format
      low[e.site.tensor].insert(slot);
      add_unique(c.quantized_formats, e.format);
    } else {
      high[e.site.tensor].insert(slot);
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

// `gemm` repeats `role` under the key of the files written before sites were typed, which readers use.
std::string manifest_yaml(const std::vector<ManifestEntry>& entries, const RecipeCoverage& coverage) {
  std::ostringstream out;
  out << "coverage: \"" << coverage.summary() << "\"\n";
  out << "linear_layers: " << coverage.block_linears << "\n";
  out << "linear_layers_quantized: " << coverage.quantized_linears << "\n";
  out << "gemm_operands: " << coverage.operand_slots << "\n";
  out << "gemm_operands_quantized: " << coverage.quantized_slots << "\n";
  out << "uses:\n";
  for (const auto& e : entries)
    out << "  - {kind: " << to_string(e.site.kind) << ", layer: " << e.site.layer << ", tensor: \"" << e.site.tensor
        << "\", role: " << e.site.role_name() << ", operand: " << e.site.operand_name() << ", gemm: "
        << e.site.role_name() << ", format: \"" << e.format << "\", numerics: " << to_string(e.numerics)
        << ", count: " << e.count << "}\n";
  return out.str();
}

}  // namespace fp4lab
