// The scaling analysis (analysis/scaling.hpp): fits recover known exponents within their bootstrap
// intervals, extrapolations are labelled, effN and effD come out of constructed curves, and
// degenerate input (one size, censored seeds, a size with one seed) gives a message and no fit.
// The joint law L(N, D) (analysis/joint_law.hpp) recovers known constants and multipliers from
// runs generated with them, predicts the analytic token gap, and says why when it cannot fit.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "analysis/findings.hpp"
#include "analysis/scaling.hpp"

namespace fp4lab::analysis {
namespace {

// Per-seed gaps around `truth(N)` with a seeded, symmetric noise of relative size `rel`.
std::vector<std::vector<double>> noisy(const std::vector<double>& params, double (*truth)(double), int seeds, double rel,
                                       uint64_t stream) {
  std::mt19937_64 rng(stream);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<std::vector<double>> out;
  for (double n : params) {
    std::vector<double> v;
    for (int s = 0; s < seeds; ++s) v.push_back(truth(n) * (1 + rel * z(rng)));
    out.push_back(v);
  }
  return out;
}

const std::vector<double> kSizes = {1e4, 3e4, 1e5, 3e5, 1e6};

double shrinking_gap(double n) { return 0.05 * std::pow(n / 1e5, -0.3); }
double growing_multiplier_minus_one(double n) { return 1.2 * std::pow(n / 1e5, 0.1) - 1; }

TEST(ScalingFit, PowerLawExponentRecoveredWithinItsInterval) {
  ScalingOptions o;
  o.at = 8e9;
  for (uint64_t stream : {1u, 2u, 3u}) {
    const ScalingFit f = fit_gap(kSizes, noisy(kSizes, shrinking_gap, 6, 0.1, stream), false, o);
    ASSERT_EQ(f.form, "power") << f.note;
    EXPECT_LE(f.slope_lo, -0.3) << "stream " << stream;
    EXPECT_GE(f.slope_hi, -0.3) << "stream " << stream;
    EXPECT_NEAR(f.slope, -0.3, 0.05);
    EXPECT_EQ(f.trend, "shrinks");
    EXPECT_EQ(f.samples, o.bootstrap);
    EXPECT_TRUE(f.extrapolated);
    EXPECT_NEAR(f.predicted, shrinking_gap(8e9), 0.3 * shrinking_gap(8e9));
    EXPECT_LE(f.predicted_lo, f.predicted);
    EXPECT_GE(f.predicted_hi, f.predicted);
    EXPECT_NEAR(f.value_at(1e5), 0.05, 0.005);
  }
  // The bootstrap is seeded: the same input gives the same interval.
  const auto v = noisy(kSizes, shrinking_gap, 6, 0.1, 7);
  EXPECT_EQ(fit_gap(kSizes, v, false, o).slope_lo, fit_gap(kSizes, v, false, o).slope_lo);
}

TEST(ScalingFit, TokenMultiplierExponentRecovered) {
  ScalingOptions o;
  o.at = 1e9;
  const ScalingFit f = fit_gap(kSizes, noisy(kSizes, growing_multiplier_minus_one, 5, 0.05, 11), true, o);
  ASSERT_EQ(f.form, "multiplier_power");
  EXPECT_LE(f.slope_lo, 0.1);
  EXPECT_GE(f.slope_hi, 0.1);
  EXPECT_EQ(f.trend, "grows");
  EXPECT_NEAR(f.predicted, growing_multiplier_minus_one(1e9), 0.1);
  // A flat truth: no detectable trend.
  const ScalingFit flat = fit_gap(kSizes, noisy(kSizes, [](double) { return 0.2; }, 5, 0.2, 12), true, o);
  EXPECT_EQ(flat.trend, "no detectable trend");
}

TEST(ScalingFit, AGapAtOrBelowZeroFitsLogLinear) {
  ScalingOptions o;
  std::vector<std::vector<double>> v = {{0.02, 0.03}, {0.01, 0.0}, {-0.0125, -0.0025}};  // equal spreads: equal weights
  const ScalingFit f = fit_gap({1e4, 1e5, 1e6}, v, false, o);
  EXPECT_EQ(f.form, "log_linear");
  EXPECT_NE(f.note.find("<= 0"), std::string::npos) << f.note;
  // Means 0.025, 0.005, -0.0075 at log10 N = 4, 5, 6: slope -0.01625 per decade.
  EXPECT_NEAR(f.slope, -0.01625, 1e-12);
  // A noisier size weighs less: its mean moves the fit less than a precise size's would.
  std::vector<std::vector<double>> noisy_first = {{-0.075, 0.125}, {0.01, 0.0}, {-0.0125, -0.0025}};
  EXPECT_GT(fit_gap({1e4, 1e5, 1e6}, noisy_first, false, o).slope, -0.01625);
}

TEST(ScalingFit, DegenerateInputGivesAMessageAndNoFit) {
  ScalingOptions o;
  const ScalingFit one = fit_gap({1e5}, {{0.1, 0.2, 0.15}}, false, o);
  EXPECT_EQ(one.form, "");
  EXPECT_NE(one.note.find("one model size"), std::string::npos) << one.note;
  EXPECT_TRUE(std::isnan(one.slope));
  const ScalingFit single_seed = fit_gap({1e4, 1e5, 1e6}, {{0.1}, {0.2, 0.1}, {0.3, 0.2}}, false, o);
  EXPECT_EQ(single_seed.params, (std::vector<double>{1e5, 1e6}));
  EXPECT_NE(single_seed.note.find("fewer than two seeds"), std::string::npos) << single_seed.note;
  const ScalingFit none = fit_gap({1e4, 1e5}, {{0.1}, {0.2}}, false, o);
  EXPECT_EQ(none.form, "");
  EXPECT_NE(none.note.find("no fit"), std::string::npos);
}

// Adds a finished run of group `g` to `r`: N, D and its final loss (validation and train EMA alike).
void add_cell(AnalysisReport& r, GroupResult& g, int64_t seed, double params, double tokens, double loss) {
  CellResult c;
  c.index = int(r.cells.size());
  c.seed = seed;
  c.group = g.index;
  c.included = true;
  c.state = "done";
  c.model_params = params;
  c.tokens = tokens;
  c.final_val_loss = loss;
  c.final_train_ema = loss;
  g.cells.push_back(c.index);
  r.cells.push_back(c);
}

// A constructed report: B's final loss 3 − 0.2 ln(N / 1e4) at three sizes; A reaches B's loss of
// half its size (effN = 0.5) and needs 25% more tokens (effD = 0.8); seed 2 of the smallest size is
// censored (a lower bound).
AnalysisReport constructed_report() {
  AnalysisReport r;
  r.dir = "ladder";
  r.settings.confidence = 0.95;
  const std::vector<double> sizes = {1e4, 1e5, 1e6};
  auto b_loss = [](double n) { return 3 - 0.2 * std::log(n / 1e4); };
  for (size_t k = 0; k < sizes.size(); ++k) {
    const double n = sizes[k];
    const std::string size = "s" + std::to_string(k);
    for (const std::string recipe : {"a", "b"}) {
      GroupResult g;
      g.index = int(r.groups.size());
      g.vary = {{"recipe", recipe}, {"size", size}};
      g.label = config_label(g.vary);
      for (int64_t seed : {0, 1, 2})
        add_cell(r, g, seed, n, 2 * n, (recipe == "b" ? b_loss(n) : b_loss(n / 2)) + 0.001 * double(seed - 1));
      r.groups.push_back(g);
    }
    Comparison c;
    c.a_selector = {{"recipe", "a"}}, c.b_selector = {{"recipe", "b"}};
    c.group_a = int(2 * k), c.group_b = int(2 * k + 1);
    c.a = r.groups[size_t(c.group_a)].label, c.b = r.groups[size_t(c.group_b)].label;
    c.seeds = {0, 1, 2};
    c.final_gap_kind = "val";
    for (int s = 0; s < 3; ++s) {
      c.final_gap.per_seed.push_back(b_loss(n / 2) - b_loss(n));
      c.token_gap.per_seed.push_back(0.25);
      c.token_gap_bound.push_back(k == 0 && s == 2 ? 1 : 0);
    }
    c.final_gap.stats = seed_stats(c.final_gap.per_seed);
    c.token_gap.stats = seed_stats(c.token_gap.per_seed);
    c.token_gap_form = "multi_budget";
    r.comparisons.push_back(c);
  }
  Claim claim;
  claim.id = "shrinks";
  claim.a = {{"recipe", "a"}}, claim.b = {{"recipe", "b"}};
  claim.metric = "loss_gap_trend";
  claim.direction = -1;
  claim.at = 8e9;
  claim.published = "+0.01 nats at 8B";
  r.claims.push_back(claim);
  return r;
}

TEST(ScalingAnalysis, SeriesPerPairWithEffNAndEffD) {
  ScalingOptions o;
  o.at = 8e9;
  const ScalingReport s = scaling_analysis({constructed_report()}, o);
  ASSERT_EQ(s.series.size(), 1u);
  const ScalingSeries& x = s.series[0];
  EXPECT_EQ(x.label, "recipe=a − recipe=b");
  ASSERT_EQ(x.points.size(), 3u);
  EXPECT_EQ(x.published_loss, "+0.01 nats at 8B");
  for (size_t k = 0; k < 3; ++k) {
    const ScalingPoint& p = x.points[k];
    EXPECT_NEAR(p.loss_gap.stats.mean, 0.2 * std::log(2.0), 1e-12);
    if (k == 0) {  // A's loss lies above B's curve at its smallest size: a bound, and a censored token gap
      EXPECT_EQ(p.eff_n_bound, (std::vector<int>{-1, -1, -1}));
      EXPECT_EQ(p.eff_d.n, 0);
    } else {
      EXPECT_NEAR(p.eff_n.stats.mean, 0.5, 0.01) << p.params;
      EXPECT_NEAR(p.eff_d.mean, 0.8, 1e-12);
    }
  }
  // A constant loss gap: no detectable trend; the token fit leaves the censored size out.
  EXPECT_EQ(x.loss_fit.form, "power");
  EXPECT_NEAR(x.loss_fit.slope, 0, 1e-9);
  EXPECT_EQ(x.token_fit.params, (std::vector<double>{1e5, 1e6}));
  EXPECT_NE(x.token_fit.note.find("censored"), std::string::npos) << x.token_fit.note;
  EXPECT_NEAR(x.token_fit.predicted, 0.25, 1e-9);
  // Every serialization names the series and the fit.
  EXPECT_NE(scaling_markdown(s).find("recipe=a − recipe=b"), std::string::npos);
  EXPECT_NE(scaling_markdown(s).find("extrapolation beyond the fitted sizes"), std::string::npos);
  EXPECT_NE(scaling_json(s).find("\"form\": \"multiplier_power\""), std::string::npos) << scaling_json(s);
  EXPECT_NE(scaling_csv(s).find("fit,recipe=a − recipe=b"), std::string::npos);
}

TEST(ScalingAnalysis, OneSizeSaysSoAndATrendClaimIsReadFromTheSlope) {
  AnalysisReport r = constructed_report();
  // The claim "shrinks" against a constant gap: inconclusive.
  std::vector<FindingRow> rows = findings({r});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::inconclusive) << rows[0].estimate_text << " " << rows[0].verdict.rule;
  EXPECT_NE(rows[0].estimate_text.find("at N = 8e+09"), std::string::npos) << rows[0].estimate_text;
  // Make the gap shrink with N (A's loss approaches B's): the claim agrees.
  for (size_t k = 0; k < 3; ++k) {
    Comparison& c = r.comparisons[k];
    for (auto& g : c.final_gap.per_seed) g = 0.04 / double(k + 1) + 0.001 * double(&g - c.final_gap.per_seed.data());
    c.final_gap.stats = seed_stats(c.final_gap.per_seed);
  }
  rows = findings({r});
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::agrees) << rows[0].estimate_text << " " << rows[0].verdict.rule;
  // One size only: no fit, and the row says why.
  r.comparisons.resize(1);
  rows = findings({r});
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::no_data);
  EXPECT_NE(rows[0].note.find("one model size"), std::string::npos) << rows[0].note;
  const ScalingReport s = scaling_analysis({r});
  EXPECT_NE(scaling_markdown(s).find("one model size: no fit"), std::string::npos);
}

