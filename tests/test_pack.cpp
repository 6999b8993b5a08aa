// Curves packs (`fp4lab pack`): a small grid directory written with RunWriter (done, running,
// failed, pending and unreadable cells, telemetry, comparisons and a claim) is packed, and the
// analysis of the pack must equal the analysis of the directory except for the stated
// exceptions; a packed run reads back bit for bit; packing is deterministic; the command's
// errors exit nonzero and leave no file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_support.hpp"
#include "analysis/findings.hpp"
#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/runs.hpp"
#include "core/io/h5.hpp"
#include "core/train/run_file.hpp"
#include "tests/grid_support.hpp"
#include "tests/scratch_dir.hpp"

namespace fp4lab::analysis {
namespace {

namespace fs = std::filesystem;

// The grid directory is grid_ (inside the scratch directory); packs go beside it, so that the
// directory holds no stray *.h5 (it would be noted as "not a cell of the manifest").
class PackTest : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    grid_ = dir_ / "grid";
    fs::create_directories(grid_);
  }
  std::string grid(const std::string& name) const { return (grid_ / name).string(); }
  fs::path grid_;
};

// ---------------------------------------------------------------------------- a small grid

struct Run {
  std::string id;
  double shift = 0;  // added to the base loss
  int steps = 120;
  RunStatus status = RunStatus::done;
  std::string message;
};

// Loss linear in log(tokens) plus a per-step wiggle (so the EMA and the windows see real
// numbers), validation every 30 steps, quantization statistics and GNR every 40 steps, step times
// that vary, and every accounting attribute set.
void write_run(const fs::path& dir, const Run& r) {
  RunMeta meta;
  meta.cell_id = r.id;
  meta.config_yaml = "model: tiny\ntrain:\n  seed: 1\n";
  meta.tensor_names = {"layers.0.mlp.up_proj", "layers.0.mlp.down_proj"};
  meta.n_params = 12345;
  meta.entropy_rate = 2.5;
  meta.coverage = "2/2 linear layers quantized (12/12 GEMM operands): fp4_e2m1/16 e4m3 1d rne";
  meta.recipe_manifest = "coverage: x\nuses: {}\n";
  meta.fingerprint = "0123456789abcdef";
  meta.data_source = "synthetic";
  meta.data_tokens = 1000000;
  meta.data_hash = "fedcba9876543210";
  meta.flops_per_token = 6e6;
  auto w = RunWriter::create((dir / (r.id + ".h5")).string(), meta);
  w.set_machine(2, 50.5, "eigen", "scalar");
  for (int s = 1; s <= r.steps; ++s) {
    const int64_t tokens = 1000 * int64_t(s);
    const double loss = 5.0 - 0.25 * std::log(double(tokens) / 1000.0) + r.shift + 0.01 * std::sin(s * 0.7);
    w.add_step(StepRecord{s, tokens, loss, 1e-3, 1.0, 0.01 + 0.001 * (s % 7), 0, 0});
    if (s % 30 == 0) w.add_val(ValRecord{s, tokens, loss + 0.1});
    if (s % 40 == 0) {
      std::vector<QuantStatRecord> q;
      for (int32_t t = 0; t < 2; ++t)
        for (uint8_t role = 0; role < 3; ++role)
          for (uint8_t o = 0; o < 2; ++o)
            q.push_back(QuantStatRecord{s, t, static_cast<GemmRole>(role), static_cast<Operand>(o), 4.0f, 0.01f, 0.0f,
                                        float(18 + role + t), 0.1f, 2.0f, 0.3f});
      w.add_quant_stats(q);
      w.add_gnr({GnrRecord{s, 0, 0.5f, 0.01f, 1.0f}, GnrRecord{s, 1, 2.0f, 0.01f, 5.0f}});
    }
  }
  if (r.status != RunStatus::running) w.set_status(r.status, r.steps, r.message);
}

