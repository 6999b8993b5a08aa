// The joint law (joint_law.hpp): the baseline's constants by variable projection (for fixed α, β
// the law is linear in E, A, B: least squares with A, B ≥ 0, the exponents searched on a grid and
// refined by Nelder–Mead), each recipe's multipliers in closed form (linear in effN^−α, effD^−β),
// the seed bootstrap, predictions, residuals and the leave-one-size-out refit.
#include "analysis/joint_law.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>

namespace fp4lab::analysis {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kExpLo = 0.05, kExpHi = 2.0;  // the range of α and β
constexpr double kEffMax = 2.0;                // effN, effD ≤ this
constexpr double kSame = 1e-3;                 // values within this relative distance count as one

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// How many distinct values (neighbours within kSame, relative, count as one).
int distinct(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  int n = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (i == 0 || v[i] > v[i - 1] * (1 + kSame)) ++n;
  return n;
}

// Percentile q of ascending values that may end in +∞ (an unreachable token gap).
double percentile_inf(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double h = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(h)), hi = std::min(lo + 1, sorted.size() - 1);
  const double t = h - double(lo);
  if (std::isinf(sorted[lo]) || (std::isinf(sorted[hi]) && t > 0)) return kInf;
  return sorted[lo] + t * (sorted[hi] - sorted[lo]);
}

Estimate interval(double value, std::vector<double> draws, double confidence) {
  draws.erase(std::remove_if(draws.begin(), draws.end(), [](double x) { return std::isnan(x); }), draws.end());
  std::sort(draws.begin(), draws.end());
  return {value, percentile_inf(draws, (1 - confidence) / 2), percentile_inf(draws, (1 + confidence) / 2)};
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Least squares y ≈ Σ_k c_k · cols[k] by modified Gram–Schmidt (two passes) on unit-norm columns;
// false when the columns are numerically dependent.
bool column_least_squares(const std::vector<const std::vector<double>*>& cols, const std::vector<double>& y,
                          std::vector<double>& c) {
  const size_t k = cols.size();
  std::vector<std::vector<double>> q(k);
  std::vector<std::vector<double>> r(k, std::vector<double>(k, 0.0));
  std::vector<double> scale(k);
  for (size_t j = 0; j < k; ++j) {
    q[j] = *cols[j];
    scale[j] = std::sqrt(dot(q[j], q[j]));
    if (!(scale[j] > 0) || !std::isfinite(scale[j])) return false;
    for (double& x : q[j]) x /= scale[j];
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < j; ++i) {
        const double d = dot(q[i], q[j]);
        r[i][j] += d;
        for (size_t m = 0; m < y.size(); ++m) q[j][m] -= d * q[i][m];
      }
    r[j][j] = std::sqrt(dot(q[j], q[j]));
    if (r[j][j] < 1e-10) return false;
    for (double& x : q[j]) x /= r[j][j];
  }
  c.assign(k, 0.0);
  for (size_t j = k; j-- > 0;) {
    double s = dot(q[j], y);
    for (size_t i = j + 1; i < k; ++i) s -= r[j][i] * c[i];
    c[j] = s / r[j][j];
  }
  for (size_t j = 0; j < k; ++j) c[j] /= scale[j];
  return true;
}

// One recipe's point means as fit inputs.
struct Data {
  std::vector<double> n, d, ln_n, ln_d, y;
  std::vector<int> point;  // the recipe's point index of each entry
};

struct Law {
  double e = kNaN, a = kNaN, alpha = kNaN, b = kNaN, beta = kNaN, sse = kInf;
};

double law_at(const Law& l, double n, double d, double eff_n, double eff_d) {
  return l.e + l.a * std::pow(n * eff_n, -l.alpha) + l.b * std::pow(d * eff_d, -l.beta);
}

// For fixed exponents: E, A, B by least squares with A, B ≥ 0 (the best feasible fit over the four
// active sets: the exact constrained optimum of this convex problem).
Law linear_part(const Data& d, double alpha, double beta) {
  const size_t n = d.y.size();
  std::vector<double> one(n, 1.0), x(n), z(n);
  for (size_t i = 0; i < n; ++i) x[i] = std::exp(-alpha * d.ln_n[i]), z[i] = std::exp(-beta * d.ln_d[i]);
  Law best;
  for (int set = 0; set < 4; ++set) {  // bit 0: A free, bit 1: B free (else 0)
    std::vector<const std::vector<double>*> cols = {&one};
    if (set & 1) cols.push_back(&x);
    if (set & 2) cols.push_back(&z);
    std::vector<double> c;
    if (!column_least_squares(cols, d.y, c)) continue;
    const double a = set & 1 ? c[1] : 0, b = set & 2 ? c.back() : 0;
    if (a < 0 || b < 0) continue;
    double sse = 0;
    for (size_t i = 0; i < n; ++i) sse += std::pow(d.y[i] - (c[0] + a * x[i] + b * z[i]), 2);
    if (sse < best.sse) best = {c[0], a, alpha, b, beta, sse};
  }
  return best;
}

