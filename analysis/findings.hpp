// The findings suite: each grid of ablations/findings/ states the published claims it tests
// (`analysis.claims`); this turns the grids' analyses into one row per claim with fp4lab's
// estimate, its confidence interval over seeds and a verdict computed by a stated rule. No file
// formats beyond FINDINGS.md / findings.json here; no metrics (metrics.hpp computes the
// comparisons).
#pragma once
#include <string>
#include <vector>

#include "analysis/metrics.hpp"

namespace fp4lab::analysis {

enum class Verdict { agrees, contradicts, inconclusive, no_data };

}  // namespace fp4lab::analysis

template <>
struct fp4lab::EnumNames<fp4lab::analysis::Verdict> {
  using Verdict = analysis::Verdict;
  static constexpr EnumName<Verdict> names[] = {{Verdict::agrees, "agrees"},
                                                {Verdict::contradicts, "contradicts"},
                                                {Verdict::inconclusive, "inconclusive"},
                                                {Verdict::no_data, "no data"}};
  static constexpr const char* unknown = "";
};

namespace fp4lab::analysis {

// The verdict rule, for a claim that A − B has sign `direction` (+1 or −1):
//  - with a CI (every seed's value exact): agrees when the CI excludes 0 on the published side,
//    contradicts when it excludes 0 on the other side, else inconclusive;
//  - censored values (a lower bound for a seed where A never reached B's loss, an upper bound where
//    A was already below it at its smallest budget): no CI; a sign test instead. A seed is on the
//    positive side when its value is > 0 and not an upper bound, on the negative side when it is
//    < 0 and not a lower bound (a seed on neither side counts against the majority). With k of n
//    seeds on the majority side, the two-sided exact binomial p = min(1, 2·P(X ≥ k)), X ~ Bin(n, ½)
//    (sign_test_p, stats.hpp). Agrees when the majority is on the published side and p < 1 − confidence;
//    contradicts likewise on the other side; else inconclusive;
//  - inconclusive comes with the minimum detectable effect of this design: the effect a paired
//    comparison with this n and this per-seed sd detects with 80% power at this confidence,
//    (t_{(1+c)/2, n−1} + t_{0.8, n−1}) · sd / √n.
struct VerdictResult {
  Verdict verdict = Verdict::no_data;
  double mde = kNaN;  // inconclusive (with a CI): minimum detectable effect, in the metric's unit
  std::string rule;   // which branch decided: "CI excludes 0", "sign test", ...
};
// `bounds` per seed: +1 lower bound, -1 upper bound, 0 exact (empty: all exact).
VerdictResult decide(const SeedStats& stats, const std::vector<double>& per_seed, const std::vector<int>& bounds,
                     int direction, double confidence);

struct FindingRow {
  Claim claim;
  std::string grid;  // the grid's output directory name
  std::string dir;
  std::string a, b;  // config labels compared
  int n_seeds = 0;
  std::string metric, unit;  // "converged_gap" / "nats", "token_gap" / "fraction"
  double estimate = kNaN, ci_low = kNaN, ci_high = kNaN;
  std::string estimate_text;  // as the report prints it
  VerdictResult verdict;
  std::string note;
};

// One row per claim of each report (claims in file order; a claim whose comparison has no data is
// a `no_data` row saying why).
std::vector<FindingRow> findings(const std::vector<AnalysisReport>& reports);
std::string findings_markdown(const std::vector<FindingRow>& rows);
std::string findings_json(const std::vector<FindingRow>& rows);

}  // namespace fp4lab::analysis