// bf16 (baseline) and nvfp4 x seeds 1..3 (nvfp4 seed 3 still running); fp8: seed 1 failed,
// seed 2 pending (no run file), seed 3 unreadable. A compare pair and a claim; a grid.yaml.
GridManifest make_grid(const fs::path& dir) {
  GridManifest m;
  m.grid = "ablations/pack_test.yaml";
  m.baseline = {{"recipe", "bf16"}};
  m.settings.compare = {{{{"recipe", "nvfp4"}}, {{"recipe", "bf16"}}}};
  Claim claim;
  claim.id = "nvfp4_worse";
  claim.claim = "NVFP4's loss is higher than BF16's";
  claim.source = "a test";
  claim.a = {{"recipe", "nvfp4"}};
  claim.b = {{"recipe", "bf16"}};
  claim.published = "+0.02 nats";
  m.settings.claims = {claim};
  int index = 0;
  for (int seed = 1; seed <= 3; ++seed) {
    const std::string b = "bf16s" + std::to_string(seed), n = "nvfp4s" + std::to_string(seed);
    write_run(dir, Run{b, 0.0, 120, RunStatus::done, ""});
    write_run(dir, Run{n, 0.01 + 0.01 * seed, 120, seed == 3 ? RunStatus::running : RunStatus::done, ""});
    m.cells.push_back(testing::recipe_cell(index++, b, seed, "bf16"));
    m.cells.push_back(testing::recipe_cell(index++, n, seed, "nvfp4"));
  }
  write_run(dir, Run{"fp8s1", 0.0, 37, RunStatus::failed, "out of memory"});
  m.cells.push_back(testing::recipe_cell(index++, "fp8s1", 1, "fp8"));
  m.cells.push_back(testing::recipe_cell(index++, "fp8s2", 2, "fp8"));  // pending
  std::ofstream(dir / "fp8s3.h5") << "this is not HDF5";
  m.cells.push_back(testing::recipe_cell(index++, "fp8s3", 3, "fp8"));  // unreadable
  std::ofstream(dir / "nvfp4s1.ckpt.h5") << "a checkpoint is not a run file";
  std::ofstream(dir / kGridFile) << "name: pack_test\nbase: {model: tiny}\n";
  write_grid_manifest(dir.string(), m);
  return m;
}

// The analysis of a pack differs from the directory's only in these, which this sets to the
// directory's values: the paths (`dir`, each cell's `file`), the telemetry-derived parts
// (quant_summary and gnr_summary, i.e. the JSON's `quant` and `gnr`, and the groups' SQNR series
// for the plots) and the one note kPackNote (checked, then removed).
AnalysisReport without_pack_differences(AnalysisReport pack, const AnalysisReport& dir) {
  EXPECT_EQ(pack.dir.find("#"), std::string::npos);
  EXPECT_TRUE(pack.quant_summary.empty());
  EXPECT_TRUE(pack.gnr_summary.empty());
  const auto note = std::find(pack.notes.begin(), pack.notes.end(), std::string(kPackNote));
  EXPECT_EQ(std::count(pack.notes.begin(), pack.notes.end(), std::string(kPackNote)), 1)
      << "the pack's analysis should say once that it has no telemetry";
  if (note != pack.notes.end()) pack.notes.erase(note);
  pack.dir = dir.dir;
  pack.quant_summary = dir.quant_summary;
  pack.gnr_summary = dir.gnr_summary;
  EXPECT_EQ(pack.cells.size(), dir.cells.size());
  for (size_t i = 0; i < pack.cells.size() && i < dir.cells.size(); ++i) pack.cells[i].file = dir.cells[i].file;
  EXPECT_EQ(pack.groups.size(), dir.groups.size());
  for (size_t i = 0; i < pack.groups.size() && i < dir.groups.size(); ++i) {
    EXPECT_TRUE(pack.groups[i].quant.empty());
    pack.groups[i].quant = dir.groups[i].quant;
  }
  return pack;
}

