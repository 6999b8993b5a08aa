// The findings verdict rule on constructed cases with known answers (each verdict, censoring, the
// minimum detectable effect), and the findings table built from comparisons.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/findings.hpp"

namespace fp4lab::analysis {
namespace {

TEST(Verdict, CiExcludingZeroOnThePublishedSideAgrees) {
  const std::vector<double> xs = {0.02, 0.03, 0.04, 0.025};
  const SeedStats s = seed_stats(xs);
  ASSERT_GT(s.ci_low, 0);
  EXPECT_EQ(decide(s, xs, {}, +1, 0.95).verdict, Verdict::agrees);
  EXPECT_EQ(decide(s, xs, {}, -1, 0.95).verdict, Verdict::contradicts);
  EXPECT_EQ(decide(s, xs, {}, +1, 0.95).rule, "CI excludes 0");
  EXPECT_TRUE(std::isnan(decide(s, xs, {}, +1, 0.95).mde));
}

TEST(Verdict, CiContainingZeroIsInconclusiveWithTheMinimumDetectableEffect) {
  const std::vector<double> xs = {0.01, -0.01, 0.02, 0.0};
  const SeedStats s = seed_stats(xs);
  const VerdictResult v = decide(s, xs, {}, +1, 0.95);
  EXPECT_EQ(v.verdict, Verdict::inconclusive);
  // (t_{0.975,3} + t_{0.8,3}) sd / sqrt(4), t values from tables: 3.182446, 0.978472.
  EXPECT_NEAR(v.mde, (3.182446305 + 0.978472312) * s.sd / 2, 1e-6);
  const std::vector<double> one = {0.05};
  EXPECT_EQ(decide(seed_stats(one), one, {}, +1, 0.95).verdict, Verdict::inconclusive);
  EXPECT_EQ(decide(SeedStats{}, {}, {}, +1, 0.95).verdict, Verdict::no_data);
}

TEST(SeedsNeeded, TheFewestSeedsWhoseIntervalExcludesZeroAtTheMeasuredSpread) {
  SeedStats s;  // mean 0.2, per-seed sd 0.2, measured on 4 seeds: the CI [−0.12, +0.52] holds 0
  s.n = 4, s.mean = 0.2, s.sd = 0.2, s.has_ci = true, s.ci_low = -0.12, s.ci_high = 0.52;
  const SeedsNeeded n = seeds_needed(s, 0.95);
  // t_{0.975,5}/√6 = 1.050 > 1, t_{0.975,6}/√7 = 0.925 < 1: 7 seeds; with t_{0.8}:
  // (2.306 + 0.889)/3 = 1.065 at 9 seeds, (2.262 + 0.883)/√10 = 0.995 at 10.
  EXPECT_FALSE(n.excludes_now);
  EXPECT_EQ(n.to_exclude, 7);
  EXPECT_EQ(n.for_power, 10);
  EXPECT_EQ(seeds_needed_text(n), "7 would exclude 0; 80% power at 10");
  s.mean = -0.2;  // the sign does not matter
  EXPECT_EQ(seeds_needed(s, 0.95).to_exclude, 7);
  s.ci_low = 0.01, s.ci_high = 0.4, s.mean = 0.2;
  EXPECT_EQ(seeds_needed_text(seeds_needed(s, 0.95)), "excludes 0; 80% power at 10");
  s.mean = 1e-6, s.ci_low = -0.2;  // no effect at this spread: more than the cap
  EXPECT_EQ(seeds_needed(s, 0.95).to_exclude, kSeedsCap + 1);
  EXPECT_EQ(seeds_needed_text(seeds_needed(s, 0.95)).rfind("> 10000 would exclude 0", 0), 0u);
  SeedStats bound = s;  // a censored bound has no CI: nothing to say
  drop_ci(bound);
  EXPECT_EQ(seeds_needed(bound, 0.95).to_exclude, -1);
  EXPECT_EQ(seeds_needed_text(seeds_needed(bound, 0.95)), "—");
  EXPECT_EQ(seeds_needed(SeedStats{}, 0.95).for_power, -1);
}

TEST(Verdict, SignTestPIsTheObservedOutcomes) {
  EXPECT_NEAR(sign_test_p(6, 6), 2.0 / 64, 1e-12);
  EXPECT_NEAR(sign_test_p(5, 6), 2.0 * 7 / 64, 1e-12);
  EXPECT_NEAR(sign_test_p(1, 6), 2.0 * 7 / 64, 1e-12);  // symmetric
  EXPECT_NEAR(sign_test_p(3, 6), 1.0, 1e-12);           // capped at 1
  EXPECT_NEAR(sign_test_p(8, 10), 2.0 * 56 / 1024, 1e-12);
  EXPECT_EQ(sign_test_p(0, 0), 1.0);
}

TEST(Verdict, CensoredValuesUseASignTest) {
  // Lower bounds above 0 count for "A needs more tokens"; 6 seeds: p = 2/64 < 0.05.
  const std::vector<double> xs = {0.1, 0.3, 0.2, 0.05, 0.4, 0.1};
  const std::vector<int> lower = {1, 1, 0, 1, 0, 0};
  const VerdictResult v = decide(seed_stats(xs), xs, lower, +1, 0.95);
  EXPECT_EQ(v.verdict, Verdict::agrees);
  EXPECT_NE(v.rule.find("6 of 6 seeds above 0 (exact two-sided p = 0.0312)"), std::string::npos) << v.rule;
  // 5 of 6 on the published side: the observed outcome's p (2 * 7/64 = 0.219), not the 6-of-6 one.
  std::vector<double> mixed = xs;
  mixed[3] = -0.05;
  const VerdictResult m = decide(seed_stats(mixed), mixed, lower, +1, 0.95);
  EXPECT_EQ(m.verdict, Verdict::inconclusive);
  EXPECT_NE(m.rule.find("5 of 6 seeds above 0 (exact two-sided p = 0.2188)"), std::string::npos) << m.rule;
  // 9 of 10: p = 2 * 11/1024 = 0.0215 < 0.05, agrees although one seed points the other way.
  const std::vector<double> ten = {0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.2, 0.1, 0.1, -0.1};
  const std::vector<int> ten_bounds = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const VerdictResult t = decide(seed_stats(ten), ten, ten_bounds, +1, 0.95);
  EXPECT_EQ(t.verdict, Verdict::agrees);
  EXPECT_NE(t.rule.find("9 of 10 seeds above 0 (exact two-sided p = 0.0215)"), std::string::npos) << t.rule;
  // 5 seeds: p = 1/16 > 0.05, inconclusive however clear the signs.
  const std::vector<double> five(xs.begin(), xs.begin() + 5);
  EXPECT_EQ(decide(seed_stats(five), five, {1, 1, 0, 1, 0}, +1, 0.95).verdict, Verdict::inconclusive);
  // A negative lower bound says nothing about the sign.
  std::vector<double> neg = xs;
  neg[0] = -0.02;
  EXPECT_EQ(decide(seed_stats(neg), neg, lower, +1, 0.95).verdict, Verdict::inconclusive);
  // All below 0 with exact values or upper bounds: contradicts a published "A needs more".
  const std::vector<double> below = {-0.1, -0.2, -0.1, -0.3, -0.2, -0.1};
  EXPECT_EQ(decide(seed_stats(below), below, {-1, 0, 0, -1, 0, 0}, +1, 0.95).verdict, Verdict::contradicts);
}

TEST(Findings, OneRowPerClaimFromTheComparisons) {
  AnalysisReport rep;
  rep.dir = "results/findings/runs/mx_vs_nv";
  Claim claim;
  claim.id = "mx";
  claim.claim = "MXFP4 has a higher loss";
  claim.source = "§1.4";
  claim.a = {{"recipe", "mxfp4"}};
  claim.b = {{"recipe", "nvfp4"}};
  claim.metric = "converged_gap";
  claim.direction = 1;
  rep.claims = {claim};
  Claim missing = claim;
  missing.id = "other";
  missing.a = {{"recipe", "fp8"}};
  rep.claims.push_back(missing);
  Comparison c;
  c.a_selector = claim.a;
  c.b_selector = claim.b;
  c.a = "recipe=mxfp4";
  c.b = "recipe=nvfp4";
  c.seeds = {0, 1, 2, 3};
  c.converged_gap.per_seed = {0.02, 0.03, 0.04, 0.03};
  c.converged_gap.stats = seed_stats(c.converged_gap.per_seed);
  rep.comparisons = {c};
  const auto rows = findings({rep});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].grid, "mx_vs_nv");
  EXPECT_EQ(rows[0].n_seeds, 4);
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::agrees);
  EXPECT_NEAR(rows[0].estimate, 0.03, 1e-12);
  EXPECT_EQ(rows[1].verdict.verdict, Verdict::no_data);
  const std::string md = findings_markdown(rows), json = findings_json(rows);
  EXPECT_NE(md.find("**agrees**"), std::string::npos) << md;
  EXPECT_NE(md.find("+0.0300 ["), std::string::npos) << md;
  EXPECT_NE(md.find("Verdicts over 2 claims: 1 agrees, 1 no data."), std::string::npos) << md;
  EXPECT_NE(json.find("\"verdict\": \"no data\""), std::string::npos) << json;
}

}  // namespace
}  // namespace fp4lab::analysis
