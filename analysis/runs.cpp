// Grid directory loading: manifest (read/write through core/config's Value tree), analysis
// settings, and run files. No metrics and no YAML library here (yaml_io.cpp does the parsing).
#include "analysis/runs.hpp"


#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/io/atomic_file.hpp"
#include "core/io/h5.hpp"

namespace fp4lab::analysis {
namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::optional<double> parse_number(const std::string& text) {
  std::string t;
  for (char c : text)
    if (c != '_') t += c;
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (*end != '\0' || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::string number_text(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

// Scalars as their text; lists as flow YAML ("[a, b]"); null as "null"; maps are flattened by
// the caller.
std::string value_text(const Value& v) {
  if (v.is_scalar()) return v.text();
  if (v.is_null()) return "null";
  return trim(emit_yaml(v));
}

void flatten(const Value& v, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (v.is_map()) {
    for (const auto& e : v.entries()) flatten(e.value, prefix.empty() ? e.key : prefix + "." + e.key, out);
    return;
  }
  out[prefix] = value_text(v);
}

std::map<std::string, std::string> string_map(const Value& v, const std::string& key) {
  if (v.is_null()) return {};
  if (!v.is_map()) throw ConfigError(v.loc(), key, "expected a map of key: value");
  std::map<std::string, std::string> out;
  flatten(v, "", out);
  return out;
}

std::pair<Selector, Selector> parse_pair(const Value& pair, const std::string& key) {
  if (!pair.is_list() || pair.items().size() != 2 || !pair.items()[0].is_map() || !pair.items()[1].is_map())
    throw ConfigError(pair.loc(), key, "expected a pair [A, B] of selectors, e.g. [{recipe: mxfp4}, {recipe: nvfp4}]");
  auto a = string_map(pair.items()[0], key), b = string_map(pair.items()[1], key);
  if (a.empty() || b.empty()) throw ConfigError(pair.loc(), key, "a selector names at least one axis");
  if (a == b) throw ConfigError(pair.loc(), key, "A and B select the same cells");
  return {a, b};
}

Claim parse_claim(const Value& c, const std::string& key) {
  if (!c.is_map()) throw ConfigError(c.loc(), key, "expected a map (id, claim, source, compare, metric, direction, published)");
  Claim out;
  bool has_compare = false;
  for (const auto& e : c.entries()) {
    const std::string k = key + "." + e.key;
    if (e.key == "id") out.id = e.value.as_string(k);
    else if (e.key == "claim") out.claim = e.value.as_string(k);
    else if (e.key == "source") out.source = e.value.as_string(k);
    else if (e.key == "published") out.published = e.value.as_string(k);
    else if (e.key == "note") out.note = e.value.as_string(k);
    else if (e.key == "compare") {
      std::tie(out.a, out.b) = parse_pair(e.value, k);
      has_compare = true;
    } else if (e.key == "metric") {
      out.metric = e.value.as_string(k);
      if (out.metric != "converged_gap" && out.metric != "final_gap" && out.metric != "token_gap" &&
          !is_trend_metric(out.metric))
        throw ConfigError(e.value.loc(), k,
                          "expected converged_gap, final_gap, token_gap, loss_gap_trend or token_gap_trend, got '" +
                              out.metric + "'");
    } else if (e.key == "direction") {
      const std::string d = e.value.as_string(k);
      if (d == "a_worse" || d == "grows") out.direction = 1;
      else if (d == "a_better" || d == "shrinks") out.direction = -1;
      else
        throw ConfigError(e.value.loc(), k,
                          "expected a_worse (A − B > 0 published) or a_better (for a trend: grows or shrinks), got '" + d + "'");
    } else if (e.key == "at") {
      out.at = e.value.as_double(k);
      if (!(out.at > 0)) throw ConfigError(e.value.loc(), k, "expected a positive parameter count, e.g. 8e9");
    } else {
      throw ConfigError(e.key_loc, k, "unknown claim key (known: id, claim, source, compare, metric, direction, published, at, note)");
    }
  }
  if (out.id.empty()) throw ConfigError(c.loc(), key, "a claim needs an `id`");
  if (!has_compare) throw ConfigError(c.loc(), key + "." + out.id, "a claim needs `compare: [A, B]`");
  return out;
}

Value selector_value(const Selector& sel) {
  Value v = Value::map();
  for (const auto& [k, x] : sel) v.set(k, Value::scalar(x));
  return v;
}

Value pair_value(const Selector& a, const Selector& b) {
  Value l = Value::list();
  l.push_back(selector_value(a));
  l.push_back(selector_value(b));
  return l;
}

Value string_list(const std::vector<std::string>& items) {
  Value l = Value::list();
  for (const auto& i : items) l.push_back(Value::scalar(i));
  return l;
}

std::vector<std::string> parse_string_list(const Value& v, const std::string& key) {
  if (!v.is_list()) throw ConfigError(v.loc(), key, "expected a list of names");
  std::vector<std::string> out;
  for (const auto& i : v.items()) out.push_back(i.as_string(key));
  return out;
}

// The manifest form of a ladder (written by to_value; grids write the `ladder:` shorthand instead).
Ladder parse_ladder(const Value& v, const std::string& key) {
  if (!v.is_map()) throw ConfigError(v.loc(), key, "expected a map (axis, components, climbs, target)");
  Ladder l;
  for (const auto& e : v.entries()) {
    const std::string k = key + "." + e.key;
    if (e.key == "axis") l.axis = e.value.as_string(k);
    else if (e.key == "components") l.components = parse_string_list(e.value, k);
    else if (e.key == "target") l.target = e.value.as_string(k);
    else if (e.key == "climbs") {
      if (!e.value.is_list()) throw ConfigError(e.value.loc(), k, "expected a list of {steps, arms}");
      for (const auto& c : e.value.items()) {
        Ladder::Climb climb;
        if (const Value* s = c.find("steps")) climb.steps = parse_string_list(*s, k + ".steps");
        if (const Value* a = c.find("arms")) climb.arms = parse_string_list(*a, k + ".arms");
        if (climb.arms.size() != climb.steps.size() + 1)
          throw ConfigError(c.loc(), k, "a climb has one arm more than it has steps");
        l.climbs.push_back(std::move(climb));
      }
    } else {
      throw ConfigError(e.key_loc, k, "unknown ladder key (known: axis, components, climbs, target)");
    }
  }
  if (l.axis.empty() || l.climbs.empty() || l.target.empty())
    throw ConfigError(v.loc(), key, "a ladder needs axis, climbs and target");
  return l;
}

}  // namespace

// ---------------------------------------------------------------------------- settings

std::string ResolvedSettings::target_text() const {
  switch (target_rule) {
    case TargetRule::baseline_final: return "baseline_final";
    case TargetRule::baseline_final_val: return "baseline_final_val";
    case TargetRule::fixed: return number_text(target_value);
  }
  return "";
}

std::string ResolvedSettings::window_text() const {
  if (window_by_tokens)
    return "paired steps with tokens in [" + number_text(window_tokens_min) + ", " + number_text(window_tokens_max) + "]";
  return "last " + number_text(window_fraction * 100) + "% of paired steps";
}

AnalysisSettings parse_analysis_settings(const Value& section) {
  AnalysisSettings s;
  if (section.is_null()) return s;
  if (!section.is_map()) throw ConfigError(section.loc(), "analysis", "expected a map");
  for (const auto& e : section.entries()) {
    const std::string key = "analysis." + e.key;
    const Value& v = e.value;
    if (e.key == "target") {
      const std::string& t = v.as_string(key);
      if (t != "baseline_final" && t != "baseline_final_val" && !parse_number(t))
        throw ConfigError(v.loc(), key, "expected baseline_final, baseline_final_val or a loss in nats, got '" + t + "'");
      s.target = t;
    } else if (e.key == "target_curve") {
      const std::string& t = v.as_string(key);
      TargetCurve c{};
      if (!parse(t, c)) throw ConfigError(v.loc(), key, "expected train or val, got '" + t + "'");
      s.target_curve = c;
    } else if (e.key == "ema") {
      const double x = v.as_double(key);
      if (!(x >= 0 && x < 1)) throw ConfigError(v.loc(), key, "expected 0 <= ema < 1, got " + v.text());
      s.ema = x;
    } else if (e.key == "window") {
      const double x = v.as_double(key);
      if (!(x > 0 && x <= 1)) throw ConfigError(v.loc(), key, "expected a fraction in (0, 1], got " + v.text());
      s.window_fraction = x;
    } else if (e.key == "window_tokens") {
      if (!v.is_list() || v.items().size() != 2)
        throw ConfigError(v.loc(), key, "expected [first_tokens, last_tokens]");
      const double lo = v.items()[0].as_double(key), hi = v.items()[1].as_double(key);
      if (!(lo >= 0 && hi > lo)) throw ConfigError(v.loc(), key, "expected 0 <= first < last");
      s.window_tokens = std::make_pair(lo, hi);
    } else if (e.key == "budget_key") {
      s.budget_key = v.as_string(key);
    } else if (e.key == "confidence") {
      const double x = v.as_double(key);
      if (!(x > 0 && x < 1)) throw ConfigError(v.loc(), key, "expected 0 < confidence < 1, got " + v.text());
      s.confidence = x;
    } else if (e.key == "compare") {
      if (!v.is_list()) throw ConfigError(v.loc(), key, "expected a list of [A, B] pairs, e.g. [[{recipe: mxfp4}, {recipe: nvfp4}]]");
      for (const auto& pair : v.items()) s.compare.push_back(parse_pair(pair, key));
    } else if (e.key == "claims") {
      if (!v.is_list()) throw ConfigError(v.loc(), key, "expected a list of claims");
      for (const auto& c : v.items()) s.claims.push_back(parse_claim(c, key));
    } else if (e.key == "ladder") {
      s.ladder = parse_ladder(v, key);
    } else {
      throw ConfigError(e.key_loc, key,
                        "unknown analysis key (known: target, target_curve, ema, window, window_tokens, "
                        "budget_key, confidence, compare, claims, ladder)");
    }
  }
  return s;
}

void set_analysis_setting(AnalysisSettings& s, const std::string& key, const std::string& value) {
  std::string k = key;
  if (k.rfind("analysis.", 0) == 0) k = k.substr(9);
  Value section = Value::map(SourceLoc{"--set", 0, 0});
  section.set(k, parse_yaml_string(value, "--set " + key), SourceLoc{"--set", 0, 0});
  s = merge(s, parse_analysis_settings(section));
}

AnalysisSettings merge(AnalysisSettings base, const AnalysisSettings& o) {
  if (o.target) base.target = o.target;
  if (o.target_curve) base.target_curve = o.target_curve;
  if (o.ema) base.ema = o.ema;
  if (o.window_fraction) {
    base.window_fraction = o.window_fraction;
    if (!o.window_tokens) base.window_tokens.reset();  // an explicit fraction beats an inherited range
  }
  if (o.window_tokens) base.window_tokens = o.window_tokens;
  if (o.budget_key) base.budget_key = o.budget_key;
  if (o.confidence) base.confidence = o.confidence;
  if (!o.compare.empty()) base.compare = o.compare;
  if (!o.claims.empty()) base.claims = o.claims;
  if (o.ladder) base.ladder = o.ladder;
  return base;
}

ResolvedSettings resolve_settings(const AnalysisSettings& manifest, const AnalysisSettings& overrides) {
  const AnalysisSettings s = merge(manifest, overrides);
  ResolvedSettings r;
  const std::string target = s.target.value_or(kDefaultTarget);
  if (target == "baseline_final") {
    r.target_rule = TargetRule::baseline_final;
    r.target_curve = TargetCurve::train_ema;
  } else if (target == "baseline_final_val") {
    r.target_rule = TargetRule::baseline_final_val;
    r.target_curve = TargetCurve::val;
  } else if (auto x = parse_number(target)) {
    r.target_rule = TargetRule::fixed;
    r.target_value = *x;
    r.target_curve = s.target_curve.value_or(TargetCurve::train_ema);
  } else {
    throw ConfigError(SourceLoc{"<analysis settings>", 0, 0}, "analysis.target", "bad target '" + target + "'");
  }
  r.ema = s.ema.value_or(kDefaultEma);
  r.window_fraction = s.window_fraction.value_or(kDefaultWindowFraction);
  if (s.window_tokens) {
    r.window_by_tokens = true;
    r.window_tokens_min = s.window_tokens->first;
    r.window_tokens_max = s.window_tokens->second;
  }
  r.budget_key = s.budget_key.value_or(kDefaultBudgetKey);
  r.confidence = s.confidence.value_or(kDefaultConfidence);
  return r;
}

Value to_value(const AnalysisSettings& s) {
  Value v = Value::map();
  if (s.target) v.set("target", Value::scalar(*s.target));
  if (s.target_curve) v.set("target_curve", Value::scalar(*s.target_curve == TargetCurve::val ? "val" : "train"));
  if (s.ema) v.set("ema", Value::scalar(number_text(*s.ema)));
  if (s.window_fraction) v.set("window", Value::scalar(number_text(*s.window_fraction)));
  if (s.window_tokens) {
    Value l = Value::list();
    l.push_back(Value::scalar(number_text(s.window_tokens->first)));
    l.push_back(Value::scalar(number_text(s.window_tokens->second)));
    v.set("window_tokens", l);
  }
  if (s.budget_key) v.set("budget_key", Value::scalar(*s.budget_key));
  if (s.confidence) v.set("confidence", Value::scalar(number_text(*s.confidence)));
  if (!s.compare.empty()) {
    Value l = Value::list();
    for (const auto& [a, b] : s.compare) l.push_back(pair_value(a, b));
    v.set("compare", l);
  }
  if (!s.claims.empty()) {
    Value l = Value::list();
    for (const Claim& c : s.claims) {
      Value m = Value::map();
      m.set("id", Value::scalar(c.id));
      if (!c.claim.empty()) m.set("claim", Value::scalar(c.claim, {}, true));
      if (!c.source.empty()) m.set("source", Value::scalar(c.source, {}, true));
      m.set("compare", pair_value(c.a, c.b));
      m.set("metric", Value::scalar(c.metric));
      m.set("direction", Value::scalar(is_trend_metric(c.metric) ? (c.direction > 0 ? "grows" : "shrinks")
                                                                 : (c.direction > 0 ? "a_worse" : "a_better")));
      if (std::isfinite(c.at)) m.set("at", Value::scalar(std::to_string(c.at)));
      if (!c.published.empty()) m.set("published", Value::scalar(c.published, {}, true));
      if (!c.note.empty()) m.set("note", Value::scalar(c.note, {}, true));
      l.push_back(m);
    }
    v.set("claims", l);
  }
  if (s.ladder) {
    Value m = Value::map();
    m.set("axis", Value::scalar(s.ladder->axis));
    m.set("components", string_list(s.ladder->components));
    Value climbs = Value::list();
    for (const auto& c : s.ladder->climbs) {
      Value cm = Value::map();
      cm.set("steps", string_list(c.steps));
      cm.set("arms", string_list(c.arms));
      climbs.push_back(cm);
    }
    m.set("climbs", climbs);
    m.set("target", Value::scalar(s.ladder->target));
    v.set("ladder", m);
  }
  return v;
}

// ---------------------------------------------------------------------------- manifest

bool is_seed_key(const std::string& key) { return key == "seed" || ends_with(key, ".seed"); }

std::map<std::string, std::string> config_key(const CellInfo& c) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : c.vary)
    if (!is_seed_key(k)) out.emplace(k, v);
  return out;
}

std::string config_label(const std::map<std::string, std::string>& keys) {
  if (keys.empty()) return "(all cells)";
  std::string out;
  for (const auto& [k, v] : keys) {
    if (!out.empty()) out += ", ";
    out += k + "=" + v;
  }
  return out;
}

bool values_equal(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const auto x = parse_number(a), y = parse_number(b);
  return x && y && *x == *y;
}

GridManifest parse_grid_manifest(const Value& root) {
  if (!root.is_map()) throw ConfigError(root.loc(), "", "a grid manifest must be a map");
  GridManifest m;
  if (const Value* v = root.find("manifest_version")) {
    const long long version = v->as_int("manifest_version");
    if (version > kManifestVersion)
      throw ConfigError(v->loc(), "manifest_version",
                        "manifest version " + std::to_string(version) + " is newer than this fp4lab's " +
                            std::to_string(kManifestVersion));
  }
  if (const Value* v = root.find("grid"); v && !v->is_null()) m.grid = v->as_string("grid");
  if (const Value* v = root.find("baseline")) m.baseline = string_map(*v, "baseline");
  if (const Value* v = root.find("analysis")) m.settings = parse_analysis_settings(*v);
  if (const Value* cells = root.find("cells"); cells && !cells->is_null()) {
    // `cells` is a map keyed by cell id (block style, one cell per entry); a list of maps with
    // an `id` each is accepted too.
    auto read_cell = [&](const Value& c, const std::string& id_from_key, const std::string& where) {
      if (!c.is_map()) throw ConfigError(c.loc(), where, "expected a map (index, seed, vary, file)");
      CellInfo info;
      info.id = id_from_key;
      if (const Value* v = c.find("id")) info.id = v->as_string(where + ".id");
      if (info.id.empty()) throw ConfigError(c.loc(), where, "cell without an id");
      const Value* index = c.find("index");
      if (!index) throw ConfigError(c.loc(), where, "cell without an index");
      info.index = static_cast<int>(index->as_int(where + ".index"));
      if (const Value* v = c.find("seed"); v && !v->is_null()) info.seed = v->as_int(where + ".seed");
      if (const Value* v = c.find("vary")) info.vary = string_map(*v, where + ".vary");
      if (const Value* v = c.find("file"); v && !v->is_null()) info.file = v->as_string(where + ".file");
      m.cells.push_back(std::move(info));
    };
    if (cells->is_map()) {
      for (const auto& e : cells->entries()) read_cell(e.value, e.key, "cells." + e.key);
    } else if (cells->is_list()) {
      for (size_t i = 0; i < cells->items().size(); ++i)
        read_cell(cells->items()[i], "", "cells[" + std::to_string(i) + "]");
    } else {
      throw ConfigError(cells->loc(), "cells", "expected a map of cell id -> cell");
    }
    std::set<int> indices;
    std::set<std::string> ids;
    for (const auto& c : m.cells) {
      if (!indices.insert(c.index).second)
        throw ConfigError(cells->loc(), "cells", "duplicate cell index " + std::to_string(c.index));
      if (!ids.insert(c.id).second) throw ConfigError(cells->loc(), "cells", "duplicate cell id " + c.id);
    }
    std::sort(m.cells.begin(), m.cells.end(), [](const CellInfo& a, const CellInfo& b) { return a.index < b.index; });
  }
  return m;
}

std::optional<GridManifest> read_grid_manifest(const std::string& dir) {
  const fs::path manifest = fs::path(dir) / kManifestFile;
  if (fs::exists(manifest)) return parse_grid_manifest(parse_yaml_file(manifest.string()));
  const fs::path grid = fs::path(dir) / kGridFile;
  if (!fs::exists(grid)) return std::nullopt;
  const Value root = parse_yaml_file(grid.string());
  if (!root.is_map()) return std::nullopt;
  if (root.find("cells")) return parse_grid_manifest(root);
  // A plain grid file: take what the analysis can use.
  GridManifest m;
  m.grid = kGridFile;
  if (const Value* b = root.find("baseline"); b && b->is_map()) m.baseline = string_map(*b, "baseline");
  if (const Value* a = root.find("analysis")) m.settings = parse_analysis_settings(*a);
  return m;
}

std::string manifest_to_yaml(const GridManifest& m) {
  Value root = Value::map();
  root.set("manifest_version", Value::scalar(std::to_string(kManifestVersion)));
  if (!m.grid.empty()) root.set("grid", Value::scalar(m.grid));
  Value baseline = Value::map();
  for (const auto& [k, v] : m.baseline) baseline.set(k, Value::scalar(v));
  root.set("baseline", baseline);
  const Value analysis = to_value(m.settings);
  if (!analysis.entries().empty()) root.set("analysis", analysis);
  Value cells = Value::map();
  std::set<std::string> ids;
  for (const auto& c : m.cells) {
    if (c.id.empty()) throw std::invalid_argument("grid manifest: cell " + std::to_string(c.index) + " has no id");
    if (!ids.insert(c.id).second) throw std::invalid_argument("grid manifest: duplicate cell id " + c.id);
    Value cell = Value::map();
    cell.set("index", Value::scalar(std::to_string(c.index)));
    cell.set("seed", Value::scalar(std::to_string(c.seed)));
    if (!c.file.empty()) cell.set("file", Value::scalar(c.file));
    Value vary = Value::map();
    for (const auto& [k, v] : c.vary) vary.set(k, Value::scalar(v));
    cell.set("vary", vary);
    cells.set(c.id, cell);
  }
  root.set("cells", cells);
  return "# fp4lab grid manifest (results/SCHEMA.md): cells, seeds, varying keys, baseline, analysis\n" +
         emit_yaml(root);
}

void write_grid_manifest(const std::string& dir, const GridManifest& m) {
  io::write_file_atomically((fs::path(dir) / kManifestFile).string(), manifest_to_yaml(m));
}

// ---------------------------------------------------------------------------- run files

std::vector<std::string> list_run_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (!ends_with(name, ".h5") || ends_with(name, ".ckpt.h5") || name[0] == '.') continue;
    if (name.find(".tmp") != std::string::npos || name.find(".part") != std::string::npos) continue;
    out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

void read_into(CellRun& c, bool with_telemetry) {
  try {
    c.run = read_run(c.path, with_telemetry);
  } catch (const std::exception& e) {
    c.error = e.what();
  }
}

}  // namespace