TEST_F(PackTest, AnalysisOfThePackEqualsTheDirectorys) {
  make_grid(grid_);
  const std::string pack = path("curves.h5");
  const PackSummary sum = write_curves_pack(grid_.string(), pack);
  EXPECT_EQ(sum.cells, 9);
  EXPECT_EQ(sum.packed, 7);
  EXPECT_EQ(sum.running, 1);
  EXPECT_EQ(sum.pending, 1);
  EXPECT_EQ(sum.unreadable, 1);
  EXPECT_TRUE(is_curves_pack(pack));
  EXPECT_FALSE(is_curves_pack(grid_.string()));
  EXPECT_FALSE(is_curves_pack(grid("bf16s1.h5")));  // a run file is not a pack
  EXPECT_FALSE(is_curves_pack(grid("fp8s3.h5")));   // nor is a text file

  for (const char* window : {"0.25", "0.5"}) {
    AnalysisSettings s;
    set_analysis_setting(s, "window", window);
    const AnalysisReport from_dir = analyze_dir(grid_.string(), s);
    const AnalysisReport from_pack = analyze_dir(pack, s);
    ASSERT_FALSE(from_dir.quant_summary.empty()) << "the directory's runs should have telemetry";
    ASSERT_FALSE(from_dir.gnr_summary.empty());
    ASSERT_EQ(from_dir.comparisons.size(), 1u);
    EXPECT_TRUE(std::isfinite(from_dir.comparisons[0].converged_gap.stats.mean));
    EXPECT_EQ(from_pack.dir, pack);
    EXPECT_EQ(from_pack.cells[0].file, "bf16s1");  // the cell's group in the pack
    const AnalysisReport same = without_pack_differences(from_pack, from_dir);
    EXPECT_EQ(to_json(same), to_json(from_dir));
    EXPECT_EQ(to_csv(same), to_csv(from_dir));
    EXPECT_EQ(to_markdown(same), to_markdown(from_dir));
    // The findings read the same claim rows from either.
    const auto rows_dir = findings({from_dir}), rows_pack = findings({from_pack});
    ASSERT_EQ(rows_pack.size(), 1u);
    ASSERT_EQ(rows_dir.size(), 1u);
    EXPECT_EQ(rows_pack[0].estimate_text, rows_dir[0].estimate_text);
    EXPECT_EQ(rows_pack[0].verdict.verdict, rows_dir[0].verdict.verdict);
    EXPECT_EQ(rows_pack[0].note, rows_dir[0].note);
  }
  // A directory's grid name is its grid.yaml's `name:` (the folder is called "grid"), and a pack's
  // the packed directory's; a folder without grid.yaml goes by its own name.
  EXPECT_EQ(grid_name_of(pack), "pack_test");
  EXPECT_EQ(grid_name_of(grid_.string()), "pack_test");
  EXPECT_EQ(grid_name_of(grid_.string() + "/"), "pack_test");
  fs::remove(grid_ / "grid.yaml");
  EXPECT_EQ(grid_name_of(grid_.string()), "grid");
}

TEST_F(PackTest, PendingRunningFailedAndUnreadableCellsKeepTheirState) {
  make_grid(grid_);
  const std::string pack = path("curves.h5");
  write_curves_pack(grid_.string(), pack);
  const GridRuns g = load_grid(pack);
  ASSERT_EQ(g.cells.size(), 9u);
  EXPECT_TRUE(g.manifest_found);
  EXPECT_EQ(g.manifest.grid, "ablations/pack_test.yaml");
  const AnalysisReport r = analyze(g);
  auto state = [&](const std::string& id) {
    for (const auto& c : r.cells)
      if (c.id == id) return c.state;
    return std::string("(no such cell)");
  };
  EXPECT_EQ(state("bf16s1"), "done");
  EXPECT_EQ(state("nvfp4s3"), "running");
  EXPECT_EQ(state("fp8s1"), "failed");
  EXPECT_EQ(state("fp8s2"), "pending");
  EXPECT_EQ(state("fp8s3"), "unreadable");
  for (const auto& c : g.cells) {
    if (c.info.id == "fp8s2") {
      EXPECT_TRUE(c.path.empty());  // no group in the pack
      EXPECT_FALSE(c.run);
    } else {
      EXPECT_EQ(c.path, pack + "#cells/" + c.info.id);
    }
  }
  const h5::File f = h5::File::open_ro(pack);
  EXPECT_FALSE(f.has("cells/fp8s2"));
  EXPECT_TRUE(f.has_attr("cells/fp8s3", "error"));
  EXPECT_EQ(f.attr_string("cells/nvfp4s3", "status"), "running");
  EXPECT_EQ(f.attr_int("/", kPackAttribute), kPackVersion);
  EXPECT_EQ(f.attr_string("/", "grid_yaml"), "name: pack_test\nbase: {model: tiny}\n");
  // Nothing but what the analysis reads: no telemetry tables, no other step columns.
  EXPECT_FALSE(f.has("cells/bf16s1/quant"));
  EXPECT_FALSE(f.has("cells/bf16s1/layers"));
  EXPECT_FALSE(f.has("cells/bf16s1/gnr"));
  EXPECT_FALSE(f.has("cells/bf16s1/steps/lr"));
  EXPECT_TRUE(f.has("cells/bf16s1/steps/step_seconds"));
  EXPECT_EQ(f.element_type("cells/bf16s1/steps/tokens"), "int64");
  EXPECT_EQ(f.element_type("cells/bf16s1/steps/train_loss"), "float64");
  EXPECT_EQ(f.element_type("cells/bf16s1/val/loss"), "float64");
}