using P2 = std::array<double, 2>;

// Nelder–Mead from x0 (initial steps `step`), every vertex clamped into [lo, hi]; stops when the
// simplex is smaller than tol in each coordinate.
template <class F>
P2 nelder_mead(const F& f, P2 x0, double step, double lo, double hi, double tol) {
  auto clamp = [&](P2 p) {
    for (double& v : p) v = std::clamp(v, lo, hi);
    return p;
  };
  std::array<P2, 3> v;
  std::array<double, 3> fv;
  v[0] = clamp(x0);
  for (int k = 0; k < 2; ++k) {
    v[size_t(k) + 1] = v[0];
    v[size_t(k) + 1][size_t(k)] += v[0][size_t(k)] + step > hi ? -step : step;
  }
  for (size_t i = 0; i < 3; ++i) fv[i] = f(v[i]);
  for (int it = 0; it < 2000; ++it) {
    std::array<size_t, 3> o = {0, 1, 2};
    std::sort(o.begin(), o.end(), [&](size_t i, size_t j) { return fv[i] < fv[j]; });
    v = {v[o[0]], v[o[1]], v[o[2]]};
    fv = {fv[o[0]], fv[o[1]], fv[o[2]]};
    double size = 0;
    for (size_t i = 1; i < 3; ++i)
      for (size_t k = 0; k < 2; ++k) size = std::max(size, std::abs(v[i][k] - v[0][k]));
    if (size < tol) break;
    const P2 c = {(v[0][0] + v[1][0]) / 2, (v[0][1] + v[1][1]) / 2};
    auto along = [&](double t) { return clamp({c[0] + t * (v[2][0] - c[0]), c[1] + t * (v[2][1] - c[1])}); };
    const P2 xr = along(-1);
    const double fr = f(xr);
    if (fr < fv[0]) {
      const P2 xe = along(-2);
      const double fe = f(xe);
      v[2] = fe < fr ? xe : xr, fv[2] = std::min(fe, fr);
    } else if (fr < fv[1]) {
      v[2] = xr, fv[2] = fr;
    } else {
      const P2 xc = along(fr < fv[2] ? -0.5 : 0.5);
      const double fc = f(xc);
      if (fc < std::min(fr, fv[2])) {
        v[2] = xc, fv[2] = fc;
      } else {
        for (size_t i = 1; i < 3; ++i) {
          for (size_t k = 0; k < 2; ++k) v[i][k] = v[0][k] + 0.5 * (v[i][k] - v[0][k]);
          fv[i] = f(v[i]);
        }
      }
    }
  }
  return fv[0] <= fv[1] && fv[0] <= fv[2] ? v[0] : fv[1] <= fv[2] ? v[1] : v[2];
}

// The baseline's law: the exponents on a log grid over their range (a coarse one around `start`,
// a previous fit, in the bootstrap), then Nelder–Mead, restarted on smaller steps.
Law fit_law(const Data& d, const Law* start) {
  auto f = [&](const P2& p) { return linear_part(d, p[0], p[1]).sse; };
  const int g = start ? 5 : 24;
  const double l0 = std::log(kExpLo), l1 = std::log(kExpHi);
  P2 best = {kExpLo, kExpLo};
  double fb = kInf;
  for (int i = 0; i < g; ++i)
    for (int j = 0; j < g; ++j) {
      const P2 p = {std::exp(l0 + (l1 - l0) * i / (g - 1)), std::exp(l0 + (l1 - l0) * j / (g - 1))};
      const double fp = f(p);
      if (fp < fb) best = p, fb = fp;
    }
  if (start && f({start->alpha, start->beta}) < fb) best = {start->alpha, start->beta};
  const double tol = start ? 1e-8 : 1e-13;
  for (double step : {0.1, 0.01, 0.001}) best = nelder_mead(f, best, step, kExpLo, kExpHi, tol);
  return linear_part(d, best[0], best[1]);
}

