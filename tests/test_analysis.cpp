// Tests for the analysis layer: smoothing, crossings (exact interpolated answers, censoring,
// noise), paired converged gaps and Student-t CIs against hand-computed values, the
// multi-budget form, whole grid directories written with RunWriter (with failed, diverged,
// pending and unreadable cells), manifest round trips, JSON/Markdown/CSV agreement and plots.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis/metrics.hpp"
#include "analysis/plot.hpp"
#include "analysis/report.hpp"
#include "analysis/runs.hpp"
#include "core/train/run_file.hpp"
#include "tests/grid_support.hpp"

namespace fp4lab::analysis {
namespace {

namespace fs = std::filesystem;

// Tolerances: exact arithmetic paths agree to rounding; kExact covers a few ulps of O(1) values.
constexpr double kExact = 1e-12;
// t_{0.975, 2} in closed form: for 2 degrees of freedom F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
const double kT975Dof2 = std::sqrt(1.805 / 0.0975);  // 4.30265272974946

class AnalysisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fp4lab_analysis_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // Failing tests (or FP4LAB_KEEP_TEST_DIRS=1) keep their directory for inspection.
  void TearDown() override {
    if (!HasFailure() && !std::getenv("FP4LAB_KEEP_TEST_DIRS")) fs::remove_all(dir_);
    else std::printf("kept %s for inspection\n", dir_.string().c_str());
  }
  fs::path dir_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---------------------------------------------------------------------------- building blocks

// `--where` for the analysis commands: the cells kept, a note, and clear errors.
TEST(Runs, KeepCellsSelectsByAxisValues) {
  GridRuns runs;
  runs.dir = "g";
  for (const char* size : {"micro", "tiny", "tiny_wide"})
    for (const char* recipe : {"bf16", "nvfp4"}) {
      CellRun c;
      c.info.vary = {{"size", size}, {"recipe", recipe}};
      runs.cells.push_back(c);
    }
  GridRuns all = runs;
  keep_cells(all, {});
  EXPECT_EQ(all.cells.size(), 6u);
  keep_cells(runs, {"size=micro,tiny"});
  ASSERT_EQ(runs.cells.size(), 4u);
  for (const CellRun& c : runs.cells) EXPECT_NE(c.info.vary.at("size"), "tiny_wide");
  EXPECT_NE(runs.notes.back().find("4 of 6"), std::string::npos) << runs.notes.back();
  GridRuns again = runs;
  keep_cells(again, {"size=tiny", "recipe=nvfp4"});
  EXPECT_EQ(again.cells.size(), 1u);
  auto error = [&](const std::vector<std::string>& where) {
    GridRuns r = runs;
    try {
      keep_cells(r, where);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_NE(error({"sizes=micro"}).find("'sizes' is not an axis"), std::string::npos);
  EXPECT_NE(error({"size=huge"}).find("'huge' is not a value of axis size"), std::string::npos);
  EXPECT_NE(error({"size"}).find("expected AXIS=VALUE"), std::string::npos);
}

TEST(Metrics, EmaMatchesHandComputation) {
  const auto s = ema_smooth({1, 2, 3, NAN, 4}, 0.5);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_NEAR(s[0], 1.0, kExact);
  EXPECT_NEAR(s[1], 5.0 / 3.0, kExact);   // (0.25 + 1) / 0.75
  EXPECT_NEAR(s[2], 17.0 / 7.0, kExact);  // (0.625 + 1.5) / 0.875
  EXPECT_TRUE(std::isnan(s[3]));          // passes through, no update
  EXPECT_NEAR(s[4], 49.0 / 15.0, kExact); // (1.0625 + 2) / 0.9375
  EXPECT_EQ(ema_smooth({3, 1, 2}, 0.0), (std::vector<double>{3, 1, 2}));
  const auto flat = ema_smooth(std::vector<double>(50, 2.5), 0.99);  // debiased: no start-up bias
  for (double x : flat) EXPECT_NEAR(x, 2.5, kExact);
  EXPECT_THROW(ema_smooth({1}, 1.0), std::invalid_argument);
}

TEST(Metrics, FirstCrossingInterpolatesInLogTokens) {
  const std::vector<double> t = {100, 200, 400, 800}, l = {4, 3, 2, 1};
  Crossing c = first_crossing(t, l, 2.5);
  EXPECT_TRUE(c.reached);
  EXPECT_NEAR(c.tokens, 200 * std::sqrt(2.0), 1e-9);  // halfway in log(tokens) from 200 to 400
  c = first_crossing(t, l, 3.0);
  EXPECT_TRUE(c.reached);
  EXPECT_NEAR(c.tokens, 200, 1e-9);
  c = first_crossing(t, l, 1.25);
  EXPECT_NEAR(c.tokens, 400 * std::pow(2.0, 0.75), 1e-9);
  c = first_crossing(t, l, 9);  // already below at the first point
  EXPECT_TRUE(c.reached);
  EXPECT_EQ(c.tokens, 100);
  c = first_crossing(t, l, 0.5);  // never: censored at the budget
  EXPECT_FALSE(c.reached);
  EXPECT_EQ(c.tokens, 800);
  c = first_crossing({100, 200, 400}, {4, NAN, 2}, 3);  // skips a NaN point
  EXPECT_NEAR(c.tokens, 200, 1e-9);
}

// A noisy curve: raw losses dip below the target long before the trend does; the smoothed curve
// crosses close to where the trend does (plus the EMA's lag of w/(1-w) = 9 steps).
TEST(Metrics, NoisyCurveCrossesNearTheTrend) {
  std::vector<double> tokens, loss;
  for (int s = 1; s <= 1000; ++s) {
    tokens.push_back(1000.0 * s);
    loss.push_back(5.0 - s / 250.0 + (s % 2 ? 0.3 : -0.3));  // trend reaches 3.0 at step 500
  }
  const Crossing raw = first_crossing(tokens, loss, 3.0);
  EXPECT_LT(raw.tokens, 430e3) << "raw noise should cross early";
  const Crossing smooth = first_crossing(tokens, ema_smooth(loss, 0.9), 3.0);
  EXPECT_TRUE(smooth.reached);
  EXPECT_GT(smooth.tokens, 500e3);
  EXPECT_LT(smooth.tokens, 520e3);
}

TEST(Metrics, BudgetToMatchIsPiecewiseLinear) {
  // NVIDIA Fig. 6b-like numbers: MXFP4 final losses at 1.0/1.25/1.5 budgets vs NVFP4's 1.267.
  const std::vector<double> b = {1.0, 1.25, 1.5}, l = {1.277, 1.269, 1.264};
  BudgetCrossing c = budget_to_match(b, l, 1.267);
  EXPECT_EQ(c.match, BudgetMatch::inside);
  EXPECT_NEAR(c.budget, 1.35, 1e-9);  // 1.25 + 0.4 * 0.25
  c = budget_to_match(b, l, 1.2);
  EXPECT_EQ(c.match, BudgetMatch::above_all);
  EXPECT_EQ(c.budget, 1.5);
  c = budget_to_match(b, l, 1.3);
  EXPECT_EQ(c.match, BudgetMatch::below_all);
  EXPECT_EQ(c.budget, 1.0);
}

TEST(Metrics, SeedStatsStudentT) {
  EXPECT_NEAR(student_t_quantile(0.975, 2), kT975Dof2, 1e-9);
  const SeedStats s = seed_stats({0.02, 0.03, 0.04}, 0.95);
  EXPECT_EQ(s.n, 3);
  EXPECT_NEAR(s.mean, 0.03, kExact);
  EXPECT_NEAR(s.sd, 0.01, kExact);
  EXPECT_NEAR(s.t, kT975Dof2, 1e-9);
  const double half = kT975Dof2 * 0.01 / std::sqrt(3.0);  // 0.0248414...
  EXPECT_NEAR(s.ci_low, 0.03 - half, 1e-10);
  EXPECT_NEAR(s.ci_high, 0.03 + half, 1e-10);
  EXPECT_TRUE(s.has_ci);
  const SeedStats one = seed_stats({0.5, NAN});
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.mean, 0.5);
  EXPECT_FALSE(one.has_ci);
  EXPECT_TRUE(std::isnan(one.ci_low));
  EXPECT_EQ(seed_stats({}).n, 0);
}

std::vector<StepRecord> curve(int n, double (*loss)(int)) {
  std::vector<StepRecord> out;
  for (int s = 1; s <= n; ++s) out.push_back(StepRecord{s, 1000LL * s, loss(s), 0, 0, 0});
  return out;
}

TEST(Metrics, SpreadPositionPercentileAndPredictionInterval) {
  const std::vector<double> b = {1, 2, 3, 4};
  // mean 2.5, sd √(5/3), n 4: half-width t_{0.975,3}·sd·√(1 + 1/4).
  const double half = student_t_quantile(0.975, 3) * std::sqrt(5.0 / 3.0) * std::sqrt(1.25);
  SpreadPosition p = spread_position(b, 2.5, 0.95);
  EXPECT_EQ(p.where, "inside");
  EXPECT_DOUBLE_EQ(p.percentile, 50);
  EXPECT_NEAR(p.spread_low, 2.5 - half, 1e-12);
  EXPECT_NEAR(p.spread_high, 2.5 + half, 1e-12);
  EXPECT_DOUBLE_EQ(spread_position(b, 2, 0.95).percentile, 37.5);  // ties count half
  EXPECT_EQ(spread_position(b, 100, 0.95).where, "above");
  EXPECT_DOUBLE_EQ(spread_position(b, 100, 0.95).percentile, 100);
  EXPECT_EQ(spread_position(b, -100, 0.95).where, "below");
  // Censored (a lower bound): above only when the bound is already above the interval.
  EXPECT_EQ(spread_position(b, 3, 0.95, true).where, "");
  EXPECT_TRUE(std::isnan(spread_position(b, 3, 0.95, true).percentile));
  EXPECT_EQ(spread_position(b, 100, 0.95, true).where, "above");
  // Too few baseline values, or no value: unknown.
  EXPECT_EQ(spread_position({1}, 1, 0.95).where, "");
  EXPECT_EQ(spread_position({1, NAN}, 1, 0.95).where, "");
  EXPECT_EQ(spread_position(b, NAN, 0.95).where, "");
}

TEST(Metrics, PairedWindowGapMatchesHandValues) {
  auto ref = curve(100, [](int s) { return 3.0 - 0.01 * s; });
  auto cell = curve(100, [](int s) { return 3.0 - 0.01 * s + 0.05 + (s % 2 ? -0.01 : 0.01); });
  // Last 25% of 100 paired steps: steps 76..100; 13 even steps (+0.06), 12 odd (+0.04).
  PairedGap g = paired_window_gap(cell, ref, WindowRule{0.25, false, 0, 0});
  EXPECT_EQ(g.n_steps, 25);
  EXPECT_EQ(g.step_lo, 76);
  EXPECT_EQ(g.step_hi, 100);
  EXPECT_EQ(g.tokens_lo, 76000);
  EXPECT_NEAR(g.mean_gap, 0.0504, kExact);
  EXPECT_NEAR(g.sd_gap, std::sqrt((13 * 0.0096 * 0.0096 + 12 * 0.0104 * 0.0104) / 24), 1e-12);
  double rel = 0;
  for (int s = 76; s <= 100; ++s) rel += (ref[s - 1].train_loss - cell[s - 1].train_loss) / ref[s - 1].train_loss * 100;
  EXPECT_NEAR(g.mean_rel_pct, rel / 25, 1e-10);
  EXPECT_LT(g.mean_rel_pct, 0);  // NVIDIA's sign: negative = worse
  // Token window [50k, 60k] -> steps 50..60; a step missing from the reference is not paired.
  ref.erase(ref.begin() + 54);  // step 55
  g = paired_window_gap(cell, ref, WindowRule{0.25, true, 50e3, 60e3});
  EXPECT_EQ(g.n_steps, 10);
  EXPECT_EQ(g.step_lo, 50);
  EXPECT_EQ(g.step_hi, 60);
  EXPECT_NEAR(g.mean_gap, 0.05 + 0.01 * (6 - 4) / 10.0, kExact);  // even 50..60 minus 55: 6 even, 4 odd
}

// ---------------------------------------------------------------------------- grid fixtures

// Loss linear in log(tokens): log-interpolated crossings are then exact.
double base_loss(int64_t tokens) { return 5.0 - 0.25 * std::log(tokens / 1000.0); }

struct RunSpec {
  std::string id;
  double shift = 0;          // added to base_loss
  int steps = 200;
  int64_t tokens_per_step = 1000;
  RunStatus status = RunStatus::done;
  int status_step = -1;      // default: steps
  int nan_after = -1;        // losses become NaN after this step (diverged)
  int val_every = 50;        // 0: no validation
  double val_offset = 0.1;
  double final_val = NAN;    // overrides the last validation loss
  bool quant = true;
  bool gnr = false;  // gnr/ records with the quant records: tensor 0 at 1.0 (below √3), tensor 1 at 5.0,
                     // and fidelity/ records (fidelity_at)
  std::string config = "model: tiny\n";
  std::string coverage;
  std::string manifest;  // the run file's recipe_manifest (YAML)
  std::string message;
};

RunSpec spec(const std::string& id, double shift = 0) {
  RunSpec s;
  s.id = id;
  s.shift = shift;
  return s;
}

// Fidelity records of step s: gain 0.99 (fprop), 0.97 (dgrad), 0.9 / 0.95 (wgrad of tensors 0 / 1);
// rel_err 1 − gain; cosine 0.99; SR split on tensor 1's wgrad only.
std::vector<FidelityRecord> fidelity_at(int64_t s) {
  std::vector<FidelityRecord> out;
  for (int32_t t = 0; t < 2; ++t)
    for (const GemmRole role : {GemmRole::fprop, GemmRole::dgrad, GemmRole::wgrad}) {
      const float gain = role == GemmRole::fprop ? 0.99f : role == GemmRole::dgrad ? 0.97f : t == 0 ? 0.9f : 0.95f;
      const bool sr = t == 1 && role == GemmRole::wgrad;
      out.push_back(FidelityRecord{s, t, role, 1 - gain, gain, 0.99f, sr ? 0.02f : float(kNaN), sr ? 0.1f : float(kNaN)});
    }
  return out;
}

void write_run(const fs::path& dir, const RunSpec& spec) {
  RunMeta meta;
  meta.cell_id = spec.id;
  meta.config_yaml = spec.config;
  meta.tensor_names = {"layers.0.mlp.up_proj", "layers.0.mlp.down_proj"};
  meta.entropy_rate = 3.0;
  meta.coverage = spec.coverage;
  meta.recipe_manifest = spec.manifest;
  auto w = RunWriter::create((dir / (spec.id + ".h5")).string(), meta);
  for (int s = 1; s <= spec.steps; ++s) {
    const int64_t tokens = spec.tokens_per_step * s;
    double loss = base_loss(tokens) + spec.shift;
    if (spec.nan_after >= 0 && s > spec.nan_after) loss = NAN;
    w.add_step(StepRecord{s, tokens, loss, 1e-3, 1.0, 0.01});
    if (spec.val_every > 0 && s % spec.val_every == 0) {
      double v = loss + spec.val_offset;
      if (s == spec.steps && std::isfinite(spec.final_val)) v = spec.final_val;
      w.add_val(ValRecord{s, tokens, v});
    }
    if (spec.quant && s % 40 == 0) {
      std::vector<QuantStatRecord> q;
      for (int32_t t = 0; t < 2; ++t)
        for (uint8_t r = 0; r < 3; ++r)
          for (uint8_t o = 0; o < 2; ++o) {
            QuantStatRecord rec{s, t, static_cast<GemmRole>(r), static_cast<Operand>(o), 4.0f, 0.01f, 0.0f,
                                static_cast<float>(18 + r + t + 0.01 * s), 0.1f, 2.0f, 0.3f};
            rec.bias_shrinkage = -0.01f * float(t + 1);
            rec.sr_rms_k1 = rec.sr_rms_k64 = kNaN;  // round to nearest, except tensor 1's a operands
            if (t == 1 && o == 0) rec.sr_rms_k1 = 0.2f, rec.sr_rms_k64 = 0.03f;
            q.push_back(rec);
          }
      w.add_quant_stats(q);
      if (spec.gnr) w.add_gnr({GnrRecord{s, 0, 0.5f, 0.01f, 1.0f}, GnrRecord{s, 1, 2.0f, 0.01f, 5.0f}});
      if (spec.gnr) w.add_fidelity(fidelity_at(s));
    }
  }
  if (spec.status != RunStatus::running)
    w.set_status(spec.status, spec.status_step >= 0 ? spec.status_step : spec.steps, spec.message);
}

// One run of a multi-budget grid: 10 steps to `budget` tokens ending at validation loss
// `final_val`, added to the manifest with its train.tokens value.
void add_budget_run(const fs::path& dir, GridManifest& m, const std::string& recipe, int64_t budget, double final_val,
                    int64_t seed, const std::string& size = "") {
  const std::string id = recipe + size + std::to_string(budget) + "s" + std::to_string(seed);
  RunSpec s = spec(id);
  s.steps = 10;
  s.tokens_per_step = budget / 10;
  s.val_every = 5;
  s.final_val = final_val;
  s.quant = false;
  write_run(dir, s);
  CellInfo c = testing::recipe_cell(static_cast<int>(m.cells.size()), id, seed, recipe);
  c.vary["train.tokens"] = std::to_string(budget);
  if (!size.empty()) c.vary["size"] = size;
  m.cells.push_back(c);
}

// bf16 (baseline) / nvfp4 (shift 0.02, 0.03, 0.04 by seed) / mxfp4 (shift 0.5: never reaches the
// target) x seeds 1..3; fp8: one failed, one diverged; one pending cell; one unreadable file.
GridManifest make_grid(const fs::path& dir) {
  GridManifest m;
  m.grid = "ablations/test.yaml";
  m.baseline = {{"recipe", "bf16"}};
  int index = 0;
  for (int seed = 1; seed <= 3; ++seed) {
    const std::string b = "bf16s" + std::to_string(seed), n = "nvfp4s" + std::to_string(seed),
                      x = "mxfp4s" + std::to_string(seed);
    write_run(dir, spec(b));
    write_run(dir, spec(n, 0.01 + 0.01 * seed));
    write_run(dir, spec(x, 0.5));
    m.cells.push_back(testing::recipe_cell(index++, b, seed, "bf16"));
    m.cells.push_back(testing::recipe_cell(index++, n, seed, "nvfp4"));
    m.cells.push_back(testing::recipe_cell(index++, x, seed, "mxfp4"));
  }
  RunSpec failed = spec("fp8s1");
  failed.steps = 37;
  failed.status = RunStatus::failed;
  failed.message = "out of memory";
  write_run(dir, failed);
  RunSpec diverged = spec("fp8s2");
  diverged.steps = 60;
  diverged.status = RunStatus::diverged;
  diverged.nan_after = 50;
  diverged.message = "loss is NaN";
  write_run(dir, diverged);
  m.cells.push_back(testing::recipe_cell(index++, "fp8s1", 1, "fp8"));
  m.cells.push_back(testing::recipe_cell(index++, "fp8s2", 2, "fp8"));
  m.cells.push_back(testing::recipe_cell(index++, "fp8s3", 3, "fp8"));  // pending: no file
  std::ofstream(dir / "junk.h5") << "this is not HDF5";
  m.cells.push_back(testing::recipe_cell(index++, "junk", 4, "fp8"));  // unreadable
  // A checkpoint is not a run file.
  std::ofstream(dir / "nvfp4s1.ckpt.h5") << "checkpoint";
  write_grid_manifest(dir.string(), m);
  return m;
}

const GroupResult& group(const AnalysisReport& r, const std::string& label) {
  for (const auto& g : r.groups)
    if (g.label == label) return g;
  ADD_FAILURE() << "no group " << label;
  static GroupResult none;
  return none;
}

const CellResult& cell(const AnalysisReport& r, const std::string& id) {
  for (const auto& c : r.cells)
    if (c.id == id) return c;
  ADD_FAILURE() << "no cell " << id;
  static CellResult none;
  return none;
}

AnalysisSettings exact_settings() {  // no smoothing, fixed target: exact answers
  AnalysisSettings s;
  s.ema = 0.0;
  s.target = "4.0";
  return s;
}

// ---------------------------------------------------------------------------- whole grids

TEST_F(AnalysisTest, GridGapsMatchHandComputedValues) {
  make_grid(dir_);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  ASSERT_EQ(r.cells.size(), 13u);
  ASSERT_EQ(r.groups.size(), 4u);
  EXPECT_TRUE(r.manifest_found);
  EXPECT_EQ(r.vary_keys, (std::vector<std::string>{"recipe"}));

  const GroupResult& bf16 = group(r, "recipe=bf16");
  EXPECT_TRUE(bf16.is_baseline);
  const GroupResult& nv = group(r, "recipe=nvfp4");
  EXPECT_FALSE(nv.is_baseline);
  EXPECT_EQ(nv.reference, bf16.index);
  EXPECT_EQ(nv.n_included, 3);

  // Converged gap: per-step differences are exactly the shift; seeds 0.02, 0.03, 0.04.
  EXPECT_NEAR(nv.converged_gap.mean, 0.03, 1e-9);
  EXPECT_NEAR(nv.converged_gap.sd, 0.01, 1e-9);
  const double half = kT975Dof2 * 0.01 / std::sqrt(3.0);
  EXPECT_NEAR(nv.converged_gap.ci_low, 0.03 - half, 1e-9);
  EXPECT_NEAR(nv.converged_gap.ci_high, 0.03 + half, 1e-9);
  EXPECT_NEAR(nv.converged_step_sd.mean, 0.0, 1e-9);
  EXPECT_EQ(nv.window_step_lo, 151);  // last 25% of 200 steps
  EXPECT_EQ(nv.window_step_hi, 200);
  double rel = 0;  // seed-mean of window-mean (L_b - L_n)/L_b * 100
  for (double d : {0.02, 0.03, 0.04})
    for (int s = 151; s <= 200; ++s) rel += -d / base_loss(1000LL * s) * 100 / 50 / 3;
  EXPECT_NEAR(nv.converged_rel_pct.mean, rel, 1e-9);

  // Tokens to the fixed target 4.0: bf16 at 1000 e^4, nvfp4 at 1000 e^{4(1+d)} -> gap e^{4d} - 1.
  const CellResult& n2 = cell(r, "nvfp4s2");
  EXPECT_TRUE(n2.crossing.reached);
  EXPECT_NEAR(n2.crossing.tokens, 1000 * std::exp(4 * 1.03), 1e-6);
  EXPECT_NEAR(n2.ref_crossing.tokens, 1000 * std::exp(4.0), 1e-6);
  EXPECT_NEAR(n2.token_gap, std::exp(0.12) - 1, 1e-9);
  const double gaps[3] = {std::exp(0.08) - 1, std::exp(0.12) - 1, std::exp(0.16) - 1};
  EXPECT_NEAR(nv.token_gap.mean, (gaps[0] + gaps[1] + gaps[2]) / 3, 1e-9);
  EXPECT_FALSE(nv.token_gap_censored);
  EXPECT_TRUE(nv.token_gap.has_ci);

  // Final-loss gap on validation (val = train + 0.1 at step 200): the shift again.
  EXPECT_EQ(n2.final_gap_kind, "val");
  EXPECT_NEAR(n2.final_gap, 0.03, 1e-9);
  const double l200 = base_loss(200000) + 0.1;
  EXPECT_NEAR(n2.final_rel_pct, -0.03 / l200 * 100, 1e-9);
  EXPECT_NEAR(nv.final_gap.mean, 0.03, 1e-9);
  EXPECT_NEAR(n2.entropy_gap, l200 + 0.03 - 3.0, 1e-9);

  // mxfp4 never reaches 4.0 (needs 1000 e^6 > 200k tokens): censored, a lower bound.
  const GroupResult& mx = group(r, "recipe=mxfp4");
  EXPECT_TRUE(mx.token_gap_censored);
  EXPECT_EQ(mx.n_censored, 3);
  EXPECT_FALSE(mx.token_gap.has_ci);
  EXPECT_NEAR(mx.token_gap.mean, 200000 / (1000 * std::exp(4.0)) - 1, 1e-9);
  EXPECT_FALSE(cell(r, "mxfp4s1").crossing.reached);
  EXPECT_NEAR(mx.converged_gap.mean, 0.5, 1e-9);

  // Problem cells are listed with their state and step, not dropped, and not counted.
  const GroupResult& fp8 = group(r, "recipe=fp8");
  EXPECT_EQ(fp8.n_cells, 4);
  EXPECT_EQ(fp8.n_included, 0);
  EXPECT_EQ(cell(r, "fp8s1").state, "failed");
  EXPECT_EQ(cell(r, "fp8s1").status_step, 37);
  EXPECT_EQ(cell(r, "fp8s1").message, "out of memory");
  EXPECT_EQ(cell(r, "fp8s2").state, "diverged");
  EXPECT_EQ(cell(r, "fp8s2").status_step, 60);
  EXPECT_EQ(cell(r, "fp8s3").state, "pending");
  EXPECT_EQ(cell(r, "junk").state, "unreadable");
  EXPECT_FALSE(cell(r, "junk").message.empty());
  EXPECT_NE(fp8.note.find("failed excluded"), std::string::npos) << fp8.note;

  // Quantization statistics reach the report.
  EXPECT_FALSE(nv.quant.empty());
  ASSERT_EQ(nv.quant.size(), 6u);
  for (const auto& q : nv.quant) {  // sqnr = 18 + role + tensor + 0.01 step, mean over 2 tensors
    ASSERT_EQ(q.step.size(), 5u) << q.label;
    EXPECT_EQ(q.tokens.back(), 200000) << q.label;
    EXPECT_NEAR(q.sqnr_db.back(), 18.5 + static_cast<int>(q.role) + 2.0, 1e-5) << q.label;
    EXPECT_NEAR(q.bias_shrinkage.back(), -0.015, 1e-7) << q.label;
    if (q.operand == Operand::a) {  // NaN (round to nearest) does not count in the mean
      EXPECT_NEAR(q.sr_rms_k1.back(), 0.2, 1e-7) << q.label;
      EXPECT_NEAR(q.sr_rms_k64.back(), 0.03, 1e-7) << q.label;
    } else {
      EXPECT_TRUE(std::isnan(q.sr_rms_k1.back())) << q.label;
    }
  }
  EXPECT_EQ(nv.quant[5].label, "wgrad x");
  EXPECT_FALSE(r.quant_summary.empty());
}

TEST_F(AnalysisTest, QuantSeriesSeparateTensorsThatRanInDifferentFormats) {
  // up_proj ran every operand in nvfp4, down_proj in bf16 (a layer kept in high precision): each
  // operand gets one series per format, not a mean over both.
  std::string manifest = "uses:\n";
  for (const char* gemm : {"fprop", "dgrad", "wgrad"})
    for (int o = 0; o < 2; ++o) {
      const std::string role = gemm, op = role == "fprop" ? (o ? "w" : "x") : role == "dgrad" ? (o ? "w" : "dy") : (o ? "x" : "dy");
      manifest += "  - {tensor: \"layers.0.mlp.up_proj\", gemm: " + role + ", operand: " + op +
                  ", format: \"fp4_e2m1/16 e4m3 1d rne\", count: 5}\n";
      manifest += "  - {tensor: \"layers.0.mlp.down_proj\", gemm: " + role + ", operand: " + op +
                  ", format: \"bf16 rne\", count: 5}\n";
    }
  GridManifest m;
  m.grid = "ablations/test.yaml";
  m.baseline = {{"recipe", "bf16"}};
  for (int seed = 1; seed <= 2; ++seed) {
    RunSpec b = spec("b" + std::to_string(seed)), n = spec("n" + std::to_string(seed), 0.02);
    n.manifest = manifest;
    write_run(dir_, b);
    write_run(dir_, n);
    m.cells.push_back(testing::recipe_cell(2 * seed - 2, b.id, seed, "bf16"));
    m.cells.push_back(testing::recipe_cell(2 * seed - 1, n.id, seed, "nvfp4"));
  }
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string());
  const GroupResult& nv = group(r, "recipe=nvfp4");
  ASSERT_EQ(nv.quant.size(), 12u);
  for (const auto& q : nv.quant) {  // sqnr = 18 + role + tensor + 0.01 step: tensor 0 nvfp4, 1 bf16
    const int tensor = q.format == "bf16 rne" ? 1 : 0;
    EXPECT_TRUE(q.format == "bf16 rne" || q.format == "fp4_e2m1/16 e4m3 1d rne") << q.format;
    EXPECT_NEAR(q.sqnr_db.back(), 18 + static_cast<int>(q.role) + tensor + 2.0, 1e-5) << q.label;
    EXPECT_EQ(q.label, to_string(q.role) + " " + operand_name(q.role, q.operand) + " [" + q.format + "]");
  }
}

TEST_F(AnalysisTest, DefaultSettingsUseBaselineFinalAndCensor) {
  make_grid(dir_);
  const AnalysisReport r = analyze_dir(dir_.string());
  EXPECT_EQ(r.settings.target_rule, TargetRule::baseline_final);
  EXPECT_EQ(r.settings.ema, kDefaultEma);
  // The target is the same-seed baseline's final smoothed loss; a uniformly worse run never
  // reaches it within the same budget: censored, reported as a lower bound.
  const CellResult& n1 = cell(r, "nvfp4s1");
  const CellResult& b1 = cell(r, "bf16s1");
  EXPECT_NEAR(n1.target, b1.final_train_ema, kExact);
  EXPECT_TRUE(n1.ref_crossing.reached);
  EXPECT_FALSE(n1.crossing.reached);
  EXPECT_TRUE(n1.token_gap_censored);
  // A monotone baseline reaches its own final value only at its last point, so the bound is
  // budget / budget - 1 = 0: "> +0.0%". (Same-budget grids want a numeric target or budgets.)
  EXPECT_NEAR(b1.crossing.tokens, 200000, 1e-6);
  EXPECT_NEAR(n1.token_gap, 0.0, 1e-9);
  EXPECT_TRUE(group(r, "recipe=nvfp4").token_gap_censored);
  // Converged and final gaps do not depend on smoothing here (constant shift).
  EXPECT_NEAR(group(r, "recipe=nvfp4").converged_gap.mean, 0.03, 1e-9);
}

// Baseline seeds at final losses L + {0, .01, .02, .03} (no smoothing, no validation): a config
// at +.01/+.02 lies inside their spread, one at +0.2 above (and never reaches the spread target
// L + .03: censored), one at −0.1 below; tokens to L + s' follow exp from the log-linear curves.
TEST_F(AnalysisTest, BaselineSpreadPlacesConfigsAmongTheBaselineSeeds) {
  GridManifest m;
  m.baseline = {{"recipe", "bf16"}};
  const std::map<std::string, std::vector<double>> shifts = {
      {"bf16", {0, 0.01, 0.02, 0.03}}, {"near", {0.01, 0.01, 0.02, 0.02}}, {"worse", {0.2, 0.2, 0.2, 0.2}},
      {"better", {-0.1, -0.1, -0.1, -0.1}}};
  for (const auto& [recipe, by_seed] : shifts)
    for (int seed = 0; seed < 4; ++seed) {
      RunSpec s = spec(recipe + std::to_string(seed), by_seed[size_t(seed)]);
      s.val_every = 0;
      s.quant = false;
      write_run(dir_, s);
      m.cells.push_back(testing::recipe_cell(static_cast<int>(m.cells.size()), s.id, seed, recipe));
    }
  write_grid_manifest(dir_.string(), m);
  AnalysisSettings set;
  set.ema = 0.0;
  const AnalysisReport r = analyze_dir(dir_.string(), set);
  const double L = base_loss(200000);
  auto tokens_to = [](double shift) { return 200000 * std::exp(-(0.03 - shift) / 0.25); };  // loss L + 0.03
  const std::vector<double> base_loss_v = {L, L + 0.01, L + 0.02, L + 0.03};
  const std::vector<double> base_tokens = {tokens_to(0), tokens_to(0.01), tokens_to(0.02), tokens_to(0.03)};

  const GroupResult& near = group(r, "recipe=near");
  EXPECT_NEAR(near.spread_target, L + 0.03, 1e-12);
  EXPECT_EQ(near.n_spread, 4);
  EXPECT_EQ(near.loss_spread.where, "inside");
  EXPECT_DOUBLE_EQ(near.loss_spread.percentile, 50);  // mean L + .015: two baseline seeds below
  EXPECT_EQ(near.n_loss_inside, 4);
  const SpreadPosition want = spread_position(base_loss_v, L + 0.015, 0.95);
  EXPECT_NEAR(near.loss_spread.spread_low, want.spread_low, 1e-9);
  EXPECT_NEAR(near.loss_spread.spread_high, want.spread_high, 1e-9);
  EXPECT_EQ(near.tokens_spread.where, "inside");
  EXPECT_NEAR(near.tokens_spread.value, (2 * tokens_to(0.01) + 2 * tokens_to(0.02)) / 4, 1e-3);
  EXPECT_NEAR(near.tokens_spread.spread_high, spread_position(base_tokens, 0, 0.95).spread_high, 1e-3);
  EXPECT_EQ(near.n_tokens_inside, 4);

  const GroupResult& worse = group(r, "recipe=worse");
  EXPECT_EQ(worse.loss_spread.where, "above");
  EXPECT_DOUBLE_EQ(worse.loss_spread.percentile, 100);
  EXPECT_EQ(worse.n_loss_inside, 0);
  EXPECT_TRUE(worse.tokens_spread.censored);  // never reaches L + .03: at least its budget
  EXPECT_EQ(worse.tokens_spread.where, "");   // 200k tokens is inside the interval: could be either
  EXPECT_EQ(cell(r, "worse0").loss_spread.where, "above");

  const GroupResult& better = group(r, "recipe=better");
  EXPECT_EQ(better.loss_spread.where, "below");
  EXPECT_EQ(better.tokens_spread.where, "below");
  EXPECT_DOUBLE_EQ(better.tokens_spread.percentile, 0);

  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("## Inside the baseline's seed spread?"), std::string::npos);
  char mean[32];
  std::snprintf(mean, sizeof mean, "%.4f", L + 0.015);
  EXPECT_NE(md.find("inside (" + std::string(mean) + ", percentile 50); 4/4 seeds inside"), std::string::npos) << md;
}

TEST_F(AnalysisTest, SingleSeedHasNoConfidenceInterval) {
  GridManifest m;
  m.baseline = {{"recipe", "bf16"}};
  write_run(dir_, spec("b"));
  write_run(dir_, spec("n", 0.026));
  m.cells = {testing::recipe_cell(0, "b", 7, "bf16"), testing::recipe_cell(1, "n", 7, "nvfp4")};
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  const GroupResult& nv = group(r, "recipe=nvfp4");
  EXPECT_EQ(nv.converged_gap.n, 1);
  EXPECT_NEAR(nv.converged_gap.mean, 0.026, 1e-9);
  EXPECT_FALSE(nv.converged_gap.has_ci);
  bool noted = false;
  for (const auto& note : r.notes) noted |= note.find("single seed") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_NE(to_markdown(r).find("(1 seed)"), std::string::npos);
}

TEST_F(AnalysisTest, MultiBudgetTokenGap) {
  // nvfp4 (baseline) at budget 1e5; mxfp4 at 1e5, 1.25e5, 1.5e5; final val losses as in
  // NVIDIA Fig. 6b: 1.267 vs 1.277, 1.269, 1.264 -> matched at 1.35e5 -> +35%.
  GridManifest m;
  m.baseline = {{"recipe", "nvfp4"}};
  auto add = [&](const std::string& recipe, int64_t budget, double final_val, int64_t seed) {
    add_budget_run(dir_, m, recipe, budget, final_val, seed);
  };
  for (int64_t seed : {1, 2}) {
    add("nvfp4", 100000, 1.267, seed);
    add("mxfp4", 100000, 1.277, seed);
    add("mxfp4", 125000, 1.269, seed);
    add("mxfp4", 150000, 1.264, seed);
  }
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string());
  ASSERT_TRUE(r.multi_budget);
  ASSERT_EQ(r.budget_families.size(), 2u);
  const BudgetFamily* mx = nullptr;
  for (const auto& f : r.budget_families)
    if (f.label == "recipe=mxfp4") mx = &f;
  ASSERT_NE(mx, nullptr);
  EXPECT_EQ(mx->final_loss_kind, "val");
  EXPECT_EQ(mx->budgets, (std::vector<double>{100000, 125000, 150000}));
  EXPECT_EQ(mx->base_budget, 100000);
  EXPECT_NEAR(mx->reference_loss, 1.267, kExact);
  EXPECT_EQ(mx->crossing.match, BudgetMatch::inside);
  EXPECT_NEAR(mx->crossing.budget, 135000, 1e-6);
  EXPECT_NEAR(mx->token_gap, 0.35, 1e-9);
  EXPECT_EQ(mx->token_gap_seeds.n, 2);
  EXPECT_NEAR(mx->token_gap_seeds.mean, 0.35, 1e-9);
  EXPECT_NE(to_markdown(r).find("+35.0%"), std::string::npos);
  if (gnuplot_available()) {
    PlotOptions o;
    o.svg = false;
    const auto files = plot_all(r, (dir_ / "plots").string(), o);
    EXPECT_TRUE(std::find(files.begin(), files.end(), (dir_ / "plots" / "budget.png").string()) != files.end());
  }
}

