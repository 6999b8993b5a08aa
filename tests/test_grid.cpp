// The grid language: expansion (product, zip, exclude, seeds, presets, variants) with exact cell
// counts, id stability, precedence, baselines, the resolved copy, and the corpus of malformed grid
// files in tests/data/bad_grids (each must exit 2 from `fp4lab plan` and `fp4lab run`, name the
// problem, and write nothing). Running cells is tested end to end by tests/grid_e2e.sh.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "experiments/grid/grid.hpp"

namespace fp4lab::grid {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "fp4lab_grid_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A small valid base every grid below starts from.
const char* kBase =
    "model: tiny\n"
    "recipe: bf16\n"
    "train: {batch_size: 4, tokens: 4096}\n"
    "model.seq_len: 32\n";

Grid grid_from(const TempDir& dir, const std::string& text, const std::vector<std::string>& sets = {},
               const std::string& name = "g.yaml") {
  dir.write("base.yaml", kBase);
  return load_grid(dir.write(name, text), sets);
}

std::vector<std::string> ids(const Grid& g) {
  std::vector<std::string> out;
  for (const auto& c : g.cells) out.push_back(c.id);
  return out;
}

std::string label(const Cell& c, const std::string& axis) {
  for (const auto& [k, v] : c.vary)
    if (k == axis) return v;
  return "<none>";
}

std::string error_of(const TempDir& dir, const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    grid_from(dir, text, sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(GridExpansion, ProductIsRowMajorWithSeedsOutermost) {
  TempDir d;
  const Grid g = grid_from(d,
                           "name: p\nbase: base.yaml\nseeds: [0, 1]\n"
                           "axes:\n  optim.lr: [1.0e-3, 2.0e-3, 3.0e-3]\n  train.batch_size: [4, 8]\n");
  ASSERT_EQ(g.cells.size(), 12u);
  ASSERT_EQ(g.axes.size(), 3u);
  EXPECT_EQ(g.axes[0].name, "seed");
  // cell 7 = seed 1, lr index 0, batch index 1
  const Cell& c = g.cells[7];
  EXPECT_EQ(c.index, 7);
  EXPECT_EQ(c.seed, 1u);
  EXPECT_EQ(c.config.train.seed, 1u);
  EXPECT_DOUBLE_EQ(c.config.optim.lr, 1e-3);
  EXPECT_EQ(c.config.train.batch_size, 8);
  EXPECT_EQ(g.describe(c), "seed=1 optim.lr=1.0e-3 train.batch_size=8");
  const std::vector<std::string> all = ids(g);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 12u);
}

TEST(GridExpansion, ZipLinksAxesAndKeepsTheFirstMembersPosition) {
  TempDir d;
  const Grid g = grid_from(d,
                           "base: base.yaml\n"
                           "axes:\n  optim.lr: [1.0e-3, 2.0e-3, 3.0e-3]\n  train.batch_size: [4, 8]\n"
                           "  optim.warmup_tokens: [0, 256, 512]\n"
                           "zip: [[optim.warmup_tokens, optim.lr]]\n");
  ASSERT_EQ(g.cells.size(), 6u);  // 3 (zipped) x 2
  for (const auto& c : g.cells) EXPECT_EQ(c.config.optim.warmup_tokens, int64_t(std::lround((c.config.optim.lr - 1e-3) * 256e3)));
  EXPECT_EQ(label(g.cells[1], "train.batch_size"), "8");  // the zip group is the outer factor
  EXPECT_EQ(label(g.cells[2], "optim.lr"), "2.0e-3");
  // A flat list is one group.
  const Grid flat = grid_from(d,
                              "base: base.yaml\naxes:\n  optim.lr: [1.0e-3, 2.0e-3]\n  optim.warmup_tokens: [0, 256]\n"
                              "zip: [optim.lr, optim.warmup_tokens]\n");
  EXPECT_EQ(flat.cells.size(), 2u);
}

TEST(GridExpansion, ExcludeRemovesMatchingCells) {
  TempDir d;
  const std::string axes =
      "base: base.yaml\nseeds: [0, 1]\naxes:\n  recipe: [nvfp4, mxfp4, bf16]\n  train.batch_size: [4, 8]\n";
  EXPECT_EQ(grid_from(d, axes).cells.size(), 12u);
  EXPECT_EQ(grid_from(d, axes + "exclude:\n  - {recipe: bf16, train.batch_size: 8}\n").cells.size(), 10u);
  // A list value matches any of its values; numbers match by value; several rules add up.
  const Grid g = grid_from(d, axes +
                                  "exclude:\n  - {recipe: [nvfp4, mxfp4], train.batch_size: 8.0}\n"
                                  "  - {seed: 1, recipe: bf16}\n");
  EXPECT_EQ(g.cells.size(), 12u - 4u - 2u);
  for (const auto& c : g.cells) {
    EXPECT_FALSE(c.config.recipe.name != "bf16" && c.config.train.batch_size == 8) << g.describe(c);
    EXPECT_FALSE(c.seed == 1 && c.config.recipe.name == "bf16") << g.describe(c);
  }
  for (size_t i = 0; i < g.cells.size(); ++i) EXPECT_EQ(g.cells[i].index, int(i));
}

TEST(GridExpansion, PresetsExpandPerCell) {
  TempDir d;
  const Grid g = grid_from(d, "base: base.yaml\naxes:\n  model: [tiny, small]\n  recipe: [nvfp4, mxfp4, bf16]\n"
                              "overrides: {model.seq_len: 32}\n");
  ASSERT_EQ(g.cells.size(), 6u);
  EXPECT_EQ(g.cells[0].config.model.d_model, 64);
  EXPECT_EQ(g.cells[3].config.model.d_model, 192);
  EXPECT_EQ(g.cells[3].config.model.seq_len, 128);  // the axis (preset) beats the overrides
  EXPECT_EQ(g.cells[1].config.recipe.name, "mxfp4");
  EXPECT_EQ(g.cells[1].config.recipe.quantized.fprop_x.block, 32);
  EXPECT_EQ(g.cells[0].config.recipe.quantized.fprop_w.tile, Tile::d2);
  EXPECT_EQ(g.cells[2].config.recipe.quantized.fprop_x.element, ElementFormat::bf16);
}

TEST(GridExpansion, VariantAxesApplyNamedSettings) {
  TempDir d;
  const Grid g = grid_from(d,
                           "base: base.yaml\n"
                           "overrides: {recipe: nvfp4}\n"
                           "axes:\n"
                           "  recipe.quantized:\n"
                           "    full: {}\n"
                           "    no_rht: {wgrad_dy.rht: false, wgrad_x.rht: false}\n"
                           "    no_sr: {dgrad_dy.rounding: rne, wgrad_dy.rounding: rne}\n"
                           "  schedule:\n"
                           "    short: {train.tokens: 2048}\n"
                           "    long:\n");
  ASSERT_EQ(g.cells.size(), 6u);
  EXPECT_EQ(g.axes[0].kind, Axis::Kind::variants);
  EXPECT_EQ(g.describe(g.cells[2]), "recipe.quantized=no_rht schedule=short");
  EXPECT_TRUE(g.cells[0].config.recipe.quantized.wgrad_x.rht);
  EXPECT_FALSE(g.cells[2].config.recipe.quantized.wgrad_x.rht);
  EXPECT_EQ(g.cells[4].config.recipe.quantized.wgrad_dy.rounding, Rounding::rne);
  EXPECT_EQ(g.cells[0].config.train.tokens, 2048);
  EXPECT_EQ(g.cells[1].config.train.tokens, 4096);
}

TEST(GridExpansion, BaselinePerSeedAndOtherAxes) {
  TempDir d;
  const Grid g = grid_from(d,
                           "base: base.yaml\nseeds: [3, 4]\n"
                           "axes:\n  recipe: [nvfp4, bf16]\n  train.batch_size: [4, 8]\n"
                           "baseline: {recipe: bf16}\nanalysis: {target: baseline_final, window: 0.5, ema: 0.9}\n");
  ASSERT_EQ(g.cells.size(), 8u);
  for (const auto& c : g.cells) {
    ASSERT_GE(c.baseline, 0) << g.describe(c);
    const Cell& b = g.cells[c.baseline];
    EXPECT_EQ(b.config.recipe.name, "bf16");
    EXPECT_EQ(b.seed, c.seed);
    EXPECT_EQ(b.config.train.batch_size, c.config.train.batch_size);
  }
  EXPECT_EQ(g.baseline, (Vary{{"recipe", "bf16"}}));
  EXPECT_EQ(g.analysis.window_fraction, 0.5);
  EXPECT_EQ(g.analysis.ema, 0.9);
  // A budget axis for one recipe only: those cells fall back to the one baseline of their seed.
  const Grid budget = grid_from(d,
                                "base: base.yaml\naxes:\n  recipe: [nvfp4, mxfp4]\n  train.tokens: [4096, 5120, 6144]\n"
                                "exclude: [{recipe: nvfp4, train.tokens: [5120, 6144]}]\n"
                                "baseline: {recipe: nvfp4, train.tokens: 4096}\n"
                                "analysis: {window_tokens: [1024, 4096], budget_key: train.tokens}\n");
  ASSERT_EQ(budget.cells.size(), 4u);
  for (const auto& c : budget.cells) EXPECT_EQ(c.baseline, 0) << budget.describe(c);
  EXPECT_EQ(budget.analysis.window_tokens->first, 1024);
  EXPECT_EQ(budget.analysis.budget_key, "train.tokens");
}

TEST(GridExpansion, BudgetsScaleTheSelectedCellsTokensToWholeSteps) {
  TempDir d;
  // tiny at seq_len 32, batch 4: 128 tokens per step, 4096 tokens = 32 steps.
  const Grid g = grid_from(d,
                           "base: base.yaml\nseeds: [0, 1]\n"
                           "axes:\n  recipe: [nvfp4, mxfp4, bf16]\n"
                           "budgets: {scale: [0.7, 1.0, 1.5], cells: {recipe: mxfp4}}\n"
                           "baseline: {recipe: bf16}\n"
                           "analysis: {compare: [[{recipe: mxfp4}, {recipe: nvfp4}]]}\n");
  ASSERT_EQ(g.cells.size(), 2u * (1 + 3 + 1));
  ASSERT_EQ(g.axes.back().name, "budget");
  std::map<std::string, std::set<int64_t>> tokens;  // recipe -> budgets in tokens
  for (const auto& c : g.cells) {
    tokens[label(c, "recipe")].insert(c.config.train.tokens);
    ASSERT_GE(c.baseline, 0) << g.describe(c);
    EXPECT_EQ(g.cells[c.baseline].config.train.tokens, 4096) << g.describe(c) << ": the baseline runs at 1.0";
    EXPECT_EQ(g.cells[c.baseline].seed, c.seed);
  }
  EXPECT_EQ(tokens["nvfp4"], (std::set<int64_t>{4096}));
  EXPECT_EQ(tokens["bf16"], (std::set<int64_t>{4096}));
  EXPECT_EQ(tokens["mxfp4"], (std::set<int64_t>{22 * 128, 4096, 48 * 128}));  // round(0.7 x 32) = 22 steps
  EXPECT_EQ(g.analysis.budget_key, "budget");  // the analysis's multi-budget form reads the axis
  // The base-budget cells are the same runs as in the grid without budgets (their ids are kept).
  const Grid plain = grid_from(d, "base: base.yaml\nseeds: [0, 1]\naxes:\n  recipe: [nvfp4, mxfp4, bf16]\n");
  std::set<std::string> plain_ids;
  for (const auto& c : plain.cells) plain_ids.insert(c.id);
  for (const auto& c : g.cells)
    EXPECT_EQ(plain_ids.count(c.id), label(c, "budget") == "1.0" ? 1u : 0u) << g.describe(c);
  // The budget follows each cell's own base budget (a variant axis may set train.tokens), and the
  // resolved copy plans the same cells.
  const Grid sized = grid_from(d,
                               "base: base.yaml\naxes:\n  size:\n    s: {train.tokens: 2048}\n    l: {train.tokens: 8192}\n"
                               "budgets: {scale: [1, 1.25]}\n");
  std::vector<int64_t> got;
  for (const auto& c : sized.cells) got.push_back(c.config.train.tokens);
  EXPECT_EQ(got, (std::vector<int64_t>{2048, 20 * 128, 8192, 80 * 128}));
  const Grid again = grid_from(d, sized.resolved_yaml, {}, "resolved.yaml");
  EXPECT_EQ(ids(again), ids(sized));
}

TEST(GridLadder, ClimbsShareArmsAndTheTargetMergesWithTheTopArm) {
  TempDir d;
  const Grid g = grid_from(d,
                           "base: base.yaml\n"
                           "seeds: [0, 1]\n"
                           "ladder:\n"
                           "  from: {recipe: bf16}\n"
                           "  steps:\n"
                           "    fp4: {recipe: nvfp4, recipe.quantized: {wgrad_dy.rht: false, wgrad_x.rht: false,\n"
                           "          dgrad_dy.rounding: rne, wgrad_dy.rounding: rne}}\n"
                           "    rht: {recipe.quantized: {wgrad_dy.rht: true, wgrad_x.rht: true}}\n"
                           "    sr: {recipe.quantized: {dgrad_dy.rounding: sr, wgrad_dy.rounding: sr}}\n"
                           "  orders: [listed, [fp4, sr, rht]]\n"
                           "  to: {recipe: nvfp4}\n");
  // arms: base, +fp4, +fp4+rht, +fp4+rht+sr (= nvfp4: no separate target), +fp4+sr
  ASSERT_EQ(g.cells.size(), 2u * 5u);
  const int arm = g.axis_index("arm");
  ASSERT_GE(arm, 0);
  std::vector<std::string> arms;
  for (const auto& v : g.axes[size_t(arm)].values) arms.push_back(v.label);
  EXPECT_EQ(arms, (std::vector<std::string>{"base", "+fp4", "+fp4+rht", "+fp4+rht+sr", "+fp4+sr"}));
  ASSERT_TRUE(g.analysis.ladder);
  const auto& l = *g.analysis.ladder;
  EXPECT_EQ(l.target, "+fp4+rht+sr");
  ASSERT_EQ(l.climbs.size(), 2u);
  EXPECT_EQ(l.climbs[1].steps, (std::vector<std::string>{"fp4", "sr", "rht"}));
  EXPECT_EQ(l.climbs[1].arms, (std::vector<std::string>{"base", "+fp4", "+fp4+sr", "+fp4+rht+sr"}));
  // steps that set different leaves of one map add up; the top arm is nvfp4 itself
  const Cell& top = g.cells[3];
  EXPECT_EQ(label(top, "arm"), "+fp4+rht+sr");
  EXPECT_TRUE(top.config.recipe.quantized.wgrad_x.rht);
  EXPECT_EQ(top.config.recipe.quantized.wgrad_dy.rounding, Rounding::sr);
  const Cell& sr_only = g.cells[4];
  EXPECT_FALSE(sr_only.config.recipe.quantized.wgrad_x.rht);
  EXPECT_EQ(sr_only.config.recipe.quantized.dgrad_dy.rounding, Rounding::sr);
  // the base arm is the baseline; the ladder reaches the manifest and the resolved copy
  EXPECT_EQ(g.baseline, (Vary{{"arm", "base"}}));
  EXPECT_EQ(g.cells[2].baseline, 0);
  EXPECT_EQ(grid_manifest(g).settings.ladder, g.analysis.ladder);
  EXPECT_EQ(ids(load_grid(d.write("copy.yaml", g.resolved_yaml))), ids(g));

  // a target other than the top arm is its own arm
  const Grid t = grid_from(d,
                           "base: base.yaml\n"
                           "ladder: {from: {recipe: bf16}, steps: {fp4: {recipe: mxfp4}}, to: {recipe: nvfp4}}\n");
  ASSERT_EQ(t.cells.size(), 3u);
  EXPECT_EQ(t.analysis.ladder->target, "target");
  EXPECT_EQ(label(t.cells[2], "arm"), "target");
}

TEST(GridLadder, BadLaddersNameTheKey) {
  TempDir d;
  const std::string steps = "  steps: {fp4: {recipe: nvfp4}, rht: {recipe.quantized.wgrad_x.rht: false}}\n";
  EXPECT_NE(error_of(d, "base: base.yaml\nladder: {steps: {a: {recipe: nvfp4}}}\n").find("'ladder.from'"),
            std::string::npos);
  EXPECT_NE(error_of(d, "base: base.yaml\nladder:\n  from: {recipe: bf16}\n" + steps + "  orders: [[fp4, rhtt]]\n")
                .find("'rhtt' is not a step (did you mean 'rht'?)"),
            std::string::npos);
  EXPECT_NE(error_of(d, "base: base.yaml\nladder:\n  from: {recipe: bf16}\n" + steps + "  orders: [[fp4]]\n")
                .find("lists every step once"),
            std::string::npos);
  // two steps setting one key: the top arm depends on the order
  EXPECT_NE(error_of(d, "base: base.yaml\nladder:\n  from: {recipe: nvfp4}\n"
                        "  steps: {on: {recipe.quantized.wgrad_x.rht: true}, off: {recipe.quantized.wgrad_x.rht: false}}\n"
                        "  orders: [listed, reversed]\n")
                .find("differs between climbs"),
            std::string::npos);
  EXPECT_NE(error_of(d, "base: base.yaml\nladder:\n  from: {recipe: bf16}\n" + steps + "  stepz: 1\n")
                .find("g.yaml:5:3: key 'ladder.stepz': unknown key (did you mean 'steps'?)"),
            std::string::npos);
  EXPECT_NE(error_of(d, "base: base.yaml\nladder:\n  axis: recipe\n  from: {recipe: bf16}\n" + steps)
                .find("is a config key"),
            std::string::npos);
  EXPECT_NE(error_of(d, "base: base.yaml\nladder:\n  from: {recipe: bf16}\n  steps: {fp4: {recipe: nvfp44}}\n")
                .find("nvfp44"),
            std::string::npos);
}

TEST(GridIds, StableUnderKeyOrderFormattingAndName) {
  TempDir d;
  // The same keys in another order (a preset still comes before the keys it sets).
  d.write("base2.yaml", "recipe: bf16\nmodel: tiny\ntrain:\n  tokens: 4096\n  batch_size: 4\nmodel.seq_len: 32\n");
  const Grid a = grid_from(d,
                           "name: first\nbase: base.yaml\nseeds: [0, 1]\n"
                           "overrides: {optim.lr: 0.002, optim.beta2: 0.99}\n"
                           "axes: {recipe: [nvfp4, bf16]}\n");
  const Grid b = grid_from(d,
                           "axes:\n  recipe:\n    - nvfp4\n    - bf16\n"
                           "overrides:\n  optim:\n    beta2: 9.9e-1\n    lr: 2.0e-3\n"
                           "seeds:\n  - 0\n  - 1\n"
                           "base: base2.yaml\n"
                           "name: renamed\n",
                           {}, "other.yaml");
  EXPECT_EQ(ids(a), ids(b));
  // The same cell in another grid is the same run; and the same id `fp4lab train` gives.
  const Grid c = grid_from(d, "name: third\nbase: base.yaml\nseeds: [1]\noverrides: {optim.lr: 0.002, optim.beta2: 0.99}\n",
                           {}, "third.yaml");
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_EQ(c.cells[0].id, a.cells[3].id);
  ConfigBuilder train_cfg;
  train_cfg.add_file(d.write("run.yaml", std::string("base: base.yaml\noptim: {lr: 0.002, beta2: 0.99}\ntrain.seed: 1\n")));
  EXPECT_EQ(config_id(train_cfg.build()), a.cells[3].id);
  // Changing a value changes the id.
  const Grid e = grid_from(d, "base: base.yaml\nseeds: [1]\noverrides: {optim.lr: 0.003, optim.beta2: 0.99}\n");
  EXPECT_NE(e.cells[0].id, c.cells[0].id);
}

TEST(GridIds, ResolvedCopyPlansTheSameCells) {
  TempDir d;
  const Grid g = grid_from(d,
                           "name: r\nbase: base.yaml\nseeds: [0, 1]\noverrides: {recipe: nvfp4}\n"
                           "axes:\n  recipe.keep_last: [0, 1]\n  variant:\n    a: {optim.lr: 0.001}\n    b: {optim.lr: 0.002}\n"
                           "exclude: [{recipe.keep_last: 1, variant: b}]\nbaseline: {variant: a}\n",
                           {"train.tokens=8192"});
  const std::string copy = d.write("out/grid.yaml", g.resolved_yaml);
  const Grid again = load_grid(copy);
  EXPECT_EQ(ids(again), ids(g));
  EXPECT_EQ(again.name, "r");
  for (size_t i = 0; i < g.cells.size(); ++i) {
    EXPECT_EQ(again.cells[i].vary, g.cells[i].vary);
    EXPECT_EQ(again.cells[i].baseline, g.cells[i].baseline);
    EXPECT_EQ(again.cells[i].config.train.tokens, 8192);
  }
  // Resolving the copy again changes nothing but the header line.
  const std::string twice = load_grid(d.write("out2/grid.yaml", again.resolved_yaml)).resolved_yaml;
  EXPECT_EQ(twice.substr(twice.find('\n')), again.resolved_yaml.substr(again.resolved_yaml.find('\n')));
}

TEST(GridPrecedence, BaseThenOverridesThenAxesThenSet) {
  TempDir d;
  d.write("lr_base.yaml", std::string(kBase) + "optim: {lr: 1.0, beta1: 0.5}\n");
  auto lr_of = [&](const std::string& text, const std::vector<std::string>& sets = {}) {
    std::vector<double> out;
    for (const auto& c : grid_from(d, text, sets).cells) out.push_back(c.config.optim.lr);
    return out;
  };
  using V = std::vector<double>;
  EXPECT_EQ(lr_of("base: lr_base.yaml\n"), V{1.0});
  EXPECT_EQ(lr_of("base: lr_base.yaml\noverrides: {optim.lr: 2.0}\n"), V{2.0});
  EXPECT_EQ(lr_of("base: lr_base.yaml\noverrides: {optim.lr: 2.0}\naxes: {optim.lr: [3.0, 4.0]}\n"), (V{3.0, 4.0}));
  EXPECT_EQ(lr_of("base: lr_base.yaml\noverrides: {optim.lr: 2.0}\n", {"optim.lr=5.0"}), V{5.0});
  EXPECT_EQ(lr_of("base: lr_base.yaml\naxes: {optim.lr: [3.0]}\n", {"optim.lr=5.0"}), V{5.0});
  EXPECT_EQ(lr_of("base: lr_base.yaml\naxes: {optim.lr: [3.0]}\nset: [optim.lr=6.0]\n"), V{6.0});
  EXPECT_EQ(lr_of("base: lr_base.yaml\naxes: {optim.lr: [3.0]}\nset: [optim.lr=6.0]\n", {"optim.lr=7.0"}), V{7.0});
  // Axes apply in file order: a later axis beats a preset expanded by an earlier one.
  const Grid g = grid_from(d, "base: base.yaml\naxes:\n  recipe: [nvfp4]\n  recipe.quantized.wgrad_x.rht: [false]\n");
  EXPECT_FALSE(g.cells[0].config.recipe.quantized.wgrad_x.rht);
  EXPECT_EQ(grid_from(d, "base: lr_base.yaml\n").cells[0].config.optim.beta1, 0.5);
  // --set on a multi-valued axis collapses it: two cells, one run.
  EXPECT_NE(error_of(d, "base: lr_base.yaml\naxes: {optim.lr: [3.0, 4.0]}\n", {"optim.lr=5.0"}).find("are the same run"),
            std::string::npos);
}

TEST(GridErrors, ImpossibleCellNamesTheAxisValue) {
  TempDir d;
  const std::string e = error_of(d, "base: base.yaml\naxes:\n  recipe.keep_last: [0, 1,\n    3]\n");
  EXPECT_NE(e.find("g.yaml:4:5: key 'recipe.keep_last': cell 2 (recipe.keep_last=3)"), std::string::npos) << e;
  const std::string preset = error_of(d, "base: base.yaml\naxes:\n  recipe: [bf16, nvfp4]\n", {"model.d_model=72", "model.n_heads=2"});
  EXPECT_NE(preset.find("g.yaml:3:18: key 'recipe.quantized."), std::string::npos) << preset;
  EXPECT_NE(preset.find("cell 1 (recipe=nvfp4)"), std::string::npos) << preset;
}

TEST(GridAblations, ShippedGridsPlanWithTheirCellCounts) {
  std::map<std::string, size_t> expected = {{"quickstart", 30},    {"nvfp4_vs_mxfp4", 12},
                                            {"nvfp4_vs_fp8", 6},   {"layer_exemption", 14},
                                            {"nvfp4_ablation", 12}, {"precision_switch", 12}};
  // The findings suite: one grid per published claim, six paired seeds each, every claim's
  // selectors resolved.
  for (const auto& e : fs::directory_iterator(fs::path(FP4LAB_SOURCE_DIR) / "ablations" / "findings"))
    expected["findings/" + e.path().stem().string()] = e.path().stem().string().rfind("01_", 0) == 0 ? 30 : 12;
  ASSERT_EQ(expected.size(), 6u + 12u);
  expected["scaling/ladder"] = 4 * 5 * (1 + 5 + 1) - 5 * 2;  // sizes x seeds x (nvfp4, mxfp4 at 5 budgets, bf16), less 2 midi budgets
  expected["attribution"] = 4 * (1 + 7 + 5);  // seeds x (base, 7 rungs, 5 rungs only the second climb passes)
  expected["presilicon"] = 4 * 8;             // seeds x variants
  for (const auto& [name, count] : expected) {
    const fs::path file = fs::path(FP4LAB_SOURCE_DIR) / "ablations" / (name + ".yaml");
    const Grid g = load_grid(file.string());
    EXPECT_EQ(g.name, fs::path(name).filename().string());
    if (name.rfind("findings/", 0) == 0) {
      EXPECT_FALSE(g.analysis.claims.empty()) << file;
      EXPECT_EQ(g.axes[0].values.size(), 6u) << file << ": six seeds";
      EXPECT_EQ(g.cells[0].config.data.source, "fortunes") << file;
    }
    EXPECT_EQ(g.cells.size(), count) << file;
    for (const auto& c : g.cells) EXPECT_GE(c.baseline, 0) << file << ": cell " << c.index << " has no baseline";
  }
  // The BPE ladder: its corpus (prose) comes with scripts/setup.sh --corpus, so it is planned on
  // fortunes here; budgets follow the model (r x N in whole steps) and the vocabulary the tokenizer.
  const Grid l = load_grid((fs::path(FP4LAB_SOURCE_DIR) / "ablations" / "scaling" / "ladder_bpe.yaml").string(),
                           {"data.source=fortunes"});
  EXPECT_EQ(l.cells.size(), 350u);
  for (const auto& c : l.cells) {
    EXPECT_EQ(c.config.model.vocab, 2048);
    EXPECT_GE(c.baseline, 0) << "cell " << c.index;
  }
  const Config& micro128 = l.cells[18].config;  // seed 0, micro, r = 128, bf16
  EXPECT_EQ(micro128.model.d_model, 32);
  EXPECT_EQ(micro128.train.tokens, 3407872);  // 128 x 26624 in steps of 8 x 128
  const Grid q = load_grid((fs::path(FP4LAB_SOURCE_DIR) / "ablations" / "quickstart.yaml").string());
  EXPECT_EQ(q.cells[0].config.model.d_model, 96);
  EXPECT_EQ(q.cells[0].config.data.source, "fortunes");
  EXPECT_EQ(q.cells[0].config.recipe.name, "nvfp4");
  ASSERT_EQ(q.analysis.compare.size(), 1u);
  EXPECT_EQ(q.analysis.compare[0].first, (analysis::Selector{{"recipe", "mxfp4"}}));
  // --set seeds=[...] reruns a grid with other seeds: same configs, other seeds, other ids.
  const Grid q4 = load_grid((fs::path(FP4LAB_SOURCE_DIR) / "ablations" / "quickstart.yaml").string(), {"seeds=[4, 5]"});
  ASSERT_EQ(q4.cells.size(), 10u);
  EXPECT_EQ(q4.cells[0].seed, 4u);
  EXPECT_EQ(q4.cells[9].seed, 5u);
  EXPECT_NE(q4.cells[0].id, q.cells[0].id);
  EXPECT_NE(q4.resolved_yaml.find("seeds: [4, 5]"), std::string::npos) << q4.resolved_yaml;
}

// ---- the malformed-grid corpus, through the CLI ----

struct CliResult {
  int code = -1;
  std::string out, err;
};

CliResult run_cli(const std::string& args, const fs::path& cwd) {
  const fs::path out = cwd / ".." / (cwd.filename().string() + ".stdout");
  const fs::path err = cwd / ".." / (cwd.filename().string() + ".stderr");
  const std::string cmd = "cd '" + cwd.string() + "' && '" FP4LAB_BINARY "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream o(out), e(err);
  std::stringstream so, se;
  so << o.rdbuf();
  se << e.rdbuf();
  r.out = so.str();
  r.err = se.str();
  fs::remove(out);
  fs::remove(err);
  return r;
}

TEST(GridErrors, EveryBadGridExitsTwoNamesTheProblemAndWritesNothing) {
  const fs::path corpus = fs::path(FP4LAB_SOURCE_DIR) / "tests" / "data" / "bad_grids";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(corpus))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 30u) << "the corpus should hold at least 30 malformed grids";
  int checked = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string first;
    std::getline(in, first);
    const std::string tag = "# expect: ";
    ASSERT_EQ(first.rfind(tag, 0), 0u) << f << ": the first line must be '# expect: <substring of the message>'";
    const std::string expect = first.substr(tag.size());
    for (const std::string cmd : {"plan", "run", "run --jobs 2 --cell 0"}) {
      TempDir cwd;
      const CliResult r = run_cli(cmd + " '" + f.string() + "'", cwd.path());
      EXPECT_EQ(r.code, 2) << f.filename() << " (" << cmd << "): exit status\nstderr: " << r.err << "\nstdout: " << r.out;
      EXPECT_NE(r.err.find(expect), std::string::npos)
          << f.filename() << " (" << cmd << "): message should contain '" << expect << "'\nstderr: " << r.err;
      EXPECT_NE(r.err.find(".yaml"), std::string::npos) << f.filename() << ": the message names no file: " << r.err;
      EXPECT_TRUE(fs::is_empty(cwd.path())) << f.filename() << " (" << cmd << ") wrote into its working directory";
      EXPECT_EQ(r.out, "") << f.filename() << " (" << cmd << ") printed to stdout";
    }
    ++checked;
  }
  EXPECT_EQ(checked, int(files.size()));
}

