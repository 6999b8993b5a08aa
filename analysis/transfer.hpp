// The transfer table: every published FP4 number that comes with a model size and a token budget
// (or a fitted multiplier), beside what fp4lab's joint law L(N, D) (joint_law.hpp) predicts there,
// with its prediction interval and a verdict. The published numbers are data here, with their
// sources; the verdict rule is below. Written by `fp4lab scaling` (scaling.md, scaling.json) and
// `fp4lab findings` (FINDINGS.md) for a grid that varies the model size.
#pragma once
#include <string>
#include <vector>

#include "analysis/joint_law.hpp"

namespace fp4lab::analysis {

struct PublishedNumber {
  std::string id;      // e.g. "nvidia_8b_tokens"
  std::string what;    // one line: the quantity
  std::string source;  // paper, section / figure
  std::string a, b;    // the compared recipes (values of the `recipe` axis); b empty for a multiplier
  std::string metric;  // "loss_gap" (nats), "token_gap" (D_A/D − 1), "eff_n" or "eff_d" (of a)
  double params = 0, tokens = 0;  // N (non-embedding) and D; 0 for a multiplier
  double value = 0, lo = 0, hi = 0;  // the published number and the range it is read as
  std::string note;
};

// Every published number the table tests, in its order.
const std::vector<PublishedNumber>& published_numbers();

// The joint-law queries that answer the table's gap rows (JointOptions::queries).
std::vector<JointQuery> transfer_queries();

struct TransferRow {
  PublishedNumber published;
  Estimate predicted;       // fp4lab's value and its prediction interval (NaN when none)
  bool extrapolated = false;
  // "consistent" (the published range overlaps the interval), "inconsistent" (it does not),
  // "too wide to say" (the interval holds both no effect — a gap of 0, a multiplier of 1 — and
  // twice the published effect), or "no prediction" (no fit, or the law lacks a recipe).
  std::string verdict;
  std::string note;
};

// The rows from a law fitted with transfer_queries() appended to its queries at `first_query`.
std::vector<TransferRow> transfer_table(const JointLaw& law, size_t first_query = 0);

}  // namespace fp4lab::analysis
