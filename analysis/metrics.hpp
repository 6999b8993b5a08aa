// The report the analysis builds from a grid's run files, and analyze(), which builds it: per
// cell, per config group (seeds) and per paired comparison, the numbers papers report —
// tokens-to-target-loss (single- and multi-budget forms), converged-regime paired loss gaps,
// final-loss gaps, gaps to the corpus entropy, Student-t confidence intervals over seeds — and the
// diagnostics: recipe coverage, throughput, gradient-to-noise ratios and what a late precision
// switch recovers. The statistics themselves are stats.hpp's. Definitions follow the publications
// (relative difference: NVIDIA arXiv 2509.25149, Fig. 4 caption; multi-budget tokens-to-target: its
// Sec. 5 / Fig. 6b; converged-regime gap: NVIDIA's MaxText NVFP4 blog) and are written out in
// results/SCHEMA.md, Metric definitions. No file formats or plotting here (report.hpp, plot.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/runs.hpp"
#include "analysis/stats.hpp"
#include "core/train/run_file.hpp"

namespace fp4lab::analysis {

// ---------------------------------------------------------------------------- the report

struct CellResult {
  // Identity (from the manifest or the run file).
  int index = -1;
  std::string id, file;
  int64_t seed = 0;
  std::map<std::string, std::string> vary;
  int group = -1;  // index into AnalysisReport::groups
  bool is_baseline = false;
  // State: pending (no run file) | running | done | diverged | failed | unreadable.
  std::string state;
  int64_t status_step = 0;
  std::string message;
  int64_t steps = 0;   // logged steps
  int64_t last_step = 0;
  double tokens = 0;   // tokens after the last logged step
  double last_train_loss = kNaN, final_train_ema = kNaN, final_val_loss = kNaN;
  double final_loss = kNaN;     // final val loss if the run has any, else final_train_ema
  std::string final_loss_kind;  // "val" | "train_ema"
  double entropy_rate = -1, entropy_gap = kNaN;  // final_loss - entropy_rate (entropy known)
  bool included = false;  // counted in gap statistics (running or done, with steps)
  int reference = -1;     // index into cells of the same-seed baseline run, -1 if none
  // Tokens to target.
  double target = kNaN;
  Crossing crossing, ref_crossing;
  double token_gap = kNaN;  // T_cell / T_ref - 1 (a lower bound when token_gap_censored)
  bool token_gap_censored = false;
  // Converged-regime paired gap and final-loss gap against the reference.
  PairedGap converged;
  double final_gap = kNaN, final_rel_pct = kNaN;
  std::string final_gap_kind;  // "val" | "train_ema": both runs' final losses of this kind
  std::string coverage;        // the run file's coverage line (which layers ran quantized, in what)
  double model_params = kNaN;  // non-embedding parameters (the blocks' linear weights), from the run's config
  // Units and data (the run file's): the tokenizer ("bytes", "bpe:2048", a path; "" synthetic), the
  // final loss in bits per byte (final_loss / ln 2 / text bytes per token of its kind; NaN for
  // synthetic data), and how many times the budget reads the training stream (> 1 repeats data).
  std::string tokenizer;
  double final_bpb = kNaN, data_epochs = kNaN;
  // Throughput: the median step time over the steps after the first (warm-up), and what follows
  // from it; MFU = model TFLOP/s / the run's measured fp32 GEMM peak (NaN when the file predates it).
  double step_seconds = kNaN, tokens_per_second = kNaN, model_tflops = kNaN, gemm_peak_gflops = kNaN, mfu = kNaN;
  int64_t threads = 0;
  // Against the reference group's seeds (stage "baseline spread"): this run's final loss, and its
  // tokens to the spread target (AnalysisReport::groups[].spread_target), in their distribution.
  SpreadPosition loss_spread, tokens_spread;
  std::string note;
};

struct SeriesBand {  // one quantity across the seeds of a config group, on their common steps
  std::vector<int64_t> step;
  std::vector<double> tokens, mean, min, max;
};

struct QuantSeries {  // one GEMM operand in one format, averaged over tensors (and seeds) per telemetry step
  GemmRole role = GemmRole::fprop;
  Operand operand = Operand::a;
  std::string format;  // as the recipe manifest names it ("" when the run file has no manifest)
  std::string label;   // "fprop x [fp4_e2m1/16 e4m3 1d rne]"
  std::vector<int64_t> step;
  std::vector<double> tokens, sqnr_db, frac_flushed, frac_saturated, whatif_nvfp4_sqnr_db, whatif_mxfp4_sqnr_db;
  std::vector<double> bias_shrinkage, sr_rms_k1, sr_rms_k64;  // means of the finite values (SR operands only)
};

// One layer's value over training (a group's mean over seeds at each telemetry step).
struct LayerSeries {
  std::string layer;  // tensor name
  std::vector<int64_t> step;
  std::vector<double> tokens, values;
};

struct GroupResult {
  int index = 0;
  std::string label;  // "recipe=mxfp4, quant.block=32"
  std::map<std::string, std::string> vary;  // config keys (no seed)
  std::vector<int> cells;  // indices into AnalysisReport::cells
  bool is_baseline = false;
  int reference = -1;  // index into groups of the baseline group compared with
  int n_cells = 0, n_included = 0;
  SeedStats converged_gap, converged_rel_pct, converged_step_sd;
  SeedStats final_gap, final_rel_pct, final_loss, final_bpb;
  SeedStats token_gap;  // over seeds; with censoring, a lower bound and no CI
  bool token_gap_censored = false;
  int n_censored = 0;
  SeedStats target;            // the per-seed targets
  SeedStats tokens_to_target;  // over the seeds that reached their target
  SeedStats entropy_gap;
  int64_t window_step_lo = 0, window_step_hi = 0;
  double window_tokens_lo = kNaN, window_tokens_hi = kNaN;
  std::string coverage;  // the cells' coverage lines (distinct ones joined by " | ")
  SeedStats step_seconds, tokens_per_second, model_tflops, mfu;  // over the group's runs
  double step_time_ratio = kNaN;  // mean step time / the reference group's (nvfp4 / bf16: the cost of emulation)
  // Precision switch: a config whose recipe.switch_at is not `never` is compared with the same
  // config without the switch (equal resolved configs once seeds and the recipe.switch_* keys are
  // set aside): recovered = 1 − gap_switch / gap_unswitched of the final-loss gaps (seed means);
  // per seed too, over the seeds both have. Undefined when the unswitched gap is not positive.
  bool has_switch = false;
  int switch_reference = -1;  // index into groups of the unswitched config, -1 if none
  double recovered_fraction = kNaN;
  SeedStats recovered_fraction_seeds;
  // Inside the reference's seed spread? The group's seed mean of the final loss and of the tokens
  // to spread_target (the highest final loss among the reference's seeds, on the target curve, so
  // every reference seed reaches it; a fixed target when the settings give one), placed among the
  // reference's seeds (stats.hpp spread_position), and how many of its seeds are inside.
  double spread_target = kNaN;
  SpreadPosition loss_spread, tokens_spread;
  int n_loss_inside = 0, n_tokens_inside = 0, n_spread = 0;
  std::string note;
  // Curves for the plots (not in the JSON): smoothed train loss, smoothed difference to the
  // reference, validation loss, quantization statistics.
  SeriesBand loss, diff, val;
  std::vector<QuantSeries> quant;
  std::vector<LayerSeries> wgrad_gain;  // fidelity/ gain of each linear layer's dW vs the fp32 shadow
};

// The multi-budget form: configs that differ only in the budget key form a family; each budget's
// final loss (mean over seeds) against the reference family's final loss at its base budget.
struct BudgetFamily {
  std::string label;
  std::map<std::string, std::string> vary;  // config keys without the budget key
  bool is_baseline = false;
  int reference = -1;  // index into AnalysisReport::budget_families
  std::vector<double> budgets, final_loss;  // ascending budgets, seed-mean final loss
  std::vector<int> n_seeds;
  std::string final_loss_kind;  // "val" | "train_ema"
  double base_budget = kNaN, reference_loss = kNaN;  // the reference family's
  BudgetCrossing crossing;
  double token_gap = kNaN;  // crossing.budget / base_budget - 1 (bound unless inside)
  SeedStats token_gap_seeds;  // per-seed matches when every seed is inside
  std::string note;
};

struct QuantSummary {  // per group and GEMM operand, at the last telemetry step
  int group = -1;
  std::string label;  // "fprop x [fp4_e2m1/16 e4m3 1d rne]"
  int64_t step = 0;
  double sqnr_db = kNaN, frac_flushed = kNaN, frac_saturated = kNaN;
  double whatif_nvfp4_sqnr_db = kNaN, whatif_mxfp4_sqnr_db = kNaN;
  double bias_shrinkage = kNaN, sr_rms_k1 = kNaN, sr_rms_k64 = kNaN;  // NaN: not SR, or an older file
};

// Gradient-to-noise ratio of the weight gradients (run files' gnr/, Chmiel et al.) per group at each
// cell's last telemetry step, over its linear layers, averaged over the group's seeds. Below
// kGnrThreshold (√3) SGD progress stalls: such layers want higher-precision gradients.
struct GnrSummary {
  int group = -1;
  int64_t step = 0;     // the latest of the cells' last telemetry steps
  int n_layers = 0;     // layers per run
  double min_gnr = kNaN, median_gnr = kNaN;
  double n_below = kNaN;      // layers below √3 (mean over seeds)
  std::string lowest_layer;   // the layer with the lowest GNR in the run where it is lowest
};

// Fidelity of the GEMM outputs against the fp32 replay of the step (run files' fidelity/) per group
// and GEMM role at each cell's last telemetry step: means over the linear layers, averaged over the
// group's seeds (sr_*: over the layers whose GEMM has an SR operand; NaN when none has).
struct FidelitySummary {
  int group = -1;
  GemmRole role = GemmRole::fprop;
  int64_t step = 0;  // the latest of the cells' last telemetry steps
  int n_layers = 0;  // layers per run
  double gain = kNaN, rel_err = kNaN, cosine = kNaN, sr_bias = kNaN, sr_rel_std = kNaN;
  double lowest_gain = kNaN;  // the lowest layer gain in any seed
  std::string lowest_layer;   // its layer
};

// A paired comparison between two configs of a grid (the `compare:` pairs and the claims'), seed
// by seed over the seeds both ran: A − B of the converged-regime gap (per-step paired difference of
// the raw train loss over the window, averaged per seed), of the final loss (validation when both
// have it), and tokens-to-target of A against B's final loss — the crossing form T_A/T_B − 1 on
// the smoothed train (or, for target baseline_final_val, validation) curve, or, when the budget key
// varies among A's configs, the multi-budget form budget_A(L_B)/budget_B − 1. Student-t CIs over
// seeds. A seed where A never reaches B's loss is censored: its value is a lower bound, the
// comparison then has no CI and says "k of n seeds never reached it; lower bound".
struct Comparison {
  Selector a_selector, b_selector;
  int group_a = -1, group_b = -1;  // indices into groups (A: the one at B's budget in budget form)
  std::string a, b;                // group labels ("recipe=mxfp4")
  std::vector<int64_t> seeds;      // paired seeds
  GapStats converged_gap, final_gap, token_gap;
  std::string final_gap_kind;      // "val" | "train_ema"
  std::string token_gap_form;      // "crossing" | "multi_budget"
  int token_gap_censored = 0;      // seeds whose value is a lower bound (A never reached)
  int token_gap_below = 0;         // multi-budget: seeds already below B's loss at A's smallest budget
  std::vector<int> token_gap_bound;  // per seed: +1 lower bound, -1 upper bound, 0 exact
  int64_t window_step_lo = 0, window_step_hi = 0;
  std::string note;
  int n_seeds() const { return static_cast<int>(seeds.size()); }
  // "+12.3% [+5.1, +19.5]" / "3 of 4 seeds never reached it; lower bound > +8.0%"
  std::string token_gap_text() const;
};

// An attribution ladder (the grid's `ladder:`; runs.hpp Ladder), for one combination of the grid's
// other axes (`context`). Each rung is a paired comparison of an arm with the arm before it in its
// climb, so a component's marginal effect is that rung's gap. Per seed the rungs of a climb sum to
// its top arm minus the base (they telescope); `residual` = (target − base) − Σ rungs is what the
// components leave unexplained (exactly 0 when the climb ends at the target's config). A
// component's marginals in two climbs differ when its effect depends on what was added before it:
// `order` holds, per component and climb after the first, the per-seed difference of its marginal
// from the first climb's, flagged when the CI excludes 0 for the converged or the final gap.
struct LadderClimbResult {
  std::vector<std::string> steps;
  std::vector<Comparison> rungs;        // rungs[i]: arms[i+1] − arms[i]
  GapStats sum_converged, sum_final;    // Σ rungs per seed (seeds every rung and the total have)
  GapStats residual_converged, residual_final;  // (target − base) − Σ rungs per seed
};
struct LadderOrderEffect {
  std::string component;
  int climb = 0;                          // this climb's marginal minus climb 0's
  GapStats converged_diff, final_diff;
  bool order_dependent = false;
};
struct LadderResult {
  std::string context;  // the other axes' values ("model=mini"), "" when the ladder is the only axis
  std::string base, target;
  Comparison total;     // target − base
  std::vector<LadderClimbResult> climbs;
  std::vector<LadderOrderEffect> order;
  std::string note;
};

struct AnalysisReport {
  std::string dir;
  ResolvedSettings settings;
  bool manifest_found = false;
  std::map<std::string, std::string> baseline;  // the manifest's baseline selector
  std::vector<std::string> vary_keys;  // keys that vary across config groups (no seeds)
  bool multi_budget = false;           // the budget key varies
  std::vector<CellResult> cells;
  std::vector<GroupResult> groups;
  std::vector<BudgetFamily> budget_families;
  std::vector<QuantSummary> quant_summary;
  std::vector<GnrSummary> gnr_summary;
  std::vector<FidelitySummary> fidelity_summary;  // per group, fprop, dgrad, wgrad
  std::vector<Comparison> comparisons;  // settings.compare, then each claim's pair not listed there
  std::vector<Claim> claims;            // the grid's claims (analysis.claims), for the findings
  std::vector<LadderResult> ladders;    // the grid's ladder, per context
  std::vector<std::string> notes;
  // The loss units across the cells: "nats per token of bpe:2048" ("" when cells disagree or no
  // run is readable), and the most any cell reads its training stream (> 1: data repeats).
  std::string units;
  double max_epochs = kNaN;
};

// Whether every key of `sel` has an equal value in `vary` (a config group's keys).
bool selects(const Selector& sel, const std::map<std::string, std::string>& vary);

// Which comparison a selector pair resolved to (-1: none); used by the findings.
int find_comparison(const AnalysisReport& report, const Selector& a, const Selector& b);

// Analyzes loaded runs. `overrides` beat the manifest's analysis section, which beats defaults.
// Never throws for a bad cell (it is listed with its state); throws ConfigError for bad settings.
AnalysisReport analyze(const GridRuns& runs, const AnalysisSettings& overrides = {});
// load_grid(dir) + analyze.
AnalysisReport analyze_dir(const std::string& dir, const AnalysisSettings& overrides = {});

}  // namespace fp4lab::analysis
