// Metric computations (see metrics.hpp for the definitions): smoothing, crossings, paired gaps,
// seed statistics, and analyze(), which turns loaded runs into an AnalysisReport. Reads only
// RunData; no I/O besides load_grid in analyze_dir.
#include "analysis/metrics.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/config/config.hpp"
#include "core/config/value.hpp"
#include "core/train/throughput.hpp"

namespace fp4lab::analysis {

// ---------------------------------------------------------------------------- building blocks

std::vector<double> ema_smooth(const std::vector<double>& y, double weight) {
  if (!(weight >= 0 && weight < 1)) throw std::invalid_argument("ema_smooth: weight must be in [0, 1)");
  std::vector<double> out(y.size());
  double m = 0;
  int64_t k = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) {
      out[i] = y[i];
      continue;
    }
    m = weight * m + (1 - weight) * y[i];
    ++k;
    out[i] = weight == 0 ? y[i] : m / (1 - std::pow(weight, static_cast<double>(k)));
  }
  return out;
}

Crossing first_crossing(const std::vector<double>& tokens, const std::vector<double>& loss, double target) {
  if (tokens.size() != loss.size()) throw std::invalid_argument("first_crossing: tokens and loss differ in length");
  Crossing c;
  if (!std::isfinite(target)) return c;
  int64_t prev = -1;  // last finite point above the target
  for (size_t i = 0; i < loss.size(); ++i) {
    if (!std::isfinite(loss[i]) || !std::isfinite(tokens[i])) continue;
    if (loss[i] <= target) {
      c.reached = true;
      if (prev < 0) {
        c.tokens = tokens[i];
        return c;
      }
      const double t0 = tokens[prev], t1 = tokens[i], l0 = loss[prev], l1 = loss[i];
      const double frac = (l0 - target) / (l0 - l1);  // in (0, 1]
      if (t0 > 0 && t1 > 0) c.tokens = std::exp(std::log(t0) + frac * (std::log(t1) - std::log(t0)));
      else c.tokens = t0 + frac * (t1 - t0);
      return c;
    }
    prev = static_cast<int64_t>(i);
  }
  c.tokens = prev >= 0 ? tokens[prev] : kNaN;
  return c;
}

BudgetCrossing budget_to_match(const std::vector<double>& budgets, const std::vector<double>& final_loss,
                               double target) {
  if (budgets.size() != final_loss.size()) throw std::invalid_argument("budget_to_match: length mismatch");
  BudgetCrossing c;
  int64_t prev = -1;
  for (size_t i = 0; i < budgets.size(); ++i) {
    if (!std::isfinite(final_loss[i])) continue;
    if (final_loss[i] <= target) {
      if (prev < 0) {
        c.match = BudgetMatch::below_all;
        c.budget = budgets[i];
        return c;
      }
      const double frac = (final_loss[prev] - target) / (final_loss[prev] - final_loss[i]);
      c.match = BudgetMatch::inside;
      c.budget = budgets[prev] + frac * (budgets[i] - budgets[prev]);
      return c;
    }
    prev = static_cast<int64_t>(i);
  }
  c.match = BudgetMatch::above_all;
  c.budget = prev >= 0 ? budgets[prev] : kNaN;
  return c;
}

double student_t_quantile(double p, double dof) {
  boost::math::students_t_distribution<double> dist(dof);
  return boost::math::quantile(dist, p);
}

SeedStats seed_stats(const std::vector<double>& xs, double confidence) {
  std::vector<double> v;
  for (double x : xs)
    if (std::isfinite(x)) v.push_back(x);
  SeedStats s;
  s.n = static_cast<int>(v.size());
  if (s.n == 0) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / s.n;
  if (s.n < 2) return s;
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(ss / (s.n - 1));
  s.t = student_t_quantile(0.5 + confidence / 2, s.n - 1);
  const double half = s.t * s.sd / std::sqrt(static_cast<double>(s.n));
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  s.has_ci = true;
  return s;
}

namespace {

// Steps sorted by step, a repeated step keeping its last record.
std::vector<StepRecord> clean_steps(std::vector<StepRecord> s) {
  std::stable_sort(s.begin(), s.end(), [](const StepRecord& a, const StepRecord& b) { return a.step < b.step; });
  std::vector<StepRecord> out;
  for (const auto& r : s) {
    if (!out.empty() && out.back().step == r.step) out.back() = r;
    else out.push_back(r);
  }
  return out;
}

}  // namespace

PairedGap paired_window_gap(const std::vector<StepRecord>& cell_in, const std::vector<StepRecord>& ref_in,
                            const WindowRule& rule) {
  const auto cell = clean_steps(cell_in), ref = clean_steps(ref_in);
  struct Pair {
    int64_t step;
    double tokens, lc, lr;
  };
  std::vector<Pair> pairs;
  for (size_t i = 0, j = 0; i < cell.size() && j < ref.size();) {
    if (cell[i].step < ref[j].step) ++i;
    else if (ref[j].step < cell[i].step) ++j;
    else {
      if (std::isfinite(cell[i].train_loss) && std::isfinite(ref[j].train_loss))
        pairs.push_back({cell[i].step, static_cast<double>(cell[i].tokens), cell[i].train_loss, ref[j].train_loss});
      ++i, ++j;
    }
  }
  PairedGap g;
  if (pairs.empty()) return g;
  std::vector<Pair> win;
  if (rule.by_tokens) {
    for (const auto& p : pairs)
      if (p.tokens >= rule.tokens_min && p.tokens <= rule.tokens_max) win.push_back(p);
  } else {
    const int64_t last = pairs.back().step;
    const int64_t cut = last - static_cast<int64_t>(std::ceil(rule.fraction * static_cast<double>(last)));
    for (const auto& p : pairs)
      if (p.step > cut) win.push_back(p);
  }
  if (win.empty()) return g;
  g.n_steps = static_cast<int64_t>(win.size());
  g.step_lo = win.front().step;
  g.step_hi = win.back().step;
  g.tokens_lo = win.front().tokens;
  g.tokens_hi = win.back().tokens;
  double sum = 0, sum_rel = 0;
  for (const auto& p : win) {
    sum += p.lc - p.lr;
    sum_rel += (p.lr - p.lc) / p.lr * 100;
  }
  g.mean_gap = sum / g.n_steps;
  g.mean_rel_pct = sum_rel / g.n_steps;
  if (g.n_steps >= 2) {
    double ss = 0;
    for (const auto& p : win) ss += (p.lc - p.lr - g.mean_gap) * (p.lc - p.lr - g.mean_gap);
    g.sd_gap = std::sqrt(ss / (g.n_steps - 1));
  }
  return g;
}

