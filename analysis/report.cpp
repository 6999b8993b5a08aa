// JSON / Markdown / CSV renderings of an AnalysisReport and the report writer. Each record has one
// field list (fields() below) that the JSON and CSV writers walk; the Markdown report is a list of
// sections (one function each), each table one list of columns. JSON is written by hand (a small
// indenting writer); names are documented in results/SCHEMA.md.
#include "analysis/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "analysis/json.hpp"
#include "analysis/text.hpp"
#include "core/io/atomic_file.hpp"

namespace fp4lab::analysis {
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------- formatting

std::string pct(double fraction_or_pct, int digits, bool is_fraction) {
  if (!std::isfinite(fraction_or_pct)) return "—";
  return fixed(is_fraction ? fraction_or_pct * 100 : fraction_or_pct, digits, true) + "%";
}

// The confidence level of the intervals: "95%".
std::string confidence_text(const ResolvedSettings& s) { return fixed(s.confidence * 100, 0) + "%"; }

// A GNR: +Inf when the quantized gradient equals the fp32 one (no quantization in wgrad).
std::string gnr_text(double x) { return x == INFINITY ? "∞" : fixed(x, 2); }

// 4 significant digits with a k/M/G/T suffix: "12.35M".
std::string tokens_text(double t) {
  if (!std::isfinite(t)) return "—";
  const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  double x = t;
  while (std::fabs(x) >= 1000 && i < 5) x /= 1000, ++i;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g%s", x, suffix[i]);
  return buf;
}

std::string ci_text(const SeedStats& s, int digits, double scale = 1, const char* unit = "") {
  if (!s.has_ci) return s.n == 1 ? "(1 seed)" : "—";
  return std::string("[") + fixed(s.ci_low * scale, digits, true) + unit + ", " + fixed(s.ci_high * scale, digits, true) + unit + "]";
}

// Table cells must not contain a bare '|' or newline.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) {
    out += ' ';
    out += cell(c);
    out += " |";
  }
  return out + "\n";
}

std::string header_row(const std::vector<std::string>& names) {
  std::string out = row(names) + "|";
  for (size_t i = 0; i < names.size(); ++i) out += "---|";
  return out + "\n";
}

std::string group_name(const AnalysisReport& r, int g) {
  if (g < 0) return "—";
  return r.groups[g].label + (r.groups[g].is_baseline ? " (baseline)" : "");
}

std::string token_gap_text(const GroupResult& g) {
  if (g.token_gap.n == 0) return "—";
  if (g.token_gap_censored)
    return std::to_string(g.n_censored) + " of " + std::to_string(g.token_gap.n) + " never reached; > " + pct(g.token_gap.mean, 1, true);
  return pct(g.token_gap.mean, 1, true) + " " + ci_text(g.token_gap, 1, 100, "%");
}

std::string target_description(const ResolvedSettings& s) {
  switch (s.target_rule) {
    case TargetRule::baseline_final:
      return "`baseline_final`: the same-seed baseline run's final smoothed training loss; crossings on the "
             "smoothed training-loss curve";
    case TargetRule::baseline_final_val:
      return "`baseline_final_val`: the same-seed baseline run's final validation loss; crossings on the "
             "validation-loss curve";
    case TargetRule::fixed:
      return "fixed loss " + fixed(s.target_value, 4) + " nats; crossings on the " +
             (s.target_curve == TargetCurve::val ? "validation-loss curve" : "smoothed training-loss curve");
  }
  return "";
}