std::map<std::string, std::string> flat_config(const RunData& run) {
  std::map<std::string, std::string> flat;
  try {
    flatten(parse_yaml_string(run.meta.config_yaml, run.path + " (config attribute)"), "", flat);
  } catch (const std::exception&) {
    flat.clear();
  }
  return flat;
}

namespace {

// No manifest: every run file is a cell; the varying keys are the flattened config keys whose
// values differ between files.
void derive_cells(GridRuns& g, bool with_telemetry) {
  const auto files = list_run_files(g.dir);
  std::vector<std::map<std::string, std::string>> configs;
  for (const auto& f : files) {
    CellRun c;
    c.path = f;
    c.info.index = static_cast<int>(g.cells.size());
    c.info.file = fs::path(f).filename().string();
    c.info.id = fs::path(f).stem().string();
    read_into(c, with_telemetry);
    std::map<std::string, std::string> flat;
    if (c.run) {
      if (!c.run->meta.cell_id.empty()) c.info.id = c.run->meta.cell_id;
      try {
        flatten(parse_yaml_string(c.run->meta.config_yaml, f + " (config attribute)"), "", flat);
      } catch (const std::exception& e) {
        g.notes.push_back(c.info.file + ": config attribute is not readable YAML (" + e.what() + ")");
      }
    }
    configs.push_back(std::move(flat));
    g.cells.push_back(std::move(c));
  }
  std::set<std::string> keys;
  for (const auto& cfg : configs)
    for (const auto& [k, v] : cfg) keys.insert(k);
  constexpr const char* kUnset = "(unset)";
  for (const auto& k : keys) {
    std::set<std::string> values;
    for (size_t i = 0; i < configs.size(); ++i) {
      if (!g.cells[i].run) continue;
      auto it = configs[i].find(k);
      values.insert(it == configs[i].end() ? kUnset : it->second);
    }
    if (values.size() < 2) continue;
    for (size_t i = 0; i < configs.size(); ++i) {
      if (!g.cells[i].run) continue;
      auto it = configs[i].find(k);
      g.cells[i].info.vary[k] = it == configs[i].end() ? kUnset : it->second;
    }
  }
  // The seed: the first seed key of the config (varying or not).
  for (size_t i = 0; i < configs.size(); ++i)
    for (const auto& [k, v] : configs[i])
      if (is_seed_key(k)) {
        if (auto x = parse_number(v); x && *x == std::floor(*x)) g.cells[i].info.seed = static_cast<int64_t>(*x);
        break;
      }
  if (!files.empty())
    g.notes.push_back("no " + std::string(kManifestFile) +
                      ": cells, seeds and varying keys were derived from the run files' configs");
}

}  // namespace

