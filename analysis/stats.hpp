// The statistics building blocks of the analysis layer, free of any report structure:
// debiased-EMA smoothing, tokens-to-target interpolation (single- and multi-budget forms),
// converged-regime paired gaps, Student-t confidence intervals over seeds and what follows from
// them (minimum detectable effect, sign test), and the small numerics the scaling fits need
// (weighted least squares, percentiles, medians). Definitions are written out in
// results/SCHEMA.md, Metric definitions. metrics.hpp builds the report from these.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/train/run_file.hpp"

namespace fp4lab::analysis {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------- curves

// TensorBoard's debiased exponential moving average: m_i = w·m_{i-1} + (1-w)·y_i with m_0 = 0,
// smoothed_i = m_i / (1 - w^k) with k the number of finite values so far. Non-finite values pass
// through unchanged and do not update the average. w = 0 returns y.
std::vector<double> ema_smooth(const std::vector<double>& y, double weight);

// Steps sorted by step, a repeated step keeping its last record (a resumed run logs some twice).
std::vector<StepRecord> clean_steps(std::vector<StepRecord> steps);

// ---------------------------------------------------------------------------- tokens to target

// First point where `loss` <= target, interpolated linearly in log(tokens) between it and the
// point before (tokens must be > 0; with a non-positive or missing previous point, that point's
// tokens). Not reached: reached = false, tokens = the last finite point's tokens (the budget).
struct Crossing {
  bool reached = false;
  double tokens = kNaN;  // crossing (reached) or budget, a lower bound (not reached)
};
Crossing first_crossing(const std::vector<double>& tokens, const std::vector<double>& loss, double target);

// Multi-budget form (NVIDIA 2509.25149 Fig. 6b): final loss per total budget, piecewise-linear
// in the budget; the first budget at which the curve comes down to `target`.
enum class BudgetMatch { inside, above_all, below_all };  // above_all: never reaches (> max budget)
struct BudgetCrossing {
  BudgetMatch match = BudgetMatch::above_all;
  double budget = kNaN;  // inside: interpolated; above_all: max budget; below_all: min budget
};
BudgetCrossing budget_to_match(const std::vector<double>& budgets, const std::vector<double>& final_loss,
                               double target);  // budgets ascending

// ---------------------------------------------------------------------------- over seeds

// Mean, sample standard deviation and a two-sided Student-t confidence interval over seeds:
// mean ± t_{(1+c)/2, n-1} · sd / sqrt(n). n = 1: no sd, no CI (has_ci = false).
struct SeedStats {
  int n = 0;
  double mean = kNaN, sd = kNaN;
  double t = kNaN;  // the t quantile used
  double ci_low = kNaN, ci_high = kNaN;
  bool has_ci = false;
};
SeedStats seed_stats(const std::vector<double>& xs, double confidence = 0.95);  // NaNs ignored
double student_t_quantile(double p, double dof);  // Boost.Math

// A statistic that is a bound, not a value (a seed censored): it keeps its mean but has no CI.
void drop_ci(SeedStats& s);

// Per-seed values of a paired comparison and their statistic.
struct GapStats {
  SeedStats stats;
  std::vector<double> per_seed;  // in the order of the comparison's seeds (NaN: not available)
};
GapStats gap_stats(std::vector<double> per_seed, double confidence);

// The smallest mean a paired design with these seeds detects with 80% power at `confidence`:
// (t_{(1+c)/2, n−1} + t_{0.8, n−1}) · sd / √n. NaN with fewer than two seeds.
double min_detectable_effect(const SeedStats& s, double confidence);

// The power line beside a paired gap: at the measured mean and per-seed sd, the fewest paired seeds
// n whose CI, t_{(1+c)/2, n−1} · sd / √n < |mean|, excludes zero (`to_exclude`), and the fewest that
// exclude it in 80% of reruns, (t_{(1+c)/2, n−1} + t_{0.8, n−1}) · sd / √n ≤ |mean| (`for_power`).
// -1 when it cannot be said (fewer than two seeds, no CI: a censored bound, or a zero mean);
// kSeedsCap + 1 when more than kSeedsCap seeds would be needed.
struct SeedsNeeded {
  int to_exclude = -1, for_power = -1;
  bool excludes_now = false;  // the current CI already excludes zero
};
inline constexpr int kSeedsCap = 10000;
SeedsNeeded seeds_needed(const SeedStats& s, double confidence);
// "excludes 0; 80% power at 6 seeds" / "9 seeds would exclude 0; 80% power at 16" / "—"
std::string seeds_needed_text(const SeedsNeeded& n);

// Two-sided exact sign-test p of k of n seeds on one side: min(1, 2·P(X ≥ max(k, n − k))),
// X ~ Binomial(n, 1/2).
double sign_test_p(int k, int n);

// Where one value falls among a baseline's seeds (the convergence-gate question "is this run
// inside the reference's seed spread?"). percentile = 100·(#{b < x} + ½·#{b = x}) / n (the
// mid-rank, 50 at the median); the spread is the two-sided Student-t prediction interval of one
// more baseline seed, mean ± t_{(1+c)/2, n−1}·sd·√(1 + 1/n); `where` is inside, above or below it
// ("" with fewer than two finite baseline values or a non-finite x). A censored x (a run that never
// reached its target: x is a lower bound) has no percentile; it is above when the bound already
// lies above the interval, otherwise unknown (""), since it could lie anywhere above the bound.
struct SpreadPosition {
  double value = kNaN, percentile = kNaN;
  double spread_low = kNaN, spread_high = kNaN;
  bool censored = false;
  std::string where;  // "inside" | "above" | "below" | ""
};
SpreadPosition spread_position(const std::vector<double>& baseline, double x, double confidence, bool censored = false);

// ---------------------------------------------------------------------------- converged regime

// Which paired steps form the converged window.
struct WindowRule {
  double fraction = 0.25;  // the last `fraction` of the paired steps: steps > S - ceil(fraction·S)
                           // with S the last step both runs have
  bool by_tokens = false;  // else: paired steps whose tokens (cell's) lie in [tokens_min, tokens_max]
  double tokens_min = 0, tokens_max = 0;
};

// Per-step paired difference d_k = L_cell(k) - L_ref(k) of the raw training loss over the steps
// k both runs logged (same seed: same data order), within the window; mean, per-step sample
// std, and NVIDIA's relative difference (L_ref - L_cell)/L_ref·100 averaged over the window.
struct PairedGap {
  int64_t n_steps = 0;
  int64_t step_lo = 0, step_hi = 0;
  double tokens_lo = kNaN, tokens_hi = kNaN;
  double mean_gap = kNaN, sd_gap = kNaN, mean_rel_pct = kNaN;
};
PairedGap paired_window_gap(const std::vector<StepRecord>& cell, const std::vector<StepRecord>& ref,
                            const WindowRule& rule);

// ---------------------------------------------------------------------------- small numerics

double mean_of(const std::vector<double>& v);  // plain mean (NaNs propagate); NaN when empty
double median(std::vector<double> v);          // of the values as given; NaN when empty
// Percentile q ∈ [0, 1] of ascending values, interpolated linearly between order statistics.
double percentile(const std::vector<double>& sorted, double q);
// Weighted least squares y = a + b·x (weights w > 0); b = NaN when x does not vary.
void least_squares(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w,
                   double& a, double& b);

}  // namespace fp4lab::analysis