std::string image_title(const std::string& stem, const AnalysisReport& r) {
  if (stem == "loss_vs_tokens") return "Training loss vs tokens";
  if (stem == "gap_vs_tokens") return "Loss difference to the baseline vs tokens";
  if (stem == "gaps") return "Loss gaps with confidence intervals";
  if (stem == "token_gap") return "Tokens-to-target gap";
  if (stem == "budget") return "Final loss vs token budget";
  if (stem.rfind("quant_sqnr_g", 0) == 0) {
    const int g = std::atoi(stem.c_str() + 12);
    if (g >= 0 && g < static_cast<int>(r.groups.size())) return "Quantization SQNR: " + r.groups[g].label;
  }
  return stem;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_num(double x) {
  if (!std::isfinite(x)) return "";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// ---------------------------------------------------------------------------- field lists
//
// Each record of the report has one field list, `fields(report, record, v)`, in JSON order, which
// the JSON writer (analysis.json) and, for the records report.csv has rows for (config groups,
// comparisons, cells), the CSV writer walk. A field is one line:
//   v(key, value)                     JSON only
//   v(key, value, "col")              JSON, and the CSV column `col` (its value in CSV form; a
//                                     config map fills the vary.KEY columns)
//   v(key, stats, "col", kCi)         a SeedStats: a JSON object (n, mean, sd, CI); CSV `col` = the mean
//                                     and, with kCi, `col_ci_low` and `col_ci_high`
//   v.gap(gap_stats, "col")           a GapStats, into the open JSON object (n, mean, sd, CI,
//                                     per_seed); CSV as with kCi
//   v.csv("col", value)               CSV only: a column whose CSV value differs from the JSON one
//   v.begin(key) ... v.end()          a nested JSON object
// The CSV column order is kCsvColumns (the CSV visitor rejects a column not listed there).

enum CsvStats { kMean, kCi };  // which of a statistic's CSV columns a field fills

std::string label_of(const AnalysisReport& r, int group) { return group >= 0 ? r.groups[size_t(group)].label : std::string(); }

template <class V>
void fields(const AnalysisReport& r, const GroupResult& g, V& v) {
  std::vector<std::string> cell_ids;
  for (int c : g.cells) cell_ids.push_back(r.cells[size_t(c)].id);
  v("index", g.index, "group");
  v("label", g.label, "config");
  v("vary", g.vary, "vary");
  v("is_baseline", g.is_baseline, "is_baseline");
  v("reference", label_of(r, g.reference));
  v("cells", cell_ids);
  v("n_cells", g.n_cells);
  v("n_included", g.n_included, "n_seeds");
  v("converged_gap", g.converged_gap, "conv_gap", kCi);
  v("converged_rel_pct", g.converged_rel_pct, "conv_rel_pct", kCi);
  v("converged_step_sd", g.converged_step_sd, "conv_step_sd");
  v("window_step_lo", g.window_step_lo);
  v.csv("window_step_lo", g.window_step_hi ? std::to_string(g.window_step_lo) : "");
  v("window_step_hi", g.window_step_hi);
  v.csv("window_step_hi", g.window_step_hi ? std::to_string(g.window_step_hi) : "");
  v("window_tokens_lo", g.window_tokens_lo, "window_tokens_lo");
  v("window_tokens_hi", g.window_tokens_hi, "window_tokens_hi");
  v("final_loss", g.final_loss, "final_loss");
  v("final_bpb", g.final_bpb, "final_bpb");
  v("final_gap", g.final_gap, "final_gap", kCi);
  v("final_rel_pct", g.final_rel_pct, "final_rel_pct");
  v("target", g.target, "target");
  v("tokens_to_target", g.tokens_to_target, "tokens_to_target");
  v("token_gap", g.token_gap, "token_gap", kCi);
  v("token_gap_censored", g.token_gap_censored, "token_gap_censored");
  v("n_censored", g.n_censored);
  v("entropy_gap", g.entropy_gap, "entropy_gap");
  v("step_seconds", g.step_seconds);
  v("tokens_per_second", g.tokens_per_second);
  v("model_tflops", g.model_tflops);
  v("mfu", g.mfu);
  v("step_time_ratio", g.step_time_ratio);
  v("coverage", g.coverage, "coverage");
  v("has_switch", g.has_switch);
  v("switch_reference", label_of(r, g.switch_reference));
  v("recovered_fraction", g.recovered_fraction, "recovered_fraction");
  v("recovered_fraction_seeds", g.recovered_fraction_seeds);
  v("spread_target", g.spread_target);
  v("loss_spread", g.loss_spread, "loss_spread");
  v("tokens_spread", g.tokens_spread, "tokens_spread");
  v("n_spread", g.n_spread);
  v("n_loss_inside", g.n_loss_inside);
  v("n_tokens_inside", g.n_tokens_inside);
  v("note", g.note, "note");
  for (const FidelitySummary& f : r.fidelity_summary) {  // in JSON as the fidelity[] records
    if (f.group != g.index) continue;
    const std::string role = "fidelity_" + to_string(f.role);
    v.csv((role + "_gain").c_str(), f.gain);
    v.csv((role + "_rel_err").c_str(), f.rel_err);
    v.csv((role + "_cosine").c_str(), f.cosine);
    if (f.role != GemmRole::wgrad) continue;
    v.csv((role + "_sr_bias").c_str(), f.sr_bias);
    v.csv((role + "_sr_rel_std").c_str(), f.sr_rel_std);
  }
}

template <class V>
void fields(const AnalysisReport& r, const CellResult& c, V& v) {
  const PairedGap& p = c.converged;
  v("index", c.index, "index");
  v("id", c.id, "id");
  v("file", c.file);
  v("seed", c.seed, "seed");
  v("vary", c.vary, "vary");
  v("group", label_of(r, c.group), "config");
  v.csv("group", c.group);
  v("is_baseline", c.is_baseline, "is_baseline");
  v("state", c.state, "state");
  v("status_step", c.status_step);
  v("message", c.message);
  v("steps", c.steps);
  v("last_step", c.last_step, "step");
  v("tokens", c.tokens, "tokens");
  v.csv("n_seeds", 1);
  v("last_train_loss", c.last_train_loss);
  v("final_train_ema", c.final_train_ema);
  v("final_val_loss", c.final_val_loss);
  v("final_loss", c.final_loss, "final_loss");
  v("final_loss_kind", c.final_loss_kind, "final_loss_kind");
  v("final_bpb", c.final_bpb, "final_bpb");
  v("tokenizer", c.tokenizer);
  v("data_epochs", c.data_epochs);
  v("entropy_rate", c.entropy_rate >= 0 ? c.entropy_rate : kNaN);
  v("entropy_gap", c.entropy_gap, "entropy_gap");
  v("included", c.included);
  v("reference", c.reference >= 0 ? r.cells[size_t(c.reference)].id : std::string());
  v("target", c.target, "target");
  v("reached", c.crossing.reached);
  v("tokens_to_target", c.crossing.tokens);
  v.csv("tokens_to_target", c.crossing.reached ? csv_num(c.crossing.tokens) : "");
  v("baseline_reached", c.ref_crossing.reached);
  v("baseline_tokens_to_target", c.ref_crossing.tokens);
  v.csv("baseline_tokens_to_target", c.ref_crossing.reached ? csv_num(c.ref_crossing.tokens) : "");
  v("token_gap", c.token_gap, "token_gap");
  v("token_gap_censored", c.token_gap_censored, "token_gap_censored");
  v.begin("converged");
  v("n_steps", p.n_steps);
  v("step_lo", p.step_lo);
  v.csv("window_step_lo", p.n_steps ? std::to_string(p.step_lo) : "");
  v("step_hi", p.step_hi);
  v.csv("window_step_hi", p.n_steps ? std::to_string(p.step_hi) : "");
  v("tokens_lo", p.tokens_lo, "window_tokens_lo");
  v("tokens_hi", p.tokens_hi, "window_tokens_hi");
  v("mean_gap", p.mean_gap, "conv_gap");
  v("sd_gap", p.sd_gap, "conv_step_sd");
  v("mean_rel_pct", p.mean_rel_pct, "conv_rel_pct");
  v.end();
  v("final_gap", c.final_gap, "final_gap");
  v("final_rel_pct", c.final_rel_pct, "final_rel_pct");
  v("final_gap_kind", c.final_gap_kind);
  v("coverage", c.coverage, "coverage");
  v("model_params", c.model_params);
  v("step_seconds", c.step_seconds);
  v("tokens_per_second", c.tokens_per_second);
  v("model_tflops", c.model_tflops);
  v("gemm_peak_gflops", c.gemm_peak_gflops);
  v("mfu", c.mfu);
  v("threads", c.threads);
  v("loss_spread", c.loss_spread, "loss_spread");
  v("tokens_spread", c.tokens_spread, "tokens_spread");
  v("note", c.note);
  v.csv("note", c.message.empty() ? c.note : c.message + (c.note.empty() ? "" : "; " + c.note));
}

template <class V>
void fields(const AnalysisReport&, const Comparison& c, V& v) {
  v("a", c.a);
  v("b", c.b);
  v.csv("config", c.a + " vs " + c.b);
  v.csv("is_baseline", false);
  v("a_selector", c.a_selector);
  v("b_selector", c.b_selector);
  v("n_seeds", c.n_seeds(), "n_seeds");
  v("seeds", c.seeds);
  v.begin("converged_gap");
  v.gap(c.converged_gap, "conv_gap");
  v("window_step_lo", c.window_step_lo);
  v("window_step_hi", c.window_step_hi);
  v.end();
  v.begin("final_gap");
  v.gap(c.final_gap, "final_gap");
  v("kind", c.final_gap_kind, "final_loss_kind");
  v.end();
  v.begin("token_gap");
  v.gap(c.token_gap, "token_gap");
  v("form", c.token_gap_form);
  v("censored", c.token_gap_censored, "token_gap_censored");
  v("below", c.token_gap_below);
  v("lower_bound", c.token_gap_censored > 0);
  v("text", c.token_gap_text());
  v.end();
  v("note", c.note, "note");
}

const char* match_name(BudgetMatch m) {
  switch (m) {
    case BudgetMatch::inside: return "inside";
    case BudgetMatch::above_all: return "above_all";
    case BudgetMatch::below_all: return "below_all";
  }
  return "";
}

template <class V>
void fields(const AnalysisReport& r, const BudgetFamily& f, V& v) {
  const bool is_reference = f.reference >= 0 && &r.budget_families[size_t(f.reference)] == &f;
  v("label", f.label);
  v("vary", f.vary);
  v("is_baseline", f.is_baseline);
  v("reference", f.reference >= 0 ? r.budget_families[size_t(f.reference)].label : std::string());
  v("budgets", f.budgets);
  v("final_loss", f.final_loss);
  v("n_seeds", f.n_seeds);
  v("final_loss_kind", f.final_loss_kind);
  v("base_budget", f.base_budget);
  v("reference_loss", f.reference_loss);
  v("match", is_reference ? "reference" : match_name(f.crossing.match));
  v("matched_budget", is_reference ? kNaN : f.crossing.budget);
  v("token_gap", f.token_gap);
  v("token_gap_seeds", f.token_gap_seeds);
  v("note", f.note);
}

template <class V>
void fields(const AnalysisReport& r, const QuantSummary& q, V& v) {
  v("group", label_of(r, q.group));
  v("operand", q.label);
  v("step", q.step);
  v("sqnr_db", q.sqnr_db);
  v("frac_flushed", q.frac_flushed);
  v("frac_saturated", q.frac_saturated);
  v("whatif_nvfp4_sqnr_db", q.whatif_nvfp4_sqnr_db);
  v("whatif_mxfp4_sqnr_db", q.whatif_mxfp4_sqnr_db);
  v("bias_shrinkage", q.bias_shrinkage);
  v("sr_rms_k1", q.sr_rms_k1);
  v("sr_rms_k64", q.sr_rms_k64);
}

template <class V>
void fields(const AnalysisReport& r, const FidelitySummary& f, V& v) {
  v("group", label_of(r, f.group));
  v("role", to_string(f.role));
  v("step", f.step);
  v("n_layers", f.n_layers);
  v("gain", f.gain);
  v("rel_err", f.rel_err);
  v("cosine", f.cosine);
  v("sr_bias", f.sr_bias);
  v("sr_rel_std", f.sr_rel_std);
  v("lowest_gain", f.lowest_gain);
  v("lowest_layer", f.lowest_layer);
}

template <class V>
void fields(const AnalysisReport& r, const GnrSummary& g, V& v) {
  v("group", label_of(r, g.group));
  v("step", g.step);
  v("n_layers", g.n_layers);
  v("min_gnr", g.min_gnr);
  v("median_gnr", g.median_gnr);
  v("n_below_threshold", g.n_below);
  v("threshold", kGnrThreshold);
  v("lowest_layer", g.lowest_layer);
}

// Writes the fields into the JSON object the caller has open.
class JsonFields {
 public:
  JsonFields(Json& j, double confidence) : j_(j), confidence_(confidence) {}
  template <class T>
  void operator()(const char* key, const T& x, const char* /*csv*/ = nullptr) { put(key, x); }
  void operator()(const char* key, const SeedStats& s, const char* /*csv*/ = nullptr, CsvStats = kMean) {
    j_.begin_object(key);
    stats_fields(j_, s, confidence_, true);
    j_.end_object();
  }
  void gap(const GapStats& g, const char* /*csv*/) {
    stats_fields(j_, g.stats, confidence_, false, &g.per_seed);
    const SeedsNeeded n = seeds_needed(g.stats, confidence_);  // the power line (-1: cannot be said)
    j_.value("seeds_to_exclude_zero", n.to_exclude).value("seeds_for_80pct_power", n.for_power);
  }
  template <class T>
  void csv(const char*, const T&) {}
  void begin(const char* key) { j_.begin_object(key); }
  void end() { j_.end_object(); }

 private:
  void put(const char* key, const std::map<std::string, std::string>& m) { j_.map(key, m); }
  void put(const char* key, const SpreadPosition& p) {
    j_.begin_object(key);
    j_.value("value", p.value).value("censored", p.censored).value("percentile", p.percentile);
    j_.value("spread_low", p.spread_low).value("spread_high", p.spread_high).value("where", p.where);
    j_.end_object();
  }
  template <class T>
  void put(const char* key, const std::vector<T>& xs) {
    j_.begin_array(key);
    for (const auto& x : xs) j_.value(nullptr, x);
    j_.end_array();
  }
  template <class T>
  void put(const char* key, const T& x) { j_.value(key, x); }
  Json& j_;
  double confidence_;
};

// report.csv's columns, in order (then one vary.KEY column per config key of the cells).
const std::vector<std::string> kCsvColumns = {
    "level", "group", "config", "is_baseline", "index", "id", "seed", "state", "step", "tokens", "n_seeds",
    "final_loss", "final_loss_kind", "final_bpb", "final_gap", "final_gap_ci_low", "final_gap_ci_high", "final_rel_pct",
    "conv_gap", "conv_gap_ci_low", "conv_gap_ci_high", "conv_step_sd", "conv_rel_pct", "conv_rel_pct_ci_low",
    "conv_rel_pct_ci_high", "window_step_lo", "window_step_hi", "window_tokens_lo", "window_tokens_hi", "target",
    "tokens_to_target", "baseline_tokens_to_target", "token_gap", "token_gap_censored", "token_gap_ci_low",
    "token_gap_ci_high", "entropy_gap", "recovered_fraction", "coverage", "note", "loss_spread", "loss_spread_pct",
    "tokens_spread", "tokens_spread_pct", "fidelity_fprop_gain", "fidelity_fprop_rel_err", "fidelity_fprop_cosine",
    "fidelity_dgrad_gain", "fidelity_dgrad_rel_err", "fidelity_dgrad_cosine", "fidelity_wgrad_gain",
    "fidelity_wgrad_rel_err", "fidelity_wgrad_cosine", "fidelity_wgrad_sr_bias", "fidelity_wgrad_sr_rel_std"};

// Collects one CSV row (columns the record does not fill stay empty) and its vary map.
class CsvFields {
 public:
  explicit CsvFields(const char* level) : row_(kCsvColumns.size()) { csv("level", level); }
  template <class T>
  void operator()(const char*, const T&) {}  // JSON only
  template <class T>
  void operator()(const char*, const T& x, const char* col) {
    csv(col, x);
  }
  void operator()(const char*, const std::map<std::string, std::string>& m, const char*) {
    vary_ = m;  // the vary.KEY columns
  }
  void operator()(const char*, const SeedStats& s, const char* col, CsvStats which = kMean) {
    csv(col, s.mean);
    if (which == kCi) {
      csv(std::string(col) + "_ci_low", s.ci_low);
      csv(std::string(col) + "_ci_high", s.ci_high);
    }
  }
  void gap(const GapStats& g, const char* col) { (*this)(nullptr, g.stats, col, kCi); }
  void csv(const std::string& col, const std::string& s) { row_[column(col)] = s; }
  void csv(const std::string& col, const char* s) { csv(col, std::string(s)); }
  void csv(const std::string& col, double x) { csv(col, csv_num(x)); }
  void csv(const std::string& col, bool b) { csv(col, std::string(b ? "1" : "0")); }
  void csv(const std::string& col, int x) { csv(col, std::to_string(x)); }
  void csv(const std::string& col, int64_t x) { csv(col, std::to_string(x)); }
  void csv(const std::string& col, const SpreadPosition& p) {  // where, and the percentile
    csv(col, p.where);
    csv(col + "_pct", p.percentile);
  }
  void begin(const char*) {}
  void end() {}
  const std::vector<std::string>& row() const { return row_; }
  const std::map<std::string, std::string>& vary() const { return vary_; }

 private:
  static size_t column(const std::string& col) {
    const auto it = std::find(kCsvColumns.begin(), kCsvColumns.end(), col);
    if (it == kCsvColumns.end()) throw std::logic_error("report.csv has no column " + col);
    return size_t(it - kCsvColumns.begin());
  }
  std::vector<std::string> row_;
  std::map<std::string, std::string> vary_;
};

// ---------------------------------------------------------------------------- Markdown tables

// A Markdown table column: its header and its cell for one row, so a new column is one line. The
// tables are views for a reader (rounded, signed, units, several fields to a cell, in their own
// order), so they have these column lists rather than walking the field lists above.
template <class T>
struct Column {
  std::string header;
  std::function<std::string(const T&)> cell;
};

template <class T>
std::string table(const std::vector<Column<T>>& columns, const std::vector<const T*>& rows) {
  std::vector<std::string> cells;
  for (const auto& c : columns) cells.push_back(c.header);
  std::string out = header_row(cells);
  for (const T* x : rows) {
    cells.clear();
    for (const auto& c : columns) cells.push_back(c.cell(*x));
    out += row(cells);
  }
  return out;
}

template <class T>
std::vector<const T*> all(const std::vector<T>& xs) {
  std::vector<const T*> out;
  for (const T& x : xs) out.push_back(&x);
  return out;
}

// The "config" column: the row's config group, "(baseline)" marked.
template <class T>
Column<T> config_column(const AnalysisReport& r) {
  return {"config", [&r](const T& x) {
            if constexpr (std::is_same_v<T, GroupResult>) return group_name(r, x.index);
            else return group_name(r, x.group);
          }};
}

// A report section: its heading, the paragraph saying what it shows (none if ""), then its body.
std::string section(const std::string& heading, const std::string& intro, const std::string& body) {
  return "## " + heading + "\n\n" + (intro.empty() ? "" : intro + "\n\n") + body + "\n";
}

// The cells that pass `keep`, ordered by config group, then seed, then cell index (per-seed tables).
std::vector<const CellResult*> cells_by_group(const AnalysisReport& r, const std::function<bool(const CellResult&)>& keep) {
  std::vector<const CellResult*> out;
  for (const CellResult& c : r.cells)
    if (keep(c)) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [](const CellResult* x, const CellResult* y) {
    return std::tie(x->group, x->seed, x->index) < std::tie(y->group, y->seed, y->index);
  });
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------- JSON

namespace {

// A JSON array of records, each an object of its field list.
template <class T>
void json_records(Json& j, const char* key, const AnalysisReport& r, const std::vector<T>& records) {
  JsonFields v(j, r.settings.confidence);
  j.begin_array(key);
  for (const T& x : records) {
    j.begin_object();
    fields(r, x, v);
    j.end_object();
  }
  j.end_array();
}

// The ladders: each rung and the total with the comparison fields, sums, residuals, order effects.
void json_ladders(Json& j, const AnalysisReport& r) {
  JsonFields v(j, r.settings.confidence);
  auto gap_object = [&](const char* key, const GapStats& g) {
    j.begin_object(key);
    v.gap(g, nullptr);
    j.end_object();
  };
  j.begin_array("ladders");
  for (const LadderResult& l : r.ladders) {
    j.begin_object();
    j.value("context", l.context).value("base", l.base).value("target", l.target).value("note", l.note);
    j.begin_object("total");
    fields(r, l.total, v);
    j.end_object();
    j.begin_array("climbs");
    for (const LadderClimbResult& c : l.climbs) {
      j.begin_object();
      v("steps", c.steps);
      j.begin_array("rungs");
      for (const Comparison& rung : c.rungs) {
        j.begin_object();
        fields(r, rung, v);
        j.end_object();
      }
      j.end_array();
      gap_object("sum_converged", c.sum_converged);
      gap_object("sum_final", c.sum_final);
      gap_object("residual_converged", c.residual_converged);
      gap_object("residual_final", c.residual_final);
      j.end_object();
    }
    j.end_array();
    j.begin_array("order");
    for (const LadderOrderEffect& e : l.order) {
      j.begin_object();
      j.value("component", e.component).value("climb", e.climb).value("order_dependent", e.order_dependent);
      gap_object("converged_diff", e.converged_diff);
      gap_object("final_diff", e.final_diff);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

}  // namespace

std::string to_json(const AnalysisReport& r) {
  Json j;
  j.begin_object();
  j.value("fp4lab_analysis_version", kAnalysisJsonVersion);
  j.value("dir", r.dir);
  j.value("manifest_found", r.manifest_found);
  j.begin_object("settings")
      .value("target", r.settings.target_text())
      .value("target_curve", to_string(r.settings.target_curve))
      .value("ema", r.settings.ema)
      .value("window", r.settings.window_by_tokens ? "tokens" : "last_fraction")
      .value("window_fraction", r.settings.window_by_tokens ? kNaN : r.settings.window_fraction)
      .value("window_tokens_min", r.settings.window_by_tokens ? r.settings.window_tokens_min : kNaN)
      .value("window_tokens_max", r.settings.window_by_tokens ? r.settings.window_tokens_max : kNaN)
      .value("budget_key", r.settings.budget_key)
      .value("confidence", r.settings.confidence)
      .end_object();
  j.map("baseline", r.baseline);
  j.array("vary_keys", r.vary_keys);
  j.value("multi_budget", r.multi_budget);
  j.value("units", r.units);
  j.value("max_epochs", r.max_epochs);
  j.array("notes", r.notes);
  json_records(j, "groups", r, r.groups);
  json_records(j, "cells", r, r.cells);
  json_records(j, "budget_families", r, r.budget_families);
  json_records(j, "comparisons", r, r.comparisons);
  json_records(j, "quant", r, r.quant_summary);
  json_records(j, "gnr", r, r.gnr_summary);
  json_records(j, "fidelity", r, r.fidelity_summary);
  json_ladders(j, r);
  j.end_object();
  return j.str();
}

// ---------------------------------------------------------------------------- Markdown

std::string summary_table(const AnalysisReport& r) {
  const std::string conf = confidence_text(r.settings);
  int baselines = 0;
  for (const auto& g : r.groups) baselines += g.is_baseline;
  // A baseline row shows its final loss and gap to entropy only.
  auto gap = [](std::function<std::string(const GroupResult&)> f) {
    return [f](const GroupResult& g) { return g.is_baseline ? std::string() : f(g); };
  };
  std::vector<Column<GroupResult>> cols = {
      config_column<GroupResult>(r),
      {"seeds", [](const GroupResult& g) {
         return std::to_string(g.n_included) + (g.n_included != g.n_cells ? std::string("/") + std::to_string(g.n_cells) : "");
       }},
      {"converged gap (nats)", [](const GroupResult& g) { return g.is_baseline ? "baseline" : fixed(g.converged_gap.mean, 4, true); }},
      {conf + " CI", gap([](const GroupResult& g) { return ci_text(g.converged_gap, 4); })},
      {"per-step sd", gap([](const GroupResult& g) { return fixed(g.converged_step_sd.mean, 4); })},
      {"converged rel. %", gap([](const GroupResult& g) { return pct(g.converged_rel_pct.mean, 2, false); })},
      {"final loss", [](const GroupResult& g) { return fixed(g.final_loss.mean, 4); }},
      {"bits/byte", [](const GroupResult& g) { return fixed(g.final_bpb.mean, 4); }},
      {"final gap (nats)", gap([](const GroupResult& g) { return fixed(g.final_gap.mean, 4, true); })},
      {conf + " CI", gap([](const GroupResult& g) { return ci_text(g.final_gap, 4); })},
      {"final rel. %", gap([](const GroupResult& g) { return pct(g.final_rel_pct.mean, 2, false); })},
      {"token gap", gap([](const GroupResult& g) { return token_gap_text(g); })},
      {"gap to entropy", [](const GroupResult& g) { return fixed(g.entropy_gap.mean, 4); }},
      {"note", [](const GroupResult& g) { return g.note; }}};
  if (baselines > 1)  // say which baseline each config is compared with
    cols.insert(cols.begin() + 1, {"vs baseline", gap([&](const GroupResult& g) { return group_name(r, g.reference); })});
  return table(cols, all(r.groups));
}

std::string comparison_table(const AnalysisReport& r) {
  if (r.comparisons.empty()) return "";
  const double conf = r.settings.confidence;
  return table<Comparison>(
      {{"A", [](const Comparison& c) { return c.a; }},
       {"B", [](const Comparison& c) { return c.b; }},
       {"seeds", [](const Comparison& c) { return std::to_string(c.n_seeds()); }},
       {"converged gap A − B (nats)", [](const Comparison& c) { return fixed(c.converged_gap.stats.mean, 4, true); }},
       {"CI", [](const Comparison& c) { return ci_text(c.converged_gap.stats, 4); }},
       {"seeds needed", [conf](const Comparison& c) { return seeds_needed_text(seeds_needed(c.converged_gap.stats, conf)); }},
       {"final gap A − B (nats)",
        [](const Comparison& c) { return fixed(c.final_gap.stats.mean, 4, true) + " (" + c.final_gap_kind + ")"; }},
       {"CI", [](const Comparison& c) { return ci_text(c.final_gap.stats, 4); }},
       {"seeds needed", [conf](const Comparison& c) { return seeds_needed_text(seeds_needed(c.final_gap.stats, conf)); }},
       {"tokens A needs for B's final loss",
        [](const Comparison& c) { return c.token_gap_text() + (c.token_gap_form == "multi_budget" ? " (budgets)" : ""); }},
       {"seeds needed", [conf](const Comparison& c) { return seeds_needed_text(seeds_needed(c.token_gap.stats, conf)); }},
       {"note", [](const Comparison& c) { return c.note; }}},
      all(r.comparisons));
}

namespace {

// The report's sections, in report order: each returns its Markdown ("" when it has nothing to show).

// The title, what was read and the baseline, the settings, and the notes.
std::string header_section(const AnalysisReport& r) {
  const ResolvedSettings& s = r.settings;
  std::ostringstream md;
  md << "# fp4lab analysis: " << grid_name_of(r.dir) << "\n\n";
  std::string baseline_groups;
  for (const auto& g : r.groups)
    if (g.is_baseline) baseline_groups += (baseline_groups.empty() ? "`" : ", `") + g.label + "`";
  md << r.cells.size() << " cells in " << r.groups.size() << " config groups from `" << r.dir << "`"
     << (r.manifest_found ? "" : " (no manifest: cells derived from the run files)") << ". Baseline selector: "
     << (r.baseline.empty() ? std::string("(not given)") : "`" + config_label(r.baseline) + "`")
     << "; baseline group(s): " << (baseline_groups.empty() ? "none" : baseline_groups) << ".\n\n";
  md << "**Settings.** Smoothing: debiased EMA (TensorBoard's), weight " << fixed(s.ema, 3)
     << " per logged step. Target: " << target_description(s) << ", interpolated linearly in log(tokens). "
     << "Converged window: " << s.window_text() << ". Confidence intervals: " << confidence_text(s)
     << " two-sided Student t over seeds (mean ± t·sd/√n). Gaps are config − baseline in nats/token "
     << "(positive = worse); rel. % = (L_baseline − L_config)/L_baseline × 100 (negative = worse). Losses are "
     << (r.units.empty() ? "nats per token" : r.units) << "; bits/byte = loss / ln 2 / the text bytes per token.\n\n";
  if (!r.notes.empty()) {
    md << "**Notes.**\n\n";
    for (const auto& n : r.notes) md << "- " << n << "\n";
    md << "\n";
  }
  return md.str();
}

std::string summary_section(const AnalysisReport& r) {
  return section("Summary by config (mean over seeds, " + confidence_text(r.settings) + " CI)", "", summary_table(r));
}

std::string comparisons_section(const AnalysisReport& r) {
  if (r.comparisons.empty()) return "";
  const std::string conf = confidence_text(r.settings);
  return section("Comparisons (A − B, paired by seed, " + conf + " CI)",
                 "Seeds needed: at each gap's measured mean and per-seed sd, how many paired seeds give a " + conf +
                     " CI that excludes 0, and how many exclude it in 80% of reruns (t·sd/√n against the mean; — for a "
                     "bound or a single seed).",
                 comparison_table(r));
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// One ladder: the total, each climb's rungs with their sum and residual, and the order effects.
std::string ladder_section(const AnalysisReport& r, const LadderResult& l) {
  std::ostringstream md;
  const std::string conf = confidence_text(r.settings);
  auto gap_cell = [](const SeedStats& s) { return fixed(s.mean, 4, true) + " " + ci_text(s, 4); };
  if (!l.context.empty()) md << "### " << l.context << "\n\n";
  md << "Total, " << l.target << " − " << l.base << " (" << l.total.n_seeds() << " paired seeds): converged gap "
     << gap_cell(l.total.converged_gap.stats) << ", final gap " << gap_cell(l.total.final_gap.stats) << " nats, "
     << conf << " CI.\n\n";
  struct Row {
    std::string step, arm, conv, fin, tokens, note;
  };
  for (size_t k = 0; k < l.climbs.size(); ++k) {
    const LadderClimbResult& c = l.climbs[k];
    if (l.climbs.size() > 1) md << "Climb " << k + 1 << ": " << join_names(c.steps) << "\n\n";
    std::vector<Row> rows;
    for (size_t i = 0; i < c.rungs.size(); ++i) {
      const Comparison& g = c.rungs[i];
      rows.push_back({"+ " + c.steps[i], g.a, gap_cell(g.converged_gap.stats), gap_cell(g.final_gap.stats), g.token_gap_text(), g.note});
    }
    rows.push_back({"Σ of the rungs", "", gap_cell(c.sum_converged.stats), gap_cell(c.sum_final.stats), "", ""});
    rows.push_back({"residual (total − Σ)", "", gap_cell(c.residual_converged.stats), gap_cell(c.residual_final.stats), "",
                    !c.rungs.empty() && c.rungs.back().a == l.total.a ? "the climb ends at the target: 0 by construction"
                                                                      : "what the components leave out"});
    md << table<Row>({{"component added", [](const Row& x) { return x.step; }},
                      {"arm", [](const Row& x) { return x.arm; }},
                      {"converged gap (nats), " + conf + " CI", [](const Row& x) { return x.conv; }},
                      {"final gap (nats), " + conf + " CI", [](const Row& x) { return x.fin; }},
                      {"tokens the arm needs for the previous arm's final loss", [](const Row& x) { return x.tokens; }},
                      {"note", [](const Row& x) { return x.note; }}},
                     all(rows))
       << "\n";
  }
  if (!l.order.empty()) {
    md << "Order dependence: a component's marginal in a later climb minus in climb 1, paired by seed "
          "(order-dependent when a CI excludes 0).\n\n"
       << table<LadderOrderEffect>(
              {{"component", [](const LadderOrderEffect& e) { return e.component; }},
               {"climb", [](const LadderOrderEffect& e) { return std::to_string(e.climb + 1) + " vs 1"; }},
               {"converged Δ (nats)", [&](const LadderOrderEffect& e) { return gap_cell(e.converged_diff.stats); }},
               {"final Δ (nats)", [&](const LadderOrderEffect& e) { return gap_cell(e.final_diff.stats); }},
               {"order-dependent", [](const LadderOrderEffect& e) { return std::string(e.order_dependent ? "yes" : "no"); }}},
              all(l.order))
       << "\n";
  }
  if (!l.note.empty()) md << "Note: " << l.note << "\n\n";
  return md.str();
}

std::string attribution_section(const AnalysisReport& r) {
  if (r.ladders.empty()) return "";
  std::string md = "## Attribution ladder (each component's marginal effect, paired by seed)\n\n";
  for (const auto& l : r.ladders) md += ladder_section(r, l);
  return md;
}

std::string tokens_to_target_section(const AnalysisReport& r) {
  auto crossing_text = [](const Crossing& x) { return (x.reached ? "" : "> ") + tokens_text(x.tokens); };
  return section(
      "Tokens to target",
      "Per seed: target, tokens at which the curve first reaches it (\"> budget\" = never reached, censored), the "
      "same-seed baseline's tokens, and the gap T_config / T_baseline − 1.",
      table<CellResult>(
          {config_column<CellResult>(r),
           {"seed", [](const CellResult& c) { return std::to_string(c.seed); }},
           {"target (nats)", [](const CellResult& c) { return fixed(c.target, 4); }},
           {"tokens to target", [&](const CellResult& c) { return crossing_text(c.crossing); }},
           {"baseline tokens", [&](const CellResult& c) { return crossing_text(c.ref_crossing); }},
           {"token gap", [](const CellResult& c) {
              return c.is_baseline                  ? std::string("baseline")
                     : !std::isfinite(c.token_gap) ? std::string("—")
                                                    : (c.token_gap_censored ? "> " : "") + pct(c.token_gap, 1, true);
            }}},
          cells_by_group(r, [](const CellResult& c) { return c.included && std::isfinite(c.target); })));
}

std::string budget_section(const AnalysisReport& r) {
  if (!r.multi_budget) return "";
  // Matched budget and token gap: "> " a lower bound, "≤ " an upper bound.
  auto matched = [&](const BudgetFamily& f, const std::string& value) {
    if (f.is_baseline && f.reference >= 0 && &r.budget_families[size_t(f.reference)] == &f) return std::string("reference");
    if (!std::isfinite(f.reference_loss)) return std::string("—");
    if (f.crossing.match == BudgetMatch::above_all) return "> " + value;
    if (f.crossing.match == BudgetMatch::below_all) return "≤ " + value;
    return value;
  };
  auto list = [](const std::vector<double>& xs, const std::function<std::string(double)>& text) {
    std::string out;
    for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + text(xs[i]);
    return out;
  };
  const std::string conf = confidence_text(r.settings);
  return section(
      "Token budget needed to match the baseline (multi-budget form)",
      "Final loss (" + (r.budget_families.empty() ? "" : r.budget_families.front().final_loss_kind) +
          ", mean over seeds) per total budget `" + r.settings.budget_key +
          "`, interpolated piecewise-linearly in the budget to the baseline's final loss at its base budget; gap = "
          "budget / base budget − 1 (NVIDIA's \"36% more tokens\").",
      table<BudgetFamily>(
          {{"family", [](const BudgetFamily& f) { return f.label + (f.is_baseline ? " (baseline)" : ""); }},
           {"budgets", [&](const BudgetFamily& f) { return list(f.budgets, tokens_text); }},
           {"final losses", [&](const BudgetFamily& f) { return list(f.final_loss, [](double x) { return fixed(x, 4); }); }},
           {"base budget", [](const BudgetFamily& f) { return tokens_text(f.base_budget); }},
           {"reference loss", [](const BudgetFamily& f) { return fixed(f.reference_loss, 4); }},
           {"matched budget", [&](const BudgetFamily& f) { return matched(f, tokens_text(f.crossing.budget)); }},
           {"token gap", [&](const BudgetFamily& f) { return matched(f, pct(f.token_gap, 1, true)); }},
           {"per-seed " + conf + " CI", [](const BudgetFamily& f) { return ci_text(f.token_gap_seeds, 1, 100, "%"); }},
           {"note", [](const BudgetFamily& f) { return f.note; }}},
          all(r.budget_families)));
}

std::string spread_section(const AnalysisReport& r) {
  auto spread_text = [](const SpreadPosition& p, int inside, int n, const std::string& value) {
    if (p.where.empty() && !(p.censored && std::isfinite(p.spread_low))) return std::string("—");
    std::string out = (p.where.empty() ? "unknown" : p.where) + " (" + (p.censored ? "> " : "") + value;
    if (std::isfinite(p.percentile)) out += ", percentile " + fixed(p.percentile, 0);
    return out + "); " + std::to_string(inside) + "/" + std::to_string(n) + " seeds inside";
  };
  std::vector<const GroupResult*> rows;
  for (const auto& g : r.groups)
    if (!g.is_baseline && g.n_spread > 0) rows.push_back(&g);
  const std::string conf = confidence_text(r.settings);
  return section(
      "Inside the baseline's seed spread?",
      "Where each config's final loss and tokens to the spread target (the highest final loss among its baseline's "
      "seeds, so every baseline seed reaches it) fall among the baseline's seeds: the mean over its seeds against the " +
          conf +
          " prediction interval of one more baseline seed (mean ± t·sd·√(1 + 1/n)), its percentile among them, and how "
          "many of its own seeds lie inside.",
      table<GroupResult>(
          {{"config", [](const GroupResult& g) { return g.label; }},
           {"baseline", [&](const GroupResult& g) { return label_of(r, g.reference); }},
           {"final loss", [&](const GroupResult& g) {
              return spread_text(g.loss_spread, g.n_loss_inside, g.n_spread, fixed(g.loss_spread.value, 4));
            }},
           {"baseline's " + conf + " spread", [](const GroupResult& g) {
              return fixed(g.loss_spread.spread_low, 4) + "–" + fixed(g.loss_spread.spread_high, 4);
            }},
           {"spread target", [](const GroupResult& g) { return fixed(g.spread_target, 4); }},
           {"tokens to it", [&](const GroupResult& g) {
              return spread_text(g.tokens_spread, g.n_tokens_inside, g.n_spread, tokens_text(g.tokens_spread.value));
            }},
           {"baseline's " + conf + " spread (tokens)", [](const GroupResult& g) {
              return tokens_text(g.tokens_spread.spread_low) + "–" + tokens_text(g.tokens_spread.spread_high);
            }}},
          rows));
}

std::string converged_section(const AnalysisReport& r) {
  return section(
      "Converged regime and final loss per cell",
      "Paired per-step difference of the raw training loss (config − same-seed baseline) over " +
          r.settings.window_text() + "; per-step sd is the step-to-step noise of that difference.",
      table<CellResult>(
          {config_column<CellResult>(r),
           {"seed", [](const CellResult& c) { return std::to_string(c.seed); }},
           {"window steps", [](const CellResult& c) {
              const PairedGap& p = c.converged;
              return p.n_steps ? std::to_string(p.step_lo) + "–" + std::to_string(p.step_hi) + " (" + std::to_string(p.n_steps) + ")" : "—";
            }},
           {"window tokens", [](const CellResult& c) {
              const PairedGap& p = c.converged;
              return p.n_steps ? tokens_text(p.tokens_lo) + "–" + tokens_text(p.tokens_hi) : "—";
            }},
           {"mean gap (nats)", [](const CellResult& c) { return fixed(c.converged.mean_gap, 4, true); }},
           {"per-step sd", [](const CellResult& c) { return fixed(c.converged.sd_gap, 4); }},
           {"rel. %", [](const CellResult& c) { return pct(c.converged.mean_rel_pct, 2, false); }},
           {"final gap (nats)", [](const CellResult& c) { return fixed(c.final_gap, 4, true); }},
           {"final rel. %", [](const CellResult& c) { return pct(c.final_rel_pct, 2, false); }},
           {"final kind", [](const CellResult& c) { return c.final_gap_kind; }}},
          cells_by_group(r, [](const CellResult& c) { return c.included && !c.is_baseline && c.reference >= 0; })));
}

// Every cell, then a list of the failed, diverged and unreadable ones.
std::string cells_section(const AnalysisReport& r) {
  auto has_run = [](const CellResult& c) { return c.state != "pending" && c.state != "unreadable"; };
  std::ostringstream md;
  md << section(
      "Cells", "",
      table<CellResult>(
          {{"#", [](const CellResult& c) { return std::to_string(c.index); }},
           {"id", [](const CellResult& c) { return "`" + c.id + "`"; }},
           config_column<CellResult>(r),
           {"seed", [](const CellResult& c) { return std::to_string(c.seed); }},
           {"state", [](const CellResult& c) { return c.state; }},
           {"step", [&](const CellResult& c) { return has_run(c) ? std::to_string(c.last_step) : "—"; }},
           {"tokens", [&](const CellResult& c) { return has_run(c) ? tokens_text(c.tokens) : "—"; }},
           {"last train loss", [](const CellResult& c) { return fixed(c.last_train_loss, 4); }},
           {"final loss", [](const CellResult& c) {
              return std::isfinite(c.final_loss) ? fixed(c.final_loss, 4) + " (" + c.final_loss_kind + ")" : "—";
            }},
           {"note", [](const CellResult& c) { return c.message.empty() ? c.note : c.message + (c.note.empty() ? "" : "; " + c.note); }}},
          all(r.cells)));
  std::vector<const CellResult*> problems;
  for (const auto& c : r.cells)
    if (c.state == "failed" || c.state == "diverged" || c.state == "unreadable") problems.push_back(&c);
  if (!problems.empty()) {
    md << "### Failed, diverged and unreadable cells\n\n";
    for (const auto* c : problems)
      md << "- `" << c->id << "` (" << group_name(r, c->group) << ", seed " << c->seed << "): **" << c->state << "**"
         << (c->state == "unreadable" ? "" : " at step " + std::to_string(c->status_step))
         << (c->message.empty() ? "" : " — " + c->message) << "\n";
    md << "\n";
  }
  return md.str();
}

std::string throughput_section(const AnalysisReport& r) {
  return section(
      "Throughput",
      "Per config, mean over its runs of each run's median step time (steps after the first), the tokens/s and "
      "model TFLOP/s that follow (FLOPs per token: 6 x the linear weights + 12 x layers x seq_len x d_model, "
      "`flops_per_token` in the run file), and MFU = model TFLOP/s / the fp32 GEMM rate each run measured at its "
      "start with its thread count. Runs that shared the machine (`--jobs`) share its cores. Step time / baseline: "
      "the cost of the config's emulated numerics against its baseline's.",
      table<GroupResult>(
          {config_column<GroupResult>(r),
           {"runs", [](const GroupResult& g) { return std::to_string(g.step_seconds.n); }},
           {"step time (ms)", [](const GroupResult& g) { return fixed(g.step_seconds.mean * 1e3, 1); }},
           {"tokens/s", [](const GroupResult& g) { return fixed(g.tokens_per_second.mean, 0); }},
           {"model TFLOP/s", [](const GroupResult& g) { return fixed(g.model_tflops.mean, 4); }},
           {"MFU", [](const GroupResult& g) { return std::isfinite(g.mfu.mean) ? fixed(g.mfu.mean * 100, 1) + "%" : "—"; }},
           {"step time / baseline",
            [](const GroupResult& g) { return g.is_baseline ? "1 (baseline)" : fixed(g.step_time_ratio, 2); }}},
          all(r.groups)));
}

std::string coverage_section(const AnalysisReport& r) {
  return section("Coverage",
                 "Which linear layers actually ran quantized (a layer counts when a GEMM operand ran in an 8- or 4-bit "
                 "format), from each run's recipe manifest.",
                 table<GroupResult>({config_column<GroupResult>(r),
                                     {"coverage", [](const GroupResult& g) { return g.coverage.empty() ? "—" : g.coverage; }}},
                                    all(r.groups)));
}

std::string switch_section(const AnalysisReport& r) {
  std::vector<const GroupResult*> rows;
  for (const auto& g : r.groups)
    if (g.has_switch) rows.push_back(&g);
  if (rows.empty()) return "";
  const std::string conf = confidence_text(r.settings);
  auto unswitched = [&](const GroupResult& g) { return g.switch_reference >= 0 ? &r.groups[size_t(g.switch_reference)] : nullptr; };
  return section(
      "Precision switch",
      "How much of the final-loss gap a precision switch recovers: 1 − gap_switch / gap_unswitched, the unswitched "
      "config being the same config without the switch (seed means; per-seed " + conf + " CI).",
      table<GroupResult>(
          {config_column<GroupResult>(r),
           {"unswitched config", [&](const GroupResult& g) { return unswitched(g) ? group_name(r, unswitched(g)->index) : "—"; }},
           {"final gap (switch)", [](const GroupResult& g) { return fixed(g.final_gap.mean, 4, true); }},
           {"final gap (unswitched)",
            [&](const GroupResult& g) { return unswitched(g) ? fixed(unswitched(g)->final_gap.mean, 4, true) : "—"; }},
           {"recovered", [](const GroupResult& g) { return pct(g.recovered_fraction, 1, true); }},
           {"per-seed " + conf + " CI", [](const GroupResult& g) { return ci_text(g.recovered_fraction_seeds, 1, 100, "%"); }}},
          rows));
}

std::string quant_section(const AnalysisReport& r) {
  if (r.quant_summary.empty()) return "";
  return section(
      "Quantization statistics (last telemetry step; mean over tensors and seeds)",
      "What-if columns: the SQNR the same operands would have as plain nvfp4 (16, e4m3) and plain mxfp4 (32, ue8m0), "
      "1D, round to nearest. Shrinkage: Σ q·x / Σ x² − 1 against what the quantizer rounds (after any RHT); negative "
      "when quantization shrinks magnitudes. SR rms (stochastic-rounding operands): rms(mean of k extra draws − x) / "
      "rms(x) on the leading rows; unbiased SR falls as 1/√k (k=64 ≈ k=1 / 8) down to a floor: the 8-bit SR "
      "resolution and deterministic errors such as clipped block maxima.",
      table<QuantSummary>(
          {config_column<QuantSummary>(r),
           {"GEMM operand", [](const QuantSummary& q) { return q.label; }},
           {"step", [](const QuantSummary& q) { return std::to_string(q.step); }},
           {"SQNR (dB)", [](const QuantSummary& q) { return fixed(q.sqnr_db, 2); }},
           {"flushed to zero", [](const QuantSummary& q) { return fixed(q.frac_flushed * 100, 3) + "%"; }},
           {"saturated", [](const QuantSummary& q) { return fixed(q.frac_saturated * 100, 4) + "%"; }},
           {"as nvfp4 (dB)", [](const QuantSummary& q) { return fixed(q.whatif_nvfp4_sqnr_db, 2); }},
           {"as mxfp4 (dB)", [](const QuantSummary& q) { return fixed(q.whatif_mxfp4_sqnr_db, 2); }},
           {"shrinkage", [](const QuantSummary& q) { return fixed(q.bias_shrinkage, 4, true); }},
           {"SR rms k=1", [](const QuantSummary& q) { return fixed(q.sr_rms_k1, 4); }},
           {"SR rms k=64", [](const QuantSummary& q) { return fixed(q.sr_rms_k64, 4); }}},
          all(r.quant_summary)));
}

std::string gnr_section(const AnalysisReport& r) {
  if (r.gnr_summary.empty()) return "";
  return section(
      "Gradient-to-noise ratio of the weight gradients (last telemetry step)",
      "GNR = ‖dW‖ / (σ_q·√d), dW from fp32 wgrad operands, σ_q the rms of the quantized wgrad's error (Chmiel et "
      "al.). Below √3 ≈ 1.732 progress stalls: switch that layer's gradients to higher precision. Min, median and "
      "layers below √3 per run, averaged over seeds.",
      table<GnrSummary>(
          {config_column<GnrSummary>(r),
           {"step", [](const GnrSummary& g) { return std::to_string(g.step); }},
           {"layers", [](const GnrSummary& g) { return std::to_string(g.n_layers); }},
           {"min GNR", [](const GnrSummary& g) { return gnr_text(g.min_gnr); }},
           {"median GNR", [](const GnrSummary& g) { return gnr_text(g.median_gnr); }},
           {"layers < √3", [](const GnrSummary& g) { return fixed(g.n_below, 1); }},
           {"lowest layer", [](const GnrSummary& g) { return g.lowest_layer; }}},
          all(r.gnr_summary)));
}

std::string fidelity_section(const AnalysisReport& r) {
  if (r.fidelity_summary.empty()) return "";
  return section(
      "Fidelity of the GEMM outputs against an fp32 replay (last telemetry step)",
      "Each telemetry step is replayed with every GEMM in fp32 (same weights, same batch). Per GEMM output g (fprop "
      "Y, dgrad dX, wgrad dW) against the replay's g_ref: gain ⟨g, g_ref⟩/⟨g_ref, g_ref⟩ (below 1: the quantized "
      "GEMMs shrink it), relative error ‖g − g_ref‖/‖g_ref‖ and cosine; means over the linear layers, averaged over "
      "seeds. SR bias and spread: the GEMMs with a stochastically rounded operand, recomputed with 8 fresh draws on "
      "the same inputs, ‖mean − fp32‖/‖fp32‖ and the draw-to-draw spread (an unbiased rounding leaves the bias at "
      "spread/√8).",
      table<FidelitySummary>(
          {config_column<FidelitySummary>(r),
           {"GEMM", [](const FidelitySummary& f) { return to_string(f.role); }},
           {"step", [](const FidelitySummary& f) { return std::to_string(f.step); }},
           {"layers", [](const FidelitySummary& f) { return std::to_string(f.n_layers); }},
           {"gain", [](const FidelitySummary& f) { return fixed(f.gain, 4); }},
           {"rel. error", [](const FidelitySummary& f) { return fixed(f.rel_err, 4); }},
           {"cosine", [](const FidelitySummary& f) { return fixed(f.cosine, 4); }},
           {"SR bias", [](const FidelitySummary& f) { return fixed(f.sr_bias, 4); }},
           {"SR spread", [](const FidelitySummary& f) { return fixed(f.sr_rel_std, 4); }},
           {"lowest gain", [](const FidelitySummary& f) { return fixed(f.lowest_gain, 4) + " " + f.lowest_layer; }}},
          all(r.fidelity_summary)));
}

// One subsection per plot: the PNG embedded (else the SVG), and a link to the SVG when there are both.
std::string plots_section(const AnalysisReport& r, const std::vector<std::string>& images, const std::string& base_dir) {
  if (images.empty()) return "";
  std::ostringstream md;
  md << "## Plots\n\n";
  std::vector<std::string> stems;
  std::map<std::string, std::map<std::string, std::string>> by_stem;  // stem -> ext -> link
  for (const auto& img : images) {
    const fs::path p(img);
    const std::string stem = p.stem().string();
    std::string link = base_dir.empty() ? img : fs::path(img).lexically_relative(base_dir).generic_string();
    if (link.empty()) link = img;
    if (!by_stem.count(stem)) stems.push_back(stem);
    by_stem[stem][p.extension().string()] = link;
  }
  for (const auto& stem : stems) {
    const auto& links = by_stem[stem];
    const std::string title = image_title(stem, r);
    md << "### " << title << "\n\n";
    if (links.count(".png")) md << "![" << title << "](" << links.at(".png") << ")\n";
    else if (links.count(".svg")) md << "![" << title << "](" << links.at(".svg") << ")\n";
    if (links.count(".svg") && links.count(".png")) md << "\n[SVG](" << links.at(".svg") << ")\n";
    md << "\n";
  }
  return md.str();
}

std::string definitions_section(const ResolvedSettings& s) {
  return "## Definitions\n\n"
         "- **Smoothing**: TensorBoard's debiased EMA over logged steps, m_k = w·m_{k−1} + (1−w)·L_k, "
         "smoothed = m_k/(1−w^k), w = " +
         fixed(s.ema, 3) +
         ".\n"
         "- **Tokens to target**: first logged point where the curve is ≤ the target, interpolated linearly in "
         "log(tokens) from the point before; never reached → censored at the run's budget (\"> budget\"), and the "
         "token gap T_config/T_baseline − 1 is then a lower bound.\n"
         "- **Converged-regime gap**: mean over the window of the per-step paired difference of raw training loss "
         "(config − baseline, same seed, matched by step); window = " +
         s.window_text() +
         " (for the fraction rule: steps k > S − ⌈f·S⌉, S = last paired step). Also reported: the per-step sd of "
         "the difference, and NVIDIA's relative difference (L_ref − L_exp)/L_ref × 100 averaged over the window.\n"
         "- **Final-loss gap**: final validation loss (both runs have one) else final smoothed training loss, "
         "config − baseline.\n"
         "- **Seeds**: per-seed values are averaged; CI = mean ± t_{(1+c)/2, n−1}·sd/√n (Student t, Boost.Math); "
         "no CI with one seed.\n"
         "- **Gap to entropy**: final loss − the synthetic corpus's entropy rate (when the run records it).\n"
         "- **Recovered fraction** (precision switch): 1 − gap_switch / gap_unswitched of the final-loss gaps.\n"
         "- **GNR**: ‖∇W‖/(σ_q·√d) of each layer's weight gradient; √3 is the stalling threshold.\n";
}

}  // namespace

std::string to_markdown(const AnalysisReport& r, const std::vector<std::string>& images, const std::string& base_dir) {
  const std::string sections[] = {header_section(r),
                                  summary_section(r),
                                  comparisons_section(r),
                                  attribution_section(r),
                                  tokens_to_target_section(r),
                                  budget_section(r),
                                  spread_section(r),
                                  converged_section(r),
                                  cells_section(r),
                                  throughput_section(r),
                                  coverage_section(r),
                                  switch_section(r),
                                  quant_section(r),
                                  gnr_section(r),
                                  fidelity_section(r),
                                  plots_section(r, images, base_dir),
                                  definitions_section(r.settings)};
  std::string md;
  for (const std::string& s : sections) md += s;
  return md;
}

// ---------------------------------------------------------------------------- CSV

std::string to_csv(const AnalysisReport& r) {
  std::set<std::string> keys;
  for (const auto& c : r.cells)
    for (const auto& [k, v] : c.vary) keys.insert(k);
  std::ostringstream os;
  for (size_t i = 0; i < kCsvColumns.size(); ++i) os << (i ? "," : "") << kCsvColumns[i];
  for (const auto& k : keys) os << "," << csv_field("vary." + k);
  os << "\n";
  auto rows = [&](const char* level, const auto& records) {
    for (const auto& x : records) {
      CsvFields v(level);
      fields(r, x, v);
      for (size_t i = 0; i < v.row().size(); ++i) os << (i ? "," : "") << csv_field(v.row()[i]);
      for (const auto& k : keys) {
        auto it = v.vary().find(k);
        os << "," << csv_field(it == v.vary().end() ? "" : it->second);
      }
      os << "\n";
    }
  };
  rows("group", r.groups);
  rows("comparison", r.comparisons);
  for (const auto& l : r.ladders) {
    rows("ladder_total", std::vector<Comparison>{l.total});
    for (const auto& c : l.climbs) rows("ladder_rung", c.rungs);
  }
  rows("cell", r.cells);
  return os.str();
}

// ---------------------------------------------------------------------------- files

std::vector<std::string> write_report(const AnalysisReport& report, const std::string& out_dir,
                                      const ReportOptions& options) {
  fs::create_directories(out_dir);
  std::vector<std::string> written, images;
  AnalysisReport r = report;
  if (options.plots) {
    if (gnuplot_available(options.plot)) {
      images = plot_all(r, (fs::path(out_dir) / "plots").string(), options.plot);
      written = images;
    } else {
      r.notes.push_back("plots skipped: gnuplot ('" + options.plot.gnuplot + "') is not available");
    }
  }
  const fs::path dir(out_dir);
  io::write_file_atomically((dir / "analysis.json").string(), to_json(r));
  io::write_file_atomically((dir / "report.csv").string(), to_csv(r));
  io::write_file_atomically((dir / "report.md").string(), to_markdown(r, images, out_dir));
  for (const char* f : {"analysis.json", "report.csv", "report.md"}) written.push_back((dir / f).string());
  return written;
}

}  // namespace fp4lab::analysis