// ---------------------------------------------------------------------------- analyze

namespace {

struct Curves {  // one run's curves, cleaned
  std::vector<StepRecord> steps;
  std::vector<double> tokens, loss, ema;
  std::vector<double> val_tokens, val_loss;
  std::vector<int64_t> val_step;
};

Curves build_curves(const RunData& run, double ema) {
  Curves c;
  c.steps = clean_steps(run.steps);
  for (const auto& s : c.steps) {
    c.tokens.push_back(static_cast<double>(s.tokens));
    c.loss.push_back(s.train_loss);
  }
  c.ema = ema_smooth(c.loss, ema);
  std::vector<ValRecord> val = run.val;
  std::stable_sort(val.begin(), val.end(), [](const ValRecord& a, const ValRecord& b) { return a.step < b.step; });
  for (const auto& v : val) {
    if (!c.val_step.empty() && c.val_step.back() == v.step) {
      c.val_tokens.back() = static_cast<double>(v.tokens);
      c.val_loss.back() = v.loss;
      continue;
    }
    c.val_step.push_back(v.step);
    c.val_tokens.push_back(static_cast<double>(v.tokens));
    c.val_loss.push_back(v.loss);
  }
  return c;
}

double last_finite(const std::vector<double>& v) {
  for (size_t i = v.size(); i-- > 0;)
    if (std::isfinite(v[i])) return v[i];
  return kNaN;
}

// A band over series that share steps: keep the steps every series has.
struct Series {
  std::vector<int64_t> steps;
  std::vector<double> tokens, values;
};

SeriesBand make_band(const std::vector<Series>& series) {
  SeriesBand b;
  if (series.empty()) return b;
  struct Acc {
    size_t n = 0;
    double tokens = 0, sum = 0, min = INFINITY, max = -INFINITY;
  };
  std::map<int64_t, Acc> acc;
  for (const auto& s : series)
    for (size_t i = 0; i < s.steps.size(); ++i) {
      if (!std::isfinite(s.values[i])) continue;
      Acc& a = acc[s.steps[i]];
      ++a.n;
      a.tokens += s.tokens[i];
      a.sum += s.values[i];
      a.min = std::min(a.min, s.values[i]);
      a.max = std::max(a.max, s.values[i]);
    }
  for (const auto& [step, a] : acc) {
    if (a.n != series.size()) continue;
    b.step.push_back(step);
    b.tokens.push_back(a.tokens / a.n);
    b.mean.push_back(a.sum / a.n);
    b.min.push_back(a.min);
    b.max.push_back(a.max);
  }
  return b;
}

// Smoothed cell minus smoothed reference on the steps both have.
Series diff_series(const Curves& c, const Curves& r) {
  Series s;
  for (size_t i = 0, j = 0; i < c.steps.size() && j < r.steps.size();) {
    if (c.steps[i].step < r.steps[j].step) ++i;
    else if (r.steps[j].step < c.steps[i].step) ++j;
    else {
      s.steps.push_back(c.steps[i].step);
      s.tokens.push_back(c.tokens[i]);
      s.values.push_back(c.ema[i] - r.ema[j]);
      ++i, ++j;
    }
  }
  return s;
}

double tokens_at_step(const Curves& c, int64_t step) {
  auto it = std::lower_bound(c.steps.begin(), c.steps.end(), step,
                             [](const StepRecord& r, int64_t s) { return r.step < s; });
  if (it == c.steps.end()) return c.steps.empty() ? kNaN : static_cast<double>(c.steps.back().tokens);
  return static_cast<double>(it->tokens);
}

// Key of one GEMM operand of one tensor: (tensor name, role, operand).
using OperandUse = std::tuple<std::string, int, int>;

// The format each operand use of a run ran in most often, from its recipe manifest (run file
// attribute, YAML `uses:` list). Empty for a file without one or with one that does not parse.
std::map<OperandUse, std::string> manifest_formats(const std::string& manifest) {
  std::map<OperandUse, std::string> format;
  if (manifest.empty()) return format;
  Value doc;
  try {
    doc = parse_yaml_string(manifest, "recipe_manifest");
  } catch (const std::exception&) {
    return format;
  }
  const Value* uses = doc.is_map() ? doc.find("uses") : nullptr;
  if (!uses || !uses->is_list()) return format;
  std::map<OperandUse, long long> most;
  for (const Value& u : uses->items()) {
    const Value *tensor = u.find("tensor"), *gemm = u.find("gemm"), *operand = u.find("operand"),
                *fmt = u.find("format"), *count = u.find("count");
    if (!tensor || !gemm || !operand || !fmt || !count) continue;
    for (int role = 0; role < 3; ++role)
      for (int op = 0; op < 2; ++op) {
        if (to_string(GemmRole(role)) != gemm->text() || operand_name(GemmRole(role), Operand(op)) != operand->text())
          continue;
        const OperandUse key{tensor->text(), role, op};
        const long long n = count->as_int("count");
        if (n > most[key]) most[key] = n, format[key] = fmt->text();
      }
  }
  return format;
}

std::vector<QuantSeries> quant_series(const std::vector<const RunData*>& runs, const std::vector<const Curves*>& curves) {
  // key = (role*2 + operand, format); per key: step -> sums over tensors and seeds. Tensors that ran
  // in different formats (a bf16 LM head, blocks kept in bf16) are separate series.
  struct FiniteMean {  // of the finite values added (NaN: not applicable, or an older file)
    double n = 0, sum = 0;
    void add(double v) {
      if (std::isfinite(v)) n += 1, sum += v;
    }
    double mean() const { return n > 0 ? sum / n : kNaN; }
  };
  struct Acc {
    double n = 0, sqnr = 0, flushed = 0, saturated = 0;
    FiniteMean nv, mx, shrinkage, sr_k1, sr_k64;
  };
  std::map<std::pair<int, std::string>, std::map<int64_t, Acc>> acc;
  std::map<int64_t, std::pair<double, int>> step_tokens;  // step -> (sum over runs, runs)
  for (size_t r = 0; r < runs.size(); ++r) {
    std::set<int64_t> seen;
    const auto formats = manifest_formats(runs[r]->meta.recipe_manifest);
    const auto& names = runs[r]->meta.tensor_names;
    for (const auto& q : runs[r]->quant) {
      if (seen.insert(q.step).second) {
        const double t = tokens_at_step(*curves[r], q.step);
        if (std::isfinite(t)) {
          step_tokens[q.step].first += t;
          step_tokens[q.step].second += 1;
        }
      }
      if (!std::isfinite(q.sqnr_db)) continue;
      std::string format;
      if (q.tensor >= 0 && size_t(q.tensor) < names.size()) {
        const auto it = formats.find({names[size_t(q.tensor)], int(q.role), int(q.operand)});
        if (it != formats.end()) format = it->second;
      }
      Acc& a = acc[{static_cast<int>(q.role) * 2 + static_cast<int>(q.operand), format}][q.step];
      a.n += 1;
      a.sqnr += q.sqnr_db;
      a.flushed += q.frac_flushed;
      a.saturated += q.frac_saturated;
      a.nv.add(q.whatif_nvfp4_sqnr_db);
      a.mx.add(q.whatif_mxfp4_sqnr_db);
      a.shrinkage.add(q.bias_shrinkage);
      a.sr_k1.add(q.sr_rms_k1);
      a.sr_k64.add(q.sr_rms_k64);
    }
  }
  std::vector<QuantSeries> out;
  for (const auto& [key, by_step] : acc) {
    QuantSeries s;
    s.role = static_cast<GemmRole>(key.first / 2);
    s.operand = static_cast<Operand>(key.first % 2);
    s.format = key.second;
    s.label = to_string(s.role) + " " + operand_name(s.role, s.operand) + (s.format.empty() ? "" : " [" + s.format + "]");
    for (const auto& [step, a] : by_step) {
      const auto it = step_tokens.find(step);
      s.step.push_back(step);
      s.tokens.push_back(it != step_tokens.end() ? it->second.first / it->second.second : kNaN);
      s.sqnr_db.push_back(a.sqnr / a.n);
      s.frac_flushed.push_back(a.flushed / a.n);
      s.frac_saturated.push_back(a.saturated / a.n);
      s.whatif_nvfp4_sqnr_db.push_back(a.nv.mean());
      s.whatif_mxfp4_sqnr_db.push_back(a.mx.mean());
      s.bias_shrinkage.push_back(a.shrinkage.mean());
      s.sr_rms_k1.push_back(a.sr_k1.mean());
      s.sr_rms_k64.push_back(a.sr_k64.mean());
    }
    out.push_back(std::move(s));
  }
  return out;
}

// One run's gradient-to-noise ratios at its last telemetry step with any.
struct RunGnr {
  int64_t step = -1;
  int n_layers = 0, n_below = 0;
  double min_gnr = kNaN, median_gnr = kNaN;
  std::string lowest_layer;
};

RunGnr last_gnr(const RunData& run) {
  RunGnr g;
  for (const auto& r : run.gnr) g.step = std::max(g.step, r.step);
  std::vector<std::pair<double, int32_t>> values;
  for (const auto& r : run.gnr)
    if (r.step == g.step && !std::isnan(r.gnr)) values.emplace_back(r.gnr, r.tensor);
  if (values.empty()) return g;
  std::sort(values.begin(), values.end());
  g.n_layers = int(values.size());
  g.min_gnr = values.front().first;
  const size_t mid = values.size() / 2;
  g.median_gnr = values.size() % 2 ? values[mid].first : 0.5 * (values[mid - 1].first + values[mid].first);
  for (const auto& [v, t] : values) g.n_below += v < kGnrThreshold;
  const int32_t t = values.front().second;
  g.lowest_layer = t >= 0 && size_t(t) < run.meta.tensor_names.size() ? run.meta.tensor_names[size_t(t)]
                                                                      : "#" + std::to_string(t);
  return g;
}

bool is_switch_key(const std::string& key) { return key.rfind("recipe.switch_", 0) == 0; }

// A group's resolved config without seed and precision-switch keys (from its first readable run),
// and whether its recipe switches precision.
std::map<std::string, std::string> config_without_switch(const GridRuns& runs, const GroupResult& g, bool& has_switch) {
  for (int ci : g.cells) {
    if (!runs.cells[size_t(ci)].run) continue;
    std::map<std::string, std::string> flat = flat_config(*runs.cells[size_t(ci)].run);
    if (flat.empty()) continue;
    const auto at = flat.find("recipe.switch_at");
    has_switch = at != flat.end() && at->second != "never";
    for (auto it = flat.begin(); it != flat.end();)
      it = is_switch_key(it->first) || is_seed_key(it->first) ? flat.erase(it) : std::next(it);
    return flat;
  }
  has_switch = false;
  return {};
}

// Pairs each switching config with its unswitched twin and computes the recovered fraction.
void switch_analysis(const GridRuns& runs, AnalysisReport& rep) {
  std::vector<std::map<std::string, std::string>> configs;
  for (auto& g : rep.groups) configs.push_back(config_without_switch(runs, g, g.has_switch));
  for (auto& g : rep.groups) {
    if (!g.has_switch) continue;
    for (const auto& u : rep.groups)
      if (!u.has_switch && !configs[size_t(u.index)].empty() && configs[size_t(u.index)] == configs[size_t(g.index)]) {
        g.switch_reference = u.index;
        break;
      }
    if (g.switch_reference < 0) {
      g.note += "precision switch: no config in this grid equals it without the switch; ";
      continue;
    }
    const GroupResult& u = rep.groups[size_t(g.switch_reference)];
    if (u.final_gap.mean > 0) g.recovered_fraction = 1 - g.final_gap.mean / u.final_gap.mean;
    else if (std::isfinite(u.final_gap.mean)) g.note += "precision switch: the unswitched config has no gap to recover; ";
    std::vector<double> per_seed;
    for (int ci : g.cells)
      for (int ui : u.cells) {
        const CellResult &c = rep.cells[size_t(ci)], &cu = rep.cells[size_t(ui)];
        if (c.seed == cu.seed && std::isfinite(c.final_gap) && cu.final_gap > 0)
          per_seed.push_back(1 - c.final_gap / cu.final_gap);
      }
    g.recovered_fraction_seeds = seed_stats(per_seed, rep.settings.confidence);
  }
}

int agreement(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  int n = 0;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end() && values_equal(it->second, v)) ++n;
  }
  return n;
}

