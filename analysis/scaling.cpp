// The scaling analysis (scaling.hpp): series of paired comparisons across model sizes, effN/effD,
// gap-vs-size fits with a bootstrap over seeds, and their Markdown/JSON/CSV forms.
#include "analysis/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "analysis/json.hpp"

namespace fp4lab::analysis {

namespace {

// The standard error of fit_y for one size's per-seed gaps (delta method for the power form's log).
double fit_y_se(const std::string& form, const std::vector<double>& v) {
  std::vector<double> t;
  for (double g : v) t.push_back(form == "multiplier_power" ? std::log1p(g) : g);
  const SeedStats s = seed_stats(t);
  const double se = s.sd / std::sqrt(double(s.n));
  return form == "power" ? se / s.mean : se;
}

std::string sci(double x) {
  if (!std::isfinite(x)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

std::string fixed(double x, int digits, bool sign = true) {
  if (!std::isfinite(x)) return "—";
  char buf[48];
  std::snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", digits, x);
  return buf;
}

std::string pct(double fraction) { return std::isfinite(fraction) ? fixed(fraction * 100, 1) + "%" : "—"; }

// The transformed per-size value a form fits, from one size's per-seed gaps (NaN: not defined).
double fit_y(const std::string& form, const std::vector<double>& v) {
  if (form == "multiplier_power") {
    std::vector<double> logs;
    for (double g : v) {
      if (!(g > -1)) return kNaN;
      logs.push_back(std::log1p(g));
    }
    return mean_of(logs);
  }
  const double m = mean_of(v);
  if (form == "power") return m > 0 ? std::log(m) : kNaN;
  return m;  // log_linear
}

double fit_x(const std::string& form, double params) { return form == "log_linear" ? std::log10(params) : std::log(params); }

double fit_inverse(const std::string& form, double y) {
  if (form == "power") return std::exp(y);
  if (form == "multiplier_power") return std::expm1(y);
  return y;
}

ScalingFit fit_with_form(const std::vector<double>& params, const std::vector<std::vector<double>>& vals,
                         const std::string& form, const std::string& metric, const ScalingOptions& o) {
  ScalingFit f;
  f.metric = metric;
  f.form = form;
  f.params = params;
  std::vector<double> x, y, w;
  for (size_t i = 0; i < params.size(); ++i) {
    f.mean.push_back(mean_of(vals[i]));
    x.push_back(fit_x(form, params[i]));
    y.push_back(fit_y(form, vals[i]));
    const double se = fit_y_se(form, vals[i]);
    w.push_back(se > 0 && std::isfinite(se) ? 1 / (se * se) : kNaN);
  }
  // Each size weighted by the inverse square of its mean's standard error (fixed across resamples);
  // equal weights when a size's seeds do not vary.
  if (std::any_of(w.begin(), w.end(), [](double v) { return !std::isfinite(v); })) {
    std::fill(w.begin(), w.end(), 1.0);
    f.note = "a size's seeds do not vary: equal weights; ";
  }
  least_squares(x, y, w, f.intercept, f.slope);
  std::vector<double> residual;
  for (size_t i = 0; i < x.size(); ++i) residual.push_back(y[i] - (f.intercept + f.slope * x[i]));
  // Bootstrap: each size's seeds resampled with replacement, independently across sizes.
  std::mt19937_64 rng(o.seed);
  std::vector<double> slopes, predictions;
  const bool extrapolate = std::isfinite(o.at) && o.at > 0;
  const double x_at = extrapolate ? fit_x(form, o.at) : kNaN;
  for (int s = 0; s < o.bootstrap; ++s) {
    std::vector<double> yb;
    for (const auto& v : vals) {
      std::uniform_int_distribution<size_t> pick(0, v.size() - 1);
      std::vector<double> r;
      for (size_t k = 0; k < v.size(); ++k) r.push_back(v[pick(rng)]);
      yb.push_back(fit_y(form, r));
    }
    std::uniform_int_distribution<size_t> pick_residual(0, residual.size() - 1);
    const double e = residual[pick_residual(rng)];
    if (std::any_of(yb.begin(), yb.end(), [](double v) { return !std::isfinite(v); })) {
      ++f.failed;
      continue;
    }
    double a, b;
    least_squares(x, yb, w, a, b);
    slopes.push_back(b);
    if (extrapolate) predictions.push_back(fit_inverse(form, a + b * x_at + e));
  }
  f.samples = int(slopes.size());
  std::sort(slopes.begin(), slopes.end());
  std::sort(predictions.begin(), predictions.end());
  const double lo = (1 - o.confidence) / 2, hi = (1 + o.confidence) / 2;
  f.slope_lo = percentile(slopes, lo);
  f.slope_hi = percentile(slopes, hi);
  f.trend = f.slope_lo > 0 ? "grows" : f.slope_hi < 0 ? "shrinks" : "no detectable trend";
  if (extrapolate) {
    f.at = o.at;
    f.predicted = f.value_at(o.at);
    f.predicted_lo = percentile(predictions, lo);
    f.predicted_hi = percentile(predictions, hi);
    f.extrapolated = o.at < params.front() || o.at > params.back();
  }
  return f;
}

// The B curve's size at which its final loss equals `loss`: piecewise linear in ln N through the
// points (ascending N). bound: 0 inside, −1 above the smallest size's loss, +1 below the largest's.
double size_at_loss(const std::vector<double>& params, const std::vector<double>& b_loss, double loss, int& bound) {
  bound = 0;
  for (size_t i = 0; i + 1 < params.size(); ++i) {
    const double l0 = b_loss[i], l1 = b_loss[i + 1];
    if ((l0 >= loss && loss >= l1) || (l0 <= loss && loss <= l1)) {
      const double t = l0 == l1 ? 0 : (l0 - loss) / (l0 - l1);
      return std::exp(std::log(params[i]) + t * (std::log(params[i + 1]) - std::log(params[i])));
    }
  }
  if (loss > b_loss.front()) {
    bound = -1;
    return params.front();
  }
  bound = 1;
  return params.back();
}

double final_of(const CellResult& c, const std::string& kind) { return kind == "val" ? c.final_val_loss : c.final_train_ema; }

const CellResult* cell_of(const AnalysisReport& r, int group, int64_t seed) {
  for (int ci : r.groups[size_t(group)].cells)
    if (r.cells[size_t(ci)].included && r.cells[size_t(ci)].seed == seed) return &r.cells[size_t(ci)];
  return nullptr;
}

double group_params(const AnalysisReport& r, int group) {
  for (int ci : r.groups[size_t(group)].cells)
    if (std::isfinite(r.cells[size_t(ci)].model_params)) return r.cells[size_t(ci)].model_params;
  return kNaN;
}

}  // namespace

double ScalingFit::value_at(double params) const {
  if (form.empty() || !(params > 0)) return kNaN;
  return fit_inverse(form, intercept + slope * fit_x(form, params));
}

ScalingFit fit_gap(const std::vector<double>& params, const std::vector<std::vector<double>>& per_seed, bool token,
                   const ScalingOptions& o) {
  const std::string metric = token ? "token_gap" : "loss_gap";
  std::vector<double> ps;
  std::vector<std::vector<double>> vals;
  std::string few;
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<double> v;
    for (double g : per_seed[i])
      if (std::isfinite(g)) v.push_back(g);
    if (v.size() < 2 || !(params[i] > 0)) few += (few.empty() ? "" : ", ") + sci(params[i]);
    else ps.push_back(params[i]), vals.push_back(v);
  }
  std::string note = few.empty() ? "" : "left out (fewer than two seeds): N = " + few + "; ";
  if (ps.size() < 2) {
    ScalingFit f;
    f.metric = metric;
    f.params = ps;
    for (const auto& v : vals) f.mean.push_back(mean_of(v));
    f.note = note + (ps.size() == 1 ? "one model size: no fit" : "no model size left to fit: no fit");
    return f;
  }
  std::string form = token ? "multiplier_power" : "power";
  for (const auto& v : vals)
    if (!token && !(mean_of(v) > 0)) form = "log_linear";
  if (!token && form == "log_linear") note += "a size's mean gap is <= 0, so no power law: gap = a + b log10 N; ";
  ScalingFit f = fit_with_form(ps, vals, form, metric, o);
  if (form == "power" && f.failed > (1 - o.confidence) / 2 * o.bootstrap) {
    note += "the power law needs every size's mean gap > 0, which failed in " + std::to_string(f.failed) + " of " +
            std::to_string(o.bootstrap) + " resamples: gap = a + b log10 N instead; ";
    f = fit_with_form(ps, vals, "log_linear", metric, o);
  }
  f.note = note + f.note;
  if (f.note.size() >= 2 && f.note.substr(f.note.size() - 2) == "; ") f.note.resize(f.note.size() - 2);
  return f;
}

ScalingReport scaling_analysis(const std::vector<AnalysisReport>& reports, const ScalingOptions& o) {
  ScalingReport rep;
  rep.options = o;
  struct Raw {  // per point: per-seed A final losses (for effN)
    std::vector<double> a_loss;
  };
  std::map<std::pair<std::string, std::string>, int> series_of;
  std::vector<std::vector<Raw>> raw;
  // Tokens per parameter of a comparison (B's mean training tokens / N, three significant digits):
  // a pair compared at several ratios gives one series per ratio.
  auto ratio_of = [](const AnalysisReport& r, const Comparison& c, double params) {
    std::vector<double> tokens;
    for (int64_t seed : c.seeds)
      if (const CellResult* cb = cell_of(r, c.group_b, seed)) tokens.push_back(double(cb->tokens));
    const double ratio = mean_of(tokens) / params;
    if (!(ratio > 0)) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", ratio);
    return std::string(buf);
  };
  std::map<std::pair<std::string, std::string>, std::set<std::string>> ratios;
  for (const AnalysisReport& r : reports)
    for (const Comparison& c : r.comparisons)
      if (const double pa = group_params(r, c.group_a); std::isfinite(pa))
        ratios[{config_label(c.a_selector), config_label(c.b_selector)}].insert(ratio_of(r, c, pa));
  int unsized = 0;  // comparisons without a readable run (pending ones, say)
  for (const AnalysisReport& r : reports) {
    if (&r == &reports.front()) rep.units = r.units;
    if (r.units != rep.units) {
      rep.notes.push_back(r.dir + ": losses in " + r.units + ", other grids' in " + rep.units +
                          ": their losses do not compare in nats (bits per byte do)");
      rep.units.clear();
    }
    rep.dirs.push_back(r.dir);
    for (const Comparison& c : r.comparisons) {
      const std::string what = r.dir + ": " + c.a + " vs " + c.b + ": ";
      const double pa = group_params(r, c.group_a), pb = group_params(r, c.group_b);
      if (!std::isfinite(pa)) {
        ++unsized;
        continue;
      }
      if (pa != pb) {
        rep.notes.push_back(what + "A and B are different model sizes (" + sci(pa) + ", " + sci(pb) + "): left out");
        continue;
      }
      const auto pair = std::make_pair(config_label(c.a_selector), config_label(c.b_selector));
      const std::string ratio = ratios[pair].size() > 1 ? ratio_of(r, c, pa) : std::string();
      const auto key = std::make_pair(pair.first, pair.second + "\n" + ratio);
      auto [it, fresh] = series_of.emplace(key, int(rep.series.size()));
      if (fresh) {
        ScalingSeries s;
        s.a = c.a_selector, s.b = c.b_selector;
        s.label = pair.first + " − " + pair.second + (ratio.empty() ? "" : " at D/N ≈ " + ratio);
        rep.series.push_back(s);
        raw.emplace_back();
      }
      ScalingSeries& s = rep.series[size_t(it->second)];
      for (const Claim& claim : r.claims)
        if (claim.a == c.a_selector && claim.b == c.b_selector && !claim.published.empty())
          (claim.metric.find("token") != std::string::npos ? s.published_tokens : s.published_loss) = claim.published;
      if (std::any_of(s.points.begin(), s.points.end(), [&](const ScalingPoint& p) { return p.params == pa; })) {
        s.note += "two comparisons at N = " + sci(pa) + " (" + c.a + "): the second is left out (name the other axis in the selectors); ";
        continue;
      }
      ScalingPoint p;
      p.dir = r.dir, p.a = c.a, p.b = c.b, p.params = pa;
      p.seeds = c.seeds;
      p.loss_gap = c.final_gap;
      p.loss_gap_kind = c.final_gap_kind;
      p.token_gap = c.token_gap;
      p.token_gap_bound = c.token_gap_bound;
      p.token_gap_form = c.token_gap_form;
      Raw w;
      std::vector<double> b_losses, tokens;
      for (int64_t seed : c.seeds) {
        const CellResult *ca = cell_of(r, c.group_a, seed), *cb = cell_of(r, c.group_b, seed);
        w.a_loss.push_back(ca ? final_of(*ca, c.final_gap_kind) : kNaN);
        if (cb) b_losses.push_back(final_of(*cb, c.final_gap_kind)), tokens.push_back(cb->tokens);
      }
      p.loss_gap_mde = min_detectable_effect(c.final_gap.stats, o.confidence);
      std::vector<double> speeds;
      for (int g : {c.group_a, c.group_b})
        for (int ci : r.groups[size_t(g)].cells)
          if (r.cells[size_t(ci)].state == "done") speeds.push_back(r.cells[size_t(ci)].tokens_per_second);
      p.tokens_per_second = seed_stats(speeds).mean;
      p.a_loss = seed_stats(w.a_loss).mean;
      p.b_loss = seed_stats(b_losses).mean;
      p.tokens = mean_of(tokens);
      const bool exact = std::all_of(c.token_gap_bound.begin(), c.token_gap_bound.end(), [](int b) { return b == 0; });
      if (exact && c.token_gap.stats.n > 0) {
        std::vector<double> eff;
        for (double g : c.token_gap.per_seed) eff.push_back(std::isfinite(g) ? 1 / (1 + g) : kNaN);
        p.eff_d = seed_stats(eff, o.confidence);
      }
      // Insert in ascending N.
      const auto at = std::upper_bound(s.points.begin(), s.points.end(), pa,
                                       [](double v, const ScalingPoint& q) { return v < q.params; });
      raw[size_t(it->second)].insert(raw[size_t(it->second)].begin() + (at - s.points.begin()), w);
      s.points.insert(at, p);
    }
  }
  if (unsized > 0)
    rep.notes.push_back(std::to_string(unsized) + (unsized == 1 ? " comparison" : " comparisons") +
                        " without a model size (no run with a readable config: not yet run?) left out");
  for (size_t si = 0; si < rep.series.size(); ++si) {
    ScalingSeries& s = rep.series[si];
    std::vector<double> params, b_curve;
    std::vector<std::vector<double>> loss_gaps, token_gaps;
    std::vector<double> token_params;
    std::string censored;
    for (const auto& p : s.points) {
      params.push_back(p.params);
      b_curve.push_back(p.b_loss);
      loss_gaps.push_back(p.loss_gap.per_seed);
      if (std::all_of(p.token_gap_bound.begin(), p.token_gap_bound.end(), [](int b) { return b == 0; }))
        token_params.push_back(p.params), token_gaps.push_back(p.token_gap.per_seed);
      else censored += (censored.empty() ? "" : ", ") + sci(p.params);
    }
    // effN needs at least two sizes on the B curve.
    for (size_t i = 0; i < s.points.size() && s.points.size() >= 2; ++i) {
      ScalingPoint& p = s.points[i];
      std::vector<double> eff;
      for (double l : raw[si][i].a_loss) {
        int bound = 0;
        eff.push_back(std::isfinite(l) ? size_at_loss(params, b_curve, l, bound) / p.params : kNaN);
        p.eff_n_bound.push_back(std::isfinite(l) ? bound : 0);
      }
      p.eff_n.per_seed = eff;
      p.eff_n.stats = seed_stats(eff, o.confidence);
      if (std::any_of(p.eff_n_bound.begin(), p.eff_n_bound.end(), [](int b) { return b != 0; })) drop_ci(p.eff_n.stats);
    }
    s.loss_fit = fit_gap(params, loss_gaps, false, o);
    s.token_fit = fit_gap(token_params, token_gaps, true, o);
    if (!censored.empty())
      s.token_fit.note = "sizes with censored seeds (bounds, not values) left out: N = " + censored +
                         (s.token_fit.note.empty() ? "" : "; " + s.token_fit.note);
    if (s.note.size() >= 2) s.note.resize(s.note.size() - 2);
  }
  if (rep.series.empty()) rep.notes.push_back("no comparison with a model size: a grid needs `compare:` pairs (or claims)");
  Selector baseline;
  for (const AnalysisReport& r : reports)
    if (!r.baseline.empty()) {
      if (!baseline.empty() && r.baseline != baseline)
        rep.notes.push_back(r.dir + ": its baseline " + config_label(r.baseline) + " differs from " +
                            config_label(baseline) + ", which the joint law uses");
      if (baseline.empty()) baseline = r.baseline;
    }
  std::vector<std::pair<Selector, Selector>> pairs;
  for (const auto& s : rep.series)
    if (std::find(pairs.begin(), pairs.end(), std::make_pair(s.a, s.b)) == pairs.end()) pairs.push_back({s.a, s.b});
  JointOptions jo;
  jo.confidence = o.confidence, jo.bootstrap = o.bootstrap, jo.seed = o.seed;
  jo.at = o.joint_at, jo.at_params = o.at, jo.at_tokens = o.at_tokens;
  jo.queries = transfer_queries();
  rep.joint = joint_law(reports, baseline, pairs, jo);
  rep.transfer = transfer_table(rep.joint);
  return rep;
}

// ------------------------------------------------------------------------------- serializations

namespace {

std::string ci(const SeedStats& s, bool as_pct) {
  auto f = [&](double x) { return as_pct ? pct(x) : fixed(x, 4); };
  if (s.n == 0) return "—";
  return f(s.mean) + (s.has_ci ? " [" + f(s.ci_low) + ", " + f(s.ci_high) + "]" : s.n == 1 ? " (1 seed)" : "");
}

std::string token_text(const ScalingPoint& p) {
  int lower = 0, upper = 0;
  for (int b : p.token_gap_bound) {
    if (b > 0) ++lower;
    if (b < 0) ++upper;
  }
  if (lower) return std::to_string(lower) + " of " + std::to_string(p.token_gap.stats.n) + " seeds never reached it; > " + pct(p.token_gap.stats.mean);
  if (upper) return std::to_string(upper) + " of " + std::to_string(p.token_gap.stats.n) + " seeds below at the smallest budget; < " + pct(p.token_gap.stats.mean);
  return ci(p.token_gap.stats, true);
}

std::string ratio_text(const SeedStats& s) {  // effN, effD: no sign
  if (s.n == 0) return "—";
  return fixed(s.mean, 3, false) + (s.has_ci ? " [" + fixed(s.ci_low, 3, false) + ", " + fixed(s.ci_high, 3, false) + "]" : "");
}

std::string eff_n_text(const ScalingPoint& p) {
  if (p.eff_n.stats.n == 0) return "—";
  const bool bound = std::any_of(p.eff_n_bound.begin(), p.eff_n_bound.end(), [](int b) { return b != 0; });
  if (!bound) return ratio_text(p.eff_n.stats);
  return fixed(p.eff_n.stats.mean, 3, false) + " (outside the baseline's sizes for some seeds: a bound)";
}

std::string form_text(const ScalingFit& f) {
  if (f.form == "power") return "gap = c·N^b";
  if (f.form == "multiplier_power") return "1 + gap = c·N^b";
  if (f.form == "log_linear") return "gap = a + b·log10 N";
  return "—";
}

std::string gap_value(const ScalingFit& f, double x) { return f.metric == "token_gap" ? pct(x) : fixed(x, 4); }

void stats_json(Json& j, const char* key, const GapStats& g) {
  j.begin_object(key);
  stats_fields(j, g.stats, std::nullopt, false, &g.per_seed);
  j.end_object();
}

void fit_json(Json& j, const char* key, const ScalingFit& f) {
  j.begin_object(key);
  j.value("metric", f.metric).value("form", f.form).value("intercept", f.intercept).value("slope", f.slope);
  j.value("slope_ci_low", f.slope_lo).value("slope_ci_high", f.slope_hi).value("trend", f.trend);
  j.value("bootstrap_samples", f.samples).value("bootstrap_failed", f.failed);
  j.array("params", f.params);
  j.array("mean_gap", f.mean);
  j.value("at", f.at).value("predicted", f.predicted).value("predicted_low", f.predicted_lo);
  j.value("predicted_high", f.predicted_hi).value("extrapolated", f.extrapolated).value("note", f.note);
  j.end_object();
}

std::string sig5(double v) {  // five significant digits
  if (std::isinf(v)) return v > 0 ? "∞" : "−∞";
  if (!std::isfinite(v)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5g", v);
  return buf;
}

std::string token_gap_pct(double x) {
  if (std::isinf(x)) return x > 0 ? "unreachable" : "—";
  return pct(x);
}

std::string pair_label(const JointLaw& law, int a, int b) {
  return law.recipes[size_t(a)].label + (b < 0 ? "" : " − " + law.recipes[size_t(b)].label);
}

int count_distinct(const std::vector<JointPoint>& points, double JointPoint::*m) {
  std::vector<double> v;
  for (const auto& p : points) v.push_back(p.*m);
  std::sort(v.begin(), v.end());
  return int(std::unique(v.begin(), v.end()) - v.begin());
}

void joint_markdown(std::ostringstream& md, const JointLaw& law, const ScalingOptions& o) {
  const std::string conf = fixed(o.confidence * 100, 0, false) + "%";
  md << "## Joint law L(N, D)\n\n";
  if (law.recipes.empty()) {
    md << law.note << ".\n\n";
    return;
  }
  md << "L(N, D) = E + A/N^α + B/D^β (N non-embedding parameters, D training tokens), fitted to the baseline's ("
     << law.recipes[0].label << ") final "
     << (law.loss_kind == "train_ema" ? "smoothed train" : "validation")
     << " losses: one point per config at its (N, D), the mean over its seeds, every point weighted equally; E, A, B "
        "by least squares (A, B ≥ 0) for each α, β in [0.05, 2], the exponents searched on a grid and refined by "
        "Nelder–Mead. Each other compared recipe: L = E + A/(N·effN)^α + B/(D·effD)^β with the baseline's constants "
        "fixed, effN and effD (≤ 2) by least squares. "
     << conf << " intervals: percentiles over " << o.bootstrap
     << " bootstrap resamples of the seeds (one draw of seeds serves every recipe, so seeds stay paired), every "
        "constant and multiplier refitted; prediction intervals of a loss add a resampled residual of its recipe's fit, "
        "those of a gap A − B the residual difference A − B at a resampled point both ran. Token gap: D_A/D − 1 with L_A(N, D_A) = L_B(N, D), unreachable when A's loss at unlimited data is "
        "already above L_B.\n\n";
  if (!law.note.empty()) md << law.note << ".\n\n";
  if (!law.fitted) return;
  md << "| constant | value | " << conf << " interval |\n|---|---|---|\n";
  const std::pair<const char*, const Estimate*> constants[] = {
      {"E", &law.e}, {"A", &law.a}, {"α", &law.alpha}, {"B", &law.b}, {"β", &law.beta}};
  for (const auto& [name, x] : constants)
    md << "| " << name << " | " << sig5(x->value) << " | "
       << (std::isnan(x->lo) ? "—" : "[" + sig5(x->lo) + ", " + sig5(x->hi) + "]") << " |\n";
  md << "\nBaseline: " << law.recipes[0].points.size() << " points, rmse " << sci(law.rmse) << " nats; " << law.seeds
     << " seeds; " << law.samples << " bootstrap fits (" << law.failed << " resamples left out: too few points).\n\n";
  md << "| recipe | points | sizes N | budgets D | effN | " << conf << " interval | effD | " << conf
     << " interval | note |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const JointRecipe& r : law.recipes) {
    md << "| " << r.label << (r.baseline ? " (baseline)" : "") << " | " << r.points.size() << " | "
       << count_distinct(r.points, &JointPoint::params) << " | " << count_distinct(r.points, &JointPoint::tokens) << " | ";
    auto eff = [&](const Estimate& x, bool identified) {
      if (r.baseline) return std::string("1 | —");
      if (!r.fitted) return std::string("— | —");
      if (!identified) return std::string("not identified (1) | —");
      return fixed(x.value, 3, false) + " | [" + fixed(x.lo, 3, false) + ", " + fixed(x.hi, 3, false) + "]";
    };
    md << eff(r.eff_n, r.eff_n_identified) << " | " << eff(r.eff_d, r.eff_d_identified) << " | " << r.note << " |\n";
  }
  if (!law.predictions.empty()) {
    md << "\n### Predicted gaps\n\n| A − B | N | D | D/N | loss gap L_A − L_B (nats) | " << conf
       << " prediction interval | token gap D_A/D − 1 | " << conf << " interval | |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const JointPrediction& p : law.predictions)
      md << "| " << pair_label(law, p.a, p.b) << " | " << sci(p.params) << " | " << sci(p.tokens) << " | "
         << fixed(p.tokens / p.params, 1, false) << " | " << fixed(p.loss_gap.value, 4) << " | [" << fixed(p.loss_gap.lo, 4)
         << ", " << fixed(p.loss_gap.hi, 4) << "] | " << token_gap_pct(p.token_gap.value) << " | ["
         << token_gap_pct(p.token_gap.lo) << ", " << token_gap_pct(p.token_gap.hi) << "] | "
         << (p.extrapolated ? "extrapolated beyond the fitted N or D" : "") << (p.extrapolated && !p.note.empty() ? "; " : "")
         << p.note << " |\n";
  }
  md << "\n### Residuals (observed seed mean − law)\n\n| recipe | N | D | D/N | seeds | observed | fitted | residual | "
        "residual / se |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const JointRecipe& r : law.recipes)
    for (const JointPoint& p : r.points)
      md << "| " << r.label << " | " << sci(p.params) << " | " << sci(p.tokens) << " | " << fixed(p.tokens / p.params, 1, false)
         << " | " << p.observed.n << " | " << fixed(p.observed.mean, 4, false) << " | " << fixed(p.fitted, 4, false) << " | "
         << fixed(p.residual, 4) << " | " << fixed(p.residual_se, 2) << " |\n";
  md << "\n### Leave-one-size-out (refitted without N = " << sci(law.holdout_params) << ")\n\n";
  if (!law.holdout_note.empty()) md << law.holdout_note << ".\n\n";
  if (!law.holdout.empty()) {
    md << "| loss or gap | N | D | observed | predicted | " << conf << " prediction interval | observed inside |\n";
    md << "|---|---|---|---|---|---|---|\n";
    for (const JointHoldout& h : law.holdout)
      md << "| " << pair_label(law, h.a, h.b) << " | " << sci(h.params) << " | " << sci(h.tokens) << " | "
         << fixed(h.observed, 4, h.b >= 0) << " | " << fixed(h.predicted.value, 4, h.b >= 0) << " | ["
         << fixed(h.predicted.lo, 4, h.b >= 0) << ", " << fixed(h.predicted.hi, 4, h.b >= 0) << "] | "
         << (std::isnan(h.predicted.lo) ? "—" : h.inside ? "yes" : "**no**") << " |\n";
  }
  md << "\n";
}

std::string published_text(const PublishedNumber& p, double x) {
  if (p.metric == "token_gap") return token_gap_pct(x);
  if (p.metric == "loss_gap") return fixed(x, 4);
  return fixed(x, 3, false);
}

}  // namespace

std::string transfer_markdown(const std::vector<TransferRow>& rows, const JointLaw& law, double confidence,
                              const std::string& context) {
  std::ostringstream md;
  const std::string conf = fixed(confidence * 100, 0, false) + "%";
  md << "## Transfer to published results" << (context.empty() ? "" : " (" + context + ")") << "\n\n";
  if (!law.fitted) {
    md << "No joint law (" << (law.note.empty() ? "no fit" : law.note) << "): no predictions at the published sizes.\n\n";
    return md.str();
  }
  md << "Each published number that comes with a model size N and a token budget D (or a fitted multiplier), beside "
        "the joint law's prediction there with its "
     << conf
     << " prediction interval. Verdict: **consistent** when the published value (or the range it is read as) "
        "overlaps the interval, **inconsistent** when it does not, **too wide to say** when the interval holds both no "
        "effect (a gap of 0, a multiplier of 1) and twice the published effect. Loss gaps are in each source's own "
        "units (nats per token of its tokenizer and corpus), so only their sign and size compare; token gaps and "
        "multipliers are unitless. Predictions at sizes far beyond the ladder's are extrapolations of the law.\n\n";
  md << "| published | source | A − B | N | D | D/N | published value | fp4lab prediction | " << conf
     << " interval | verdict | note |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const TransferRow& r : rows) {
    const PublishedNumber& p = r.published;
    const bool gap = !p.b.empty();
    const std::string range = p.lo == p.hi ? "" : " [" + published_text(p, p.lo) + ", " + published_text(p, p.hi) + "]";
    std::string note = r.note;
    if (r.extrapolated) note = "extrapolated beyond the fitted N or D" + (note.empty() ? "" : "; " + note);
    note += (note.empty() || p.note.empty() ? "" : "; ") + p.note;
    md << "| " << p.what << " | " << p.source << " | " << p.a << (gap ? " − " + p.b : " (" + p.metric + ")") << " | "
       << (gap ? sci(p.params) : "—") << " | " << (gap ? sci(p.tokens) : "—") << " | "
       << (gap ? fixed(p.tokens / p.params, 0, false) : "—") << " | " << published_text(p, p.value) << range << " | "
       << published_text(p, r.predicted.value) << " | ["
       << published_text(p, r.predicted.lo) << ", " << published_text(p, r.predicted.hi) << "] | **" << r.verdict
       << "** | " << note << " |\n";
  }
  int counts[4] = {0, 0, 0, 0};
  const char* names[4] = {"consistent", "inconsistent", "too wide to say", "no prediction"};
  for (const TransferRow& r : rows)
    for (int k = 0; k < 4; ++k) counts[k] += r.verdict == names[k];
  md << "\n" << rows.size() << " published numbers: " << counts[0] << " consistent, " << counts[1] << " inconsistent, "
     << counts[2] << " too wide to say, " << counts[3] << " without a prediction.\n\n";
  return md.str();
}

namespace {

void estimate_json(Json& j, const char* key, const Estimate& x) {
  j.begin_object(key);
  j.value("value", x.value).value("ci_low", x.lo).value("ci_high", x.hi);
  j.end_object();
}

void joint_json(Json& j, const JointLaw& law) {
  j.begin_object("joint_law");
  j.value("fitted", law.fitted).value("loss_kind", law.loss_kind).value("note", law.note);
  j.value("seeds", law.seeds).value("bootstrap_samples", law.samples).value("bootstrap_failed", law.failed);
  j.value("rmse", law.rmse);
  j.begin_object("constants");
  estimate_json(j, "E", law.e);
  estimate_json(j, "A", law.a);
  estimate_json(j, "alpha", law.alpha);
  estimate_json(j, "B", law.b);
  estimate_json(j, "beta", law.beta);
  j.end_object();
  j.begin_array("recipes");
  for (const JointRecipe& r : law.recipes) {
    j.begin_object();
    j.value("label", r.label).map("selector", r.selector).value("baseline", r.baseline).value("fitted", r.fitted);
    estimate_json(j, "eff_n", r.eff_n);
    estimate_json(j, "eff_d", r.eff_d);
    j.value("eff_n_identified", r.eff_n_identified).value("eff_d_identified", r.eff_d_identified).value("note", r.note);
    j.begin_array("points");
    for (const JointPoint& p : r.points) {
      j.begin_object();
      j.value("dir", p.dir).value("config", p.config).value("params", p.params).value("tokens", p.tokens);
      j.array("seeds", p.seeds);
      j.array("loss", p.loss);
      j.value("mean", p.observed.mean).value("sd", p.observed.sd).value("fitted", p.fitted);
      j.value("residual", p.residual).value("residual_se", p.residual_se);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.begin_array("predictions");
  for (const JointPrediction& p : law.predictions) {
    j.begin_object();
    j.value("a", law.recipes[size_t(p.a)].label).value("b", law.recipes[size_t(p.b)].label);
    j.value("params", p.params).value("tokens", p.tokens);
    estimate_json(j, "loss_gap", p.loss_gap);
    estimate_json(j, "token_gap", p.token_gap);
    j.value("token_gap_unreachable", std::isinf(p.token_gap.value)).value("extrapolated", p.extrapolated);
    j.value("note", p.note);
    j.end_object();
  }
  j.end_array();
  j.begin_object("holdout");
  j.value("params", law.holdout_params).value("note", law.holdout_note);
  j.begin_array("rows");
  for (const JointHoldout& h : law.holdout) {
    j.begin_object();
    j.value("a", law.recipes[size_t(h.a)].label).value("b", h.b < 0 ? std::string() : law.recipes[size_t(h.b)].label);
    j.value("params", h.params).value("tokens", h.tokens).value("observed", h.observed);
    estimate_json(j, "predicted", h.predicted);
    j.value("inside", h.inside);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.end_object();
}

}  // namespace

std::string scaling_markdown(const ScalingReport& r, const std::vector<std::string>& images, const std::string& base_dir) {
  std::ostringstream md;
  const std::string conf = fixed(r.options.confidence * 100, 0, false) + "%";
  md << "# Scaling: how each gap moves with model size\n\n";
  md << "Grids: ";
  for (size_t i = 0; i < r.dirs.size(); ++i) md << (i ? ", " : "") << "`" << r.dirs[i] << "`";
  md << ".\n\nLosses: " << (r.units.empty() ? "nats per token" : r.units)
     << ". N: non-embedding parameters (the blocks' linear weights). Per size, A − B paired by seed with " << conf
     << " Student-t CIs: the final-loss gap (validation when logged), the token gap (tokens A needs to reach B's final "
        "loss, relative to B's; the multi-budget form when A trains several budgets), effD = 1 / (1 + token gap), "
        "effN = N' / N with N' the size at which B's loss curve across the sizes reaches A's loss (piecewise linear in "
        "ln N). Fits: least squares of each size's mean against N, weighted by 1/se² of that mean, the slope's "
     << conf << " interval from " << r.options.bootstrap
     << " bootstrap resamples of the seeds within each size; an extrapolation carries a prediction interval "
        "(bootstrap fits plus a resampled residual) and is labelled as such.\n\n";
  for (const auto& n : r.notes) md << "- " << n << "\n";
  if (!r.notes.empty()) md << "\n";
  for (const auto& s : r.series) {
    md << "## " << s.label << "\n\n";
    md << "| N | tokens | seeds | A final loss | B final loss | loss gap A − B (nats) | sd / detectable (80%) | token gap | effD | effN | tokens/s | A vs B |\n";
    md << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& p : s.points)
      md << "| " << sci(p.params) << " | " << sci(p.tokens) << " | " << p.seeds.size() << " | " << fixed(p.a_loss, 4, false)
         << " | " << fixed(p.b_loss, 4, false) << " | " << ci(p.loss_gap.stats, false) << " (" << p.loss_gap_kind << ") | "
         << fixed(p.loss_gap.stats.sd, 4, false) << " / " << fixed(p.loss_gap_mde, 4, false) << " | " << token_text(p) << (p.token_gap_form == "multi_budget" ? " (budgets)" : "") << " | "
         << ratio_text(p.eff_d) << " | " << eff_n_text(p) << " | " << fixed(p.tokens_per_second, 0, false) << " | " << p.a
         << " vs " << p.b
         << " |\n";
    md << "\n| gap | form | sizes | slope b | " << conf << " interval | trend with N";
    const bool at = std::isfinite(r.options.at);
    if (at) md << " | fitted gap at N = " << sci(r.options.at) << " | " << conf << " prediction interval";
    md << " | published | note |\n|---|---|---|---|---|---|" << (at ? "---|---|" : "") << "---|---|\n";
    for (const ScalingFit* f : {&s.loss_fit, &s.token_fit}) {
      md << "| " << (f->metric == "loss_gap" ? "loss gap" : "token gap") << " | " << form_text(*f) << " | "
         << f->params.size() << " | " << fixed(f->slope, 3) << " | [" << fixed(f->slope_lo, 3) << ", "
         << fixed(f->slope_hi, 3) << "] | " << (f->trend.empty() ? "—" : f->trend);
      if (at)
        md << " | " << gap_value(*f, f->predicted) << (f->extrapolated ? " (extrapolation beyond the fitted sizes)" : "")
           << " | [" << gap_value(*f, f->predicted_lo) << ", " << gap_value(*f, f->predicted_hi) << "]";
      md << " | " << (f->metric == "loss_gap" ? s.published_loss : s.published_tokens) << " | " << f->note << " |\n";
    }
    if (!s.note.empty()) md << "\n" << s.note << "\n";
    md << "\n";
  }
  joint_markdown(md, r.joint, r.options);
  md << transfer_markdown(r.transfer, r.joint, r.options.confidence);
  if (!images.empty()) md << "## Plots\n\n";
  for (const auto& img : images) {
    if (std::filesystem::path(img).extension() != ".png") continue;
    const std::string rel = base_dir.empty() ? img : std::filesystem::relative(img, base_dir).string();
    md << "![" << std::filesystem::path(img).stem().string() << "](" << rel << ")\n\n";
  }
  return md.str();
}

std::string scaling_json(const ScalingReport& r) {
  Json j;
  j.begin_object();
  j.value("fp4lab_scaling_version", 2);
  j.array("dirs", r.dirs);
  j.value("units", r.units);
  j.value("confidence", r.options.confidence).value("bootstrap", r.options.bootstrap);
  j.value("bootstrap_seed", int64_t(r.options.seed)).value("at", r.options.at);
  j.array("notes", r.notes);
  j.begin_array("series");
  for (const auto& s : r.series) {
    j.begin_object();
    j.value("label", s.label).value("a", config_label(s.a)).value("b", config_label(s.b));
    j.value("published_loss", s.published_loss).value("published_tokens", s.published_tokens).value("note", s.note);
    j.begin_array("points");
    for (const auto& p : s.points) {
      j.begin_object();
      j.value("dir", p.dir).value("a", p.a).value("b", p.b).value("params", p.params).value("tokens", p.tokens);
      j.array("seeds", p.seeds);
      j.value("a_loss", p.a_loss).value("b_loss", p.b_loss).value("loss_gap_kind", p.loss_gap_kind);
      j.value("loss_gap_mde", p.loss_gap_mde).value("tokens_per_second", p.tokens_per_second);
      stats_json(j, "loss_gap", p.loss_gap);
      stats_json(j, "token_gap", p.token_gap);
      j.begin_array("token_gap_bound");
      for (int b : p.token_gap_bound) j.value(nullptr, b);
      j.end_array();
      j.value("token_gap_form", p.token_gap_form);
      stats_json(j, "eff_d", GapStats{p.eff_d, {}});
      stats_json(j, "eff_n", p.eff_n);
      j.begin_array("eff_n_bound");
      for (int b : p.eff_n_bound) j.value(nullptr, b);
      j.end_array();
      j.end_object();
    }
    j.end_array();
    fit_json(j, "loss_fit", s.loss_fit);
    fit_json(j, "token_fit", s.token_fit);
    j.end_object();
  }
  j.end_array();
  joint_json(j, r.joint);
  j.begin_array("transfer");
  for (const TransferRow& t : r.transfer) {
    const PublishedNumber& p = t.published;
    j.begin_object();
    j.value("id", p.id).value("what", p.what).value("source", p.source).value("a", p.a).value("b", p.b);
    j.value("metric", p.metric).value("params", p.params).value("tokens", p.tokens);
    j.value("published", p.value).value("published_low", p.lo).value("published_high", p.hi);
    estimate_json(j, "predicted", t.predicted);
    j.value("extrapolated", t.extrapolated).value("verdict", t.verdict).value("note", t.note).value("source_note", p.note);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

std::string scaling_csv(const ScalingReport& r) {
  std::ostringstream os;
  auto num = [](double x) {
    if (!std::isfinite(x)) return std::string();
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return std::string(buf);
  };
  auto field = [](std::string s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  os << "level,series,params,tokens,n_seeds,a_loss,b_loss,loss_gap,loss_gap_ci_low,loss_gap_ci_high,token_gap,"
        "token_gap_ci_low,token_gap_ci_high,token_gap_censored,eff_d,eff_n,metric,form,slope,slope_ci_low,slope_ci_high,"
        "trend,at,predicted,predicted_low,predicted_high,note\n";
  for (const auto& s : r.series) {
    for (const auto& p : s.points) {
      const bool censored = std::any_of(p.token_gap_bound.begin(), p.token_gap_bound.end(), [](int b) { return b != 0; });
      os << "point," << field(s.label) << "," << num(p.params) << "," << num(p.tokens) << "," << p.seeds.size() << ","
         << num(p.a_loss) << "," << num(p.b_loss) << "," << num(p.loss_gap.stats.mean) << ","
         << num(p.loss_gap.stats.ci_low) << "," << num(p.loss_gap.stats.ci_high) << "," << num(p.token_gap.stats.mean)
         << "," << num(p.token_gap.stats.ci_low) << "," << num(p.token_gap.stats.ci_high) << "," << (censored ? 1 : 0)
         << "," << num(p.eff_d.mean) << "," << num(p.eff_n.stats.mean) << ",,,,,,,,,,,\n";
    }
    for (const ScalingFit* f : {&s.loss_fit, &s.token_fit})
      os << "fit," << field(s.label) << ",,,,,,,,,,,,,,," << f->metric << "," << f->form << "," << num(f->slope) << ","
         << num(f->slope_lo) << "," << num(f->slope_hi) << "," << field(f->trend) << "," << num(f->at) << ","
         << num(f->predicted) << "," << num(f->predicted_lo) << "," << num(f->predicted_hi) << "," << field(f->note)
         << "\n";
  }
  const JointLaw& law = r.joint;
  auto inf_num = [&](double x) { return std::isinf(x) ? std::string(x > 0 ? "inf" : "-inf") : num(x); };
  for (const JointPrediction& p : law.predictions) {
    const std::string label = field(law.recipes[size_t(p.a)].label + " − " + law.recipes[size_t(p.b)].label);
    for (const Estimate* x : {&p.loss_gap, &p.token_gap})
      os << "joint," << label << "," << num(p.params) << "," << num(p.tokens) << ",,,,,,,,,,,,,"
         << (x == &p.loss_gap ? "loss_gap" : "token_gap") << ",joint_law,,,,,," << inf_num(x->value) << ","
         << inf_num(x->lo) << "," << inf_num(x->hi) << ","
         << field(std::string(p.extrapolated ? "extrapolated beyond the fitted N or D" : "") +
                  (p.extrapolated && !p.note.empty() ? "; " : "") + p.note)
         << "\n";
  }
  return os.str();
}

}  // namespace fp4lab::analysis