TEST(GridCli, PlanPrintsCellsAndCount) {
  TempDir d;
  d.write("base.yaml", kBase);
  const std::string grid = d.write("g.yaml", "name: demo\nbase: base.yaml\nseeds: [0, 1]\naxes: {recipe: [nvfp4, bf16]}\n"
                                             "baseline: {recipe: bf16}\n");
  const CliResult r = run_cli("plan '" + grid + "' --set train.tokens=8192", d.path());
  ASSERT_EQ(r.code, 0) << r.err;
  const Grid g = load_grid(grid, {"train.tokens=8192"});
  EXPECT_NE(r.out.find("grid demo"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n4 cells\n"), std::string::npos) << r.out;
  for (const auto& c : g.cells) EXPECT_NE(r.out.find(c.id), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d.path() / "results"));
  // The command-line --set changes the ids.
  EXPECT_EQ(r.out.find(load_grid(grid).cells[0].id), std::string::npos);
}

// The main job's grid, one cell cut down to a few steps, runs end to end on the real corpus and
// its comparison table reaches the report (the full job is the README's first command).
TEST(GridCli, OneReducedQuickstartCellRunsAndReports) {
  TempDir d;
  const std::string grid = (fs::path(FP4LAB_SOURCE_DIR) / "ablations" / "quickstart.yaml").string();
  const std::string out = (d.path() / "q").string();
  const std::string sets = " --set train.tokens=16384 --set train.val_interval_tokens=8192 --set train.checkpoint_interval=4"
                           " --set 'seeds=[0]'";
  for (int cell : {0, 2}) {  // nvfp4 and mxfp4 at the base budget
    const CliResult r = run_cli("run '" + grid + "' --cell " + std::to_string(cell) + " --out '" + out + "'" + sets, d.path());
    ASSERT_EQ(r.code, 0) << r.err << r.out;
  }
  const CliResult st = run_cli("status '" + out + "'", d.path());
  EXPECT_EQ(std::count(st.out.begin(), st.out.end(), '\n') >= 3, true) << st.out;
  EXPECT_NE(st.out.find("done"), std::string::npos) << st.out;
  const CliResult an = run_cli("analyze '" + out + "'", d.path());
  EXPECT_EQ(an.code, 0) << an.err;
  EXPECT_NE(an.out.find("| budget=1.0, recipe=mxfp4 | budget=1.0, recipe=nvfp4 |"), std::string::npos) << an.out;
}

TEST(GridCli, SlurmWritesAnArrayScriptAndAFolderKeepsItsGrid) {
  TempDir d;
  d.write("base.yaml", kBase);
  const std::string grid = d.write("g.yaml", "name: demo\nbase: base.yaml\nseeds: [0, 1, 2]\n");
  CliResult r = run_cli("slurm '" + grid + "' --out out --threads 3 --time 1-02:00:00", d.path());
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(d.path() / "out" / "slurm.sbatch");
  std::stringstream script;
  script << in.rdbuf();
  for (const std::string line : {"#SBATCH --array=0-2\n", "#SBATCH --cpus-per-task=3\n", "#SBATCH --time=1-02:00:00\n",
                                 "--cell \"$SLURM_ARRAY_TASK_ID\" --out ", " --threads 3\n", "/out/grid.yaml' "})
    EXPECT_NE(script.str().find(line), std::string::npos) << "missing '" << line << "' in\n" << script.str();
  EXPECT_TRUE(fs::exists(d.path() / "out" / "manifest.yaml"));
  EXPECT_EQ(ids(load_grid((d.path() / "out" / "grid.yaml").string())), ids(load_grid(grid)));
  // Another grid may not take over the folder; a bad --time is a usage error.
  const std::string other = d.write("h.yaml", "name: other\nbase: base.yaml\n");
  r = run_cli("slurm '" + other + "' --out out", d.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the folder holds grid 'demo', not 'other'"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli("slurm '" + grid + "' --out out2 --time 90min", d.path()).code, 2);
  EXPECT_FALSE(fs::exists(d.path() / "out2"));
}

}  // namespace
}  // namespace fp4lab::grid