// Two baseline groups (bf16 with and without RHT): each config is compared with the baseline
// that agrees with it on the most keys; a still-running cell counts and is marked.
TEST_F(AnalysisTest, SeveralBaselinesAndARunningCell) {
  GridManifest m;
  m.baseline = {{"recipe", "bf16"}};
  int index = 0;
  auto add = [&](const std::string& recipe, const std::string& rht, double shift, RunStatus status) {
    const std::string id = recipe + "_" + rht;
    RunSpec s = spec(id, shift);
    s.steps = 40;
    s.status = status;
    s.quant = false;
    write_run(dir_, s);
    CellInfo c = testing::recipe_cell(index++, id, 1, recipe);
    c.vary["quant.rht"] = rht;
    m.cells.push_back(c);
  };
  add("bf16", "on", 0.0, RunStatus::done);
  add("bf16", "off", 0.1, RunStatus::done);
  add("nvfp4", "on", 0.03, RunStatus::done);
  add("nvfp4", "off", 0.15, RunStatus::running);
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  const GroupResult& on = group(r, "quant.rht=on, recipe=nvfp4");
  const GroupResult& off = group(r, "quant.rht=off, recipe=nvfp4");
  EXPECT_EQ(r.groups[on.reference].label, "quant.rht=on, recipe=bf16");
  EXPECT_EQ(r.groups[off.reference].label, "quant.rht=off, recipe=bf16");
  EXPECT_NEAR(on.converged_gap.mean, 0.03, 1e-9);
  EXPECT_NEAR(off.converged_gap.mean, 0.05, 1e-9);
  EXPECT_EQ(cell(r, "nvfp4_off").state, "running");
  EXPECT_TRUE(cell(r, "nvfp4_off").included);
  EXPECT_NE(cell(r, "nvfp4_off").note.find("still running"), std::string::npos);
  EXPECT_NE(summary_table(r).find("vs baseline"), std::string::npos);
}

