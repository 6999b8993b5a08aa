// The statistics building blocks (stats.hpp). Pure functions of their arguments: no report
// structure, no I/O.
#include "analysis/stats.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace fp4lab::analysis {

// ---------------------------------------------------------------------------- curves

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

std::vector<StepRecord> clean_steps(std::vector<StepRecord> s) {
  std::stable_sort(s.begin(), s.end(), [](const StepRecord& a, const StepRecord& b) { return a.step < b.step; });
  std::vector<StepRecord> out;
  for (const auto& r : s) {
    if (!out.empty() && out.back().step == r.step) out.back() = r;
    else out.push_back(r);
  }
  return out;
}

// ---------------------------------------------------------------------------- tokens to target

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

// ---------------------------------------------------------------------------- over seeds

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

void drop_ci(SeedStats& s) {
  s.has_ci = false;
  s.ci_low = s.ci_high = kNaN;
}

GapStats gap_stats(std::vector<double> per_seed, double confidence) {
  GapStats g;
  g.stats = seed_stats(per_seed, confidence);
  g.per_seed = std::move(per_seed);
  return g;
}

double min_detectable_effect(const SeedStats& s, double confidence) {
  if (s.n < 2) return kNaN;
  const double dof = s.n - 1;
  return (student_t_quantile((1 + confidence) / 2, dof) + student_t_quantile(0.8, dof)) * s.sd / std::sqrt(double(s.n));
}

SeedsNeeded seeds_needed(const SeedStats& s, double confidence) {
  SeedsNeeded out;
  if (s.n < 2 || !s.has_ci || !std::isfinite(s.sd) || !std::isfinite(s.mean) || s.mean == 0) return out;
  out.excludes_now = s.ci_low > 0 || s.ci_high < 0;
  const double effect = std::abs(s.mean), q = (1 + confidence) / 2;
  // Both half-widths fall monotonically with n: a binary search for the first n that meets each.
  auto first_n = [&](bool power) {
    auto met = [&](int n) {
      const double t = student_t_quantile(q, n - 1) + (power ? student_t_quantile(0.8, n - 1) : 0.0);
      const double half = t * s.sd / std::sqrt(double(n));
      return power ? half <= effect : half < effect;
    };
    if (!met(kSeedsCap)) return kSeedsCap + 1;
    int lo = 1, hi = kSeedsCap;  // met(hi), and lo below any n that meets it
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      (met(mid) ? hi : lo) = mid;
    }
    return hi;
  };
  out.to_exclude = first_n(false);
  out.for_power = first_n(true);
  return out;
}

std::string seeds_needed_text(const SeedsNeeded& n) {
  if (n.to_exclude < 0) return "—";
  auto count = [](int k) { return k > kSeedsCap ? "> " + std::to_string(kSeedsCap) : std::to_string(k); };
  const std::string power = "80% power at " + count(n.for_power);
  if (n.excludes_now) return "excludes 0; " + power;
  return count(n.to_exclude) + " would exclude 0; " + power;
}

double sign_test_p(int k, int n) {
  if (n <= 0) return 1.0;
  const int tail = std::max(k, n - k);  // the more extreme side of the observed split
  // P(X >= tail), X ~ Binomial(n, 1/2): binomial coefficients in doubles (exact up to n = 56),
  // so p = 2·7/64 prints as 0.2188 and 2/64 as 0.0312
  double upper = 0.0, choose = 1.0;  // C(n, i)
  for (int i = 0; i <= n; ++i) {
    if (i >= tail) upper += choose;
    choose = choose * (n - i) / (i + 1);
  }
  return std::min(1.0, 2 * std::ldexp(upper, -n));
}

SpreadPosition spread_position(const std::vector<double>& baseline, double x, double confidence, bool censored) {
  SpreadPosition p;
  p.value = x;
  p.censored = censored;
  std::vector<double> b;
  for (double v : baseline)
    if (std::isfinite(v)) b.push_back(v);
  const SeedStats s = seed_stats(b, confidence);
  if (b.size() < 2 || !std::isfinite(x) || !std::isfinite(s.sd)) return p;
  double below = 0, equal = 0;
  for (double v : b) below += v < x, equal += v == x;
  const double n = static_cast<double>(b.size());
  p.percentile = 100 * (below + 0.5 * equal) / n;
  const double half = s.t * s.sd * std::sqrt(1 + 1 / n);
  p.spread_low = s.mean - half;
  p.spread_high = s.mean + half;
  if (censored) {
    p.percentile = kNaN;  // only a lower bound on the rank
    p.where = x > p.spread_high ? "above" : "";
    return p;
  }
  p.where = x < p.spread_low ? "below" : x > p.spread_high ? "above" : "inside";
  return p;
}

// ---------------------------------------------------------------------------- converged regime

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

// ---------------------------------------------------------------------------- small numerics

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? kNaN : s / double(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double h = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

void least_squares(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w, double& a,
                   double& b) {
  double sw = 0, mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) sw += w[i], mx += w[i] * x[i], my += w[i] * y[i];
  mx /= sw, my /= sw;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) sxy += w[i] * (x[i] - mx) * (y[i] - my), sxx += w[i] * (x[i] - mx) * (x[i] - mx);
  b = sxx > 0 ? sxy / sxx : kNaN;
  a = my - b * mx;
}

}  // namespace fp4lab::analysis
