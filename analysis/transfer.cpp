// The published numbers of the transfer table and its verdict rule (transfer.hpp). Values as the
// papers state them or as read from their figures and released data (the note says which).
#include "analysis/transfer.hpp"

#include <algorithm>
#include <cmath>

namespace fp4lab::analysis {

const std::vector<PublishedNumber>& published_numbers() {
  static const std::vector<PublishedNumber> rows = [] {
    const std::string nvidia = "NVIDIA, arXiv 2509.25149";
    const std::string quartet2 = "NVFP4 − BF16 grid of Quartet II (arXiv 2601.22813), released runs";
    const std::string units = "nats per token of another tokenizer and corpus: compare signs and orders of magnitude";
    std::vector<PublishedNumber> r = {
        {"nvidia_8b_tokens", "tokens MXFP4 needs to reach NVFP4's final loss", nvidia + ", Sec. 5 / Fig. 6b", "mxfp4",
         "nvfp4", "token_gap", 8e9, 1e12, 0.36, 0.36, 0.36,
         "8B hybrid Mamba-Transformer, 1T tokens; MXFP4 trained 1T, 1.25T, 1.5T and interpolated"},
        {"nvidia_8b_loss", "MXFP4 − NVFP4 final validation loss", nvidia + ", Sec. 5 / Fig. 6b", "mxfp4", "nvfp4",
         "loss_gap", 8e9, 1e12, 0.0096, 0.0096, 0.0096, "1.277 − 1.267 read from the figure; " + units},
        {"nvidia_8b_nvfp4", "NVFP4 − BF16 final training loss", nvidia + ", Sec. 5 / Fig. 6a", "nvfp4", "bf16", "loss_gap",
         8e9, 1e12, 0.019, 0.013, 0.025, "relative error ≈ 1.5% of a loss ≈ 1.27, read from the figure; " + units},
        {"nvidia_12b_fp8", "NVFP4 − FP8 final validation loss", nvidia + ", Sec. 3 / Fig. 2", "nvfp4", "bf16", "loss_gap",
         1.2e10, 1e13, 0.0175, 0.015, 0.02,
         "12B, 10T tokens, against FP8 (fp4lab's baseline is BF16, which FP8 tracks at this scale); " + units},
    };
    // The public NVFP4 − BF16 grid (C4, mean of 2 runs), N × r with D = r · N.
    const struct {
      double n, r, gap;
    } grid[] = {{30e6, 25, 0.056},  {30e6, 100, 0.077}, {30e6, 800, 0.102}, {50e6, 25, 0.057},
                {50e6, 100, 0.076}, {50e6, 800, 0.092}, {100e6, 25, 0.054}, {100e6, 100, 0.070},
                {100e6, 800, 0.077}, {200e6, 25, 0.053}, {200e6, 100, 0.061}};
    for (const auto& g : grid) {
      const std::string n = std::to_string(int(g.n / 1e6)) + "M", ratio = std::to_string(int(g.r));
      r.push_back({"quartet2_" + n + "_r" + ratio, "NVFP4 − BF16 final validation loss, " + n + " at D/N ≈ " + ratio,
                   quartet2 + " (for_plots/runs.json)", "nvfp4", "bf16", "loss_gap", g.n, g.r * g.n, g.gap, g.gap, g.gap,
                   "Llama-style on C4; " + units});
    }
    r.push_back({"quartet_mxfp4_eff_n", "MXFP4 forward pass (round to nearest): effN",
                 "Castro et al., Quartet, arXiv 2505.14669 (released fit)", "mxfp4", "", "eff_n", 0, 0, 0.61, 0.61, 0.61,
                 "Quartet fits forward-only MXFP4 runs; fp4lab's mxfp4 arm quantizes both passes and fits effN and effD "
                 "together"});
    r.push_back({"quartet_mxfp4_eff_d", "MXFP4 backward pass (stochastic rounding): effD",
                 "Castro et al., Quartet, arXiv 2505.14669 (released fit)", "mxfp4", "", "eff_d", 0, 0, 0.865, 0.84, 0.89,
                 "Quartet's backward pass rounds stochastically; fp4lab's mxfp4 rounds to nearest"});
    return r;
  }();
  return rows;
}

std::vector<JointQuery> transfer_queries() {
  std::vector<JointQuery> q;
  for (const PublishedNumber& p : published_numbers())
    if (!p.b.empty()) q.push_back({{{"recipe", p.a}}, {{"recipe", p.b}}, p.params, p.tokens});
  return q;
}

namespace {

std::string verdict(const PublishedNumber& p, const Estimate& x) {
  if (!std::isfinite(x.value) || std::isnan(x.lo) || std::isnan(x.hi)) return "no prediction";
  const double none = p.metric == "eff_n" || p.metric == "eff_d" ? 1.0 : 0.0;
  const double twice = none + 2 * (p.value - none);
  if (x.lo <= std::min(none, twice) && x.hi >= std::max(none, twice)) return "too wide to say";
  return x.hi < p.lo || x.lo > p.hi ? "inconsistent" : "consistent";
}

}  // namespace

std::vector<TransferRow> transfer_table(const JointLaw& law, size_t first_query) {
  std::vector<TransferRow> rows;
  size_t query = first_query;
  for (const PublishedNumber& p : published_numbers()) {
    TransferRow row;
    row.published = p;
    if (!p.b.empty()) {
      const JointPrediction* answer = query < law.answers.size() ? &law.answers[query] : nullptr;
      ++query;
      if (answer == nullptr) {
        row.note = "no joint fit";
      } else {
        row.predicted = p.metric == "token_gap" ? answer->token_gap : answer->loss_gap;
        row.extrapolated = answer->extrapolated;
        row.note = answer->note;
      }
    } else {
      const auto r = std::find_if(law.recipes.begin(), law.recipes.end(), [&](const JointRecipe& x) {
        return x.selector == Selector{{"recipe", p.a}};
      });
      if (r == law.recipes.end() || !r->fitted) {
        row.note = r == law.recipes.end() ? "not among the law's recipes" : "no fit";
      } else if (!(p.metric == "eff_n" ? r->eff_n_identified : r->eff_d_identified)) {
        row.note = "not identified by the ladder's points";
      } else {
        row.predicted = p.metric == "eff_n" ? r->eff_n : r->eff_d;
      }
    }
    row.verdict = verdict(p, row.predicted);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace fp4lab::analysis