TEST_F(AnalysisTest, WithoutManifestCellsComeFromRunConfigs) {
  for (int seed : {1, 2})
    for (const std::string recipe : {"bf16", "nvfp4"}) {
      RunSpec s = spec(recipe + std::to_string(seed), recipe == "bf16" ? 0.0 : 0.05);
      s.config = "recipe: " + recipe + "\nmodel:\n  d: 64\ntrain:\n  seed: " + std::to_string(seed) + "\n";
      write_run(dir_, s);
    }
  const GridRuns runs = load_grid(dir_.string());
  EXPECT_FALSE(runs.manifest_found);
  ASSERT_EQ(runs.cells.size(), 4u);
  EXPECT_EQ(runs.cells[0].info.vary.size(), 2u);  // recipe, train.seed
  AnalysisSettings s = exact_settings();
  const AnalysisReport r = analyze(runs, s);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(group(r, "recipe=bf16").n_included, 2);
  EXPECT_TRUE(group(r, "recipe=bf16").is_baseline);  // first group, with a note
  EXPECT_NEAR(group(r, "recipe=nvfp4").converged_gap.mean, 0.05, 1e-9);
  EXPECT_EQ(cell(r, "nvfp42").seed, 2);
  // A baseline from grid.yaml (a plain grid file) is honoured.
  std::ofstream(dir_ / "grid.yaml") << "base: x.yaml\nbaseline:\n  recipe: nvfp4\nanalysis:\n  window: 0.5\n";
  const AnalysisReport r2 = analyze_dir(dir_.string(), s);
  EXPECT_TRUE(group(r2, "recipe=nvfp4").is_baseline);
  EXPECT_NEAR(group(r2, "recipe=bf16").converged_gap.mean, -0.05, 1e-9);
  EXPECT_EQ(r2.settings.window_fraction, 0.5);
}