// A recipe's multipliers against the law: y − E = u · A N^−α + v · B D^−β is linear in u = effN^−α
// and v = effD^−β, with u ≥ kEffMax^−α and v ≥ kEffMax^−β (effN, effD ≤ kEffMax). A multiplier not
// fitted is held at 1. The best feasible fit over each free one at its optimum or at its bound.
bool fit_multipliers(const Law& l, const Data& d, bool fit_n, bool fit_d, double& eff_n, double& eff_d) {
  const size_t n = d.y.size();
  if (n == 0) return false;
  std::vector<double> x(n), z(n);
  for (size_t i = 0; i < n; ++i) x[i] = l.a * std::exp(-l.alpha * d.ln_n[i]), z[i] = l.b * std::exp(-l.beta * d.ln_d[i]);
  const double u_min = std::pow(kEffMax, -l.alpha), v_min = std::pow(kEffMax, -l.beta);
  double best = kInf, bu = 1, bv = 1;
  // Each multiplier: 0 free, 1 at its bound, 2 held at 1.
  for (int mu : fit_n ? std::vector<int>{0, 1} : std::vector<int>{2})
    for (int mv : fit_d ? std::vector<int>{0, 1} : std::vector<int>{2}) {
      double u = mu == 1 ? u_min : 1, v = mv == 1 ? v_min : 1;
      std::vector<double> t(n);
      for (size_t i = 0; i < n; ++i) t[i] = d.y[i] - l.e - (mu ? u * x[i] : 0) - (mv ? v * z[i] : 0);
      std::vector<const std::vector<double>*> cols;
      if (mu == 0) cols.push_back(&x);
      if (mv == 0) cols.push_back(&z);
      std::vector<double> c;
      if (!cols.empty() && !column_least_squares(cols, t, c)) continue;
      if (mu == 0) u = c[0];
      if (mv == 0) v = c.back();
      if (u < u_min || v < v_min) continue;
      double sse = 0;
      for (size_t i = 0; i < n; ++i) sse += std::pow(d.y[i] - l.e - u * x[i] - v * z[i], 2);
      if (sse < best) best = sse, bu = u, bv = v;
    }
  if (!std::isfinite(best)) return false;
  eff_n = fit_n ? std::pow(bu, -1 / l.alpha) : 1;
  eff_d = fit_d ? std::pow(bv, -1 / l.beta) : 1;
  return true;
}

// A recipe's points for the fits: per point, (seed index, loss) of its seeds.
struct Prepared {
  std::vector<double> n, d;
  std::vector<std::vector<std::pair<int, double>>> seeds;
};

// The point means with each seed counted `count[seed]` times (a bootstrap draw); points none of
// whose seeds were drawn are left out.
Data means(const Prepared& p, const std::vector<int>& count) {
  Data out;
  for (size_t i = 0; i < p.n.size(); ++i) {
    double sum = 0;
    int k = 0;
    for (const auto& [s, loss] : p.seeds[i]) sum += count[size_t(s)] * loss, k += count[size_t(s)];
    if (k == 0) continue;
    out.n.push_back(p.n[i]), out.d.push_back(p.d[i]);
    out.ln_n.push_back(std::log(p.n[i])), out.ln_d.push_back(std::log(p.d[i]));
    out.y.push_back(sum / k);
    out.point.push_back(int(i));
  }
  return out;
}

// Why the baseline's points cannot carry the law ("" when they can).
std::string baseline_problem(const Data& d) {
  if (d.y.empty()) return "the baseline has no finished run with a final loss";
  if (distinct(d.n) < 2) return "one model size (N = " + sci(d.n[0]) + ")";
  if (distinct(d.d) < 2) return "one token budget (D = " + sci(d.d[0]) + ")";
  std::vector<double> r;
  for (size_t i = 0; i < d.n.size(); ++i) r.push_back(d.d[i] / d.n[i]);
  if (distinct(r) < 2)
    return "one tokens-per-parameter ratio (D/N = " + sci(r[0]) +
           "): D moves only with N, so D's exponent β is not identified apart from N's";
  if (d.y.size() < 6)
    return std::to_string(d.y.size()) + " points; the law has 5 parameters, so it needs at least 6";
  return "";
}

struct Fit {  // every recipe under one set of seed counts
  Law law;
  std::vector<double> eff_n, eff_d;  // per recipe (the baseline: 1); NaN: no fit
};

struct Run {
  std::string problem;  // why the baseline has no fit ("" when it has)
  Fit full;
  std::vector<Fit> draws;
  int failed = 0;
  std::vector<bool> fit_n, fit_d, fitted;
  std::vector<std::string> notes;                // per recipe
  std::vector<std::vector<double>> residuals;    // per recipe and point: mean − fitted (NaN: no mean)
  std::vector<std::vector<double>> pools;        // per recipe: its finite residuals
  std::vector<std::vector<std::array<double, 3>>> located;  // per recipe: (N, D, residual) of each pool entry
  std::vector<std::array<double, 4>> range;      // per recipe: min/max N, min/max D of its points
};

