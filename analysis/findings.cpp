// The findings table: one row per published claim, with a verdict by the rule in findings.hpp.
#include "analysis/findings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "analysis/json.hpp"
#include "analysis/scaling.hpp"
#include "analysis/text.hpp"

namespace fp4lab::analysis {

VerdictResult decide(const SeedStats& stats, const std::vector<double>& per_seed, const std::vector<int>& bounds,
                     int direction, double confidence) {
  VerdictResult r;
  const bool censored = std::any_of(bounds.begin(), bounds.end(), [](int b) { return b != 0; });
  if (stats.n == 0) {
    r.rule = "no paired seeds";
    return r;
  }
  if (!censored) {
    if (!stats.has_ci) {
      r.verdict = Verdict::inconclusive;
      r.rule = "one seed: no CI";
      return r;
    }
    const int sign = stats.ci_low > 0 ? 1 : stats.ci_high < 0 ? -1 : 0;
    r.verdict = sign == 0 ? Verdict::inconclusive : sign == direction ? Verdict::agrees : Verdict::contradicts;
    r.rule = sign == 0 ? "CI contains 0" : "CI excludes 0";
    if (sign == 0) r.mde = min_detectable_effect(stats, confidence);
    return r;
  }
  int positive = 0, negative = 0, n = 0;
  for (size_t i = 0; i < per_seed.size(); ++i) {
    if (!std::isfinite(per_seed[i])) continue;
    const int b = i < bounds.size() ? bounds[i] : 0;
    ++n;
    if (per_seed[i] > 0 && b >= 0) ++positive;
    if (per_seed[i] < 0 && b <= 0) ++negative;
  }
  const int k = std::max(positive, negative);
  const double p = sign_test_p(k, n);
  const int side = positive > negative ? 1 : negative > positive ? -1 : 0;
  char text[160];
  std::snprintf(text, sizeof text, "censored: sign test, %d of %d seeds %s 0 (exact two-sided p = %.4f)", k, n,
                side >= 0 ? "above" : "below", p);
  r.rule = text;
  if (side != 0 && p < 1 - confidence) r.verdict = side == direction ? Verdict::agrees : Verdict::contradicts;
  else r.verdict = Verdict::inconclusive;
  return r;
}

namespace {


std::string value_text(double x, const std::string& unit) {
  return unit == "fraction" ? fixed(x * 100, 1, true) + "%" : fixed(x, 4, true);
}

// A trend claim: the slope of the gap against model size (scaling.hpp) over the grid's sizes; the
// verdict by the slope's bootstrap interval, as a CI is read for the other claims.
FindingRow trend_row(const AnalysisReport& rep, const Claim& claim, FindingRow row) {
  const bool token = claim.metric == "token_gap_trend";
  row.unit = token ? "slope (ln(1 + gap) per ln N)" : "slope";
  ScalingOptions o;
  o.confidence = rep.settings.confidence;
  o.at = claim.at;
  const ScalingReport sr = scaling_analysis({rep}, o);
  const auto s = std::find_if(sr.series.begin(), sr.series.end(),
                              [&](const ScalingSeries& x) { return x.a == claim.a && x.b == claim.b; });
  row.a = config_label(claim.a), row.b = config_label(claim.b);
  if (s == sr.series.end()) {
    row.note = "the grid has no such comparison at two or more model sizes";
    return row;
  }
  const ScalingFit& f = token ? s->token_fit : s->loss_fit;
  if (!s->points.empty()) row.n_seeds = int(s->points.front().seeds.size());
  row.note = f.note;
  if (f.form.empty()) {
    row.verdict.rule = "no fit";
    return row;
  }
  if (f.form == "log_linear") row.unit = "nats per decade of N";
  row.estimate = f.slope, row.ci_low = f.slope_lo, row.ci_high = f.slope_hi;
  auto gap = [&](double x) { return token ? value_text(x, "fraction") : value_text(x, "nats"); };
  row.estimate_text = "b = " + fixed(f.slope, 3, true) + " [" + fixed(f.slope_lo, 3, true) + ", " + fixed(f.slope_hi, 3, true) + "] over " +
                      std::to_string(f.params.size()) + " sizes (" +
                      (f.form == "power" ? "gap ∝ N^b" : f.form == "multiplier_power" ? "1 + gap ∝ N^b" : "gap = a + b log10 N") + ")";
  if (std::isfinite(f.at))
    row.estimate_text += "; at N = " + [&] {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2g", f.at);
      return std::string(buf);
    }() + ": " + gap(f.predicted) + " [" + gap(f.predicted_lo) + ", " + gap(f.predicted_hi) + "]" +
                         (f.extrapolated ? " (extrapolation)" : "");
  const int side = f.slope_lo > 0 ? 1 : f.slope_hi < 0 ? -1 : 0;
  row.verdict.verdict = side == 0 ? Verdict::inconclusive : side == claim.direction ? Verdict::agrees : Verdict::contradicts;
  row.verdict.rule = side == 0 ? "trend: the slope's bootstrap interval contains 0" : "trend: the slope's bootstrap interval excludes 0";
  return row;
}

}  // namespace

std::vector<FindingRow> findings(const std::vector<AnalysisReport>& reports) {
  std::vector<FindingRow> rows;
  for (const AnalysisReport& rep : reports) {
    for (const Claim& claim : rep.claims) {
      FindingRow row;
      row.claim = claim;
      row.dir = rep.dir;
      row.grid = grid_name_of(rep.dir);
      row.metric = claim.metric;
      row.unit = claim.metric == "token_gap" ? "fraction" : "nats";
      if (is_trend_metric(claim.metric)) {
        rows.push_back(trend_row(rep, claim, row));
        continue;
      }
      const int ci = find_comparison(rep, claim.a, claim.b);
      if (ci < 0) {
        row.a = config_label(claim.a), row.b = config_label(claim.b);
        row.note = "the grid has no such comparison (selectors match no config)";
        rows.push_back(row);
        continue;
      }
      const Comparison& c = rep.comparisons[size_t(ci)];
      row.a = c.a, row.b = c.b;
      row.n_seeds = c.n_seeds();
      const GapStats& g = claim.metric == "token_gap" ? c.token_gap : claim.metric == "final_gap" ? c.final_gap : c.converged_gap;
      const std::vector<int> bounds = claim.metric == "token_gap" ? c.token_gap_bound : std::vector<int>{};
      row.estimate = g.stats.mean;
      row.ci_low = g.stats.ci_low;
      row.ci_high = g.stats.ci_high;
      if (claim.metric == "token_gap") row.estimate_text = c.token_gap_text() + (c.token_gap_form == "multi_budget" ? " (budgets)" : "");
      else if (g.stats.has_ci)
        row.estimate_text = value_text(g.stats.mean, row.unit) + " [" + value_text(g.stats.ci_low, row.unit) + ", " +
                            value_text(g.stats.ci_high, row.unit) + "]";
      else row.estimate_text = value_text(g.stats.mean, row.unit);
      row.verdict = decide(g.stats, g.per_seed, bounds, claim.direction, rep.settings.confidence);
      row.note = c.note;
      // Incomplete grids say so: a claim from unfinished cells is provisional.
      int pending = 0;
      for (const auto& cell : rep.cells)
        if (cell.state != "done") ++pending;
      if (pending) row.note += std::string(row.note.empty() ? "" : "; ") + std::to_string(pending) + " cells of the grid not done";
      rows.push_back(row);
    }
  }
  return rows;
}

std::string findings_markdown(const std::vector<FindingRow>& rows) {
  std::ostringstream md;
  md << "# fp4lab findings\n\n"
     << "One row per published claim (the paper and figure in its source column), each tested by a grid "
        "of `ablations/` on CPU-sized Llama models and Debian's `fortunes` text, paired by seed. "
        "Estimate: A − B, mean over seeds with its 95% Student-t CI (token gaps: tokens A needs to reach B's "
        "final loss, relative to B's). Verdict rule (`analysis/findings.hpp`, tested): **agrees** when the CI "
        "excludes 0 on the published side, **contradicts** when it excludes 0 on the other side, "
        "**inconclusive** otherwise, with the minimum detectable effect (80% power) of the design; censored "
        "token gaps use a sign test over seeds instead of a CI; a trend claim (how a gap moves with model size) is "
        "read from the slope of the gap's fit against non-embedding parameters (`fp4lab scaling`) and its "
        "bootstrap interval over seeds. A CPU-sized model is not an 8B or 12B one: a "
        "claim that only shows at scale is marked so in its grid and note.\n\n";
  md << "| # | claim | source | grid | A vs B | metric | published | fp4lab estimate | seeds | verdict | min. detectable | note |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  int i = 0;
  for (const auto& r : rows) {
    std::string note = r.claim.note;
    if (!r.note.empty()) note += (note.empty() ? "" : "; ") + r.note;
    if (!r.verdict.rule.empty()) note += (note.empty() ? "" : "; ") + r.verdict.rule;
    md << "| " << ++i << " | " << r.claim.claim << " | " << r.claim.source << " | `" << r.grid << "` | " << r.a
       << " vs " << r.b << " | " << r.metric << " | " << r.claim.published << " | " << r.estimate_text << " | "
       << r.n_seeds << " | **" << to_string(r.verdict.verdict) << "** | "
       << (std::isfinite(r.verdict.mde) ? value_text(r.verdict.mde, r.unit).substr(1) : "") << " | " << note << " |\n";
  }
  std::map<std::string, int> count;
  for (const auto& r : rows) ++count[to_string(r.verdict.verdict)];
  md << "\nVerdicts over " << rows.size() << " claims:";
  bool first = true;
  for (const auto& [verdict, n] : count) md << (first ? " " : ", ") << n << " " << verdict, first = false;
  md << ".\n";
  return md.str();
}

std::string findings_json(const std::vector<FindingRow>& rows) {
  Json j;
  j.begin_object();
  j.value("fp4lab_findings_version", 1);
  j.begin_array("findings");
  for (const auto& r : rows) {
    j.begin_object();
    j.value("id", r.claim.id).value("claim", r.claim.claim).value("source", r.claim.source);
    j.value("published", r.claim.published)
        .value("direction", is_trend_metric(r.metric) ? (r.claim.direction > 0 ? "grows" : "shrinks")
                                                      : (r.claim.direction > 0 ? "a_worse" : "a_better"));
    j.value("grid", r.grid).value("dir", r.dir).value("a", r.a).value("b", r.b);
    j.value("metric", r.metric).value("unit", r.unit).value("n_seeds", r.n_seeds);
    j.value("estimate", r.estimate).value("ci_low", r.ci_low).value("ci_high", r.ci_high).value("text", r.estimate_text);
    j.value("verdict", to_string(r.verdict.verdict)).value("rule", r.verdict.rule).value("min_detectable_effect", r.verdict.mde);
    j.value("claim_note", r.claim.note).value("note", r.note);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

}  // namespace fp4lab::analysis
