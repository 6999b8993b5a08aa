// The joint law of final loss in model size and data, L(N, D) = E + A/N^α + B/D^β (N non-embedding
// parameters, D training tokens), for `fp4lab scaling`: fitted on the grids' baseline recipe, each
// other compared recipe as effective multipliers of N and D with the baseline's constants fixed,
// L(N, D) = E + A/(N·effN)^α + B/(D·effD)^β; percentile intervals from a bootstrap over seeds;
// predicted loss and token gaps of each compared pair at any (N, D); residuals and a
// leave-one-size-out check. scaling.hpp serializes it; definitions in results/SCHEMA.md, Scaling.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/metrics.hpp"

namespace fp4lab::analysis {

// One more prediction: the gaps A − B at (N, D) for two recipes of the law named by selector.
struct JointQuery {
  Selector a, b;
  double params = kNaN, tokens = kNaN;
};

struct JointOptions {
  double confidence = 0.95;  // the percentile intervals
  int bootstrap = 2000;      // resamples of the seeds (one draw of seed indices shared by every recipe)
  uint64_t seed = 0;         // the bootstrap's random stream
  std::vector<std::pair<double, double>> at;  // (N, D) to predict each pair's gaps at
  // One more (N, D): N = at_params with D = at_tokens, or when that is NaN the baseline's largest
  // tokens per parameter D/N times N. Nothing when at_params is NaN.
  double at_params = kNaN, at_tokens = kNaN;
  std::vector<JointQuery> queries;  // answered in JointLaw::answers, in this order
};

struct Estimate {  // a fitted quantity and its percentile interval over the bootstrap fits
  double value = kNaN, lo = kNaN, hi = kNaN;
};

// One config's runs at one (N, D): the final losses of its finished seeds.
struct JointPoint {
  std::string dir, config;    // the grid and the config label
  double params = kNaN, tokens = kNaN;  // N (from the runs' config), D (mean over the seeds' runs)
  std::vector<int64_t> seeds;
  std::vector<double> loss;   // per seed, final loss (JointLaw::loss_kind)
  SeedStats observed;         // over the seeds
  double fitted = kNaN;       // the law at (N, D)
  double residual = kNaN;     // observed mean − fitted
  double residual_se = kNaN;  // residual / (sd / √n) of the seeds (NaN with one seed)
};

struct JointRecipe {
  Selector selector;
  std::string label;  // config_label(selector)
  bool baseline = false;
  std::vector<JointPoint> points;
  bool fitted = false;                                // the baseline: the law; others: their multipliers
  Estimate eff_n, eff_d;                              // others only; 1 (no interval) when not identified
  bool eff_n_identified = false, eff_d_identified = false;
  std::string note;
};

// A pair A − B at (N, D): loss gap L_A(N, D) − L_B(N, D) and token gap D_A/D − 1 with D_A solving
// L_A(N, D_A) = L_B(N, D); +∞ (unreachable) when A's loss at infinite data is already above L_B.
struct JointPrediction {
  int a = -1, b = -1;  // indices into JointLaw::recipes
  double params = kNaN, tokens = kNaN;
  Estimate loss_gap, token_gap;  // intervals: prediction intervals (the loss gap's with residual noise)
  bool extrapolated = false;     // (N, D) outside the fitted points' range of N or of D
  std::string note;
};

// Leave-one-size-out: the law refitted without the largest N predicts a held-out point's loss
// (b = -1) or a pair's paired gap at a held-out (N, D) where both ran.
struct JointHoldout {
  int a = -1, b = -1;
  double params = kNaN, tokens = kNaN;
  double observed = kNaN;
  Estimate predicted;  // with a prediction interval
  bool inside = false;
};

struct JointLaw {
  std::string loss_kind;  // "val" | "train_ema" (when a run has no validation loss)
  std::vector<JointRecipe> recipes;  // [0] the baseline
  std::vector<std::pair<int, int>> pairs;  // compared (A, B), indices into recipes
  bool fitted = false;
  Estimate e, a, alpha, b, beta;
  double rmse = kNaN;  // of the baseline's point means about the law
  int seeds = 0, samples = 0, failed = 0;  // distinct seeds; bootstrap resamples used and left out
  std::vector<JointPrediction> predictions;
  std::vector<JointPrediction> answers;  // JointOptions::queries; a or b = -1 when the law lacks the recipe
  double holdout_params = kNaN;
  std::vector<JointHoldout> holdout;
  std::string holdout_note;
  std::string note;
};

// The law from the reports' finished runs: recipes[0] selects with `baseline`, then one recipe per
// other selector of `pairs`; points are the config groups each selects.
JointLaw joint_law(const std::vector<AnalysisReport>& reports, const Selector& baseline,
                   const std::vector<std::pair<Selector, Selector>>& pairs, const JointOptions& options);

// The fit itself on prepared recipes (recipes[0] the baseline; points with seeds and losses;
// NaN losses are left out); `pairs` index into recipes.
JointLaw fit_joint_law(std::vector<JointRecipe> recipes, const std::vector<std::pair<int, int>>& pairs,
                       const JointOptions& options);

// One line: the constants and each recipe's multipliers, or why there is no fit.
std::string joint_law_summary(const JointLaw& law);

}  // namespace fp4lab::analysis