// Every recipe's multipliers under `law`, with each seed counted `count[seed]` times.
Fit fit_recipes(const Law& law, const std::vector<Prepared>& recipes, const std::vector<int>& count, const Run& plan) {
  Fit f;
  f.law = law;
  f.eff_n.assign(recipes.size(), kNaN), f.eff_d.assign(recipes.size(), kNaN);
  f.eff_n[0] = f.eff_d[0] = 1;
  for (size_t r = 1; r < recipes.size(); ++r)
    if (plan.fitted[r] && !fit_multipliers(law, means(recipes[r], count), plan.fit_n[r], plan.fit_d[r], f.eff_n[r], f.eff_d[r]))
      f.eff_n[r] = f.eff_d[r] = kNaN;
  return f;
}

Run run_fit(const std::vector<Prepared>& recipes, int n_seeds, const JointOptions& o) {
  Run run;
  const size_t nr = recipes.size();
  run.fit_n.assign(nr, false), run.fit_d.assign(nr, false), run.fitted.assign(nr, false), run.notes.assign(nr, "");
  const std::vector<int> all(size_t(n_seeds), 1);
  const Data base = means(recipes[0], all);
  run.problem = baseline_problem(base);
  if (!run.problem.empty()) return run;
  run.fitted[0] = true;
  Law law = fit_law(base, nullptr);
  for (size_t r = 1; r < nr; ++r) {
    const Data d = means(recipes[r], all);
    std::vector<double> ratio;
    for (size_t i = 0; i < d.n.size(); ++i) ratio.push_back(d.d[i] / d.n[i]);
    const int kn = distinct(d.n), kd = distinct(d.d);
    std::string& note = run.notes[r];
    if (d.y.empty()) {
      note = "no finished run with a final loss: no fit";
      continue;
    }
    if (kn < 2 && kd < 2) {
      note = "one (N, D) point: effN and effD are not identified: no fit";
      continue;
    }
    run.fit_n[r] = kn >= 2 && law.a > 0;
    run.fit_d[r] = kd >= 2 && law.b > 0;
    if (kn < 2) note += "one model size: effN is not identified (held at 1); ";
    else if (!(law.a > 0)) note += "the law's A is 0: effN is not identified (held at 1); ";
    if (kd < 2) note += "one token budget: effD is not identified (held at 1); ";
    else if (!(law.b > 0)) note += "the law's B is 0: effD is not identified (held at 1); ";
    if (run.fit_n[r] && run.fit_d[r] && distinct(ratio) < 2)
      note += "one tokens-per-parameter ratio: effN and effD are told apart only through α ≠ β; ";
    run.fitted[r] = run.fit_n[r] || run.fit_d[r];
    if (!run.fitted[r]) note += "no multiplier to fit; ";
    if (note.size() >= 2) note.resize(note.size() - 2);
  }
  if (!std::isfinite(law.sse)) {
    run.problem = "the least-squares fit failed";
    return run;
  }
  run.full = fit_recipes(law, recipes, all, run);
  run.residuals.resize(nr), run.pools.resize(nr), run.located.resize(nr), run.range.resize(nr);
  for (size_t r = 0; r < nr; ++r) {
    const Prepared& p = recipes[r];
    run.residuals[r].assign(p.n.size(), kNaN);
    run.range[r] = {kInf, -kInf, kInf, -kInf};
    for (size_t i = 0; i < p.n.size(); ++i)
      run.range[r] = {std::min(run.range[r][0], p.n[i]), std::max(run.range[r][1], p.n[i]),
                      std::min(run.range[r][2], p.d[i]), std::max(run.range[r][3], p.d[i])};
    if (!std::isfinite(run.full.eff_n[r])) continue;
    const Data d = means(p, all);
    for (size_t i = 0; i < d.y.size(); ++i) {
      const double res = d.y[i] - law_at(run.full.law, d.n[i], d.d[i], run.full.eff_n[r], run.full.eff_d[r]);
      run.residuals[r][size_t(d.point[i])] = res;
      run.pools[r].push_back(res);
      run.located[r].push_back({d.n[i], d.d[i], res});
    }
  }
  if (n_seeds < 2) return run;
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int> pick(0, n_seeds - 1);
  for (int s = 0; s < o.bootstrap; ++s) {
    std::vector<int> count(size_t(n_seeds), 0);
    for (int k = 0; k < n_seeds; ++k) ++count[size_t(pick(rng))];
    const Data b = means(recipes[0], count);
    const Law l = baseline_problem(b).empty() ? fit_law(b, &law) : Law{};
    if (std::isfinite(l.sse)) run.draws.push_back(fit_recipes(l, recipes, count, run));
    else ++run.failed;
  }
  return run;
}