// The baseline candidate agreeing with `vary` on the most keys (ties: the first).
int best_reference(const std::map<std::string, std::string>& vary, const std::vector<int>& candidates,
                   const std::vector<std::map<std::string, std::string>>& candidate_vary) {
  int best = -1, best_score = -1;
  for (int c : candidates) {
    const int score = agreement(vary, candidate_vary[c]);
    if (score > best_score) best = c, best_score = score;
  }
  return best;
}

std::string fmt_count(int n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

void budget_analysis(AnalysisReport& rep) {
  const std::string& key = rep.settings.budget_key;
  std::set<std::string> values;
  for (const auto& g : rep.groups) {
    auto it = g.vary.find(key);
    if (it != g.vary.end()) values.insert(it->second);
  }
  if (values.size() < 2) return;
  rep.multi_budget = true;

  // Families: groups equal up to the budget key.
  std::map<std::map<std::string, std::string>, int> family_of;
  std::vector<std::vector<int>> family_groups;
  for (const auto& g : rep.groups) {
    auto fam = g.vary;
    fam.erase(key);
    auto [it, fresh] = family_of.emplace(fam, static_cast<int>(rep.budget_families.size()));
    if (fresh) {
      BudgetFamily f;
      f.vary = fam;
      f.label = config_label(fam);
      rep.budget_families.push_back(f);
      family_groups.emplace_back();
    }
    family_groups[it->second].push_back(g.index);
    if (g.is_baseline) rep.budget_families[it->second].is_baseline = true;
  }
  // One kind of final loss for the whole comparison: validation if every finished run has it.
  bool all_val = true;
  for (const auto& c : rep.cells)
    if (c.state == "done" && !std::isfinite(c.final_val_loss)) all_val = false;
  const std::string kind = all_val ? "val" : "train_ema";
  auto final_of = [&](const CellResult& c) { return all_val ? c.final_val_loss : c.final_train_ema; };

  // Per family: budget -> seed -> final loss (finished runs only).
  std::vector<std::map<double, std::map<int64_t, double>>> table(rep.budget_families.size());
  for (size_t f = 0; f < rep.budget_families.size(); ++f) {
    BudgetFamily& fam = rep.budget_families[f];
    fam.final_loss_kind = kind;
    int unfinished = 0;
    for (int gi : family_groups[f]) {
      const GroupResult& g = rep.groups[gi];
      const auto it = g.vary.find(key);
      char* end = nullptr;
      const double budget = it == g.vary.end() ? kNaN : std::strtod(it->second.c_str(), &end);
      if (it == g.vary.end() || *end != '\0' || !std::isfinite(budget)) {
        fam.note += "config '" + g.label + "' has no numeric " + key + "; ";
        continue;
      }
      for (int ci : g.cells) {
        const CellResult& c = rep.cells[ci];
        if (c.state != "done") {
          if (c.included) ++unfinished;
          continue;
        }
        table[f][budget][c.seed] = final_of(c);
      }
    }
    if (unfinished) fam.note += fmt_count(unfinished, "unfinished run") + " left out; ";
    for (const auto& [budget, seeds] : table[f]) {
      std::vector<double> xs;
      for (const auto& [seed, loss] : seeds) xs.push_back(loss);
      const SeedStats s = seed_stats(xs);
      if (s.n == 0) continue;
      fam.budgets.push_back(budget);
      fam.final_loss.push_back(s.mean);
      fam.n_seeds.push_back(s.n);
    }
  }
  std::vector<int> baseline_families;
  std::vector<std::map<std::string, std::string>> fam_vary;
  for (size_t f = 0; f < rep.budget_families.size(); ++f) {
    fam_vary.push_back(rep.budget_families[f].vary);
    if (rep.budget_families[f].is_baseline) baseline_families.push_back(static_cast<int>(f));
  }
  double pinned_base = kNaN;  // the baseline selector may name the base budget
  if (auto it = rep.baseline.find(key); it != rep.baseline.end()) pinned_base = std::strtod(it->second.c_str(), nullptr);

  for (size_t f = 0; f < rep.budget_families.size(); ++f) {
    BudgetFamily& fam = rep.budget_families[f];
    fam.reference = fam.is_baseline ? static_cast<int>(f) : best_reference(fam.vary, baseline_families, fam_vary);
    if (fam.reference < 0) {
      fam.note += "no baseline family; ";
      continue;
    }
    const BudgetFamily& ref = rep.budget_families[fam.reference];
    if (ref.budgets.empty()) {
      fam.note += "the baseline has no finished run; ";
      continue;
    }
    fam.base_budget = std::isfinite(pinned_base) ? pinned_base : ref.budgets.front();
    const auto& ref_table = table[fam.reference];
    auto base_it = ref_table.find(fam.base_budget);
    if (base_it == ref_table.end() || base_it->second.empty()) {
      fam.note += "the baseline has no finished run at its base budget; ";
      continue;
    }
    std::vector<double> base_losses;
    for (const auto& [seed, loss] : base_it->second) base_losses.push_back(loss);
    fam.reference_loss = seed_stats(base_losses).mean;
    if (fam.reference == static_cast<int>(f)) continue;  // a baseline family is the reference itself
    fam.crossing = budget_to_match(fam.budgets, fam.final_loss, fam.reference_loss);
    fam.token_gap = fam.crossing.budget / fam.base_budget - 1;
    if (fam.crossing.match == BudgetMatch::above_all)
      fam.note += "never reaches the reference loss within its budgets (gap is a lower bound); ";
    else if (fam.crossing.match == BudgetMatch::below_all)
      fam.note += "already below the reference loss at its smallest budget (gap is an upper bound); ";
    // Per seed: seeds present at every budget of this family and at the reference's base budget.
    std::vector<double> per_seed;
    bool all_inside = true;
    for (const auto& [seed, ref_loss] : base_it->second) {
      std::vector<double> b, l;
      for (const auto& [budget, seeds] : table[f]) {
        auto it = seeds.find(seed);
        if (it == seeds.end()) break;
        b.push_back(budget);
        l.push_back(it->second);
      }
      if (b.size() != table[f].size() || b.empty()) continue;
      const BudgetCrossing c = budget_to_match(b, l, ref_loss);
      if (c.match != BudgetMatch::inside) all_inside = false;
      per_seed.push_back(c.budget / fam.base_budget - 1);
    }
    if (all_inside && !per_seed.empty()) fam.token_gap_seeds = seed_stats(per_seed, rep.settings.confidence);
  }
}


// The run's non-embedding parameter count, from its resolved config (NaN if that does not parse).
double model_params_of(const RunData& run) {
  if (run.meta.config_yaml.empty()) return kNaN;
  try {
    ConfigBuilder b;
    b.add_tree(parse_yaml_string(run.meta.config_yaml, run.path + ": config"));
    return double(non_embedding_params(b.build().model));
  } catch (const std::exception&) {
    return kNaN;
  }
}

// Throughput of one run from its steps (the median step time after the first step) and its
// accounting attributes (flops_per_token, gemm_peak_gflops).
void set_throughput(CellResult& c, const RunData& run) {
  std::vector<double> secs;
  for (size_t i = 1; i < run.steps.size(); ++i)
    if (std::isfinite(run.steps[i].step_seconds) && run.steps[i].step_seconds > 0) secs.push_back(run.steps[i].step_seconds);
  if (secs.empty() || run.steps.size() < 2) return;
  std::sort(secs.begin(), secs.end());
  const size_t mid = secs.size() / 2;
  c.step_seconds = secs.size() % 2 ? secs[mid] : 0.5 * (secs[mid - 1] + secs[mid]);
  const double tokens_per_step = double(run.steps[1].tokens - run.steps[0].tokens);
  c.tokens_per_second = tokens_per_step / c.step_seconds;
  if (run.meta.flops_per_token > 0) c.model_tflops = run.meta.flops_per_token * c.tokens_per_second / 1e12;
  if (run.meta.gemm_peak_gflops > 0) c.gemm_peak_gflops = run.meta.gemm_peak_gflops;
  c.mfu = c.model_tflops * 1e3 / c.gemm_peak_gflops;
  c.threads = run.meta.threads;
}

bool selects(const Selector& sel, const std::map<std::string, std::string>& vary) {
  for (const auto& [k, v] : sel) {
    auto it = vary.find(k);
    if (it == vary.end() || !values_equal(it->second, v)) return false;
  }
  return true;
}

// Per seed, the statistic over the seeds that have a value (NaN: none), with CI.
GapStats gap_stats(std::vector<double> per_seed, double confidence) {
  GapStats g;
  g.stats = seed_stats(per_seed, confidence);
  g.per_seed = std::move(per_seed);
  return g;
}

// One comparison: A group `ga` against B group `gb`; `family` (budget form) lists A's groups
// across budgets, ascending by budget, or is empty (crossing form).
Comparison compare_groups(const AnalysisReport& rep, const std::vector<Curves>& curves, const Selector& sa,
                          const Selector& sb, int ga, int gb, const std::vector<std::pair<double, int>>& family) {
  const ResolvedSettings& set = rep.settings;
  Comparison cmp;
  cmp.a_selector = sa;
  cmp.b_selector = sb;
  cmp.group_a = ga;
  cmp.group_b = gb;
  cmp.a = rep.groups[size_t(ga)].label;
  cmp.b = rep.groups[size_t(gb)].label;
  cmp.token_gap_form = family.empty() ? "crossing" : "multi_budget";
  auto cell_of = [&](int group, int64_t seed) -> int {
    for (int ci : rep.groups[size_t(group)].cells)
      if (rep.cells[size_t(ci)].included && rep.cells[size_t(ci)].seed == seed) return ci;
    return -1;
  };
  const WindowRule window{set.window_fraction, set.window_by_tokens, set.window_tokens_min, set.window_tokens_max};
  const bool on_val = set.target_curve == TargetCurve::val;
  std::vector<double> conv, fin, tok;
  bool all_val = true;
  std::vector<std::pair<int, int>> pairs;
  for (int ci : rep.groups[size_t(ga)].cells) {
    const CellResult& c = rep.cells[size_t(ci)];
    const int ri = c.included ? cell_of(gb, c.seed) : -1;
    if (ri < 0) continue;
    pairs.push_back({ci, ri});
    if (!std::isfinite(c.final_val_loss) || !std::isfinite(rep.cells[size_t(ri)].final_val_loss)) all_val = false;
  }
  cmp.final_gap_kind = all_val ? "val" : "train_ema";
  for (const auto& [ci, ri] : pairs) {
    const CellResult &c = rep.cells[size_t(ci)], &r = rep.cells[size_t(ri)];
    cmp.seeds.push_back(c.seed);
    const PairedGap pg = paired_window_gap(curves[size_t(ci)].steps, curves[size_t(ri)].steps, window);
    conv.push_back(pg.n_steps > 0 ? pg.mean_gap : kNaN);
    if (pg.n_steps > 0) {
      if (cmp.window_step_hi == 0 || pg.step_lo < cmp.window_step_lo) cmp.window_step_lo = pg.step_lo;
      cmp.window_step_hi = std::max(cmp.window_step_hi, pg.step_hi);
    }
    fin.push_back(all_val ? c.final_val_loss - r.final_val_loss : c.final_train_ema - r.final_train_ema);
    double gap = kNaN;
    int bound = 0;
    if (family.empty()) {
      const Curves &cc = curves[size_t(ci)], &rc = curves[size_t(ri)];
      const double target = on_val ? r.final_val_loss : r.final_train_ema;
      const Crossing ca = on_val ? first_crossing(cc.val_tokens, cc.val_loss, target) : first_crossing(cc.tokens, cc.ema, target);
      const Crossing cb = on_val ? first_crossing(rc.val_tokens, rc.val_loss, target) : first_crossing(rc.tokens, rc.ema, target);
      if (std::isfinite(target) && cb.reached && std::isfinite(ca.tokens)) {
        gap = ca.tokens / cb.tokens - 1;
        if (!ca.reached) ++cmp.token_gap_censored, bound = 1;
      }
    } else {  // multi-budget: A's finished runs of this seed at every budget, against B's final loss
      std::vector<double> budgets, losses;
      for (const auto& [key_value, g] : family) {
        const int ai = cell_of(g, c.seed);
        if (ai < 0 || rep.cells[size_t(ai)].state != "done") break;
        budgets.push_back(rep.cells[size_t(ai)].tokens);  // in tokens, whatever the budget key counts
        losses.push_back(all_val ? rep.cells[size_t(ai)].final_val_loss : rep.cells[size_t(ai)].final_train_ema);
      }
      const double base = rep.cells[size_t(ri)].tokens;
      if (budgets.size() == family.size() && r.state == "done" && base > 0) {
        const BudgetCrossing bc = budget_to_match(budgets, losses, all_val ? r.final_val_loss : r.final_train_ema);
        gap = bc.budget / base - 1;
        if (bc.match == BudgetMatch::above_all) ++cmp.token_gap_censored, bound = 1;
        if (bc.match == BudgetMatch::below_all) ++cmp.token_gap_below, bound = -1;
      }
    }
    tok.push_back(gap);
    cmp.token_gap_bound.push_back(bound);
  }
  cmp.converged_gap = gap_stats(conv, set.confidence);
  cmp.final_gap = gap_stats(fin, set.confidence);
  cmp.token_gap = gap_stats(tok, set.confidence);
  if (cmp.token_gap_censored > 0 || cmp.token_gap_below > 0) {  // bounds: no CI
    cmp.token_gap.stats.has_ci = false;
    cmp.token_gap.stats.ci_low = cmp.token_gap.stats.ci_high = kNaN;
  }
  if (pairs.empty()) cmp.note += "no seed has finished runs of both; ";
  if (cmp.token_gap_below > 0)
    cmp.note += fmt_count(cmp.token_gap_below, "seed") + " already below B's loss at A's smallest budget (upper bound); ";
  if (cmp.note.size() >= 2) cmp.note.resize(cmp.note.size() - 2);
  return cmp;
}

// The `compare:` pairs and the claims' pairs. For each A group (or, in the multi-budget form, each
// family of A groups differing only in the budget key), the B group agreeing with it on the most
// keys that neither selector names.
void comparison_analysis(AnalysisReport& rep, const AnalysisSettings& manifest, const AnalysisSettings& overrides,
                         const std::vector<Curves>& curves) {
  const AnalysisSettings s = merge(manifest, overrides);
  rep.claims = s.claims;
  std::vector<std::pair<Selector, Selector>> pairs = s.compare;
  for (const Claim& c : s.claims)
    if (std::find(pairs.begin(), pairs.end(), std::make_pair(c.a, c.b)) == pairs.end()) pairs.push_back({c.a, c.b});
  const std::string& budget_key = rep.settings.budget_key;
  for (const auto& [sa, sb] : pairs) {
    std::vector<int> as, bs;
    std::vector<std::map<std::string, std::string>> vary;
    for (const auto& g : rep.groups) {
      vary.push_back(g.vary);
      if (selects(sa, g.vary)) as.push_back(g.index);
      if (selects(sb, g.vary)) bs.push_back(g.index);
    }
    if (as.empty() || bs.empty()) {
      rep.notes.push_back("compare " + config_label(sa) + " vs " + config_label(sb) + ": " +
                          (as.empty() ? "A" : "B") + " selects no config");
      continue;
    }
    auto partner = [&](int g) {
      std::map<std::string, std::string> rest = rep.groups[size_t(g)].vary;
      for (const auto& [k, v] : sa) rest.erase(k);
      for (const auto& [k, v] : sb) rest.erase(k);
      return best_reference(rest, bs, vary);
    };
    const bool budget_form = rep.multi_budget && !sa.count(budget_key);
    std::set<int> done;
    for (int g : as) {
      if (done.count(g)) continue;
      std::vector<std::pair<double, int>> family;
      int primary = g;
      const int b = partner(g);
      if (budget_form) {  // A's groups equal to g up to the budget key, ascending by budget
        auto fam = rep.groups[size_t(g)].vary;
        fam.erase(budget_key);
        for (int h : as) {
          const auto& vary_h = rep.groups[size_t(h)].vary;
          const auto it = vary_h.find(budget_key);
          if (it == vary_h.end()) continue;
          auto hv = vary_h;
          hv.erase(budget_key);
          if (hv != fam) continue;
          done.insert(h);
          family.push_back({std::strtod(it->second.c_str(), nullptr), h});
        }
        std::sort(family.begin(), family.end());
        const auto bb = rep.groups[size_t(b)].vary.find(budget_key);
        for (const auto& [budget, h] : family)  // the A config at B's budget gives the per-step gaps
          if (bb != rep.groups[size_t(b)].vary.end() && values_equal(rep.groups[size_t(h)].vary.at(budget_key), bb->second))
            primary = h;
        if (family.size() < 2) family.clear();
      }
      done.insert(g);
      rep.comparisons.push_back(compare_groups(rep, curves, sa, sb, primary, b, family));
    }
  }
}

}  // namespace