namespace {

std::string pack_group(const std::string& id) { return "cells/" + id; }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

GridRuns load_pack(const std::string& path) {
  if (!is_curves_pack(path))
    throw std::runtime_error(path + ": not a directory or curves pack (fp4lab pack DIR " + path + ")");
  const h5::File f = h5::File::open_ro(path);
  const int64_t version = f.attr_int("/", kPackAttribute);
  if (version > kPackVersion)
    throw std::runtime_error(path + ": curves pack version " + std::to_string(version) + " is newer than this fp4lab's " +
                             std::to_string(kPackVersion));
  GridRuns g;
  g.dir = path;
  g.manifest = parse_grid_manifest(parse_yaml_string(f.attr_string("/", "manifest"), path + " (manifest attribute)"));
  g.manifest_found = true;
  if (f.has_attr("/", "notes")) g.notes = split_lines(f.attr_string("/", "notes"));
  for (const auto& info : g.manifest.cells) {
    CellRun c;
    c.info = info;
    const std::string group = pack_group(info.id);
    if (f.has(group)) {
      c.path = path + "#" + group;
      if (f.has_attr(group, "error")) {
        c.error = f.attr_string(group, "error");
      } else {
        try {
          c.run = read_packed_run(f, group, c.path);
        } catch (const std::exception& e) {
          c.error = e.what();
        }
      }
    }
    g.cells.push_back(std::move(c));
  }
  g.notes.push_back(kPackNote);
  return g;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error(p.string() + ": cannot read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

}  // namespace

bool is_curves_pack(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  try {
    char sig[8] = {};
    std::ifstream(path, std::ios::binary).read(sig, sizeof sig);
    if (std::string(sig, sizeof sig) != std::string("\x89HDF\r\n\x1a\n", 8)) return false;
    return h5::File::open_ro(path).has_attr("/", kPackAttribute);
  } catch (const std::exception&) {
    return false;
  }
}

std::string grid_name_of(const std::string& dir_or_pack) {
  if (is_curves_pack(dir_or_pack)) {
    try {
      const h5::File f = h5::File::open_ro(dir_or_pack);
      if (f.has_attr("/", "grid_name")) return f.attr_string("/", "grid_name");
    } catch (const std::exception&) {
      // fall through: the file's own name
    }
  }
  try {  // a grid's output folder: the name in its grid.yaml (the folder may be called anything)
    const fs::path grid = fs::path(dir_or_pack) / "grid.yaml";
    if (fs::is_regular_file(grid)) {
      const Value root = parse_yaml_file(grid.string());
      if (const Value* n = root.find("name"); n && n->is_scalar() && !n->text().empty()) return n->text();
    }
  } catch (const std::exception&) {
    // fall through: the folder's own name
  }
  const fs::path p(dir_or_pack);
  const std::string name = p.filename().string();
  return name.empty() ? p.parent_path().filename().string() : name;
}

PackSummary write_curves_pack(const std::string& dir, const std::string& out) {
  if (!fs::is_directory(dir)) throw std::runtime_error(dir + ": no such directory");
  const std::optional<GridManifest> m = read_grid_manifest(dir);
  if (!m || m->cells.empty())
    throw std::runtime_error(dir + ": no " + std::string(kManifestFile) + " (nor a " + kGridFile +
                             " listing cells): not a grid output directory");
  const GridRuns g = load_grid(dir, false);
  const fs::path grid_file = fs::path(dir) / kGridFile;
  const std::string grid_yaml = fs::exists(grid_file) ? read_text(grid_file) : std::string();
  PackSummary sum;
  h5::write_file_atomically(
      out,
      [&](h5::File& f) {
        f.set_attr("/", kPackAttribute, kPackVersion);
        f.set_attr("/", "grid_name", grid_name_of(dir));
        f.set_attr("/", "manifest", manifest_to_yaml(g.manifest));
        f.set_attr("/", "notes", join_lines(g.notes));
        if (fs::exists(grid_file)) f.set_attr("/", "grid_yaml", grid_yaml);
        f.create_group("cells");
        for (const CellRun& c : g.cells) {
          ++sum.cells;
          if (c.path.empty()) {
            ++sum.pending;
          } else if (!c.run) {
            ++sum.unreadable;
            f.create_group(pack_group(c.info.id));
            f.set_attr(pack_group(c.info.id), "error", c.error);
          } else {
            ++sum.packed;
            if (c.run->status == RunStatus::running) ++sum.running;
            write_packed_run(f, pack_group(c.info.id), *c.run);
          }
        }
      },
      h5::Format::v110);
  return sum;
}

GridRuns load_grid(const std::string& dir, bool with_telemetry) {
  if (!fs::is_directory(dir)) {
    if (fs::is_regular_file(dir)) return load_pack(dir);
    throw std::runtime_error(dir + ": not a directory");
  }
  GridRuns g;
  g.dir = dir;
  std::optional<GridManifest> m = read_grid_manifest(dir);
  if (m) g.manifest = *m;
  g.manifest_found = m && !m->cells.empty();
  if (!g.manifest_found) {
    derive_cells(g, with_telemetry);
    return g;
  }
  std::set<std::string> claimed;
  for (const auto& info : g.manifest.cells) {
    CellRun c;
    c.info = info;
    const std::string name = info.file.empty() ? info.id + ".h5" : info.file;
    const fs::path p = fs::path(dir) / name;
    claimed.insert(fs::absolute(p).lexically_normal().string());
    if (fs::exists(p)) {
      c.path = p.string();
      read_into(c, with_telemetry);
    }
    g.cells.push_back(std::move(c));
  }
  for (const auto& f : list_run_files(dir))
    if (!claimed.count(fs::absolute(f).lexically_normal().string()))
      g.notes.push_back(fs::path(f).filename().string() + " is not a cell of the manifest (ignored)");
  return g;
}

void keep_cells(GridRuns& runs, const std::vector<std::string>& where) {
  if (where.empty()) return;
  std::map<std::string, std::set<std::string>> known;  // axis -> its values among the cells
  for (const CellRun& c : runs.cells)
    for (const auto& [axis, value] : c.info.vary) known[axis].insert(value);
  std::vector<std::pair<std::string, std::set<std::string>>> wanted;
  for (const std::string& w : where) {
    const size_t eq = w.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("--where '" + w + "': expected AXIS=VALUE[,VALUE...]");
    const std::string axis = w.substr(0, eq);
    const auto it = known.find(axis);
    if (it == known.end()) throw std::invalid_argument("--where: '" + axis + "' is not an axis of " + runs.dir);
    std::set<std::string> values;
    std::stringstream list(w.substr(eq + 1));
    for (std::string v; std::getline(list, v, ',');) {
      if (!it->second.count(v)) throw std::invalid_argument("--where: '" + v + "' is not a value of axis " + axis);
      values.insert(v);
    }
    wanted.push_back({axis, values});
  }
  std::vector<CellRun> kept;
  for (CellRun& c : runs.cells) {
    bool keep = true;
    for (const auto& [axis, values] : wanted) {
      const auto v = c.info.vary.find(axis);
      keep = keep && v != c.info.vary.end() && values.count(v->second);
    }
    if (keep) kept.push_back(std::move(c));
  }
  if (kept.empty()) throw std::invalid_argument("--where selects no cell of " + runs.dir);
  std::string text;
  for (const std::string& w : where) text += (text.empty() ? "" : " ") + w;
  runs.notes.push_back("cells selected by --where " + text + ": " + std::to_string(kept.size()) + " of " +
                       std::to_string(runs.cells.size()));
  runs.cells = std::move(kept);
}

}  // namespace fp4lab::analysis