TEST(ScalingAnalysis, TrendClaimsParseAndRoundTrip) {
  const Value v = parse_yaml_string(
      "claims:\n"
      "  - {id: t, compare: [{recipe: mxfp4}, {recipe: nvfp4}], metric: token_gap_trend, direction: grows, at: 8e9}\n",
      "t.yaml");
  const AnalysisSettings s = parse_analysis_settings(v);
  ASSERT_EQ(s.claims.size(), 1u);
  EXPECT_EQ(s.claims[0].metric, "token_gap_trend");
  EXPECT_EQ(s.claims[0].direction, 1);
  EXPECT_EQ(s.claims[0].at, 8e9);
  const AnalysisSettings back = parse_analysis_settings(to_value(s));
  EXPECT_EQ(back.claims[0].direction, 1);
  EXPECT_EQ(back.claims[0].at, 8e9);
  try {
    parse_analysis_settings(parse_yaml_string("claims: [{id: t, compare: [{r: a}, {r: b}], metric: trend}]", "bad.yaml"));
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("loss_gap_trend"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------------------- the joint law

// Quartet's BF16 fit (arXiv 2505.14669): L(N, D) = E + A/(N·effN)^α + B/(D·effD)^β.
struct TrueLaw {
  double e = 1.341, a = 1.27e5, alpha = 0.579, b = 4.66e5, beta = 0.539;
  double loss(double n, double d, double eff_n = 1, double eff_d = 1) const {
    return e + a * std::pow(n * eff_n, -alpha) + b * std::pow(d * eff_d, -beta);
  }
  // D_q / D − 1 with L_q(N, D_q) = L_ref(N, D).
  double token_gap(double n, double d, double eff_n, double eff_d, double ref_n = 1, double ref_d = 1) const {
    const double rest = loss(n, d, ref_n, ref_d) - e - a * std::pow(n * eff_n, -alpha);
    return std::pow(b / rest, 1 / beta) / eff_d / d - 1;
  }
};

struct JointRecipeSpec {
  std::string name;
  double eff_n = 1, eff_d = 1;
};

// A grid's report: every recipe at every size and tokens-per-parameter ratio, `seeds` seeds each,
// final validation loss from the law plus a per-seed noise of `noise` nats (shared by the recipes at
// a point, as a seed's data order is, plus an independent half). Baseline bf16; one comparison per
// size (at the first ratio) for each `compare` pair.
AnalysisReport joint_report(const std::vector<JointRecipeSpec>& recipes, const std::vector<double>& sizes,
                            const std::vector<double>& ratios, int seeds, double noise,
                            const std::vector<std::pair<std::string, std::string>>& compare, uint64_t stream = 1) {
  const TrueLaw law;
  std::mt19937_64 rng(stream);
  std::normal_distribution<double> z(0.0, 1.0);
  AnalysisReport r;
  r.dir = "joint";
  r.settings.confidence = 0.95;
  r.baseline = {{"recipe", "bf16"}};
  std::map<std::pair<std::string, std::string>, int> group_of;  // (recipe, size label) at the first ratio
  for (size_t k = 0; k < sizes.size(); ++k)
    for (size_t q = 0; q < ratios.size(); ++q) {
      std::vector<double> shared;
      for (int s = 0; s < seeds; ++s) shared.push_back(z(rng));
      for (const auto& spec : recipes) {
        GroupResult g;
        g.index = int(r.groups.size());
        g.vary = {{"recipe", spec.name}, {"size", "s" + std::to_string(k)}, {"tpp", std::to_string(int(ratios[q]))}};
        g.label = config_label(g.vary);
        g.is_baseline = spec.name == "bf16";
        for (int s = 0; s < seeds; ++s) {
          const double n = sizes[k], d = ratios[q] * sizes[k];
          add_cell(r, g, s, n, d, law.loss(n, d, spec.eff_n, spec.eff_d) + noise * (shared[size_t(s)] + 0.5 * z(rng)));
        }
        if (q == 0) group_of[{spec.name, "s" + std::to_string(k)}] = g.index;
        r.groups.push_back(g);
      }
    }
  for (const auto& [a, b] : compare)
    for (size_t k = 0; k < sizes.size(); ++k) {
      Comparison c;
      c.a_selector = {{"recipe", a}}, c.b_selector = {{"recipe", b}};
      c.group_a = group_of.at({a, "s" + std::to_string(k)}), c.group_b = group_of.at({b, "s" + std::to_string(k)});
      c.a = r.groups[size_t(c.group_a)].label, c.b = r.groups[size_t(c.group_b)].label;
      c.final_gap_kind = "val";
      for (int s = 0; s < seeds; ++s) {
        c.seeds.push_back(s);
        c.final_gap.per_seed.push_back(r.cells[size_t(r.groups[size_t(c.group_a)].cells[size_t(s)])].final_val_loss -
                                       r.cells[size_t(r.groups[size_t(c.group_b)].cells[size_t(s)])].final_val_loss);
      }
      c.final_gap.stats = seed_stats(c.final_gap.per_seed);
      r.comparisons.push_back(c);
    }
  return r;
}

const std::vector<double> kJointSizes = {2e4, 6e4, 2e5, 6e5, 2e6};
const std::vector<double> kRatios = {2, 8, 32, 128};
const std::vector<JointRecipeSpec> kJointRecipes = {{"bf16"}, {"mxfp4", 0.8, 0.9}, {"nvfp4", 0.9, 0.95}};
const std::vector<std::pair<std::string, std::string>> kJointPairs = {{"mxfp4", "nvfp4"}, {"nvfp4", "bf16"}};

ScalingOptions joint_options() {
  ScalingOptions o;
  o.bootstrap = 100;
  o.at = 1e7;
  return o;
}

int recipe_index(const JointLaw& law, const std::string& label) {
  for (size_t i = 0; i < law.recipes.size(); ++i)
    if (law.recipes[i].label == label) return int(i);
  return -1;
}

TEST(ScalingJointLaw, ExactRunsGiveTheConstantsAndTheAnalyticTokenGap) {
  const TrueLaw t;
  const ScalingReport s = scaling_analysis({joint_report(kJointRecipes, kJointSizes, kRatios, 3, 0.0, kJointPairs)},
                                           joint_options());
  const JointLaw& law = s.joint;
  ASSERT_TRUE(law.fitted) << law.note;
  EXPECT_EQ(law.loss_kind, "val");
  EXPECT_NEAR(law.e.value, t.e, 1e-6 * t.e);
  EXPECT_NEAR(law.a.value, t.a, 1e-6 * t.a);
  EXPECT_NEAR(law.alpha.value, t.alpha, 1e-6 * t.alpha);
  EXPECT_NEAR(law.b.value, t.b, 1e-6 * t.b);
  EXPECT_NEAR(law.beta.value, t.beta, 1e-6 * t.beta);
  ASSERT_EQ(law.recipes.size(), 3u);
  EXPECT_EQ(law.recipes[0].label, "recipe=bf16");
  const int mx = recipe_index(law, "recipe=mxfp4"), nv = recipe_index(law, "recipe=nvfp4");
  ASSERT_GT(mx, 0);
  ASSERT_GT(nv, 0);
  EXPECT_NEAR(law.recipes[size_t(mx)].eff_n.value, 0.8, 1e-6);
  EXPECT_NEAR(law.recipes[size_t(mx)].eff_d.value, 0.9, 1e-6);
  EXPECT_NEAR(law.recipes[size_t(nv)].eff_n.value, 0.9, 1e-6);
  EXPECT_NEAR(law.recipes[size_t(nv)].eff_d.value, 0.95, 1e-6);
  for (const auto& r : law.recipes)
    for (const auto& p : r.points) EXPECT_NEAR(p.residual, 0, 1e-6 * p.observed.mean) << r.label << " " << p.params;
  // Predictions at the defaults and at --at (1e7 at the largest ratio, 128): the analytic gaps.
  ASSERT_EQ(law.predictions.size(), 2u * 3u);
  const JointPrediction& last = law.predictions[2];
  EXPECT_EQ(last.params, 1e7);
  EXPECT_NEAR(last.tokens, 1.28e9, 1);
  for (const JointPrediction& p : law.predictions) {
    const bool pair_mx = p.a == mx;
    const double en = pair_mx ? 0.8 : 0.9, ed = pair_mx ? 0.9 : 0.95, rn = pair_mx ? 0.9 : 1, rd = pair_mx ? 0.95 : 1;
    const double gap = t.loss(p.params, p.tokens, en, ed) - t.loss(p.params, p.tokens, rn, rd);
    EXPECT_NEAR(p.loss_gap.value, gap, 1e-6 * std::abs(gap) + 1e-9);
    const double tg = t.token_gap(p.params, p.tokens, en, ed, rn, rd);
    EXPECT_NEAR(p.token_gap.value, tg, 1e-5 * (1 + std::abs(tg))) << p.params << " " << p.tokens;
    EXPECT_TRUE(p.extrapolated);
  }
  // The law without the largest size predicts it exactly.
  EXPECT_EQ(law.holdout_params, 2e6);
  ASSERT_EQ(law.holdout.size(), 3u * 4u + 2u * 4u);
  for (const JointHoldout& h : law.holdout) EXPECT_NEAR(h.predicted.value, h.observed, 1e-5 * std::abs(h.observed) + 1e-7);
}

// Percentile intervals over a few seeds run narrow (in 30 noise streams at 10 seeds each constant's
// 95% interval held the truth 24 to 29 times), so one fixed stream.
// The transfer table on exact runs: each gap row is the law's analytic prediction for its recipes
// at its (N, D), each multiplier row the fitted multiplier, and the verdicts follow the rule.
TEST(ScalingTransfer, RowsAreTheLawsPredictionsAtThePublishedSizes) {
  const TrueLaw t;
  const ScalingReport s = scaling_analysis({joint_report(kJointRecipes, kJointSizes, kRatios, 3, 0.0, kJointPairs)},
                                           joint_options());
  ASSERT_TRUE(s.joint.fitted) << s.joint.note;
  ASSERT_EQ(s.transfer.size(), published_numbers().size());
  const std::map<std::string, std::pair<double, double>> eff = {{"bf16", {1, 1}}, {"mxfp4", {0.8, 0.9}},
                                                                {"nvfp4", {0.9, 0.95}}};
  for (const TransferRow& r : s.transfer) {
    const PublishedNumber& p = r.published;
    SCOPED_TRACE(p.id);
    ASSERT_TRUE(std::isfinite(r.predicted.value)) << r.note;
    if (p.metric == "eff_n" || p.metric == "eff_d") {
      const double truth = p.metric == "eff_n" ? eff.at(p.a).first : eff.at(p.a).second;
      EXPECT_NEAR(r.predicted.value, truth, 1e-6);
      continue;
    }
    const auto [an, ad] = eff.at(p.a);
    const auto [bn, bd] = eff.at(p.b);
    const double expected = p.metric == "token_gap" ? t.token_gap(p.params, p.tokens, an, ad, bn, bd)
                                                    : t.loss(p.params, p.tokens, an, ad) - t.loss(p.params, p.tokens, bn, bd);
    EXPECT_NEAR(r.predicted.value, expected, 1e-5 * (1 + std::abs(expected)));
    EXPECT_TRUE(r.extrapolated);
  }
  const std::string md = scaling_markdown(s);
  EXPECT_NE(md.find("## Transfer to published results"), std::string::npos);
  EXPECT_NE(md.find("17 published numbers:"), std::string::npos) << md;
  EXPECT_NE(scaling_json(s).find("\"transfer\": ["), std::string::npos);
}

TEST(ScalingTransfer, VerdictRule) {
  JointLaw law;
  law.fitted = true;
  JointRecipe bf16, mx;
  bf16.selector = {{"recipe", "bf16"}}, bf16.baseline = true, bf16.fitted = true;
  mx.selector = {{"recipe", "mxfp4"}}, mx.fitted = true, mx.eff_n_identified = true, mx.eff_d_identified = false;
  mx.eff_n = {0.6, 0.5, 0.7};
  law.recipes = {bf16, mx};
  // One answer per gap query: the first (token gap +36%) inside, the second (loss 0.0096) outside,
  // the third (0.019) too wide (holds 0 and 0.038), the rest without a prediction.
  law.answers.resize(transfer_queries().size());
  law.answers[0].token_gap = {0.3, 0.2, 0.4};
  law.answers[1].loss_gap = {0.05, 0.03, 0.07};
  law.answers[2].loss_gap = {0.01, -0.01, 0.05};
  const std::vector<TransferRow> rows = transfer_table(law);
  ASSERT_EQ(rows.size(), published_numbers().size());
  EXPECT_EQ(rows[0].verdict, "consistent");
  EXPECT_EQ(rows[1].verdict, "inconsistent");
  EXPECT_EQ(rows[2].verdict, "too wide to say");
  EXPECT_EQ(rows[3].verdict, "no prediction");
  EXPECT_EQ(rows[rows.size() - 2].verdict, "consistent");  // Quartet's effN 0.61 in [0.5, 0.7]
  EXPECT_EQ(rows.back().verdict, "no prediction");          // effD not identified
  EXPECT_NE(rows.back().note.find("not identified"), std::string::npos);
  // Without a fit, every row says so.
  for (const TransferRow& r : transfer_table(JointLaw{})) EXPECT_EQ(r.verdict, "no prediction");
}

TEST(ScalingJointLaw, NoisyRunsRecoverEachConstantWithinItsInterval) {
  const TrueLaw t;
  const ScalingReport s = scaling_analysis(
      {joint_report(kJointRecipes, kJointSizes, kRatios, 10, 0.01, kJointPairs, 1)}, joint_options());
  const JointLaw& law = s.joint;
  ASSERT_TRUE(law.fitted) << law.note;
  EXPECT_EQ(law.samples + law.failed, 100);
  auto inside = [](const Estimate& x, double truth) {
    EXPECT_LE(x.lo, truth);
    EXPECT_GE(x.hi, truth);
    EXPECT_LE(x.lo, x.value);
    EXPECT_GE(x.hi, x.value);
  };
  inside(law.e, t.e);
  inside(law.a, t.a);
  inside(law.alpha, t.alpha);
  inside(law.b, t.b);
  inside(law.beta, t.beta);
  const JointRecipe& mx = law.recipes[size_t(recipe_index(law, "recipe=mxfp4"))];
  EXPECT_TRUE(mx.eff_n_identified && mx.eff_d_identified);
  inside(mx.eff_n, 0.8);
  inside(mx.eff_d, 0.9);
  // The token gap of MXFP4 − NVFP4 at 8e9 / 1e12 lies in its interval around the analytic value.
  const JointPrediction& p = law.predictions[0];
  EXPECT_EQ(p.params, 8e9);
  inside(p.token_gap, t.token_gap(8e9, 1e12, 0.8, 0.9, 0.9, 0.95));
  // Residuals in units of their seed standard errors, and each serialization carries the section.
  for (const auto& r : law.recipes)
    for (const auto& q : r.points) EXPECT_TRUE(std::isfinite(q.residual_se));
  EXPECT_FALSE(law.holdout.empty());
  const std::string md = scaling_markdown(s);
  EXPECT_NE(md.find("## Joint law L(N, D)"), std::string::npos);
  EXPECT_NE(md.find("Leave-one-size-out"), std::string::npos);
  EXPECT_NE(scaling_json(s).find("\"joint_law\""), std::string::npos);
  EXPECT_NE(scaling_csv(s).find("joint,recipe=mxfp4 − recipe=nvfp4,8000000000,1000000000000,"), std::string::npos);
  EXPECT_NE(joint_law_summary(law).find("α = 0.5"), std::string::npos) << joint_law_summary(law);
}

TEST(ScalingJointLaw, DegenerateGridsGiveANoteAndNoFit) {
  const ScalingOptions o = joint_options();
  // One size.
  JointLaw law = scaling_analysis({joint_report(kJointRecipes, {2e5}, kRatios, 3, 0.01, kJointPairs)}, o).joint;
  EXPECT_FALSE(law.fitted);
  EXPECT_NE(law.note.find("one model size"), std::string::npos) << law.note;
  // One ratio D/N = 2 (the committed ladder): D's exponent is not identified.
  const ScalingReport one_ratio = scaling_analysis({joint_report(kJointRecipes, kJointSizes, {2}, 3, 0.01, kJointPairs)}, o);
  EXPECT_FALSE(one_ratio.joint.fitted);
  EXPECT_NE(one_ratio.joint.note.find("β is not identified"), std::string::npos) << one_ratio.joint.note;
  EXPECT_NE(scaling_markdown(one_ratio).find("no joint fit"), std::string::npos);
  EXPECT_NE(scaling_json(one_ratio).find("\"fitted\": false"), std::string::npos);
  // One token budget across the sizes.
  AnalysisReport fixed_d = joint_report(kJointRecipes, kJointSizes, {8}, 3, 0.01, kJointPairs);
  for (auto& c : fixed_d.cells) c.tokens = 1e6;
  law = scaling_analysis({fixed_d}, o).joint;
  EXPECT_FALSE(law.fitted);
  EXPECT_NE(law.note.find("one token budget"), std::string::npos) << law.note;
  // Too few points for five parameters.
  law = scaling_analysis({joint_report(kJointRecipes, {2e4, 2e6}, {2, 128}, 3, 0.01, kJointPairs)}, o).joint;
  EXPECT_FALSE(law.fitted);
  EXPECT_NE(law.note.find("at least 6"), std::string::npos) << law.note;
  // No baseline named.
  AnalysisReport no_base = joint_report(kJointRecipes, kJointSizes, kRatios, 2, 0.01, kJointPairs);
  no_base.baseline.clear();
  EXPECT_NE(scaling_analysis({no_base}, o).joint.note.find("no baseline"), std::string::npos);
}

TEST(ScalingJointLaw, OneSeedNaNLossesAndARecipeAtOnePoint) {
  const ScalingOptions o = joint_options();
  // A single seed: the fit, without intervals.
  JointLaw law = scaling_analysis({joint_report(kJointRecipes, kJointSizes, kRatios, 1, 0.0, kJointPairs)}, o).joint;
  ASSERT_TRUE(law.fitted) << law.note;
  EXPECT_NE(law.note.find("one seed"), std::string::npos) << law.note;
  EXPECT_TRUE(std::isnan(law.alpha.lo));
  EXPECT_EQ(law.samples, 0);
  EXPECT_NEAR(law.alpha.value, 0.579, 1e-6);
  // A run without a validation loss: every point falls back to the smoothed train loss.
  AnalysisReport nan_runs = joint_report(kJointRecipes, kJointSizes, kRatios, 3, 0.0, kJointPairs);
  nan_runs.cells[0].final_val_loss = kNaN;
  law = scaling_analysis({nan_runs}, o).joint;
  EXPECT_EQ(law.loss_kind, "train_ema");
  EXPECT_NE(law.note.find("smoothed final train loss"), std::string::npos) << law.note;
  // Runs without either loss are left out and counted.
  for (int i : {0, 7}) nan_runs.cells[size_t(i)].final_val_loss = nan_runs.cells[size_t(i)].final_train_ema = kNaN;
  law = scaling_analysis({nan_runs}, o).joint;
  ASSERT_TRUE(law.fitted) << law.note;
  EXPECT_NE(law.note.find("2 runs without a final loss"), std::string::npos) << law.note;
  EXPECT_NEAR(law.beta.value, 0.539, 1e-6);
  // A recipe that ran at one (N, D) only: a note, no multipliers, no prediction for its pairs.
  AnalysisReport lone = joint_report(kJointRecipes, kJointSizes, kRatios, 3, 0.01, kJointPairs);
  std::vector<GroupResult> groups;
  for (const GroupResult& g : lone.groups)
    if (g.vary.at("recipe") != "mxfp4" || (g.vary.at("size") == "s0" && g.vary.at("tpp") == "2")) groups.push_back(g);
  lone.groups = groups;
  for (size_t i = 0; i < lone.groups.size(); ++i) lone.groups[i].index = int(i);
  lone.comparisons.clear();
  law = scaling_analysis({lone}, o).joint;  // no comparisons: the law on the baseline alone
  EXPECT_TRUE(law.fitted);
  EXPECT_EQ(law.recipes.size(), 1u);
  JointOptions jo;
  jo.bootstrap = 50;
  jo.at = {{8e9, 1e12}};
  law = joint_law({lone}, {{"recipe", "bf16"}}, {{{{"recipe", "mxfp4"}}, {{"recipe", "nvfp4"}}}}, jo);
  ASSERT_TRUE(law.fitted) << law.note;
  const JointRecipe& mx = law.recipes[size_t(recipe_index(law, "recipe=mxfp4"))];
  EXPECT_FALSE(mx.fitted);
  EXPECT_NE(mx.note.find("one (N, D) point"), std::string::npos) << mx.note;
  ASSERT_EQ(law.predictions.size(), 1u);
  EXPECT_TRUE(std::isnan(law.predictions[0].loss_gap.value));
  EXPECT_NE(law.predictions[0].note.find("no fit"), std::string::npos);
  EXPECT_NE(scaling_markdown(scaling_analysis({lone}, o)).find("Joint law"), std::string::npos);
}

TEST(ScalingJointLaw, ARecipeAtOneSizeHasNoEffN) {
  // MXFP4 only at the middle size, over every ratio: effD fitted, effN held at 1 and said so.
  AnalysisReport r = joint_report(kJointRecipes, kJointSizes, kRatios, 3, 0.0, kJointPairs);
  std::vector<GroupResult> groups;
  for (const GroupResult& g : r.groups)
    if (g.vary.at("recipe") != "mxfp4" || g.vary.at("size") == "s2") groups.push_back(g);
  r.groups = groups;
  JointOptions jo;
  jo.bootstrap = 50;
  const JointLaw law = joint_law({r}, r.baseline, {{{{"recipe", "mxfp4"}}, {{"recipe", "bf16"}}}}, jo);
  ASSERT_TRUE(law.fitted) << law.note;
  const JointRecipe& mx = law.recipes[1];
  EXPECT_TRUE(mx.fitted);
  EXPECT_FALSE(mx.eff_n_identified);
  EXPECT_TRUE(mx.eff_d_identified);
  EXPECT_EQ(mx.eff_n.value, 1);
  EXPECT_NE(mx.note.find("effN is not identified"), std::string::npos) << mx.note;
}

}  // namespace
}  // namespace fp4lab::analysis