// A packed run reads back as read_run(path, false) read the run file, bit for bit, except the
// columns and attributes a pack leaves out.
TEST_F(PackTest, PackedRunReadsBackBitForBit) {
  make_grid(grid_);
  const RunData run = read_run(grid("nvfp4s2.h5"), false);
  {
    h5::File f = h5::File::create(path("one.h5"), h5::Format::v110);
    write_packed_run(f, "cells/nvfp4s2", run);
  }
  const h5::File f = h5::File::open_ro(path("one.h5"));
  const RunData back = read_packed_run(f, "cells/nvfp4s2", "one.h5#cells/nvfp4s2");
  EXPECT_EQ(back.path, "one.h5#cells/nvfp4s2");
  EXPECT_EQ(back.status, run.status);
  EXPECT_EQ(back.status_step, run.status_step);
  EXPECT_EQ(back.status_message, run.status_message);
  EXPECT_EQ(back.schema_version, run.schema_version);
  EXPECT_EQ(back.meta.config_yaml, run.meta.config_yaml);
  EXPECT_EQ(back.meta.cell_id, run.meta.cell_id);
  EXPECT_EQ(back.meta.n_params, run.meta.n_params);
  EXPECT_EQ(back.meta.entropy_rate, run.meta.entropy_rate);
  EXPECT_EQ(back.meta.recipe_manifest, run.meta.recipe_manifest);
  EXPECT_EQ(back.meta.coverage, run.meta.coverage);
  EXPECT_EQ(back.meta.fingerprint, run.meta.fingerprint);
  EXPECT_EQ(back.meta.data_source, run.meta.data_source);
  EXPECT_EQ(back.meta.data_tokens, run.meta.data_tokens);
  EXPECT_EQ(back.meta.data_hash, run.meta.data_hash);
  EXPECT_EQ(back.meta.flops_per_token, run.meta.flops_per_token);
  EXPECT_EQ(back.meta.gemm_peak_gflops, run.meta.gemm_peak_gflops);
  EXPECT_EQ(back.meta.threads, run.meta.threads);
  EXPECT_TRUE(back.meta.tensor_names.empty());  // left out
  EXPECT_TRUE(back.meta.data_files.empty());
  ASSERT_EQ(back.steps.size(), run.steps.size());
  ASSERT_EQ(back.steps.size(), 120u);
  for (size_t i = 0; i < run.steps.size(); ++i) {
    EXPECT_EQ(back.steps[i].step, run.steps[i].step);
    EXPECT_EQ(back.steps[i].tokens, run.steps[i].tokens);
    EXPECT_EQ(back.steps[i].train_loss, run.steps[i].train_loss);  // exact: float64 both ways
    EXPECT_EQ(back.steps[i].step_seconds, run.steps[i].step_seconds);
    EXPECT_TRUE(std::isnan(back.steps[i].lr));  // left out
    EXPECT_TRUE(std::isnan(back.steps[i].tokens_per_second));
  }
  ASSERT_EQ(back.val.size(), 4u);
  for (size_t i = 0; i < run.val.size(); ++i) {
    EXPECT_EQ(back.val[i].step, run.val[i].step);
    EXPECT_EQ(back.val[i].tokens, run.val[i].tokens);
    EXPECT_EQ(back.val[i].loss, run.val[i].loss);
  }
  EXPECT_TRUE(back.quant.empty());
  EXPECT_TRUE(back.gnr.empty());
  EXPECT_THROW(read_packed_run(f, "cells/missing", "x"), std::runtime_error);
}

TEST_F(PackTest, PackingIsDeterministicAndCompressed) {
  make_grid(grid_);
  write_curves_pack(grid_.string(), path("a.h5"));
  write_curves_pack(grid_.string(), path("b.h5"));
  std::ifstream a(path("a.h5"), std::ios::binary), b(path("b.h5"), std::ios::binary);
  const std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_TRUE(sa == sb) << "two packs of the same directory differ";
  EXPECT_FALSE(temporaries_left());
  // 7 runs of 120 steps (4 KB of packed columns each before compression) plus metadata.
  EXPECT_LT(fs::file_size(path("a.h5")), 64u * 1024);
}