double loss_of(const Fit& f, int r, double n, double d) { return law_at(f.law, n, d, f.eff_n[size_t(r)], f.eff_d[size_t(r)]); }

// D_a/D − 1 with L_a(N, D_a) = L_b(N, D); +∞ when a's N-term alone is already above L_b.
double token_gap_of(const Fit& f, int a, int b, double n, double d) {
  const Law& l = f.law;
  const double rest = loss_of(f, b, n, d) - l.e - l.a * std::pow(n * f.eff_n[size_t(a)], -l.alpha);
  if (!std::isfinite(rest)) return kNaN;
  if (rest <= 0) return kInf;
  if (!(l.b > 0)) return kNaN;
  return std::pow(l.b / rest, 1 / l.beta) / f.eff_d[size_t(a)] / d - 1;
}

// A − B at (n, d) (b < 0: A's loss) under the run's fits: the estimate, and a prediction interval
// over the bootstrap fits plus, for the loss, a resampled residual of each recipe's fit.
// The paired residuals of a gap A − B: A's minus B's at each (N, D) where both have a point.
std::vector<double> paired_residuals(const Run& run, int a, int b) {
  std::vector<double> out;
  for (const auto& pa : run.located[size_t(a)])
    for (const auto& pb : run.located[size_t(b)])
      if (std::fabs(pa[0] - pb[0]) <= kSame * pa[0] && std::fabs(pa[1] - pb[1]) <= kSame * pa[1])
        out.push_back(pa[2] - pb[2]);
  return out;
}

// A loss (b < 0) or gap with its prediction interval: the bootstrap fits plus a resampled residual,
// for a gap the paired residual of A − B at one of the points both ran (the law's misfit at a
// point is largely shared by the two recipes), or two independent ones when they share none.
Estimate predict_loss(const Run& run, int a, int b, double n, double d, double confidence, std::mt19937_64& rng) {
  auto value = [&](const Fit& f) { return loss_of(f, a, n, d) - (b < 0 ? 0 : loss_of(f, b, n, d)); };
  auto draw_from = [&](const std::vector<double>& pool) {
    return pool.empty() ? 0.0 : pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
  };
  const std::vector<double> paired = b < 0 ? std::vector<double>{} : paired_residuals(run, a, b);
  std::vector<double> v;
  for (const Fit& f : run.draws) {
    double e = 0;
    if (!paired.empty()) e = draw_from(paired);
    else e = draw_from(run.pools[size_t(a)]) - (b < 0 ? 0 : draw_from(run.pools[size_t(b)]));
    v.push_back(value(f) + e);
  }
  return interval(value(run.full), v, confidence);
}

Estimate predict_tokens(const Run& run, int a, int b, double n, double d, double confidence) {
  std::vector<double> v;
  for (const Fit& f : run.draws) v.push_back(token_gap_of(f, a, b, n, d));
  return interval(token_gap_of(run.full, a, b, n, d), v, confidence);
}

}  // namespace

