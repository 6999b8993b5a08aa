// How a recipe's gap to its baseline moves with model size (`fp4lab scaling DIR...`). From the
// paired comparisons of grids that vary the model (metrics.hpp), one series per (A, B) selector
// pair, one point per model size: the final-loss gap and the token gap with CIs over seeds, effN
// and effD; a fit of each gap against non-embedding parameters N with a bootstrap over seeds; an
// extrapolation to a size the user names; beside them the joint law L(N, D) across every run of the
// compared recipes (joint_law.hpp). Definitions are restated in results/SCHEMA.md.
// No plotting (plot.hpp) here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/joint_law.hpp"
#include "analysis/metrics.hpp"
#include "analysis/transfer.hpp"

namespace fp4lab::analysis {

struct ScalingOptions {
  double confidence = 0.95;  // CIs over seeds and the bootstrap's percentile intervals
  int bootstrap = 2000;      // resamples of the seeds (within each size, with replacement)
  uint64_t seed = 0;         // the bootstrap's random stream
  double at = kNaN;          // extrapolate each fit to this many non-embedding parameters
  // The joint law's predictions: these (N, D), and `at` with D = at_tokens (NaN: the baseline's
  // largest tokens per parameter times `at`).
  std::vector<std::pair<double, double>> joint_at = {{8e9, 1e12}, {1.2e10, 1e13}};
  double at_tokens = kNaN;
};

// One model size of a series: the comparison A − B of one grid.
struct ScalingPoint {
  std::string dir, a, b;     // the grid and the compared config labels
  double params = kNaN;      // non-embedding parameters of A's model (B's is the same)
  double tokens = kNaN;      // B's training tokens
  std::vector<int64_t> seeds;
  GapStats loss_gap;         // final-loss gap A − B, nats (validation when both runs have it)
  std::string loss_gap_kind;  // "val" | "train_ema"
  // The design's resolution: the loss gap a paired comparison with these seeds detects with 80%
  // power, (t_{(1+c)/2, n−1} + t_{0.8, n−1}) · sd / √n; and the cost, tokens/s of A's and B's runs.
  double loss_gap_mde = kNaN, tokens_per_second = kNaN;
  double a_loss = kNaN, b_loss = kNaN;  // mean final losses
  GapStats token_gap;        // tokens A needs to reach B's final loss / B's tokens − 1
  std::vector<int> token_gap_bound;  // per seed: +1 lower bound, −1 upper bound, 0 exact
  std::string token_gap_form;        // "crossing" | "multi_budget"
  SeedStats eff_d;           // 1 / (1 + token gap) over the seeds; only when every seed is exact
  // effN: the model size N' whose baseline (B) reaches A's final loss on the series' B curve
  // (final loss against log N, piecewise linear through the sizes' seed means), over N. A seed
  // whose loss lies outside the curve's range gets a bound (+1: N' is above the largest size, −1:
  // below the smallest) and no CI.
  GapStats eff_n;
  std::vector<int> eff_n_bound;
};

// A gap against N. Forms (x = ln N unless said):
//   power             gap = c · N^b           least squares of ln(mean gap) on ln N (every size's mean > 0)
//   multiplier_power  1 + gap = c · N^b       of the mean of ln(1 + gap) per seed (token gaps)
//   log_linear        gap = a + b · log10 N   the loss gap when some size's mean is ≤ 0 (b: per decade)
// The slope b's interval: percentiles of b over bootstrap resamples of each size's seeds.
struct ScalingFit {
  std::string metric;        // "loss_gap" | "token_gap"
  std::string form;          // as above; "" when there is no fit (note says why)
  std::vector<double> params, mean;  // the sizes fitted and their mean gaps
  double intercept = kNaN, slope = kNaN;  // ln c (or a) and b
  double slope_lo = kNaN, slope_hi = kNaN;
  int samples = 0, failed = 0;  // bootstrap resamples used and left out (a power law with a mean ≤ 0)
  // Extrapolation to ScalingOptions::at: the fitted gap and a prediction interval (bootstrap fits
  // plus a resampled residual of the fit), flagged when `at` lies outside the fitted sizes.
  double at = kNaN, predicted = kNaN, predicted_lo = kNaN, predicted_hi = kNaN;
  bool extrapolated = false;
  std::string trend;         // "grows" | "shrinks" (the slope's interval excludes 0) | "no detectable trend"
  std::string note;
  double value_at(double params) const;  // the fitted gap at `params`
};

struct ScalingSeries {
  Selector a, b;
  std::string label;          // "recipe=mxfp4 − recipe=nvfp4"
  std::vector<ScalingPoint> points;  // ascending in params
  ScalingFit loss_fit, token_fit;
  std::string published_loss, published_tokens;  // a grid claim's published number on this pair
  std::string note;
};

struct ScalingReport {
  std::vector<std::string> dirs;
  ScalingOptions options;
  std::vector<ScalingSeries> series;
  JointLaw joint;  // over the baseline and every recipe the series compare
  std::vector<TransferRow> transfer;  // the published numbers beside the joint law's predictions
  std::string units;  // the grids' loss units ("nats per token of bpe:2048"); "" when they disagree
  std::vector<std::string> notes;
};

// Series from the reports' comparisons (the `compare:` pairs and claims; a grid with a model axis
// gives one comparison per size). Points of one series must differ in N.
ScalingReport scaling_analysis(const std::vector<AnalysisReport>& reports, const ScalingOptions& options = {});

// One fit from per-size per-seed gaps (NaN values ignored). `token` selects multiplier_power;
// otherwise power, or log_linear when a size's mean gap is ≤ 0. Sizes with fewer than two seeds
// are left out (noted); fewer than two sizes left: no fit.
ScalingFit fit_gap(const std::vector<double>& params, const std::vector<std::vector<double>>& per_seed, bool token,
                   const ScalingOptions& options);

// Serializations (full precision in JSON/CSV). `images` are embedded relative to `base_dir`.
std::string scaling_markdown(const ScalingReport& report, const std::vector<std::string>& images = {},
                             const std::string& base_dir = "");
std::string scaling_json(const ScalingReport& report);
std::string scaling_csv(const ScalingReport& report);
// The transfer table's Markdown section ("## Transfer to published results", then " (context)"
// when given), for scaling.md and FINDINGS.md.
std::string transfer_markdown(const std::vector<TransferRow>& rows, const JointLaw& law, double confidence,
                              const std::string& context = "");

}  // namespace fp4lab::analysis
