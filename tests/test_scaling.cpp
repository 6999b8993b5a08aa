// The scaling analysis (analysis/scaling.hpp): fits recover known exponents within their bootstrap
// intervals, extrapolations are labelled, effN and effD come out of constructed curves, and
// degenerate input (one size, censored seeds, a size with one seed) gives a message and no fit.
#include <gtest/gtest.h>

#include <cmath>
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
      for (int64_t seed : {0, 1, 2}) {
        CellResult c;
        c.index = int(r.cells.size());
        c.seed = seed;
        c.group = g.index;
        c.included = true;
        c.state = "done";
        c.model_params = n;
        c.tokens = 2 * n;
        c.final_val_loss = (recipe == "b" ? b_loss(n) : b_loss(n / 2)) + 0.001 * double(seed - 1);
        c.final_train_ema = c.final_val_loss;
        g.cells.push_back(c.index);
        r.cells.push_back(c);
      }
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

}  // namespace
}  // namespace fp4lab::analysis