JointLaw fit_joint_law(std::vector<JointRecipe> recipes, const std::vector<std::pair<int, int>>& pairs,
                       const JointOptions& o) {
  JointLaw law;
  law.pairs = pairs;
  // Finite losses only; the seeds indexed across every recipe (one bootstrap draw serves them all).
  std::map<int64_t, int> seed_index;
  int dropped = 0;
  for (size_t i = 0; i < recipes.size(); ++i) recipes[i].baseline = i == 0;
  for (JointRecipe& r : recipes) {
    std::vector<JointPoint> kept;
    for (JointPoint& p : r.points) {
      JointPoint q = p;
      q.seeds.clear(), q.loss.clear();
      for (size_t k = 0; k < p.seeds.size(); ++k) {
        if (!std::isfinite(p.loss[k])) {
          ++dropped;
          continue;
        }
        q.seeds.push_back(p.seeds[k]), q.loss.push_back(p.loss[k]);
        seed_index.emplace(p.seeds[k], int(seed_index.size()));
      }
      q.observed = seed_stats(q.loss, o.confidence);
      if (q.observed.n > 0 && q.params > 0 && q.tokens > 0) kept.push_back(q);
      else if (q.observed.n > 0) ++dropped;
    }
    r.points = kept;
  }
  law.recipes = recipes;
  law.seeds = int(seed_index.size());
  std::string note = dropped ? std::to_string(dropped) + " runs without a final loss (or N, D) left out; " : "";
  if (law.seeds == 1) note += "one seed: no bootstrap intervals; ";
  auto finish = [&](std::string& s) {
    if (s.size() >= 2 && s.substr(s.size() - 2) == "; ") s.resize(s.size() - 2);
  };
  if (recipes.empty()) {
    law.note = "no baseline: no joint law";
    return law;
  }
  auto prepare = [&](const std::vector<JointRecipe>& rs) {
    std::vector<Prepared> out;
    for (const JointRecipe& r : rs) {
      Prepared p;
      for (const JointPoint& q : r.points) {
        p.n.push_back(q.params), p.d.push_back(q.tokens);
        p.seeds.emplace_back();
        for (size_t k = 0; k < q.seeds.size(); ++k) p.seeds.back().push_back({seed_index.at(q.seeds[k]), q.loss[k]});
      }
      out.push_back(p);
    }
    return out;
  };
  const std::vector<Prepared> prepared = prepare(recipes);
  const Run run = run_fit(prepared, law.seeds, o);
  if (!run.problem.empty()) {
    law.note = note + "no joint fit: " + run.problem;
    for (size_t r = 1; r < law.recipes.size(); ++r) law.recipes[r].note = "no baseline fit";
    finish(law.note);
    return law;
  }
  law.fitted = true;
  law.samples = int(run.draws.size());
  law.failed = run.failed;
  auto constant = [&](double Law::*m) {
    std::vector<double> v;
    for (const Fit& f : run.draws) v.push_back(f.law.*m);
    return interval(run.full.law.*m, v, o.confidence);
  };
  law.e = constant(&Law::e), law.a = constant(&Law::a), law.alpha = constant(&Law::alpha);
  law.b = constant(&Law::b), law.beta = constant(&Law::beta);
  for (double Law::*m : {&Law::alpha, &Law::beta})
    if (run.full.law.*m <= kExpLo * (1 + 1e-6) || run.full.law.*m >= kExpHi * (1 - 1e-6))
      note += std::string(m == &Law::alpha ? "α" : "β") + " at the end of its range [0.05, 2]; ";
  for (double Law::*m : {&Law::a, &Law::b})
    if (run.full.law.*m == 0) note += std::string(m == &Law::a ? "A" : "B") + " = 0 (its bound): that term is absent; ";
  const auto& pts = prepared[0];
  law.rmse = std::sqrt(run.full.law.sse / double(pts.n.size()));
  for (size_t r = 0; r < law.recipes.size(); ++r) {
    JointRecipe& jr = law.recipes[r];
    jr.fitted = run.fitted[r] && std::isfinite(run.full.eff_n[r]);
    if (r > 0) {
      jr.note = run.notes[r];
      jr.eff_n_identified = run.fit_n[r], jr.eff_d_identified = run.fit_d[r];
      if (jr.fitted) {
        std::vector<double> vn, vd;
        for (const Fit& f : run.draws) vn.push_back(f.eff_n[r]), vd.push_back(f.eff_d[r]);
        jr.eff_n = run.fit_n[r] ? interval(run.full.eff_n[r], vn, o.confidence) : Estimate{1, kNaN, kNaN};
        jr.eff_d = run.fit_d[r] ? interval(run.full.eff_d[r], vd, o.confidence) : Estimate{1, kNaN, kNaN};
        for (double eff : {jr.eff_n.value, jr.eff_d.value})
          if (eff >= kEffMax * (1 - 1e-9)) {
            jr.note += std::string(jr.note.empty() ? "" : "; ") + "a multiplier at its cap 2";
            break;
          }
      }
    }
    for (size_t i = 0; i < jr.points.size(); ++i) {
      JointPoint& p = jr.points[i];
      p.residual = run.residuals[r][i];
      p.fitted = p.observed.mean - p.residual;
      if (p.observed.n >= 2 && p.observed.sd > 0) p.residual_se = p.residual / (p.observed.sd / std::sqrt(double(p.observed.n)));
    }
  }
  // Predictions: the requested (N, D), and at_params at the baseline's largest D/N unless D is given.
  std::vector<std::pair<double, double>> at = o.at;
  if (o.at_params > 0) {
    double ratio = 0;
    for (size_t i = 0; i < pts.n.size(); ++i) ratio = std::max(ratio, pts.d[i] / pts.n[i]);
    at.push_back({o.at_params, o.at_tokens > 0 ? o.at_tokens : ratio * o.at_params});
  }
  std::mt19937_64 noise(o.seed + 1);
  auto predict = [&](int ia, int ib, double n, double d) {
    JointPrediction p;
    p.a = ia, p.b = ib, p.params = n, p.tokens = d;
    const JointRecipe &ra = law.recipes[size_t(ia)], &rb = law.recipes[size_t(ib)];
    if (!ra.fitted || !rb.fitted) {
      p.note = (!ra.fitted ? ra.label : rb.label) + " has no fit";
      return p;
    }
    p.loss_gap = predict_loss(run, ia, ib, n, d, o.confidence, noise);
    p.token_gap = predict_tokens(run, ia, ib, n, d, o.confidence);
    if (std::isinf(p.token_gap.value)) p.note = "unreachable: A's loss at unlimited data is above B's";
    for (int r : {0, ia, ib}) {
      const auto& g = run.range[size_t(r)];
      if (n < g[0] * (1 - kSame) || n > g[1] * (1 + kSame) || d < g[2] * (1 - kSame) || d > g[3] * (1 + kSame))
        p.extrapolated = true;
    }
    return p;
  };
  for (const auto& [ia, ib] : pairs)
    for (const auto& [n, d] : at) law.predictions.push_back(predict(ia, ib, n, d));
  for (const JointQuery& q : o.queries) {
    auto index = [&](const Selector& s) {
      for (size_t r = 0; r < law.recipes.size(); ++r)
        if (law.recipes[r].selector == s) return int(r);
      return -1;
    };
    const int ia = index(q.a), ib = index(q.b);
    JointPrediction p;
    if (ia >= 0 && ib >= 0) p = predict(ia, ib, q.params, q.tokens);
    else p.a = ia, p.b = ib, p.params = q.params, p.tokens = q.tokens, p.note = "not among the law's recipes";
    law.answers.push_back(p);
  }
  // Leave-one-size-out: refit without every point at the largest N; predict the held-out points.
  double n_max = 0;
  for (const auto& p : prepared)
    for (double n : p.n) n_max = std::max(n_max, n);
  law.holdout_params = n_max;
  std::vector<JointRecipe> reduced = law.recipes;
  for (JointRecipe& r : reduced)
    r.points.erase(std::remove_if(r.points.begin(), r.points.end(),
                                  [&](const JointPoint& p) { return p.params >= n_max * (1 - kSame); }),
                   r.points.end());
  const Run held = run_fit(prepare(reduced), law.seeds, o);
  std::string hnote;
  if (!held.problem.empty()) {
    hnote = "without N = " + sci(n_max) + ": " + held.problem + ": no check";
  } else {
    for (size_t r = 0; r < law.recipes.size(); ++r) {
      const auto& points = law.recipes[r].points;
      const bool held_out = std::any_of(points.begin(), points.end(),
                                        [&](const JointPoint& p) { return p.params >= n_max * (1 - kSame); });
      if (!held.fitted[r]) {
        if (held_out && law.recipes[r].fitted) hnote += law.recipes[r].label + ": no fit without N = " + sci(n_max) + "; ";
        continue;
      }
      for (const JointPoint& p : law.recipes[r].points) {
        if (p.params < n_max * (1 - kSame)) continue;
        JointHoldout h;
        h.a = int(r), h.params = p.params, h.tokens = p.tokens, h.observed = p.observed.mean;
        h.predicted = predict_loss(held, int(r), -1, p.params, p.tokens, o.confidence, noise);
        h.inside = h.predicted.lo <= h.observed && h.observed <= h.predicted.hi;
        law.holdout.push_back(h);
      }
    }
    for (const auto& [ia, ib] : pairs) {
      if (!held.fitted[size_t(ia)] || !held.fitted[size_t(ib)]) continue;
      for (const JointPoint& pa : law.recipes[size_t(ia)].points)
        for (const JointPoint& pb : law.recipes[size_t(ib)].points) {
          if (pa.params < n_max * (1 - kSame) || pb.params < n_max * (1 - kSame)) continue;
          if (std::abs(pa.tokens / pb.tokens - 1) > kSame) continue;
          std::vector<double> gaps;  // paired by seed
          for (size_t i = 0; i < pa.seeds.size(); ++i)
            for (size_t j = 0; j < pb.seeds.size(); ++j)
              if (pa.seeds[i] == pb.seeds[j]) gaps.push_back(pa.loss[i] - pb.loss[j]);
          if (gaps.empty()) continue;
          JointHoldout h;
          h.a = ia, h.b = ib, h.params = pb.params, h.tokens = pb.tokens, h.observed = mean_of(gaps);
          h.predicted = predict_loss(held, ia, ib, pb.params, pb.tokens, o.confidence, noise);
          h.inside = h.predicted.lo <= h.observed && h.observed <= h.predicted.hi;
          law.holdout.push_back(h);
        }
    }
    if (held.draws.empty()) hnote += "no bootstrap (one seed): no prediction intervals; ";
  }
  finish(hnote);
  law.holdout_note = hnote;
  finish(note);
  law.note = note;
  return law;
}

