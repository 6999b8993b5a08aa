// JSON / Markdown / CSV renderings of an AnalysisReport and the atomic report writer. JSON is
// written by hand (a small indenting writer); names are documented in results/SCHEMA.md.
#include "analysis/report.hpp"

#include "analysis/json.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace fp4lab::analysis {
namespace fs = std::filesystem;

namespace {

void stats(Json& j, const char* key, const SeedStats& s, double confidence) {
  j.begin_object(key)
      .value("n", s.n)
      .value("mean", s.mean)
      .value("sd", s.sd)
      .value("ci_low", s.ci_low)
      .value("ci_high", s.ci_high)
      .value("ci_level", s.has_ci ? confidence : kNaN)
      .value("t", s.t)
      .end_object();
}

const char* match_name(BudgetMatch m) {
  switch (m) {
    case BudgetMatch::inside: return "inside";
    case BudgetMatch::above_all: return "above_all";
    case BudgetMatch::below_all: return "below_all";
  }
  return "";
}

// ---------------------------------------------------------------------------- formatting

std::string fixed(double x, int digits, bool sign = false) {
  if (!std::isfinite(x)) return "—";
  char buf[64];
  std::snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", digits, x);
  return buf;
}

std::string pct(double fraction_or_pct, int digits, bool is_fraction) {
  if (!std::isfinite(fraction_or_pct)) return "—";
  return fixed(is_fraction ? fraction_or_pct * 100 : fraction_or_pct, digits, true) + "%";
}

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
  return "[" + fixed(s.ci_low * scale, digits, true) + unit + ", " + fixed(s.ci_high * scale, digits, true) + unit + "]";
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

// Cell indices ordered by config group, then seed, then cell index (for per-seed tables).
std::vector<int> cells_by_group(const AnalysisReport& r) {
  std::vector<int> order(r.cells.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const CellResult &x = r.cells[a], &y = r.cells[b];
    return std::tie(x.group, x.seed, x.index) < std::tie(y.group, y.seed, y.index);
  });
  return order;
}

}  // namespace

// ---------------------------------------------------------------------------- JSON