AnalysisReport analyze(const GridRuns& runs, const AnalysisSettings& overrides) {
  AnalysisReport rep;
  rep.dir = runs.dir;
  rep.settings = resolve_settings(runs.manifest.settings, overrides);
  const ResolvedSettings& set = rep.settings;
  rep.manifest_found = runs.manifest_found;
  for (const auto& [k, v] : runs.manifest.baseline)
    if (!is_seed_key(k)) rep.baseline.emplace(k, v);
  rep.notes = runs.notes;

  // ---- cells
  const size_t n = runs.cells.size();
  std::vector<Curves> curves(n);
  for (size_t i = 0; i < n; ++i) {
    const CellRun& cr = runs.cells[i];
    CellResult c;
    c.index = cr.info.index;
    c.id = cr.info.id;
    c.file = cr.path.empty() ? (cr.info.file.empty() ? cr.info.id + ".h5" : cr.info.file)
                             : std::filesystem::path(cr.path).filename().string();
    c.seed = cr.info.seed;
    c.vary = cr.info.vary;
    if (cr.path.empty()) {
      c.state = "pending";
    } else if (!cr.run) {
      c.state = "unreadable";
      c.message = cr.error;
    } else {
      const RunData& run = *cr.run;
      c.state = to_string(run.status);
      c.status_step = run.status_step;
      c.message = run.status_message;
      curves[i] = build_curves(run, set.ema);
      const Curves& cv = curves[i];
      c.steps = static_cast<int64_t>(cv.steps.size());
      if (!cv.steps.empty()) {
        c.last_step = cv.steps.back().step;
        c.tokens = static_cast<double>(cv.steps.back().tokens);
        c.last_train_loss = cv.steps.back().train_loss;
      }
      c.final_train_ema = last_finite(cv.ema);
      c.final_val_loss = last_finite(cv.val_loss);
      c.final_loss_kind = std::isfinite(c.final_val_loss) ? "val" : "train_ema";
      c.final_loss = std::isfinite(c.final_val_loss) ? c.final_val_loss : c.final_train_ema;
      c.entropy_rate = run.meta.entropy_rate;
      c.coverage = run.meta.coverage;
      c.model_params = model_params_of(run);
      if (c.entropy_rate >= 0) c.entropy_gap = c.final_loss - c.entropy_rate;
      set_throughput(c, run);
      c.included = (run.status == RunStatus::done || run.status == RunStatus::running) && !cv.steps.empty() &&
                   std::isfinite(c.final_train_ema);
      if (run.status == RunStatus::running) c.note = "still running at step " + std::to_string(c.last_step) + "; ";
    }
    rep.cells.push_back(std::move(c));
  }

  // ---- config groups (in order of first cell)
  std::map<std::map<std::string, std::string>, int> group_of;
  for (size_t i = 0; i < n; ++i) {
    const auto key = config_key(runs.cells[i].info);
    auto [it, fresh] = group_of.emplace(key, static_cast<int>(rep.groups.size()));
    if (fresh) {
      GroupResult g;
      g.index = it->second;
      g.vary = key;
      g.label = config_label(key);
      rep.groups.push_back(g);
    }
    rep.cells[i].group = it->second;
    rep.groups[it->second].cells.push_back(static_cast<int>(i));
  }
  {
    std::map<std::string, std::set<std::string>> values;
    for (const auto& g : rep.groups)
      for (const auto& [k, v] : g.vary) values[k].insert(v);
    for (const auto& [k, vs] : values)
      if (vs.size() > 1 || rep.groups.size() == 1) rep.vary_keys.push_back(k);
  }

  // ---- baseline groups and references
  std::vector<int> baseline_groups;
  std::vector<std::map<std::string, std::string>> group_vary;
  for (const auto& g : rep.groups) group_vary.push_back(g.vary);
  if (!rep.baseline.empty()) {
    for (const auto& g : rep.groups) {
      bool match = true;
      for (const auto& [k, v] : rep.baseline) {
        auto it = g.vary.find(k);
        if (it == g.vary.end() || !values_equal(it->second, v)) match = false;
      }
      if (match) baseline_groups.push_back(g.index);
    }
  }
  if (baseline_groups.empty() && !rep.groups.empty()) {
    baseline_groups.push_back(0);
    rep.notes.push_back((rep.baseline.empty() ? std::string("no baseline given")
                                              : "baseline " + config_label(rep.baseline) + " matches no cell") +
                        ": comparing with the first config group, " + rep.groups[0].label);
  }
  for (int b : baseline_groups) rep.groups[b].is_baseline = true;
  for (auto& g : rep.groups) g.reference = g.is_baseline ? g.index : best_reference(g.vary, baseline_groups, group_vary);
  for (auto& c : rep.cells) c.is_baseline = rep.groups[c.group].is_baseline;

  // ---- per-cell metrics against the same-seed run of the reference group
  const WindowRule window{set.window_fraction, set.window_by_tokens, set.window_tokens_min, set.window_tokens_max};
  for (size_t i = 0; i < n; ++i) {
    CellResult& c = rep.cells[i];
    if (!c.included) continue;
    const GroupResult& ref_group = rep.groups[rep.groups[c.group].reference];
    for (int j : ref_group.cells)
      if (rep.cells[j].included && rep.cells[j].seed == c.seed) c.reference = j;
    if (c.reference < 0) {
      c.note += "no same-seed baseline run (seed " + std::to_string(c.seed) + "); ";
      continue;
    }
    const CellResult& r = rep.cells[c.reference];
    const Curves& cc = curves[i];
    const Curves& rc = curves[c.reference];
    // Tokens to target.
    switch (set.target_rule) {
      case TargetRule::baseline_final: c.target = r.final_train_ema; break;
      case TargetRule::baseline_final_val: c.target = r.final_val_loss; break;
      case TargetRule::fixed: c.target = set.target_value; break;
    }
    const bool on_val = set.target_curve == TargetCurve::val;
    if (!std::isfinite(c.target)) {
      c.note += "no target (the baseline run has no validation loss); ";
    } else {
      c.crossing = on_val ? first_crossing(cc.val_tokens, cc.val_loss, c.target) : first_crossing(cc.tokens, cc.ema, c.target);
      c.ref_crossing = on_val ? first_crossing(rc.val_tokens, rc.val_loss, c.target) : first_crossing(rc.tokens, rc.ema, c.target);
      if (!c.ref_crossing.reached) {
        c.note += "the baseline never reaches the target; ";
      } else if (!c.is_baseline) {
        c.token_gap = c.crossing.tokens / c.ref_crossing.tokens - 1;
        c.token_gap_censored = !c.crossing.reached;
      }
    }
    if (c.is_baseline) continue;
    // Converged regime.
    c.converged = paired_window_gap(cc.steps, rc.steps, window);
    if (c.converged.n_steps == 0) c.note += "no paired steps in the converged window; ";
    // Final loss.
    const bool both_val = std::isfinite(c.final_val_loss) && std::isfinite(r.final_val_loss);
    c.final_gap_kind = both_val ? "val" : "train_ema";
    const double lc = both_val ? c.final_val_loss : c.final_train_ema;
    const double lr = both_val ? r.final_val_loss : r.final_train_ema;
    c.final_gap = lc - lr;
    c.final_rel_pct = (lr - lc) / lr * 100;
  }

  // ---- group statistics and curves
  const double conf = set.confidence;
  bool single_seed = false;
  for (auto& g : rep.groups) {
    std::vector<double> conv, conv_rel, conv_sd, fin, fin_rel, fin_loss, tok, target, ent, reached;
    std::vector<Series> loss_series, diff_series_v, val_series;
    std::vector<const RunData*> quant_runs;
    std::vector<const Curves*> quant_curves;
    std::map<std::string, int> excluded;
    std::vector<RunGnr> gnrs;
    g.n_cells = static_cast<int>(g.cells.size());
    for (int ci : g.cells) {
      const CellResult& c = rep.cells[ci];
      if (!c.coverage.empty() && g.coverage.find(c.coverage) == std::string::npos)
        g.coverage += (g.coverage.empty() ? "" : " | ") + c.coverage;
      if (!c.included) {
        ++excluded[c.state];
        continue;
      }
      ++g.n_included;
      if (const RunGnr rg = last_gnr(*runs.cells[ci].run); rg.n_layers > 0) gnrs.push_back(rg);
      fin_loss.push_back(c.final_loss);
      target.push_back(c.target);
      ent.push_back(c.entropy_gap);
      const Curves& cv = curves[ci];
      Series s;
      for (const auto& st : cv.steps) s.steps.push_back(st.step);
      s.tokens = cv.tokens;
      s.values = cv.ema;
      loss_series.push_back(std::move(s));
      if (!cv.val_step.empty()) val_series.push_back(Series{cv.val_step, cv.val_tokens, cv.val_loss});
      if (!runs.cells[ci].run->quant.empty()) {
        quant_runs.push_back(&*runs.cells[ci].run);
        quant_curves.push_back(&cv);
      }
      if (c.reference < 0) continue;
      if (c.crossing.reached) reached.push_back(c.crossing.tokens);
      if (std::isfinite(c.token_gap)) {
        tok.push_back(c.token_gap);
        if (c.token_gap_censored) ++g.n_censored;
      }
      if (g.is_baseline) continue;
      if (c.converged.n_steps > 0) {
        conv.push_back(c.converged.mean_gap);
        conv_rel.push_back(c.converged.mean_rel_pct);
        conv_sd.push_back(c.converged.sd_gap);
        if (g.window_step_hi == 0 || c.converged.step_lo < g.window_step_lo) {
          g.window_step_lo = c.converged.step_lo;
          g.window_tokens_lo = c.converged.tokens_lo;
        }
        if (c.converged.step_hi > g.window_step_hi) {
          g.window_step_hi = c.converged.step_hi;
          g.window_tokens_hi = c.converged.tokens_hi;
        }
      }
      fin.push_back(c.final_gap);
      fin_rel.push_back(c.final_rel_pct);
      diff_series_v.push_back(diff_series(cv, curves[c.reference]));
    }
    std::vector<double> secs, tps, tflops, mfu;
    for (int ci : g.cells) {
      const CellResult& c = rep.cells[size_t(ci)];
      if (!c.included) continue;
      secs.push_back(c.step_seconds), tps.push_back(c.tokens_per_second), tflops.push_back(c.model_tflops), mfu.push_back(c.mfu);
    }
    g.step_seconds = seed_stats(secs, conf);
    g.tokens_per_second = seed_stats(tps, conf);
    g.model_tflops = seed_stats(tflops, conf);
    g.mfu = seed_stats(mfu, conf);
    g.converged_gap = seed_stats(conv, conf);
    g.converged_rel_pct = seed_stats(conv_rel, conf);
    g.converged_step_sd = seed_stats(conv_sd, conf);
    g.final_gap = seed_stats(fin, conf);
    g.final_rel_pct = seed_stats(fin_rel, conf);
    g.final_loss = seed_stats(fin_loss, conf);
    g.target = seed_stats(target, conf);
    g.tokens_to_target = seed_stats(reached, conf);
    g.entropy_gap = seed_stats(ent, conf);
    if (!g.is_baseline) {
      g.token_gap = seed_stats(tok, conf);
      if (g.n_censored > 0) {
        g.token_gap_censored = true;
        g.token_gap.has_ci = false;
        g.token_gap.ci_low = g.token_gap.ci_high = kNaN;
        g.note += fmt_count(g.n_censored, "seed") + " never reached the target: token gap is a lower bound; ";
      }
    }
    for (const auto& [state, count] : excluded) g.note += std::to_string(count) + " " + state + " excluded; ";
    if (g.n_included == 1) single_seed = true;
    if (!g.is_baseline && g.reference >= 0) {
      const auto& rv = rep.groups[g.reference].vary;
      const auto a = std::as_const(g.vary).find(set.budget_key);
      const auto b = rv.find(set.budget_key);
      if (a != g.vary.end() && b != rv.end() && !values_equal(a->second, b->second))
        g.note += "compared with a baseline of another " + set.budget_key +
                  ": per-step and final gaps mix two schedules (see the multi-budget table); ";
    }
    g.loss = make_band(loss_series);
    g.diff = make_band(diff_series_v);
    g.val = make_band(val_series);
    g.quant = quant_series(quant_runs, quant_curves);
    for (const auto& q : g.quant) {
      if (q.step.empty()) continue;
      rep.quant_summary.push_back(QuantSummary{g.index, q.label, q.step.back(), q.sqnr_db.back(), q.frac_flushed.back(),
                                               q.frac_saturated.back(), q.whatif_nvfp4_sqnr_db.back(),
                                               q.whatif_mxfp4_sqnr_db.back(), q.bias_shrinkage.back(),
                                               q.sr_rms_k1.back(), q.sr_rms_k64.back()});
    }
    if (!gnrs.empty()) {
      GnrSummary s;
      s.group = g.index;
      s.min_gnr = s.median_gnr = s.n_below = 0;
      double lowest = INFINITY;
      for (const RunGnr& rg : gnrs) {
        s.step = std::max(s.step, rg.step);
        s.n_layers = std::max(s.n_layers, rg.n_layers);
        s.min_gnr += rg.min_gnr / double(gnrs.size());
        s.median_gnr += rg.median_gnr / double(gnrs.size());
        s.n_below += double(rg.n_below) / double(gnrs.size());
        if (rg.min_gnr < lowest) lowest = rg.min_gnr, s.lowest_layer = rg.lowest_layer;
      }
      rep.gnr_summary.push_back(s);
    }
  }
  if (single_seed) rep.notes.push_back("a config group has a single seed: no confidence interval for it");

  for (auto& g : rep.groups)
    if (g.reference >= 0) g.step_time_ratio = g.step_seconds.mean / rep.groups[size_t(g.reference)].step_seconds.mean;
  budget_analysis(rep);
  switch_analysis(runs, rep);
  comparison_analysis(rep, runs.manifest.settings, overrides, curves);

  // Problem cells, so that nobody misses them.
  int problems = 0;
  for (const auto& c : rep.cells)
    if (c.state == "failed" || c.state == "diverged" || c.state == "unreadable") ++problems;
  if (problems) rep.notes.push_back(fmt_count(problems, "cell") + " failed, diverged or unreadable (see the cell table)");
  for (auto& c : rep.cells)
    if (!c.note.empty() && c.note.size() >= 2) c.note.resize(c.note.size() - 2);  // drop the last "; "
  for (auto& g : rep.groups)
    if (g.note.size() >= 2) g.note.resize(g.note.size() - 2);
  for (auto& f : rep.budget_families)
    if (f.note.size() >= 2) f.note.resize(f.note.size() - 2);
  return rep;
}