JointLaw joint_law(const std::vector<AnalysisReport>& reports, const Selector& baseline,
                   const std::vector<std::pair<Selector, Selector>>& pairs, const JointOptions& o) {
  if (baseline.empty()) {
    JointLaw law;
    law.note = "the grids name no baseline: no joint law";
    return law;
  }
  std::vector<Selector> sels = {baseline};
  std::vector<std::pair<int, int>> idx;
  auto index_of = [&](const Selector& s) {
    const auto it = std::find(sels.begin(), sels.end(), s);
    if (it != sels.end()) return int(it - sels.begin());
    sels.push_back(s);
    return int(sels.size()) - 1;
  };
  for (const auto& [a, b] : pairs) {
    const int ia = index_of(a), ib = index_of(b);
    idx.push_back({ia, ib});
  }
  // The loss: the final validation loss when every finished run has one, else the smoothed train loss.
  bool all_val = true;
  int unfinished = 0;
  for (const AnalysisReport& rep : reports)
    for (const GroupResult& g : rep.groups) {
      if (!std::any_of(sels.begin(), sels.end(), [&](const Selector& s) { return selects(s, g.vary); })) continue;
      for (int ci : g.cells) {
        const CellResult& c = rep.cells[size_t(ci)];
        if (c.state == "done" && c.included) all_val = all_val && std::isfinite(c.final_val_loss);
        else ++unfinished;
      }
    }
  std::vector<JointRecipe> recipes;
  for (const Selector& s : sels) {
    JointRecipe r;
    r.selector = s;
    r.label = config_label(s);
    for (const AnalysisReport& rep : reports)
      for (const GroupResult& g : rep.groups) {
        if (!selects(s, g.vary)) continue;
        JointPoint p;
        p.dir = rep.dir, p.config = g.label;
        std::vector<double> tokens;
        for (int ci : g.cells) {
          const CellResult& c = rep.cells[size_t(ci)];
          if (!std::isfinite(p.params)) p.params = c.model_params;
          if (c.state != "done" || !c.included) continue;
          p.seeds.push_back(c.seed);
          p.loss.push_back(all_val ? c.final_val_loss : c.final_train_ema);
          tokens.push_back(c.tokens);
        }
        p.tokens = mean_of(tokens);
        if (!p.seeds.empty()) r.points.push_back(p);
      }
    std::sort(r.points.begin(), r.points.end(), [](const JointPoint& x, const JointPoint& y) {
      return x.params != y.params ? x.params < y.params : x.tokens < y.tokens;
    });
    recipes.push_back(r);
  }
  JointLaw law = fit_joint_law(recipes, idx, o);
  law.loss_kind = all_val ? "val" : "train_ema";
  std::string extra;
  if (!all_val) extra += "a finished run has no validation loss: every point uses the smoothed final train loss; ";
  if (unfinished) extra += std::to_string(unfinished) + " runs not finished (pending, running, diverged or failed) left out; ";
  if (!extra.empty()) {
    extra.resize(extra.size() - 2);
    law.note = extra + (law.note.empty() ? "" : "; " + law.note);
  }
  return law;
}