TEST_F(PackTest, LoadGridRefusesAFileThatIsNotAPack) {
  make_grid(grid_);
  EXPECT_THROW(load_grid(grid("bf16s1.h5")), std::runtime_error);
  EXPECT_THROW(load_grid(grid("fp8s3.h5")), std::runtime_error);
  EXPECT_THROW(load_grid(path("no_such_thing")), std::runtime_error);
  EXPECT_THROW(write_curves_pack(path("no_such_dir"), path("x.h5")), std::runtime_error);
  fs::create_directories(path("empty"));
  EXPECT_THROW(write_curves_pack(path("empty"), path("x.h5")), std::runtime_error);
  EXPECT_FALSE(fs::exists(path("x.h5")));
}

// Whole datasets written with deflate (and a chunk size limit) read back exactly.
TEST_F(PackTest, DeflatedDatasetsRoundTrip) {
  std::vector<double> x(300000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(double(i)) * 1e-3 + double(i % 17);
  std::vector<int32_t> m(500 * 700);
  for (size_t i = 0; i < m.size(); ++i) m[i] = int32_t(i % 1000) - 500;
  {
    h5::File f = h5::File::create(path("d.h5"), h5::Format::v110);
    f.write("x", x, {x.size()}, 6);                // 2.4 MB: three chunks of at most 1 MiB
    f.write("m", m, {500, 700}, 1);                // 2-D: whole rows per chunk
    f.write("empty", std::vector<double>{}, {0}, 6);
    f.write("plain", x, {x.size()});
  }
  const h5::File f = h5::File::open_ro(path("d.h5"));
  EXPECT_EQ(f.read<double>("x"), x);
  std::vector<uint64_t> shape;
  EXPECT_EQ(f.read<int32_t>("m", &shape), m);
  EXPECT_EQ(shape, (std::vector<uint64_t>{500, 700}));
  EXPECT_TRUE(f.read<double>("empty").empty());
  EXPECT_EQ(f.read<double>("plain"), x);
  EXPECT_LT(fs::file_size(path("d.h5")), 2 * x.size() * sizeof(double));  // "x" compressed
}

// ---------------------------------------------------------------------------- the command

using testing_cli::CliResult;
using testing_cli::run_cli;

TEST_F(PackTest, CommandPacksAndAnalysisCommandsReadThePack) {
  make_grid(grid_);
  const std::string pack = path("out/curves.h5");
  fs::create_directories(path("out"));
  CliResult r = run_cli("pack " + grid_.string() + " " + pack);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("packed 7 of 9 cells (1 running, 1 pending, 1 unreadable)"), std::string::npos) << r.output;
  EXPECT_FALSE(temporaries_left());

  r = run_cli("analyze " + pack + " --json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(kPackNote), std::string::npos);
  r = run_cli("analyze " + pack);
  EXPECT_EQ(r.code, 0) << r.output;
  r = run_cli("report " + pack + " --out " + path("report") + " --no-plots");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("report/report.md")));
  EXPECT_TRUE(fs::exists(path("report/analysis.json")));
  r = run_cli("findings " + pack + " --out " + path("findings"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("findings/FINDINGS.md")));
  EXPECT_NE(r.output.find("NVFP4's loss is higher than BF16's"), std::string::npos) << r.output;
}

TEST_F(PackTest, CommandErrorsExitNonzeroAndLeaveNoFile) {
  make_grid(grid_);
  fs::create_directories(path("no_manifest"));
  std::ofstream(path("no_manifest/a.h5")) << "x";
  struct Case {
    std::string args, out, message;
    int code;
  };
  const std::vector<Case> cases = {
      {"pack " + path("no_such_dir") + " " + path("a.h5"), path("a.h5"), "no such directory", 2},
      {"pack " + path("no_manifest") + " " + path("b.h5"), path("b.h5"), "no manifest.yaml", 2},
      {"pack " + grid_.string() + " " + path("missing_dir/c.h5"), path("missing_dir/c.h5"), "cannot create", 1},
      {"pack " + grid_.string() + " " + path("no_manifest"), "", "is a directory", 2},
      {"pack " + grid_.string(), "", "OUT is required", 2},
  };
  for (const auto& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    if (!c.out.empty()) {
      EXPECT_FALSE(fs::exists(c.out)) << c.out;
      EXPECT_FALSE(temporaries_left()) << c.out;
    }
  }
  // The analysis commands take a directory or a pack, nothing else.
  const CliResult r = run_cli("analyze " + grid("bf16s1.h5"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no such directory or curves pack"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fp4lab::analysis