std::string to_json(const AnalysisReport& r) {
  const double conf = r.settings.confidence;
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
      .value("confidence", conf)
      .end_object();
  j.map("baseline", r.baseline);
  j.begin_array("vary_keys");
  for (const auto& k : r.vary_keys) j.value(nullptr, k);
  j.end_array();
  j.value("multi_budget", r.multi_budget);
  j.begin_array("notes");
  for (const auto& n : r.notes) j.value(nullptr, n);
  j.end_array();

  j.begin_array("groups");
  for (const auto& g : r.groups) {
    j.begin_object();
    j.value("index", g.index).value("label", g.label).map("vary", g.vary).value("is_baseline", g.is_baseline);
    j.value("reference", g.reference >= 0 ? r.groups[g.reference].label : std::string());
    j.begin_array("cells");
    for (int c : g.cells) j.value(nullptr, r.cells[c].id);
    j.end_array();
    j.value("n_cells", g.n_cells).value("n_included", g.n_included);
    stats(j, "converged_gap", g.converged_gap, conf);
    stats(j, "converged_rel_pct", g.converged_rel_pct, conf);
    stats(j, "converged_step_sd", g.converged_step_sd, conf);
    j.value("window_step_lo", g.window_step_lo).value("window_step_hi", g.window_step_hi);
    j.value("window_tokens_lo", g.window_tokens_lo).value("window_tokens_hi", g.window_tokens_hi);
    stats(j, "final_loss", g.final_loss, conf);
    stats(j, "final_gap", g.final_gap, conf);
    stats(j, "final_rel_pct", g.final_rel_pct, conf);
    stats(j, "target", g.target, conf);
    stats(j, "tokens_to_target", g.tokens_to_target, conf);
    stats(j, "token_gap", g.token_gap, conf);
    j.value("token_gap_censored", g.token_gap_censored).value("n_censored", g.n_censored);
    stats(j, "entropy_gap", g.entropy_gap, conf);
    stats(j, "step_seconds", g.step_seconds, conf);
    stats(j, "tokens_per_second", g.tokens_per_second, conf);
    stats(j, "model_tflops", g.model_tflops, conf);
    stats(j, "mfu", g.mfu, conf);
    j.value("step_time_ratio", g.step_time_ratio);
    j.value("coverage", g.coverage).value("has_switch", g.has_switch);
    j.value("switch_reference", g.switch_reference >= 0 ? r.groups[g.switch_reference].label : std::string());
    j.value("recovered_fraction", g.recovered_fraction);
    stats(j, "recovered_fraction_seeds", g.recovered_fraction_seeds, conf);
    j.value("note", g.note);
    j.end_object();
  }
  j.end_array();

  j.begin_array("cells");
  for (const auto& c : r.cells) {
    j.begin_object();
    j.value("index", c.index).value("id", c.id).value("file", c.file).value("seed", c.seed).map("vary", c.vary);
    j.value("group", c.group >= 0 ? r.groups[c.group].label : std::string()).value("is_baseline", c.is_baseline);
    j.value("state", c.state).value("status_step", c.status_step).value("message", c.message);
    j.value("steps", c.steps).value("last_step", c.last_step).value("tokens", c.tokens);
    j.value("last_train_loss", c.last_train_loss).value("final_train_ema", c.final_train_ema);
    j.value("final_val_loss", c.final_val_loss).value("final_loss", c.final_loss);
    j.value("final_loss_kind", c.final_loss_kind);
    j.value("entropy_rate", c.entropy_rate >= 0 ? c.entropy_rate : kNaN).value("entropy_gap", c.entropy_gap);
    j.value("included", c.included);
    j.value("reference", c.reference >= 0 ? r.cells[c.reference].id : std::string());
    j.value("target", c.target);
    j.value("reached", c.crossing.reached).value("tokens_to_target", c.crossing.tokens);
    j.value("baseline_reached", c.ref_crossing.reached).value("baseline_tokens_to_target", c.ref_crossing.tokens);
    j.value("token_gap", c.token_gap).value("token_gap_censored", c.token_gap_censored);
    j.begin_object("converged")
        .value("n_steps", c.converged.n_steps)
        .value("step_lo", c.converged.step_lo)
        .value("step_hi", c.converged.step_hi)
        .value("tokens_lo", c.converged.tokens_lo)
        .value("tokens_hi", c.converged.tokens_hi)
        .value("mean_gap", c.converged.mean_gap)
        .value("sd_gap", c.converged.sd_gap)
        .value("mean_rel_pct", c.converged.mean_rel_pct)
        .end_object();
    j.value("final_gap", c.final_gap).value("final_rel_pct", c.final_rel_pct).value("final_gap_kind", c.final_gap_kind);
    j.value("coverage", c.coverage).value("model_params", c.model_params);
    j.value("step_seconds", c.step_seconds).value("tokens_per_second", c.tokens_per_second);
    j.value("model_tflops", c.model_tflops).value("gemm_peak_gflops", c.gemm_peak_gflops).value("mfu", c.mfu);
    j.value("threads", c.threads);
    j.value("note", c.note);
    j.end_object();
  }
  j.end_array();

  j.begin_array("budget_families");
  for (size_t fi = 0; fi < r.budget_families.size(); ++fi) {
    const BudgetFamily& f = r.budget_families[fi];
    const bool is_reference = f.reference == static_cast<int>(fi);
    j.begin_object();
    j.value("label", f.label).map("vary", f.vary).value("is_baseline", f.is_baseline);
    j.value("reference", f.reference >= 0 ? r.budget_families[f.reference].label : std::string());
    j.begin_array("budgets");
    for (double b : f.budgets) j.value(nullptr, b);
    j.end_array();
    j.begin_array("final_loss");
    for (double l : f.final_loss) j.value(nullptr, l);
    j.end_array();
    j.begin_array("n_seeds");
    for (int s : f.n_seeds) j.value(nullptr, s);
    j.end_array();
    j.value("final_loss_kind", f.final_loss_kind);
    j.value("base_budget", f.base_budget).value("reference_loss", f.reference_loss);
    j.value("match", is_reference ? "reference" : match_name(f.crossing.match));
    j.value("matched_budget", is_reference ? kNaN : f.crossing.budget);
    j.value("token_gap", f.token_gap);
    stats(j, "token_gap_seeds", f.token_gap_seeds, conf);
    j.value("note", f.note);
    j.end_object();
  }
  j.end_array();

  j.begin_array("comparisons");
  for (const auto& c : r.comparisons) {
    auto gap = [&](const char* key, const GapStats& g, bool with_ci) {
      j.begin_object(key).value("n", g.stats.n).value("mean", g.stats.mean).value("sd", g.stats.sd);
      j.value("ci_low", with_ci ? g.stats.ci_low : kNaN).value("ci_high", with_ci ? g.stats.ci_high : kNaN);
      j.value("ci_level", with_ci && g.stats.has_ci ? conf : kNaN);
      j.begin_array("per_seed");
      for (double x : g.per_seed) j.value(nullptr, x);
      j.end_array();
    };
    j.begin_object();
    j.value("a", c.a).value("b", c.b).map("a_selector", c.a_selector).map("b_selector", c.b_selector);
    j.value("n_seeds", c.n_seeds());
    j.begin_array("seeds");
    for (int64_t seed : c.seeds) j.value(nullptr, seed);
    j.end_array();
    gap("converged_gap", c.converged_gap, true);
    j.value("window_step_lo", c.window_step_lo).value("window_step_hi", c.window_step_hi).end_object();
    gap("final_gap", c.final_gap, true);
    j.value("kind", c.final_gap_kind).end_object();
    gap("token_gap", c.token_gap, true);
    j.value("form", c.token_gap_form).value("censored", c.token_gap_censored).value("below", c.token_gap_below);
    j.value("lower_bound", c.token_gap_censored > 0).value("text", c.token_gap_text()).end_object();
    j.value("note", c.note);
    j.end_object();
  }
  j.end_array();

  j.begin_array("quant");
  for (const auto& q : r.quant_summary) {
    j.begin_object()
        .value("group", r.groups[q.group].label)
        .value("operand", q.label)
        .value("step", q.step)
        .value("sqnr_db", q.sqnr_db)
        .value("frac_flushed", q.frac_flushed)
        .value("frac_saturated", q.frac_saturated)
        .value("whatif_nvfp4_sqnr_db", q.whatif_nvfp4_sqnr_db)
        .value("whatif_mxfp4_sqnr_db", q.whatif_mxfp4_sqnr_db)
        .value("bias_shrinkage", q.bias_shrinkage)
        .value("sr_rms_k1", q.sr_rms_k1)
        .value("sr_rms_k64", q.sr_rms_k64)
        .end_object();
  }
  j.end_array();
  j.begin_array("gnr");
  for (const auto& g : r.gnr_summary) {
    j.begin_object()
        .value("group", r.groups[g.group].label)
        .value("step", g.step)
        .value("n_layers", g.n_layers)
        .value("min_gnr", g.min_gnr)
        .value("median_gnr", g.median_gnr)
        .value("n_below_threshold", g.n_below)
        .value("threshold", kGnrThreshold)
        .value("lowest_layer", g.lowest_layer)
        .end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

// ---------------------------------------------------------------------------- Markdown

std::string summary_table(const AnalysisReport& r) {
  const std::string conf = fixed(r.settings.confidence * 100, 0) + "%";
  int baselines = 0;
  for (const auto& g : r.groups) baselines += g.is_baseline;
  const bool show_reference = baselines > 1;  // say which baseline each config is compared with
  std::vector<std::string> names = {"config", "seeds", "converged gap (nats)", conf + " CI", "per-step sd",
                                    "converged rel. %", "final loss", "final gap (nats)", conf + " CI",
                                    "final rel. %", "token gap", "gap to entropy", "note"};
  if (show_reference) names.insert(names.begin() + 1, "vs baseline");
  std::string out = header_row(names);
  for (const auto& g : r.groups) {
    const std::string seeds = std::to_string(g.n_included) + (g.n_included != g.n_cells ? "/" + std::to_string(g.n_cells) : "");
    std::vector<std::string> cells;
    if (g.is_baseline)
      cells = {group_name(r, g.index), seeds, "baseline", "", "", "", fixed(g.final_loss.mean, 4), "", "", "", "",
               fixed(g.entropy_gap.mean, 4), g.note};
    else
      cells = {group_name(r, g.index), seeds, fixed(g.converged_gap.mean, 4, true), ci_text(g.converged_gap, 4),
               fixed(g.converged_step_sd.mean, 4), pct(g.converged_rel_pct.mean, 2, false),
               fixed(g.final_loss.mean, 4), fixed(g.final_gap.mean, 4, true), ci_text(g.final_gap, 4),
               pct(g.final_rel_pct.mean, 2, false), token_gap_text(g), fixed(g.entropy_gap.mean, 4), g.note};
    if (show_reference) cells.insert(cells.begin() + 1, g.is_baseline ? "" : group_name(r, g.reference));
    out += row(cells);
  }
  return out;
}

std::string comparison_table(const AnalysisReport& r) {
  if (r.comparisons.empty()) return "";
  std::string out = header_row({"A", "B", "seeds", "converged gap A − B (nats)", "CI", "final gap A − B (nats)", "CI",
                                "tokens A needs for B's final loss", "note"});
  for (const auto& c : r.comparisons) {
    const std::string form = c.token_gap_form == "multi_budget" ? " (budgets)" : "";
    out += row({c.a, c.b, std::to_string(c.n_seeds()), fixed(c.converged_gap.stats.mean, 4, true),
                ci_text(c.converged_gap.stats, 4), fixed(c.final_gap.stats.mean, 4, true) + " (" + c.final_gap_kind + ")",
                ci_text(c.final_gap.stats, 4), c.token_gap_text() + form, c.note});
  }
  return out;
}

std::string to_markdown(const AnalysisReport& r, const std::vector<std::string>& images, const std::string& base_dir) {
  const ResolvedSettings& s = r.settings;
  const std::string conf = fixed(s.confidence * 100, 0) + "%";
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
     << "Converged window: " << s.window_text() << ". Confidence intervals: " << conf
     << " two-sided Student t over seeds (mean ± t·sd/√n). Gaps are config − baseline in nats/token "
     << "(positive = worse); rel. % = (L_baseline − L_config)/L_baseline × 100 (negative = worse).\n\n";
  if (!r.notes.empty()) {
    md << "**Notes.**\n\n";
    for (const auto& n : r.notes) md << "- " << n << "\n";
    md << "\n";
  }

  md << "## Summary by config (mean over seeds, " << conf << " CI)\n\n" << summary_table(r) << "\n";

  if (!r.comparisons.empty()) md << "## Comparisons (A − B, paired by seed, " << conf << " CI)\n\n" << comparison_table(r) << "\n";

  md << "## Tokens to target\n\n";
  md << "Per seed: target, tokens at which the curve first reaches it (\"> budget\" = never reached, "
        "censored), the same-seed baseline's tokens, and the gap T_config / T_baseline − 1.\n\n";
  md << header_row({"config", "seed", "target (nats)", "tokens to target", "baseline tokens", "token gap"});
  for (int ci : cells_by_group(r)) {
    const CellResult& c = r.cells[ci];
    if (!c.included || !std::isfinite(c.target)) continue;
    const std::string t = c.crossing.reached ? tokens_text(c.crossing.tokens) : "> " + tokens_text(c.crossing.tokens);
    const std::string tb = c.ref_crossing.reached ? tokens_text(c.ref_crossing.tokens) : "> " + tokens_text(c.ref_crossing.tokens);
    const std::string gap = c.is_baseline ? "baseline"
                            : !std::isfinite(c.token_gap) ? "—"
                            : (c.token_gap_censored ? "> " : "") + pct(c.token_gap, 1, true);
    md << row({group_name(r, c.group), std::to_string(c.seed), fixed(c.target, 4), t, tb, gap});
  }
  md << "\n";

  if (r.multi_budget) {
    md << "## Token budget needed to match the baseline (multi-budget form)\n\n";
    md << "Final loss (" << (r.budget_families.empty() ? "" : r.budget_families.front().final_loss_kind)
       << ", mean over seeds) per total budget `" << s.budget_key
       << "`, interpolated piecewise-linearly in the budget to the baseline's final loss at its base budget; "
          "gap = budget / base budget − 1 (NVIDIA's \"36% more tokens\").\n\n";
    md << header_row({"family", "budgets", "final losses", "base budget", "reference loss", "matched budget", "token gap",
                      "per-seed " + conf + " CI", "note"});
    for (const auto& f : r.budget_families) {
      std::string budgets, losses;
      for (size_t i = 0; i < f.budgets.size(); ++i) {
        budgets += (i ? ", " : "") + tokens_text(f.budgets[i]);
        losses += (i ? ", " : "") + fixed(f.final_loss[i], 4);
      }
      std::string matched = tokens_text(f.crossing.budget), gap = pct(f.token_gap, 1, true);
      if (f.crossing.match == BudgetMatch::above_all) matched = "> " + matched, gap = "> " + gap;
      if (f.crossing.match == BudgetMatch::below_all) matched = "≤ " + matched, gap = "≤ " + gap;
      if (!std::isfinite(f.reference_loss)) matched = gap = "—";
      if (f.is_baseline && f.reference >= 0 && &r.budget_families[f.reference] == &f) matched = gap = "reference";
      md << row({f.label + (f.is_baseline ? " (baseline)" : ""), budgets, losses, tokens_text(f.base_budget),
                 fixed(f.reference_loss, 4), matched, gap, ci_text(f.token_gap_seeds, 1, 100, "%"), f.note});
    }
    md << "\n";
  }

  md << "## Converged regime and final loss per cell\n\n";
  md << "Paired per-step difference of the raw training loss (config − same-seed baseline) over "
     << s.window_text() << "; per-step sd is the step-to-step noise of that difference.\n\n";
  md << header_row({"config", "seed", "window steps", "window tokens", "mean gap (nats)", "per-step sd", "rel. %",
                    "final gap (nats)", "final rel. %", "final kind"});
  for (int ci : cells_by_group(r)) {
    const CellResult& c = r.cells[ci];
    if (!c.included || c.is_baseline || c.reference < 0) continue;
    const PairedGap& p = c.converged;
    md << row({group_name(r, c.group), std::to_string(c.seed),
               p.n_steps ? std::to_string(p.step_lo) + "–" + std::to_string(p.step_hi) + " (" + std::to_string(p.n_steps) + ")" : "—",
               p.n_steps ? tokens_text(p.tokens_lo) + "–" + tokens_text(p.tokens_hi) : "—", fixed(p.mean_gap, 4, true),
               fixed(p.sd_gap, 4), pct(p.mean_rel_pct, 2, false), fixed(c.final_gap, 4, true),
               pct(c.final_rel_pct, 2, false), c.final_gap_kind});
  }
  md << "\n";

  md << "## Cells\n\n";
  md << header_row({"#", "id", "config", "seed", "state", "step", "tokens", "last train loss", "final loss", "note"});
  for (const auto& c : r.cells) {
    const bool no_run = c.state == "pending" || c.state == "unreadable";
    const std::string step = no_run ? "—" : std::to_string(c.last_step);
    std::string note = c.note;
    if (!c.message.empty()) note = c.message + (note.empty() ? "" : "; " + note);
    md << row({std::to_string(c.index), "`" + c.id + "`", group_name(r, c.group), std::to_string(c.seed), c.state, step,
               no_run ? "—" : tokens_text(c.tokens), fixed(c.last_train_loss, 4),
               std::isfinite(c.final_loss) ? fixed(c.final_loss, 4) + " (" + c.final_loss_kind + ")" : "—", note});
  }
  md << "\n";
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

  md << "## Throughput\n\n";
  md << "Per config, mean over its runs of each run's median step time (steps after the first), the tokens/s and "
        "model TFLOP/s that follow (FLOPs per token: 6 x the linear weights + 12 x layers x seq_len x d_model, "
        "`flops_per_token` in the run file), and MFU = model TFLOP/s / the fp32 GEMM rate each run measured at its "
        "start with its thread count. Runs that shared the machine (`--jobs`) share its cores. Step time / baseline: "
        "the cost of the config's emulated numerics against its baseline's.\n\n";
  md << header_row({"config", "runs", "step time (ms)", "tokens/s", "model TFLOP/s", "MFU", "step time / baseline"});
  for (const auto& g : r.groups)
    md << row({group_name(r, g.index), std::to_string(g.step_seconds.n), fixed(g.step_seconds.mean * 1e3, 1),
               fixed(g.tokens_per_second.mean, 0), fixed(g.model_tflops.mean, 4), std::isfinite(g.mfu.mean) ? fixed(g.mfu.mean * 100, 1) + "%" : "—",
               g.is_baseline ? "1 (baseline)" : fixed(g.step_time_ratio, 2)});
  md << "\n";

  md << "## Coverage\n\n";
  md << "Which linear layers actually ran quantized (a layer counts when a GEMM operand ran in an 8- or 4-bit "
        "format), from each run's recipe manifest.\n\n";
  md << header_row({"config", "coverage"});
  for (const auto& g : r.groups) md << row({group_name(r, g.index), g.coverage.empty() ? "—" : g.coverage});
  md << "\n";

  bool any_switch = false;
  for (const auto& g : r.groups) any_switch = any_switch || g.has_switch;
  if (any_switch) {
    md << "## Precision switch\n\n";
    md << "How much of the final-loss gap a precision switch recovers: 1 − gap_switch / gap_unswitched, the "
          "unswitched config being the same config without the switch (seed means; per-seed " << conf << " CI).\n\n";
    md << header_row({"config", "unswitched config", "final gap (switch)", "final gap (unswitched)", "recovered",
                      "per-seed " + conf + " CI"});
    for (const auto& g : r.groups) {
      if (!g.has_switch) continue;
      const GroupResult* u = g.switch_reference >= 0 ? &r.groups[g.switch_reference] : nullptr;
      md << row({group_name(r, g.index), u ? group_name(r, u->index) : "—", fixed(g.final_gap.mean, 4, true),
                 u ? fixed(u->final_gap.mean, 4, true) : "—", pct(g.recovered_fraction, 1, true),
                 ci_text(g.recovered_fraction_seeds, 1, 100, "%")});
    }
    md << "\n";
  }

  if (!r.quant_summary.empty()) {
    md << "## Quantization statistics (last telemetry step; mean over tensors and seeds)\n\n";
    md << "What-if columns: the SQNR the same operands would have as plain nvfp4 (16, e4m3) and plain mxfp4 "
          "(32, ue8m0), 1D, round to nearest. Shrinkage: Σ q·x / Σ x² − 1 against what the quantizer rounds "
          "(after any RHT); negative when quantization shrinks magnitudes. SR rms (stochastic-rounding operands): "
          "rms(mean of k extra draws − x) / rms(x) on the leading rows; unbiased SR falls as 1/√k (k=64 ≈ k=1 / 8) "
          "down to a floor: the 8-bit SR resolution and deterministic errors such as clipped block maxima.\n\n";
    md << header_row({"config", "GEMM operand", "step", "SQNR (dB)", "flushed to zero", "saturated",
                      "as nvfp4 (dB)", "as mxfp4 (dB)", "shrinkage", "SR rms k=1", "SR rms k=64"});
    for (const auto& q : r.quant_summary)
      md << row({group_name(r, q.group), q.label, std::to_string(q.step), fixed(q.sqnr_db, 2),
                 fixed(q.frac_flushed * 100, 3) + "%", fixed(q.frac_saturated * 100, 4) + "%",
                 fixed(q.whatif_nvfp4_sqnr_db, 2), fixed(q.whatif_mxfp4_sqnr_db, 2),
                 fixed(q.bias_shrinkage, 4, true), fixed(q.sr_rms_k1, 4), fixed(q.sr_rms_k64, 4)});
    md << "\n";
  }

  if (!r.gnr_summary.empty()) {
    md << "## Gradient-to-noise ratio of the weight gradients (last telemetry step)\n\n";
    md << "GNR = ‖dW‖ / (σ_q·√d), dW from fp32 wgrad operands, σ_q the rms of the quantized wgrad's error "
          "(Chmiel et al.). Below √3 ≈ 1.732 progress stalls: switch that layer's gradients to higher precision. "
          "Min, median and layers below √3 per run, averaged over seeds.\n\n";
    md << header_row({"config", "step", "layers", "min GNR", "median GNR", "layers < √3", "lowest layer"});
    for (const auto& g : r.gnr_summary)
      md << row({group_name(r, g.group), std::to_string(g.step), std::to_string(g.n_layers), gnr_text(g.min_gnr),
                 gnr_text(g.median_gnr), fixed(g.n_below, 1), g.lowest_layer});
    md << "\n";
  }

  if (!images.empty()) {
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
  }

  md << "## Definitions\n\n"
     << "- **Smoothing**: TensorBoard's debiased EMA over logged steps, m_k = w·m_{k−1} + (1−w)·L_k, "
        "smoothed = m_k/(1−w^k), w = "
     << fixed(s.ema, 3) << ".\n"
     << "- **Tokens to target**: first logged point where the curve is ≤ the target, interpolated linearly in "
        "log(tokens) from the point before; never reached → censored at the run's budget (\"> budget\"), and the "
        "token gap T_config/T_baseline − 1 is then a lower bound.\n"
     << "- **Converged-regime gap**: mean over the window of the per-step paired difference of raw training loss "
        "(config − baseline, same seed, matched by step); window = "
     << s.window_text()
     << " (for the fraction rule: steps k > S − ⌈f·S⌉, S = last paired step). Also reported: the per-step sd of "
        "the difference, and NVIDIA's relative difference (L_ref − L_exp)/L_ref × 100 averaged over the window.\n"
     << "- **Final-loss gap**: final validation loss (both runs have one) else final smoothed training loss, "
        "config − baseline.\n"
     << "- **Seeds**: per-seed values are averaged; CI = mean ± t_{(1+c)/2, n−1}·sd/√n (Student t, Boost.Math); "
        "no CI with one seed.\n"
     << "- **Gap to entropy**: final loss − the synthetic corpus's entropy rate (when the run records it).\n"
     << "- **Recovered fraction** (precision switch): 1 − gap_switch / gap_unswitched of the final-loss gaps.\n"
     << "- **GNR**: ‖∇W‖/(σ_q·√d) of each layer's weight gradient; √3 is the stalling threshold.\n";
  return md.str();
}

// ---------------------------------------------------------------------------- CSV

std::string to_csv(const AnalysisReport& r) {
  std::set<std::string> keys;
  for (const auto& c : r.cells)
    for (const auto& [k, v] : c.vary) keys.insert(k);
  std::ostringstream os;
  const std::vector<std::string> cols = {
      "level", "group", "config", "is_baseline", "index", "id", "seed", "state", "step", "tokens", "n_seeds",
      "final_loss", "final_loss_kind", "final_gap", "final_gap_ci_low", "final_gap_ci_high", "final_rel_pct",
      "conv_gap", "conv_gap_ci_low", "conv_gap_ci_high", "conv_step_sd", "conv_rel_pct", "conv_rel_pct_ci_low",
      "conv_rel_pct_ci_high", "window_step_lo", "window_step_hi", "window_tokens_lo", "window_tokens_hi", "target",
      "tokens_to_target", "baseline_tokens_to_target", "token_gap", "token_gap_censored", "token_gap_ci_low",
      "token_gap_ci_high", "entropy_gap", "recovered_fraction", "coverage", "note"};
  for (size_t i = 0; i < cols.size(); ++i) os << (i ? "," : "") << cols[i];
  for (const auto& k : keys) os << "," << csv_field("vary." + k);
  os << "\n";
  auto emit = [&](const std::vector<std::string>& f, const std::map<std::string, std::string>& vary) {
    for (size_t i = 0; i < f.size(); ++i) os << (i ? "," : "") << csv_field(f[i]);
    for (const auto& k : keys) {
      auto it = vary.find(k);
      os << "," << csv_field(it == vary.end() ? "" : it->second);
    }
    os << "\n";
  };
  for (const auto& g : r.groups) {
    emit({"group", std::to_string(g.index), g.label, g.is_baseline ? "1" : "0", "", "", "", "", "", "",
          std::to_string(g.n_included), csv_num(g.final_loss.mean), "", csv_num(g.final_gap.mean),
          csv_num(g.final_gap.ci_low), csv_num(g.final_gap.ci_high), csv_num(g.final_rel_pct.mean),
          csv_num(g.converged_gap.mean), csv_num(g.converged_gap.ci_low), csv_num(g.converged_gap.ci_high),
          csv_num(g.converged_step_sd.mean), csv_num(g.converged_rel_pct.mean), csv_num(g.converged_rel_pct.ci_low),
          csv_num(g.converged_rel_pct.ci_high), g.window_step_hi ? std::to_string(g.window_step_lo) : "",
          g.window_step_hi ? std::to_string(g.window_step_hi) : "", csv_num(g.window_tokens_lo),
          csv_num(g.window_tokens_hi), csv_num(g.target.mean), csv_num(g.tokens_to_target.mean), "",
          csv_num(g.token_gap.mean), g.token_gap_censored ? "1" : "0", csv_num(g.token_gap.ci_low),
          csv_num(g.token_gap.ci_high), csv_num(g.entropy_gap.mean), csv_num(g.recovered_fraction), g.coverage,
          g.note},
         g.vary);
  }
  for (const auto& c : r.comparisons) {
    const SeedStats &fg = c.final_gap.stats, &cg = c.converged_gap.stats, &tg = c.token_gap.stats;
    std::vector<std::string> f(cols.size());
    auto set = [&](const char* col, const std::string& v) {
      f[size_t(std::find(cols.begin(), cols.end(), col) - cols.begin())] = v;
    };
    set("level", "comparison");
    set("config", c.a + " vs " + c.b);
    set("is_baseline", "0");
    set("n_seeds", std::to_string(c.n_seeds()));
    set("final_loss_kind", c.final_gap_kind);
    set("final_gap", csv_num(fg.mean)), set("final_gap_ci_low", csv_num(fg.ci_low)), set("final_gap_ci_high", csv_num(fg.ci_high));
    set("conv_gap", csv_num(cg.mean)), set("conv_gap_ci_low", csv_num(cg.ci_low)), set("conv_gap_ci_high", csv_num(cg.ci_high));
    set("token_gap", csv_num(tg.mean)), set("token_gap_ci_low", csv_num(tg.ci_low)), set("token_gap_ci_high", csv_num(tg.ci_high));
    set("token_gap_censored", std::to_string(c.token_gap_censored));
    set("note", c.note);
    emit(f, {});
  }
  for (const auto& c : r.cells) {
    const PairedGap& p = c.converged;
    emit({"cell", std::to_string(c.group), c.group >= 0 ? r.groups[c.group].label : "", c.is_baseline ? "1" : "0",
          std::to_string(c.index), c.id, std::to_string(c.seed), c.state, std::to_string(c.last_step), csv_num(c.tokens),
          "1", csv_num(c.final_loss), c.final_loss_kind, csv_num(c.final_gap), "", "", csv_num(c.final_rel_pct),
          csv_num(p.mean_gap), "", "", csv_num(p.sd_gap), csv_num(p.mean_rel_pct), "", "",
          p.n_steps ? std::to_string(p.step_lo) : "", p.n_steps ? std::to_string(p.step_hi) : "", csv_num(p.tokens_lo),
          csv_num(p.tokens_hi), csv_num(c.target), c.crossing.reached ? csv_num(c.crossing.tokens) : "",
          c.ref_crossing.reached ? csv_num(c.ref_crossing.tokens) : "", csv_num(c.token_gap),
          c.token_gap_censored ? "1" : "0", "", "", csv_num(c.entropy_gap), "", c.coverage,
          c.message.empty() ? c.note : c.message + (c.note.empty() ? "" : "; " + c.note)},
         c.vary);
  }
  return os.str();
}

// ---------------------------------------------------------------------------- files

void write_file_atomic(const std::string& path, const std::string& content) {
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const fs::path tmp = dir / ("." + p.filename().string() + ".tmp." + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
    out << content;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp);
    throw std::runtime_error("cannot rename " + tmp.string() + " to " + path + ": " + ec.message());
  }
}

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
  write_file_atomic((dir / "analysis.json").string(), to_json(r));
  write_file_atomic((dir / "report.csv").string(), to_csv(r));
  write_file_atomic((dir / "report.md").string(), to_markdown(r, images, out_dir));
  for (const char* f : {"analysis.json", "report.csv", "report.md"}) written.push_back((dir / f).string());
  return written;
}

}  // namespace fp4lab::analysis