std::string joint_law_summary(const JointLaw& law) {
  auto est = [](const Estimate& x) {
    char buf[96];
    if (std::isfinite(x.lo)) std::snprintf(buf, sizeof buf, "%.4g [%.4g, %.4g]", x.value, x.lo, x.hi);
    else std::snprintf(buf, sizeof buf, "%.4g", x.value);
    return std::string(buf);
  };
  if (!law.fitted) return "joint law L(N, D): " + (law.note.empty() ? std::string("no fit") : law.note);
  std::string s = "joint law L(N, D) = E + A/N^α + B/D^β on " + law.recipes[0].label + ": E = " + est(law.e) +
                  ", A = " + est(law.a) + ", α = " + est(law.alpha) + ", B = " + est(law.b) + ", β = " + est(law.beta);
  for (size_t r = 1; r < law.recipes.size(); ++r) {
    const JointRecipe& jr = law.recipes[r];
    s += "; " + jr.label + ": " +
         (jr.fitted ? "effN " + (jr.eff_n_identified ? est(jr.eff_n) : std::string("—")) + ", effD " +
                          (jr.eff_d_identified ? est(jr.eff_d) : std::string("—"))
                    : std::string("no fit"));
  }
  if (!law.holdout.empty()) {
    const auto inside = std::count_if(law.holdout.begin(), law.holdout.end(), [](const JointHoldout& h) { return h.inside; });
    s += "; leave-one-size-out: " + std::to_string(inside) + " of " + std::to_string(law.holdout.size()) + " inside";
  }
  return s;
}

}  // namespace fp4lab::analysis