AnalysisReport analyze_dir(const std::string& dir, const AnalysisSettings& overrides) {
  return analyze(load_grid(dir), overrides);
}

}  // namespace fp4lab::analysis

namespace fp4lab::analysis {

std::string Comparison::token_gap_text() const {
  const SeedStats& t = token_gap.stats;
  if (t.n == 0) return "n/a";
  auto pct = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", x * 100);
    return std::string(buf);
  };
  if (token_gap_censored > 0)
    return std::to_string(token_gap_censored) + " of " + std::to_string(t.n) + " seeds never reached it; lower bound > " + pct(t.mean);
  if (token_gap_below > 0)
    return std::to_string(token_gap_below) + " of " + std::to_string(t.n) + " seeds below at the smallest budget; upper bound < " + pct(t.mean);
  if (!t.has_ci) return pct(t.mean) + " (1 seed)";
  return pct(t.mean) + " [" + pct(t.ci_low) + ", " + pct(t.ci_high) + "]";
}

int find_comparison(const AnalysisReport& report, const Selector& a, const Selector& b) {
  for (size_t i = 0; i < report.comparisons.size(); ++i)
    if (report.comparisons[i].a_selector == a && report.comparisons[i].b_selector == b) return static_cast<int>(i);
  return -1;
}

}  // namespace fp4lab::analysis