// ---------------------------------------------------------------------------- manifest, settings

TEST_F(AnalysisTest, ManifestRoundTrip) {
  GridManifest m;
  m.grid = "ablations/nvfp4_vs_mxfp4.yaml";
  m.baseline = {{"recipe", "nvfp4"}, {"train.tokens", "1e9"}};
  m.settings.target = "baseline_final_val";
  m.settings.window_tokens = std::make_pair(1e6, 2.5e6);
  m.settings.ema = 0.95;
  CellInfo c = testing::recipe_cell(3, "a1b2c3d4", 17, "mxfp4");
  c.vary["quant.note"] = "has: colon, comma";
  c.vary["empty"] = "";
  c.file = "custom.h5";
  m.cells = {c, testing::recipe_cell(0, "ffff0000", 1, "nvfp4")};
  write_grid_manifest(dir_.string(), m);
  const auto back = read_grid_manifest(dir_.string());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->grid, m.grid);
  EXPECT_EQ(back->baseline, m.baseline);
  EXPECT_EQ(back->settings.target, m.settings.target);
  EXPECT_EQ(back->settings.window_tokens, m.settings.window_tokens);
  EXPECT_EQ(back->settings.ema, 0.95);
  ASSERT_EQ(back->cells.size(), 2u);
  EXPECT_EQ(back->cells[0].index, 0);  // sorted by index
  EXPECT_EQ(back->cells[1].id, "a1b2c3d4");
  EXPECT_EQ(back->cells[1].seed, 17);
  EXPECT_EQ(back->cells[1].file, "custom.h5");
  EXPECT_EQ(back->cells[1].vary, c.vary);
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(AnalysisSettingsTest, ParseSetAndErrors) {
  AnalysisSettings s;
  set_analysis_setting(s, "window", "0.5");
  set_analysis_setting(s, "analysis.target", "3.25");
  set_analysis_setting(s, "target_curve", "val");
  ResolvedSettings r = resolve_settings({}, s);
  EXPECT_EQ(r.window_fraction, 0.5);
  EXPECT_EQ(r.target_rule, TargetRule::fixed);
  EXPECT_EQ(r.target_value, 3.25);
  EXPECT_EQ(r.target_curve, TargetCurve::val);
  set_analysis_setting(s, "window_tokens", "[1e5, 2e5]");
  r = resolve_settings({}, s);
  EXPECT_TRUE(r.window_by_tokens);
  EXPECT_EQ(r.window_tokens_max, 2e5);
  // An explicit override beats the manifest.
  AnalysisSettings manifest;
  manifest.window_tokens = std::make_pair(1.0, 2.0);
  AnalysisSettings over;
  over.window_fraction = 0.3;
  r = resolve_settings(manifest, over);
  EXPECT_FALSE(r.window_by_tokens);
  EXPECT_EQ(r.window_fraction, 0.3);
  EXPECT_EQ(resolve_settings({}, {}).target_rule, TargetRule::baseline_final);

  EXPECT_THROW(set_analysis_setting(s, "ema", "1.5"), ConfigError);
  EXPECT_THROW(set_analysis_setting(s, "window", "0"), ConfigError);
  EXPECT_THROW(set_analysis_setting(s, "target", "best"), ConfigError);
  try {
    parse_analysis_settings(parse_yaml_string("target: baseline_final\nwindoww: 0.2\n", "grid.yaml"));
    FAIL() << "unknown key must be rejected";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("grid.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("analysis.windoww"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------- outputs

// Extracts the number after `"key": ` at the first occurrence following `anchor` in `json`.
double json_number_after(const std::string& json, const std::string& anchor, const std::string& key) {
  const size_t a = json.find(anchor);
  if (a == std::string::npos) return NAN;
  const size_t k = json.find("\"" + key + "\": ", a);
  if (k == std::string::npos) return NAN;
  return std::strtod(json.c_str() + k + key.size() + 4, nullptr);
}

std::string markdown_row(const std::string& md, const std::string& first_cell) {
  const size_t p = md.find("| " + first_cell + " |");
  if (p == std::string::npos) return "";
  return md.substr(p, md.find('\n', p) - p);
}

// A late precision switch is compared with the same config without it (matched on the resolved
// config, not on the vary labels); coverage lines and GNR summaries reach the report.
TEST_F(AnalysisTest, PrecisionSwitchRecoveredFractionCoverageAndGnr) {
  GridManifest m;
  m.baseline = {{"precision", "bf16"}};
  const std::string never = "  switch_at: never\n  switch_fraction: 0\n";
  const std::string at80 = "  switch_at: fraction\n  switch_fraction: 0.8\n";
  struct Variant {
    std::string name, recipe, schedule;
    double shift;
  };
  const Variant variants[] = {{"bf16", "bf16", never, 0.0},
                              {"nvfp4", "nvfp4", never, 0.05},
                              {"nvfp4_switch80", "nvfp4", at80, 0.01}};
  int index = 0;
  for (int seed = 1; seed <= 2; ++seed)
    for (const Variant& v : variants) {
      RunSpec s = spec(v.name + std::to_string(seed), v.shift + (v.shift > 0 ? 0.001 * seed : 0.0));
      s.config = "recipe:\n  name: " + v.recipe + "\n" + v.schedule + "train:\n  seed: " + std::to_string(seed) + "\n";
      s.coverage = v.recipe == "bf16" ? "0/14 linear layers quantized (0/84 GEMM operands): bf16 rne"
                                      : "14/14 linear layers quantized (84/84 GEMM operands): fp4_e2m1/16 e4m3 1d rne";
      s.gnr = v.recipe != "bf16";
      write_run(dir_, s);
      CellInfo c;
      c.index = index++;
      c.id = s.id;
      c.seed = seed;
      c.vary = {{"precision", v.name}, {"train.seed", std::to_string(seed)}};
      m.cells.push_back(c);
    }
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  const GroupResult& plain = group(r, "precision=nvfp4");
  const GroupResult& sw = group(r, "precision=nvfp4_switch80");
  EXPECT_FALSE(plain.has_switch);
  EXPECT_TRUE(sw.has_switch);
  EXPECT_EQ(sw.switch_reference, plain.index);
  EXPECT_EQ(group(r, "precision=bf16").switch_reference, -1);
  // Gaps: switch 0.011 / 0.012, unswitched 0.051 / 0.052 (seeds 1, 2).
  EXPECT_NEAR(sw.recovered_fraction, 1 - 0.0115 / 0.0515, 1e-9);
  ASSERT_EQ(sw.recovered_fraction_seeds.n, 2);
  EXPECT_NEAR(sw.recovered_fraction_seeds.mean, 1 - 0.5 * (0.011 / 0.051 + 0.012 / 0.052), 1e-9);
  EXPECT_EQ(plain.coverage.rfind("14/14 linear layers quantized", 0), 0u) << plain.coverage;
  EXPECT_EQ(cell(r, "bf161").coverage.rfind("0/14", 0), 0u);

  ASSERT_EQ(r.gnr_summary.size(), 2u);  // the two nvfp4 configs
  for (const auto& g : r.gnr_summary) {
    EXPECT_EQ(g.step, 200);
    EXPECT_EQ(g.n_layers, 2);
    EXPECT_EQ(g.min_gnr, 1.0);
    EXPECT_EQ(g.median_gnr, 3.0);
    EXPECT_EQ(g.n_below, 1.0);
    EXPECT_EQ(g.lowest_layer, "layers.0.mlp.up_proj");
  }

  const std::string md = to_markdown(r), json = to_json(r), csv = to_csv(r);
  EXPECT_NE(md.find("## Precision switch"), std::string::npos);
  char recovered[32];
  std::snprintf(recovered, sizeof recovered, "%+.1f%%", sw.recovered_fraction * 100);
  EXPECT_NE(markdown_row(md.substr(md.find("## Precision switch")), "precision=nvfp4_switch80").find(recovered),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Coverage"), std::string::npos);
  EXPECT_NE(md.find("√3"), std::string::npos);
  EXPECT_NE(md.find("| precision=nvfp4 | 200 | 2 | 1.00 | 3.00 | 1.0 | layers.0.mlp.up_proj |"), std::string::npos) << md;
  EXPECT_EQ(json_number_after(json, "\"label\": \"precision=nvfp4_switch80\"", "recovered_fraction"),
            sw.recovered_fraction);
  EXPECT_NE(json.find("\"switch_reference\": \"precision=nvfp4\""), std::string::npos);
  EXPECT_NE(json.find("\"n_below_threshold\": 1"), std::string::npos);
  EXPECT_NE(csv.find(",recovered_fraction,coverage,note"), std::string::npos);

  // Fidelity: per config and GEMM the layer means at the last telemetry step, the lowest layer,
  // the wgrad gain per layer over training, and the CSV columns at the end.
  ASSERT_EQ(r.fidelity_summary.size(), 6u);  // the two nvfp4 configs x three GEMMs
  for (const auto& f : r.fidelity_summary) {
    EXPECT_EQ(f.step, 200);
    EXPECT_EQ(f.n_layers, 2);
    EXPECT_NEAR(f.cosine, 0.99, 1e-6);
    if (f.role != GemmRole::wgrad) {
      EXPECT_TRUE(std::isnan(f.sr_bias));
      continue;
    }
    EXPECT_NEAR(f.gain, 0.925, 1e-6);
    EXPECT_NEAR(f.rel_err, 0.075, 1e-6);
    EXPECT_NEAR(f.sr_bias, 0.02, 1e-6);  // tensor 1 alone
    EXPECT_NEAR(f.sr_rel_std, 0.1, 1e-6);
    EXPECT_NEAR(f.lowest_gain, 0.9, 1e-6);
    EXPECT_EQ(f.lowest_layer, "layers.0.mlp.up_proj");
  }
  ASSERT_EQ(plain.wgrad_gain.size(), 2u);
  EXPECT_EQ(plain.wgrad_gain[0].layer, "layers.0.mlp.down_proj");  // by name
  EXPECT_EQ(plain.wgrad_gain[0].step, (std::vector<int64_t>{40, 80, 120, 160, 200}));
  EXPECT_NEAR(plain.wgrad_gain[1].values.back(), 0.9, 1e-6);
  EXPECT_EQ(plain.wgrad_gain[1].tokens.back(), 200.0 * RunSpec{}.tokens_per_step);
  EXPECT_NE(md.find("| precision=nvfp4 | wgrad | 200 | 2 | 0.9250 | 0.0750 | 0.9900 | 0.0200 | 0.1000 | 0.9000 "
                    "layers.0.mlp.up_proj |"),
            std::string::npos)
      << md;
  EXPECT_NE(json.find("\"lowest_layer\": \"layers.0.mlp.up_proj\""), std::string::npos);
  EXPECT_NE(csv.find(",tokens_spread_pct,fidelity_fprop_gain,"), std::string::npos);
  EXPECT_NE(csv.find(",fidelity_wgrad_sr_bias,fidelity_wgrad_sr_rel_std"), std::string::npos);
  if (gnuplot_available()) {
    PlotOptions o;
    o.svg = false;
    const auto files = plot_all(r, (dir_ / "plots").string(), o);
    const std::string png = (dir_ / "plots" / ("fidelity_wgrad_g" + std::to_string(plain.index) + ".png")).string();
    EXPECT_TRUE(std::find(files.begin(), files.end(), png) != files.end()) << png;
  }
}

TEST_F(AnalysisTest, JsonMarkdownAndCsvAgree) {
  make_grid(dir_);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  const std::string json = to_json(r), md = to_markdown(r), csv = to_csv(r);
  for (const std::string label : {"recipe=nvfp4", "recipe=mxfp4"}) {
    const GroupResult& g = group(r, label);
    const std::string anchor = "\"label\": \"" + label + "\"";
    const double conv = json_number_after(json, anchor, "mean");  // converged_gap comes first
    EXPECT_EQ(conv, g.converged_gap.mean) << label;               // shortest round-trip form
    const std::string row = markdown_row(md, label);
    ASSERT_FALSE(row.empty()) << "no summary row for " << label << "\n" << md;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.4f", conv);
    EXPECT_NE(row.find(buf), std::string::npos) << buf << " not in " << row;
    std::snprintf(buf, sizeof buf, "%+.4f", g.final_gap.mean);
    EXPECT_NE(row.find(buf), std::string::npos) << buf << " not in " << row;
    if (g.converged_gap.has_ci) {
      std::snprintf(buf, sizeof buf, "[%+.4f, %+.4f]", g.converged_gap.ci_low, g.converged_gap.ci_high);
      EXPECT_NE(row.find(buf), std::string::npos) << buf << " not in " << row;
    }
  }
  EXPECT_NE(markdown_row(md, "recipe=mxfp4").find("> +"), std::string::npos) << "censored token gap shown as a bound";
  // Problem cells appear with state and step.
  EXPECT_NE(md.find("**failed** at step 37 — out of memory"), std::string::npos) << md;
  EXPECT_NE(md.find("**diverged** at step 60"), std::string::npos);
  EXPECT_NE(json.find("\"state\": \"pending\""), std::string::npos);
  // CSV: header + one row per group and per cell.
  size_t lines = 0;
  for (char c : csv) lines += c == '\n';
  EXPECT_EQ(lines, 1 + r.groups.size() + r.cells.size());
  EXPECT_EQ(csv.rfind("level,group,config,", 0), 0u);
  // The JSON parses, and python reads the same number.
  if (std::system("/usr/bin/python3 -c 'import json' > /dev/null 2>&1") == 0) {
    const fs::path jf = dir_ / "a.json";
    std::ofstream(jf) << json;
    char expect[64];
    std::snprintf(expect, sizeof expect, "%.17g", group(r, "recipe=nvfp4").converged_gap.mean);
    const std::string cmd = "/usr/bin/python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); "
                            "g=[g for g in d['groups'] if g['label']=='recipe=nvfp4'][0]; "
                            "assert g['converged_gap']['mean']==float(sys.argv[2]), g['converged_gap']; "
                            "assert d['settings']['ema']==0.0\" " + jf.string() + " " + expect;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
}

bool is_png(const fs::path& p) {
  const std::string s = read_file(p);
  return s.size() > 1000 && s.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

bool is_svg(const fs::path& p) {
  const std::string s = read_file(p);
  return s.size() > 500 && s.find("<svg") != std::string::npos && s.find("</svg>") != std::string::npos;
}

TEST_F(AnalysisTest, PlotsAreValidImages) {
  if (!gnuplot_available()) GTEST_SKIP() << "gnuplot not installed";
  make_grid(dir_);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  const fs::path out = dir_ / "plots";
  const auto files = plot_all(r, out.string());
  std::set<std::string> stems;
  for (const auto& f : files) {
    const fs::path p(f);
    stems.insert(p.stem().string());
    if (p.extension() == ".png") EXPECT_TRUE(is_png(p)) << f;
    else if (p.extension() == ".svg") EXPECT_TRUE(is_svg(p)) << f;
    else ADD_FAILURE() << "unexpected file " << f;
    EXPECT_TRUE(fs::exists(out / (p.stem().string() + ".gp"))) << "script for " << f;
  }
  for (const char* s : {"loss_vs_tokens", "gap_vs_tokens", "gaps", "token_gap", "quant_sqnr_g1"})
    EXPECT_TRUE(stems.count(s)) << "missing plot " << s;
  EXPECT_EQ(files.size(), 2 * stems.size());  // PNG and SVG each
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
    EXPECT_EQ(name.find(".log"), std::string::npos) << name;
  }
}

TEST_F(AnalysisTest, WriteReportWritesEverythingAtomically) {
  make_grid(dir_);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  const fs::path out = dir_ / "report";
  ReportOptions o;
  o.plot.svg = false;  // keep the test quick
  o.plots = gnuplot_available();
  const auto files = write_report(r, out.string(), o);
  for (const char* f : {"report.md", "report.csv", "analysis.json"}) EXPECT_TRUE(fs::exists(out / f)) << f;
  for (const auto& f : files) EXPECT_TRUE(fs::exists(f)) << f;
  const std::string md = read_file(out / "report.md");
  if (o.plots) {
    EXPECT_NE(md.find("![Training loss vs tokens](plots/loss_vs_tokens.png)"), std::string::npos) << md;
    EXPECT_TRUE(is_png(out / "plots" / "loss_vs_tokens.png"));
  }
  EXPECT_EQ(read_file(out / "analysis.json"), to_json(r));
  for (const auto& e : fs::recursive_directory_iterator(out))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}


// ---------------------------------------------------------------------------- comparisons

// compare: pairs on the make_grid runs (losses linear in log(tokens), per-step shifts exact):
// nvfp4 seed s is base + 0.01 + 0.01 s, mxfp4 base + 0.5, bf16 base.
TEST_F(AnalysisTest, ComparisonsArePairedBySeedWithKnownAnswers) {
  make_grid(dir_);
  AnalysisSettings s = exact_settings();
  s.compare = {{{{"recipe", "mxfp4"}}, {{"recipe", "nvfp4"}}},
               {{{"recipe", "bf16"}}, {{"recipe", "nvfp4"}}},
               {{{"recipe", "fp8"}}, {{"recipe", "bf16"}}}};
  const AnalysisReport r = analyze_dir(dir_.string(), s);
  ASSERT_EQ(r.comparisons.size(), 3u);

  const Comparison& mx = r.comparisons[0];
  EXPECT_EQ(mx.a, "recipe=mxfp4");
  EXPECT_EQ(mx.b, "recipe=nvfp4");
  EXPECT_EQ(mx.seeds, (std::vector<int64_t>{1, 2, 3}));
  // converged: 0.5 - (0.01 + 0.01 s) = 0.48, 0.47, 0.46 at every step of the window
  EXPECT_NEAR(mx.converged_gap.stats.mean, 0.47, 1e-9);
  EXPECT_NEAR(mx.converged_gap.stats.sd, 0.01, 1e-9);
  const double half = kT975Dof2 * 0.01 / std::sqrt(3.0);
  EXPECT_NEAR(mx.converged_gap.stats.ci_low, 0.47 - half, 1e-9);
  EXPECT_NEAR(mx.converged_gap.stats.ci_high, 0.47 + half, 1e-9);
  EXPECT_NEAR(mx.converged_gap.per_seed[2], 0.46, 1e-9);
  EXPECT_EQ(mx.window_step_lo, 151);
  EXPECT_EQ(mx.final_gap_kind, "val");
  EXPECT_NEAR(mx.final_gap.stats.mean, 0.47, 1e-9);
  // mxfp4 never comes down to nvfp4's final loss: every seed censored, a lower bound, no CI.
  EXPECT_EQ(mx.token_gap_form, "crossing");
  EXPECT_EQ(mx.token_gap_censored, 3);
  EXPECT_EQ(mx.token_gap_bound, (std::vector<int>{1, 1, 1}));
  EXPECT_FALSE(mx.token_gap.stats.has_ci);
  EXPECT_EQ(mx.token_gap_text().rfind("3 of 3 seeds never reached it; lower bound", 0), 0u) << mx.token_gap_text();

  // bf16 reaches nvfp4's final loss base(200k) + d at 200k e^{-4d}; nvfp4 at 200k: gap e^{-4d} - 1.
  const Comparison& bf = r.comparisons[1];
  EXPECT_EQ(bf.token_gap_censored, 0);
  std::vector<double> want;
  for (double d : {0.02, 0.03, 0.04}) want.push_back(std::exp(-4 * d) - 1);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(bf.token_gap.per_seed[size_t(i)], want[size_t(i)], 1e-9);
  const SeedStats expect = seed_stats(want);
  EXPECT_NEAR(bf.token_gap.stats.mean, expect.mean, 1e-12);
  EXPECT_NEAR(bf.token_gap.stats.ci_low, expect.ci_low, 1e-12);
  EXPECT_NEAR(bf.converged_gap.stats.mean, -0.03, 1e-9);

  // fp8 has no finished run: no paired seeds, said so, no numbers.
  EXPECT_EQ(r.comparisons[2].n_seeds(), 0);
  EXPECT_NE(r.comparisons[2].note.find("no seed"), std::string::npos);

  // Throughput from the step times (0.01 s per 1000-token step; no FLOP accounting in these files).
  const GroupResult& nv = group(r, "recipe=nvfp4");
  EXPECT_NEAR(nv.step_seconds.mean, 0.01, 1e-15);
  EXPECT_NEAR(nv.tokens_per_second.mean, 1e5, 1e-6);
  EXPECT_NEAR(nv.step_time_ratio, 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(nv.model_tflops.mean));

  // JSON, Markdown and CSV carry them.
  const std::string json = to_json(r), md = to_markdown(r), csv = to_csv(r);
  EXPECT_NE(md.find("## Throughput"), std::string::npos);
  EXPECT_NE(json.find("\"step_time_ratio\": 1"), std::string::npos);
  EXPECT_NE(json.find("\"comparisons\": ["), std::string::npos);
  EXPECT_NE(json.find("\"censored\": 3"), std::string::npos);
  EXPECT_NE(md.find("## Comparisons"), std::string::npos);
  EXPECT_NE(md.find("| recipe=mxfp4 | recipe=nvfp4 | 3 | +0.4700 |"), std::string::npos) << md;
  EXPECT_NE(csv.find("comparison,,recipe=mxfp4 vs recipe=nvfp4"), std::string::npos) << csv;
}

TEST_F(AnalysisTest, ComparisonInTheMultiBudgetForm) {
  // nvfp4 at budget 1e5 (final val 1.267); mxfp4 at 1e5 / 1.25e5 / 1.5e5 (1.277 / 1.269 / 1.264):
  // matched at 1.35e5, +35%. Seed 3's mxfp4 is 0.01 worse at every budget and never comes down to
  // 1.267: censored at the largest budget, +50% as a lower bound.
  GridManifest m;
  m.baseline = {{"recipe", "nvfp4"}};
  m.settings.compare = {{{{"recipe", "mxfp4"}}, {{"recipe", "nvfp4"}}}};
  auto add = [&](const std::string& recipe, int64_t budget, double final_val, int64_t seed) {
    add_budget_run(dir_, m, recipe, budget, final_val, seed);
  };
  for (int64_t seed : {1, 2, 3}) {
    const double worse = seed == 3 ? 0.01 : 0.0;
    add("nvfp4", 100000, 1.267, seed);
    add("mxfp4", 100000, 1.277 + worse, seed);
    add("mxfp4", 125000, 1.269 + worse, seed);
    add("mxfp4", 150000, 1.264 + worse, seed);
  }
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string());
  ASSERT_EQ(r.comparisons.size(), 1u);
  const Comparison& c = r.comparisons[0];
  EXPECT_EQ(c.token_gap_form, "multi_budget");
  EXPECT_EQ(c.a, "recipe=mxfp4, train.tokens=100000");  // per-step gaps at B's budget
  EXPECT_EQ(c.n_seeds(), 3);
  EXPECT_NEAR(c.token_gap.per_seed[0], 0.35, 1e-9);
  EXPECT_NEAR(c.token_gap.per_seed[1], 0.35, 1e-9);
  EXPECT_NEAR(c.token_gap.per_seed[2], 0.5, 1e-9);  // 1.274 > 1.267 at 1.5x: never reached
  EXPECT_EQ(c.token_gap_bound, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(c.token_gap_censored, 1);
  EXPECT_FALSE(c.token_gap.stats.has_ci);
  EXPECT_EQ(c.token_gap_text(), "1 of 3 seeds never reached it; lower bound > +40.0%");
  EXPECT_NEAR(c.final_gap.stats.mean, (0.01 + 0.01 + 0.02) / 3, 1e-9);
}

TEST_F(AnalysisTest, ComparisonOverABudgetAxisPerModelSize) {
  // A grid's `budgets:` axis: the manifest names multiples ("budget": 0.7 ... 1.5) and each size has
  // its own base budget. mxfp4's final loss per budget brackets nvfp4's, so every seed gets an
  // interpolated gap: 1.267 lies 60% of the way from 1.277 (1.0x) to 1.2607 (1.25x): +15%.
  GridManifest m;
  m.baseline = {{"recipe", "nvfp4"}};
  m.settings.budget_key = "budget";
  m.settings.compare = {{{{"recipe", "mxfp4"}}, {{"recipe", "nvfp4"}}}};
  for (const auto& [size, base] : {std::pair<std::string, int64_t>{"s", 100000}, {"l", 400000}})
    for (int64_t seed : {1, 2}) {
      auto add = [&](const std::string& recipe, const std::string& scale, double final_val) {
        add_budget_run(dir_, m, recipe, std::llround(std::stod(scale) * double(base)), final_val, seed, size);
        m.cells.back().vary.erase("train.tokens");
        m.cells.back().vary["budget"] = scale;
      };
      add("nvfp4", "1.0", 1.267);
      add("mxfp4", "0.7", 1.30);
      add("mxfp4", "1.0", 1.277);
      add("mxfp4", "1.25", 1.2603333333333333);
    }
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string());
  ASSERT_EQ(r.comparisons.size(), 2u);  // one per size
  for (const Comparison& c : r.comparisons) {
    EXPECT_EQ(c.token_gap_form, "multi_budget");
    EXPECT_NE(c.a.find("budget=1.0"), std::string::npos) << c.a;
    EXPECT_EQ(c.a.find("size=") == std::string::npos, false);
    EXPECT_EQ(c.a.substr(c.a.find("size=")), c.b.substr(c.b.find("size="))) << c.a << " vs " << c.b;
    ASSERT_EQ(c.n_seeds(), 2);
    for (double g : c.token_gap.per_seed) EXPECT_NEAR(g, 0.15, 1e-9);
    EXPECT_EQ(c.token_gap_bound, (std::vector<int>{0, 0}));
    EXPECT_EQ(c.token_gap_censored + c.token_gap_below, 0);
  }
}

TEST_F(AnalysisTest, LadderMarginalsSumsResidualAndOrderDependence) {
  // Components a and b, climbs [a, b] and [b, a]; the target lies 0.01 beyond the top arm. Loss
  // shifts (nats) per arm, plus 0.001 * seed * arm index so that seeds differ:
  const std::vector<std::pair<std::string, double>> arms = {
      {"base", 0}, {"+a", 0.02}, {"+b", 0.01}, {"+a+b", 0.05}, {"target", 0.06}};
  GridManifest m;
  m.baseline = {{"arm", "base"}};
  Ladder l;
  l.axis = "arm";
  l.components = {"a", "b"};
  l.climbs = {{{"a", "b"}, {"base", "+a", "+a+b"}}, {{"b", "a"}, {"base", "+b", "+a+b"}}};
  l.target = "target";
  m.settings.ladder = l;
  for (int seed = 0; seed < 3; ++seed)
    for (size_t k = 0; k < arms.size(); ++k) {
      RunSpec s = spec("arm" + std::to_string(k) + "s" + std::to_string(seed), arms[k].second + 0.001 * seed * double(k));
      s.quant = false;
      write_run(dir_, s);
      CellInfo c;
      c.index = static_cast<int>(m.cells.size());
      c.id = s.id;
      c.seed = seed;
      c.vary = {{"arm", arms[k].first}, {"train.seed", std::to_string(seed)}};
      m.cells.push_back(c);
    }
  write_grid_manifest(dir_.string(), m);
  const AnalysisReport r = analyze_dir(dir_.string(), exact_settings());
  ASSERT_EQ(r.ladders.size(), 1u);
  const LadderResult& lr = r.ladders[0];
  EXPECT_EQ(lr.base, "base");
  EXPECT_EQ(lr.target, "target");
  EXPECT_NEAR(lr.total.final_gap.stats.mean, 0.06 + 0.001 * 4, 1e-9);  // mean seed 1: 0.001 * 1 * 4
  ASSERT_EQ(lr.climbs.size(), 2u);
  const LadderClimbResult& c1 = lr.climbs[0];
  ASSERT_EQ(c1.rungs.size(), 2u);
  EXPECT_EQ(c1.rungs[0].a, "arm=+a");
  EXPECT_EQ(c1.rungs[0].b, "arm=base");
  EXPECT_NEAR(c1.rungs[0].converged_gap.per_seed[2], 0.02 + 0.002, 1e-9);
  EXPECT_NEAR(c1.rungs[1].converged_gap.stats.mean, 0.03 + 0.001 * 2, 1e-9);  // +a+b − +a: 0.03 + 0.001 s (3 − 1)
  EXPECT_NEAR(c1.sum_converged.stats.mean, 0.05 + 0.003, 1e-9);
  EXPECT_NEAR(c1.sum_final.stats.mean, 0.05 + 0.003, 1e-9);
  EXPECT_NEAR(c1.residual_converged.stats.mean, 0.01 + 0.001, 1e-9);  // target − top arm: 0.01 + 0.001 s
  EXPECT_NEAR(c1.residual_final.per_seed[0], 0.01, 1e-9);
  EXPECT_TRUE(c1.residual_final.stats.has_ci);
  const LadderClimbResult& c2 = lr.climbs[1];
  EXPECT_NEAR(c2.rungs[0].final_gap.stats.mean, 0.01 + 0.002, 1e-9);  // +b first
  EXPECT_NEAR(c2.sum_converged.stats.mean, c1.sum_converged.stats.mean, 1e-12);  // both telescope
  // a: 0.04 + 0.001 s in climb 2 vs 0.02 + 0.001 s in climb 1; b: 0.01 + 0.002 s vs 0.03 + 0.002 s
  ASSERT_EQ(lr.order.size(), 2u);
  EXPECT_EQ(lr.order[0].component, "a");
  EXPECT_EQ(lr.order[0].climb, 1);
  EXPECT_NEAR(lr.order[0].converged_diff.stats.mean, 0.02, 1e-9);
  EXPECT_NEAR(lr.order[1].final_diff.stats.mean, -0.02, 1e-9);
  EXPECT_TRUE(lr.order[0].order_dependent);
  EXPECT_TRUE(lr.order[1].order_dependent);

  const std::string md = to_markdown(r), json = to_json(r), csv = to_csv(r);
  EXPECT_NE(md.find("## Attribution ladder"), std::string::npos);
  EXPECT_NE(md.find("| + a | arm=+a | +0.0210 "), std::string::npos) << md;
  EXPECT_NE(md.find("| residual (total − Σ) |  | +0.0110 "), std::string::npos) << md;
  EXPECT_NE(md.find("what the components leave out"), std::string::npos);
  EXPECT_EQ(md.find("0 by construction"), std::string::npos);
  EXPECT_NE(md.find("| a | 2 vs 1 | +0.0200 "), std::string::npos) << md;
  EXPECT_NE(json.find("\"ladders\": ["), std::string::npos);
  EXPECT_NE(json.find("\"order_dependent\": true"), std::string::npos);
  EXPECT_NE(csv.find("ladder_rung,,arm=+a vs arm=base"), std::string::npos) << csv;

  // the manifest keeps the ladder
  EXPECT_EQ(read_grid_manifest(dir_.string())->settings.ladder, m.settings.ladder);
}

TEST(AnalysisSettingsTest, CompareAndClaimsParseAndRoundTrip) {
  const Value v = parse_yaml_string(
      "compare: [[{recipe: mxfp4}, {recipe: nvfp4}]]\n"
      "claims:\n"
      "  - {id: mx, claim: MXFP4 needs more tokens, source: '§1.4', compare: [{recipe: mxfp4}, {recipe: nvfp4}],\n"
      "     metric: token_gap, direction: a_worse, published: '+36%'}\n",
      "t.yaml");
  const AnalysisSettings s = parse_analysis_settings(v);
  ASSERT_EQ(s.compare.size(), 1u);
  EXPECT_EQ(s.compare[0].first, (Selector{{"recipe", "mxfp4"}}));
  ASSERT_EQ(s.claims.size(), 1u);
  EXPECT_EQ(s.claims[0].metric, "token_gap");
  EXPECT_EQ(s.claims[0].direction, 1);
  const AnalysisSettings back = parse_analysis_settings(to_value(s));
  EXPECT_EQ(back.compare, s.compare);
  EXPECT_EQ(back.claims[0].published, "+36%");
  EXPECT_EQ(back.claims[0].b, (Selector{{"recipe", "nvfp4"}}));
  auto error = [](const std::string& text) {
    try {
      parse_analysis_settings(parse_yaml_string(text, "bad.yaml"));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_NE(error("compare: [[{recipe: a}]]").find("bad.yaml:1"), std::string::npos);
  EXPECT_NE(error("compare: [[{recipe: a}, {recipe: a}]]").find("same cells"), std::string::npos);
  EXPECT_NE(error("claims: [{compare: [{r: a}, {r: b}]}]").find("needs an `id`"), std::string::npos);
  EXPECT_NE(error("claims: [{id: x, compare: [{r: a}, {r: b}], direction: up}]").find("a_worse"), std::string::npos);
}

}  // namespace
}  // namespace fp4lab::analysis
