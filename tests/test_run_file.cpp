// Tests for the run file (core/train/run_file): full round trip of every table and attribute,
// reopen + truncate for resuming, reading (in this process, in another process, and with h5py)
// while the writer still has the file open, the netCDF-4 dimension scales (and xarray opening
// every group, tests/xarray_open.py), a committed schema-4 file, and the examples in
// results/SCHEMA.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/metrics.hpp"
#include "core/io/h5.hpp"
#include "core/train/run_file.hpp"
#include "tests/cli_support.hpp"
#include "tests/scratch_dir.hpp"

namespace fp4lab {
namespace {

namespace fs = std::filesystem;

class RunFileTest : public ScratchDirTest {};

RunMeta test_meta() {
  RunMeta m;
  m.config_yaml = "model:\n  d_model: 64\ntrain:\n  seed: 3\n";
  m.cell_id = "c0ffee12";
  m.tensor_names = {"layers.0.self_attn.q_proj", "layers.0.mlp.down_proj", "lm_head"};
  m.n_params = 123456;
  m.entropy_rate = 1.75;
  m.recipe_manifest = "fprop: {x: nvfp4}\n";
  m.fingerprint = "fp:deadbeef";
  m.data_source = "fortunes: /usr/share/games/fortunes (2576674 bytes, 43 files)";
  m.data_files = "/usr/share/games/fortunes/art\t85327\n";
  m.data_tokens = 2576674;
  m.data_hash = "01cfa6faeee97e53";
  m.flops_per_token = 2.5e6;
  m.threads = 2;
  m.gemm_peak_gflops = 120.5;
  return m;
}

StepRecord step_at(int64_t s) {
  return StepRecord{s, s * 512, 5.0 / std::sqrt(static_cast<double>(s)), 1e-3 * s, 0.5 + s, 0.01 * s, 512 / (0.01 * s),
                    3e-6 * s};
}

std::vector<QuantStatRecord> quant_at(int64_t s) {
  std::vector<QuantStatRecord> out;
  for (int32_t t = 0; t < 3; ++t)
    for (uint8_t r = 0; r < 3; ++r)
      for (uint8_t o = 0; o < 2; ++o)
        out.push_back(QuantStatRecord{s, t, static_cast<GemmRole>(r), static_cast<Operand>(o), 1.5f * t + s,
                                      0.01f * o, 0.001f * r, 20.0f + t, 0.5f, 8.0f, 1.25f, 19.0f + t, 17.0f + t,
                                      -0.01f * t, 0.002f * o, 0.2f, 0.1f, 0.05f, 0.025f + 0.001f * r});
  return out;
}

std::vector<GnrRecord> gnr_at(int64_t s) {
  std::vector<GnrRecord> out;
  for (int32_t t = 0; t < 3; ++t) out.push_back(GnrRecord{s, t, 0.5f * (t + 1), 0.001f * s, 4.0f + t});
  return out;
}

std::vector<FidelityRecord> fidelity_at(int64_t s) {
  std::vector<FidelityRecord> out;
  for (int32_t t = 0; t < 3; ++t)
    for (uint8_t r = 0; r < 3; ++r)
      out.push_back(FidelityRecord{s, t, static_cast<GemmRole>(r), 0.01f * (r + 1), 1.0f - 0.01f * t, 0.99f,
                                   r == 2 ? 0.002f * s : NAN, r == 2 ? 0.1f : NAN});
  return out;
}

std::vector<LayerNormRecord> norms_at(int64_t s) {
  std::vector<LayerNormRecord> out;
  for (int32_t t = 0; t < 3; ++t) out.push_back(LayerNormRecord{s, t, 0.1f * t, 0.01f * s, 1.0f, 2.0f});
  return out;
}

// Writes steps 1..n, val every 25 steps, quant, gnr and fidelity every 10, layer norms every 5.
void write_steps(RunWriter& w, int64_t from, int64_t to) {
  for (int64_t s = from; s <= to; ++s) {
    w.add_step(step_at(s));
    if (s % 25 == 0) w.add_val(ValRecord{s, s * 512, 4.0 / std::sqrt(static_cast<double>(s))});
    if (s % 10 == 0) w.add_quant_stats(quant_at(s));
    if (s % 10 == 0) w.add_gnr(gnr_at(s));
    if (s % 10 == 0) w.add_fidelity(fidelity_at(s));
    if (s % 5 == 0) w.add_layer_norms(norms_at(s));
  }
}

void expect_steps_contiguous(const RunData& d, int64_t n) {
  ASSERT_EQ(d.steps.size(), static_cast<size_t>(n));
  for (int64_t s = 1; s <= n; ++s) {
    const StepRecord& r = d.steps[s - 1];
    const StepRecord e = step_at(s);
    ASSERT_EQ(r.step, e.step);
    ASSERT_EQ(r.tokens, e.tokens);
    ASSERT_EQ(r.train_loss, e.train_loss) << "step " << s;
    ASSERT_EQ(r.lr, e.lr);
    ASSERT_EQ(r.grad_norm, e.grad_norm);
    ASSERT_EQ(r.step_seconds, e.step_seconds);
    ASSERT_EQ(r.tokens_per_second, e.tokens_per_second);
    ASSERT_EQ(r.model_tflops, e.model_tflops);
  }
}

TEST_F(RunFileTest, RoundTripEveryTableAndAttribute) {
  const std::string file = path("run.h5");
  {
    auto w = RunWriter::create(file, test_meta());
    write_steps(w, 1, 200);
    w.set_manifest("fprop: {x: nvfp4, w: nvfp4_2d}\n", "1/2 linear layers quantized");
    w.set_status(RunStatus::done, 200, "finished");
  }
  const RunData d = read_run(file);
  const RunMeta m = test_meta();
  EXPECT_EQ(d.path, file);
  EXPECT_EQ(d.schema_version, kRunSchemaVersion);
  EXPECT_EQ(d.meta.config_yaml, m.config_yaml);
  EXPECT_EQ(d.meta.cell_id, m.cell_id);
  EXPECT_EQ(d.meta.tensor_names, m.tensor_names);
  EXPECT_EQ(d.meta.n_params, m.n_params);
  EXPECT_EQ(d.meta.entropy_rate, m.entropy_rate);
  EXPECT_EQ(d.meta.recipe_manifest, "fprop: {x: nvfp4, w: nvfp4_2d}\n");
  EXPECT_EQ(d.meta.coverage, "1/2 linear layers quantized");
  EXPECT_FALSE(d.has_sentinel);
  ASSERT_EQ(d.gnr.size(), 20u * 3u);
  EXPECT_EQ(d.gnr[3 * 4 + 2].step, 50);
  EXPECT_EQ(d.gnr[3 * 4 + 2].tensor, 2);
  EXPECT_EQ(d.gnr[3 * 4 + 2].grad_norm, 1.5f);
  EXPECT_EQ(d.gnr[3 * 4 + 2].noise_rms, 0.05f);
  EXPECT_EQ(d.gnr[3 * 4 + 2].gnr, 6.0f);
  ASSERT_EQ(d.fidelity.size(), 20u * 9u);
  const FidelityRecord& fr = d.fidelity[9 * 4 + 3 * 1 + 2];  // step 50, tensor 1, wgrad
  EXPECT_EQ(fr.step, 50);
  EXPECT_EQ(fr.tensor, 1);
  EXPECT_EQ(fr.role, GemmRole::wgrad);
  EXPECT_EQ(fr.rel_err, 0.01f * 3);
  EXPECT_EQ(fr.gain, 1.0f - 0.01f);
  EXPECT_EQ(fr.cosine, 0.99f);
  EXPECT_EQ(fr.sr_bias, 0.002f * 50);
  EXPECT_EQ(fr.sr_rel_std, 0.1f);
  EXPECT_TRUE(std::isnan(d.fidelity[9 * 4].sr_bias));
  EXPECT_EQ(d.meta.fingerprint, m.fingerprint);
  EXPECT_EQ(d.meta.data_source, m.data_source);
  EXPECT_EQ(d.meta.data_files, m.data_files);
  EXPECT_EQ(d.meta.data_tokens, m.data_tokens);
  EXPECT_EQ(d.meta.data_hash, m.data_hash);
  EXPECT_EQ(d.meta.flops_per_token, m.flops_per_token);
  EXPECT_EQ(d.meta.threads, m.threads);
  EXPECT_EQ(d.meta.gemm_peak_gflops, m.gemm_peak_gflops);
  EXPECT_EQ(d.status, RunStatus::done);
  EXPECT_EQ(d.status_step, 200);
  EXPECT_EQ(d.status_message, "finished");
  expect_steps_contiguous(d, 200);
  ASSERT_EQ(d.val.size(), 8u);
  EXPECT_EQ(d.val[3].step, 100);
  EXPECT_EQ(d.val[3].tokens, 100 * 512);
  EXPECT_EQ(d.val[3].loss, 0.4);
  ASSERT_EQ(d.quant.size(), 20u * 18u);
  const QuantStatRecord& q = d.quant[18 * 4 + 2 * 6 + 2 * 2 + 1];  // step 50, tensor 2, wgrad, b
  EXPECT_EQ(q.step, 50);
  EXPECT_EQ(q.tensor, 2);
  EXPECT_EQ(q.role, GemmRole::wgrad);
  EXPECT_EQ(q.operand, Operand::b);
  EXPECT_EQ(q.amax, 53.0f);
  EXPECT_EQ(q.frac_flushed, 0.01f);
  EXPECT_EQ(q.frac_saturated, 0.002f);
  EXPECT_EQ(q.sqnr_db, 22.0f);
  EXPECT_EQ(q.scale_min, 0.5f);
  EXPECT_EQ(q.scale_max, 8.0f);
  EXPECT_EQ(q.whatif_nvfp4_sqnr_db, 21.0f);
  EXPECT_EQ(q.whatif_mxfp4_sqnr_db, 19.0f);
  EXPECT_EQ(q.scale_std, 1.25f);
  EXPECT_EQ(q.bias_shrinkage, -0.02f);
  EXPECT_EQ(q.bias_mean, 0.002f);
  EXPECT_EQ(q.sr_rms_k1, 0.2f);
  EXPECT_EQ(q.sr_rms_k4, 0.1f);
  EXPECT_EQ(q.sr_rms_k16, 0.05f);
  EXPECT_EQ(q.sr_rms_k64, 0.025f + 0.001f * 2);
  ASSERT_EQ(d.layer_norms.size(), 40u * 3u);
  EXPECT_EQ(d.layer_norms.back().step, 200);
  EXPECT_EQ(d.layer_norms.back().tensor, 2);
  EXPECT_FLOAT_EQ(d.layer_norms.back().update_norm, 2.0f);

  const RunData light = read_run(file, /*with_telemetry=*/false);
  EXPECT_EQ(light.steps.size(), 200u);
  EXPECT_TRUE(light.quant.empty());
  EXPECT_TRUE(light.layer_norms.empty());
}

TEST_F(RunFileTest, NamesAndCodes) {
  EXPECT_EQ(to_string(RunStatus::diverged), "diverged");
  for (auto s : {RunStatus::running, RunStatus::done, RunStatus::diverged, RunStatus::failed})
    EXPECT_EQ(parse_run_status(to_string(s)), s);
  EXPECT_THROW(parse_run_status("finished"), std::invalid_argument);
  EXPECT_EQ(operand_name(GemmRole::fprop, Operand::a), "x");
  EXPECT_EQ(operand_name(GemmRole::fprop, Operand::b), "w");
  EXPECT_EQ(operand_name(GemmRole::dgrad, Operand::a), "dy");
  EXPECT_EQ(operand_name(GemmRole::dgrad, Operand::b), "w");
  EXPECT_EQ(operand_name(GemmRole::wgrad, Operand::a), "dy");
  EXPECT_EQ(operand_name(GemmRole::wgrad, Operand::b), "x");
  EXPECT_EQ(to_string(GemmRole::wgrad), "wgrad");
}

TEST_F(RunFileTest, EmptyRunAndBadInputs) {
  const std::string file = path("empty.h5");
  { auto w = RunWriter::create(file, RunMeta{}); }
  const RunData d = read_run(file);
  EXPECT_EQ(d.status, RunStatus::running);
  EXPECT_TRUE(d.steps.empty());
  EXPECT_TRUE(d.meta.tensor_names.empty());
  EXPECT_EQ(d.meta.entropy_rate, -1.0);

  RunMeta bad;
  bad.tensor_names = {"a", "b\nc"};
  EXPECT_THROW(RunWriter::create(path("bad.h5"), bad), std::invalid_argument);
  EXPECT_THROW(read_run(path("missing.h5")), std::runtime_error);
  {
    auto f = h5::File::create(path("other.h5"));
    f.set_attr("/", "something", 1.0);
  }
  try {
    read_run(path("other.h5"));
    FAIL() << "a non-run HDF5 file must be rejected";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not an fp4lab run file"), std::string::npos) << e.what();
  }
}

TEST_F(RunFileTest, ReopenTruncatesEverySeriesThenContinues) {
  const std::string file = path("resume.h5");
  {
    auto w = RunWriter::create(file, test_meta());
    write_steps(w, 1, 87);  // "crashes" after step 87; checkpoint was at step 50
  }
  {
    auto w = RunWriter::reopen(file, 50);
    EXPECT_EQ(w.last_step(), 50);
    const RunData mid = read_run(file);
    EXPECT_EQ(mid.status, RunStatus::running);
    EXPECT_EQ(mid.status_step, 50);
    expect_steps_contiguous(mid, 50);
    ASSERT_EQ(mid.val.size(), 2u);
    EXPECT_EQ(mid.val.back().step, 50);
    ASSERT_EQ(mid.quant.size(), 5u * 18u);
    EXPECT_EQ(mid.quant.back().step, 50);
    ASSERT_EQ(mid.layer_norms.size(), 10u * 3u);
    EXPECT_EQ(mid.layer_norms.back().step, 50);
    ASSERT_EQ(mid.gnr.size(), 5u * 3u);
    ASSERT_EQ(mid.fidelity.size(), 5u * 9u);
    write_steps(w, 51, 120);
    w.set_status(RunStatus::done, 120);
  }
  const RunData d = read_run(file);
  EXPECT_EQ(d.status, RunStatus::done);
  expect_steps_contiguous(d, 120);
  ASSERT_EQ(d.val.size(), 4u);
  for (size_t i = 0; i < d.val.size(); ++i) EXPECT_EQ(d.val[i].step, 25 * static_cast<int64_t>(i + 1));
  EXPECT_EQ(d.quant.size(), 12u * 18u);
  EXPECT_EQ(d.layer_norms.size(), 24u * 3u);
  EXPECT_EQ(d.gnr.size(), 12u * 3u);
  EXPECT_EQ(d.fidelity.size(), 12u * 9u);
  EXPECT_EQ(d.meta.cell_id, "c0ffee12");
  // Reopening at a step before any record empties the series.
  { auto w = RunWriter::reopen(file, 0); }
  EXPECT_TRUE(read_run(file).steps.empty());
}

// A NaN in layers.0.mlp.down_proj's wgrad x at step 7: element 37 (row 1, col 5) of [4, 32].
SentinelRecord test_sentinel() {
  SentinelRecord s;
  s.step = 7;
  s.phase = "train";
  s.tensor = 1;
  s.tensor_name = "layers.0.mlp.down_proj";
  s.role = "wgrad";
  s.operand = "x";
  s.where = "input";
  s.format = "fp4_e2m1/16 e4m3 1d rne rht16";
  s.rows = 4;
  s.cols = 32;
  s.index = 37;
  s.block = 2;
  s.input.assign(128, 1.0f);
  s.input[37] = std::numeric_limits<float>::quiet_NaN();
  s.dequant.assign(128, 0.5f);
  return s;
}

TEST_F(RunFileTest, SentinelDumpRoundTrip) {
  const std::string file = path("sentinel.h5");
  const SentinelRecord s = test_sentinel();
  {
    auto w = RunWriter::create(file, test_meta());
    write_steps(w, 1, 6);
    w.set_sentinel(s);
    w.set_status(RunStatus::failed, 6, s.summary());
  }
  EXPECT_EQ(s.summary(),
            "non-finite value at step 7: layers.0.mlp.down_proj wgrad x input, block 2, index 37 of [4, 32] "
            "(fp4_e2m1/16 e4m3 1d rne rht16)");
  for (bool telemetry : {false, true}) {
    const RunData d = read_run(file, telemetry);
    ASSERT_TRUE(d.has_sentinel);
    EXPECT_EQ(d.status, RunStatus::failed);
    EXPECT_EQ(d.sentinel.summary(), s.summary());
    EXPECT_EQ(d.sentinel.rows, 4);
    EXPECT_EQ(d.sentinel.cols, 32);
    EXPECT_EQ(d.sentinel.input.size(), telemetry ? 128u : 0u);
    if (telemetry) {
      EXPECT_TRUE(std::isnan(d.sentinel.input[37]));
      EXPECT_EQ(d.sentinel.dequant, s.dequant);
    }
  }
}

// A schema-1 file (no what-if, bias or SR columns, no gnr table) reads them as NaN and resumes into
// the current schema without losing its quant rows.
TEST_F(RunFileTest, OlderSchemaReadsAndResumes) {
  const std::string bare = path("bare.h5");
  {
    auto f = h5::File::create(bare);
    f.set_attr("/", "schema_version", int64_t{1});
    f.set_attr("/", "status", std::string("done"));
    const std::vector<int64_t> step = {10};
    const std::vector<int32_t> tensor = {0};
    const std::vector<uint8_t> code = {0};
    const std::vector<float> one = {1.0f};
    f.append("quant/step", step.data(), 1);
    f.append("quant/tensor", tensor.data(), 1);
    f.append("quant/role", code.data(), 1);
    f.append("quant/operand", code.data(), 1);
    for (const char* col : {"amax", "frac_flushed", "frac_saturated", "sqnr_db", "scale_min", "scale_max", "scale_std"})
      f.append(std::string("quant/") + col, one.data(), 1);
  }
  const RunData old = read_run(bare);
  ASSERT_EQ(old.quant.size(), 1u);
  EXPECT_TRUE(std::isnan(old.quant[0].whatif_nvfp4_sqnr_db));
  EXPECT_TRUE(std::isnan(old.quant[0].bias_shrinkage));
  EXPECT_TRUE(std::isnan(old.quant[0].sr_rms_k64));
  EXPECT_TRUE(old.gnr.empty());
  EXPECT_EQ(old.schema_version, 1);
  {
    auto w = RunWriter::reopen(bare, 10);
    w.add_quant_stats(quant_at(20));
    w.add_gnr(gnr_at(20));
  }
  const RunData resumed = read_run(bare);
  EXPECT_EQ(resumed.schema_version, kRunSchemaVersion);
  ASSERT_EQ(resumed.quant.size(), 1u + 18u);
  EXPECT_TRUE(std::isnan(resumed.quant[0].whatif_mxfp4_sqnr_db));
  EXPECT_EQ(resumed.quant[1].whatif_mxfp4_sqnr_db, 17.0f);
  EXPECT_TRUE(std::isnan(resumed.quant[0].bias_mean));
  EXPECT_EQ(resumed.quant[1].sr_rms_k16, 0.05f);
  EXPECT_EQ(resumed.gnr.size(), 3u);
}

// The netCDF-4 layout (schema 5): each table's `step` is its group's dimension scale, attached to
// every other column, which carry units, long_name and (the data columns) the table's coordinates;
// the sentinel's tensors have the dimensions row and col. tests/xarray_open.py checks the same
// through xarray.
TEST_F(RunFileTest, TablesHaveNetcdfDimensionScales) {
  const std::string file = path("dims.h5");
  {
    auto w = RunWriter::create(file, test_meta());
    write_steps(w, 1, 30);
    w.set_sentinel(test_sentinel());
    w.set_status(RunStatus::failed, 30, "stopped");
  }
  {
    const auto f = h5::File::open_ro(file);
    EXPECT_EQ(f.attr_int("/", "schema_version"), kRunSchemaVersion);
    const std::vector<std::pair<std::string, std::vector<std::string>>> tables = {
        {"steps", {"tokens", "train_loss", "lr", "grad_norm", "step_seconds", "tokens_per_second", "model_tflops"}},
        {"val", {"tokens", "loss"}},
        {"quant", {"tensor", "role", "operand", "amax", "sqnr_db", "whatif_nvfp4_sqnr_db", "bias_mean", "sr_rms_k64"}},
        {"layers", {"tensor", "grad_norm", "update_norm", "adam_m_norm", "adam_v_norm"}},
        {"gnr", {"tensor", "grad_norm", "noise_rms", "gnr"}},
        {"fidelity", {"tensor", "role", "rel_err", "gain", "cosine", "sr_bias", "sr_rel_std"}}};
    const std::map<std::string, std::string> coordinates = {
        {"steps", "tokens"}, {"val", "tokens"},   {"quant", "tensor role operand"},
        {"layers", "tensor"}, {"gnr", "tensor"}, {"fidelity", "tensor role"}};
    for (const auto& [table, columns] : tables) {
      const std::string dim = table + "/step";
      EXPECT_TRUE(f.is_dimension_scale(dim)) << dim;
      EXPECT_EQ(f.attr_string(dim, "NAME"), "step");
      EXPECT_EQ(f.dimension_scales(dim), std::vector<std::string>{""}) << "a scale is not attached to itself";
      for (const auto& name : columns) {
        const std::string p = table + "/" + name;
        EXPECT_FALSE(f.is_dimension_scale(p)) << p;
        EXPECT_EQ(f.dimension_scales(p), std::vector<std::string>{"/" + dim}) << p;
        EXPECT_FALSE(f.attr_string(p, "units").empty()) << p;
        EXPECT_FALSE(f.attr_string(p, "long_name").empty()) << p;
        EXPECT_FALSE(f.attr_string(p, "description").empty()) << p;
        const bool is_coordinate = (" " + coordinates.at(table) + " ").find(" " + name + " ") != std::string::npos;
        if (is_coordinate) {
          EXPECT_FALSE(f.has_attr(p, "coordinates")) << p;
        } else {
          EXPECT_EQ(f.attr_string(p, "coordinates"), coordinates.at(table)) << p;
        }
      }
    }
    EXPECT_EQ(f.attr_string("steps/train_loss", "long_name"), "training loss");
    EXPECT_EQ(f.attr_string("steps/train_loss", "units"), "nats/token");
    EXPECT_EQ(f.attr_string("val/loss", "long_name"), "validation loss");
    for (const char* name : {"sentinel/input", "sentinel/dequant"})
      EXPECT_EQ(f.dimension_scales(name), (std::vector<std::string>{"/sentinel/row", "/sentinel/col"})) << name;
    EXPECT_EQ(f.shape("sentinel/row"), std::vector<uint64_t>{4});
    EXPECT_EQ(f.shape("sentinel/col"), std::vector<uint64_t>{32});
    EXPECT_EQ(f.attr_string("sentinel/row", "NAME").rfind("This is a netCDF dimension but not a netCDF variable.", 0), 0u);
  }
  // The layout survives a resume; the scales stay attached once (reopen rewrites them idempotently).
  {
    auto w = RunWriter::reopen(file, 20);
    write_steps(w, 21, 40);
  }
  const auto g = h5::File::open_ro(file);
  EXPECT_EQ(g.dimension_scales("steps/train_loss"), std::vector<std::string>{"/steps/step"});
  EXPECT_EQ(g.dimension_scales("quant/amax"), std::vector<std::string>{"/quant/step"});
  expect_steps_contiguous(read_run(file), 40);
}

// tests/data/run_schema4/ holds a run file written by fp4lab before schema 5 (a tiny nvfp4 run of 8
// steps with telemetry every 4, made by `fp4lab train` and shrunk with `h5repack -f GZIP=9`: its
// 32 KiB chunks are mostly empty; the content is as written). It reads, analyses, and resumes into
// the current schema with its dimension scales; the committed file itself is only ever read.
TEST_F(RunFileTest, Schema4FileReadsAnalysesAndResumes) {
  const fs::path committed = fs::path(FP4LAB_SOURCE_DIR) / "tests/data/run_schema4/7af1c1767c1c.h5";
  const RunData d = read_run(committed.string());
  EXPECT_EQ(d.schema_version, 4);
  EXPECT_EQ(d.status, RunStatus::done);
  EXPECT_EQ(d.meta.cell_id, "7af1c1767c1c");
  ASSERT_EQ(d.steps.size(), 8u);
  EXPECT_EQ(d.steps.back().tokens, 1024);
  EXPECT_NEAR(d.steps.back().train_loss, 4.2629, 1e-4);
  ASSERT_EQ(d.val.size(), 4u);
  EXPECT_NEAR(d.val.back().loss, 4.2448, 1e-4);
  EXPECT_EQ(d.quant.size(), 270u);  // steps 1, 4, 8: 15 linear layers x 3 GEMMs x 2 operands
  EXPECT_EQ(d.layer_norms.size(), 168u);
  EXPECT_EQ(d.gnr.size(), 45u);
  EXPECT_TRUE(d.fidelity.empty());  // schema 6
  EXPECT_FALSE(std::isnan(d.quant.back().bias_mean));
  EXPECT_EQ(h5::File::open_ro(committed.string()).dimension_scales("steps/train_loss"), std::vector<std::string>{""});

  const std::string file = path("7af1c1767c1c.h5");
  fs::copy_file(committed, file);
  const analysis::AnalysisReport r = analysis::analyze_dir(dir_.string());
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].state, "done");
  EXPECT_EQ(r.cells[0].steps, 8);
  EXPECT_NEAR(r.cells[0].final_loss, 4.2448, 1e-4);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_FALSE(r.groups[0].quant.empty());
  EXPECT_FALSE(r.gnr_summary.empty());

  { auto w = RunWriter::reopen(file, 4); }
  const RunData resumed = read_run(file);
  EXPECT_EQ(resumed.schema_version, kRunSchemaVersion);
  EXPECT_EQ(resumed.steps.size(), 4u);
  EXPECT_EQ(resumed.quant.size(), 180u);
  const auto f = h5::File::open_ro(file);
  EXPECT_EQ(f.dimension_scales("steps/train_loss"), std::vector<std::string>{"/steps/step"});
  EXPECT_EQ(f.dimension_scales("gnr/gnr"), std::vector<std::string>{"/gnr/step"});
  EXPECT_EQ(f.dimension_scales("fidelity/gain"), std::vector<std::string>{"/fidelity/step"});  // the upgrade adds it
  EXPECT_TRUE(resumed.fidelity.empty());
  EXPECT_EQ(f.attr_string("steps/train_loss", "coordinates"), "tokens");
}

// Every group of a run file opens with xr.open_dataset(path, group=G, engine="h5netcdf") and no
// options (tests/xarray_open.py): a tiny nvfp4 run trained by `fp4lab train` (every table has
// rows), a run stopped by the sentinel, and a run just created (empty tables).
TEST_F(RunFileTest, EveryGroupOpensInXarray) {
  std::ofstream(path("run.yaml")) << "base: " FP4LAB_SOURCE_DIR "/experiments/base/default.yaml\n"
                                  << "recipe: nvfp4\nmodel.seq_len: 32\n"
                                  << "train: {batch_size: 4, tokens: 1024, checkpoint_interval: 0, "
                                     "val_interval_tokens: 256, val_tokens: 256, telemetry_interval: 4}\n"
                                  << "data: {synthetic_tokens: 65536, synthetic_vocab: 8}\n";
  const auto trained = testing_cli::run_cli("train " + path("run.yaml") + " --threads 1 --out " + path("trained.h5"));
  ASSERT_EQ(trained.code, 0) << trained.output;
  {
    auto w = RunWriter::create(path("sentinel.h5"), test_meta());
    write_steps(w, 1, 30);
    w.set_sentinel(test_sentinel());
    w.set_status(RunStatus::failed, 30, "stopped");
  }
  auto fresh = RunWriter::create(path("fresh.h5"), test_meta());  // still open, as a live reader finds it
  const std::string cmd = "/usr/bin/python3 " FP4LAB_SOURCE_DIR "/tests/xarray_open.py " + path("trained.h5") + " " +
                          path("sentinel.h5") + " " + path("fresh.h5") + " > " + path("xarray.txt") + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::stringstream out;
  out << std::ifstream(path("xarray.txt")).rdbuf();
  ASSERT_EQ(rc, 0) << cmd << "\n" << out.str();
  EXPECT_NE(out.str().find("trained.h5 opens in xarray: / /fidelity /gnr /layers /quant /steps /val"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("sentinel.h5 opens in xarray: / /fidelity /gnr /layers /quant /sentinel /steps /val"),
            std::string::npos)
      << out.str();
}

// Runs RunFileChild.ReadsLiveFile in a new process of this test binary on `file`, expecting
// `steps` contiguous steps; returns "" or the child's output on failure.
std::string read_in_child(const std::string& file, int steps) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string log = file + ".child.txt";
  const std::string cmd = "FP4LAB_TEST_READ_RUN=" + file + " FP4LAB_TEST_READ_STEPS=" + std::to_string(steps) +
                          " " + self + " --gtest_filter=RunFileChild.ReadsLiveFile > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  if (rc == 0 && ss.str().find("[  PASSED  ] 1 test") != std::string::npos) return "";
  return cmd + "\n" + ss.str();
}

TEST_F(RunFileTest, ReadWhileWriterOpen) {
  const std::string file = path("live.h5");
  auto w = RunWriter::create(file, test_meta());
  write_steps(w, 1, 30);
  w.flush();
  // Same process.
  RunData d = read_run(file);
  EXPECT_EQ(d.status, RunStatus::running);
  expect_steps_contiguous(d, 30);
  // Another process (this test binary re-run as a pure reader; a fork would share our open
  // HDF5 file state and prove nothing).
  EXPECT_EQ(read_in_child(file, 30), "");
  // Another process (h5py), while we keep appending.
  write_steps(w, 31, 60);
  w.flush();
  if (std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") == 0) {
    const std::string cmd =
        "/usr/bin/python3 -c \"import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
        "assert f.attrs['status']=='running', f.attrs['status']; "
        "assert len(f['steps/train_loss'])==60, len(f['steps/train_loss']); "
        "assert list(f['steps/step'][:3])==[1,2,3]\" " + file;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  w.set_status(RunStatus::diverged, 60, "loss is NaN");
  d = read_run(file);
  EXPECT_EQ(d.status, RunStatus::diverged);
  EXPECT_EQ(d.status_message, "loss is NaN");
  expect_steps_contiguous(d, 60);
}

// The reader half of ReadWhileWriterOpen: runs only when that test starts it in a new process.
TEST(RunFileChild, ReadsLiveFile) {
  const char* file = std::getenv("FP4LAB_TEST_READ_RUN");
  const char* steps = std::getenv("FP4LAB_TEST_READ_STEPS");
  if (!file || !steps) GTEST_SKIP() << "helper for RunFileTest.ReadWhileWriterOpen";
  const int n = std::atoi(steps);
  const RunData d = read_run(file);
  EXPECT_EQ(d.status, RunStatus::running);
  expect_steps_contiguous(d, n);
  EXPECT_EQ(d.val.size(), static_cast<size_t>(n / 25));
  EXPECT_EQ(d.quant.size(), static_cast<size_t>(n / 10) * 18u);
}

// Without flush(): records reach the file once kRunFlushSeconds have passed at an add_*.
TEST_F(RunFileTest, FlushesOnItsOwnEverySecond) {
  const std::string file = path("auto.h5");
  auto w = RunWriter::create(file, test_meta());
  write_steps(w, 1, 20);
  EXPECT_EQ(read_in_child(file, 0), "") << "records are buffered until the flush interval";
  ::usleep(static_cast<useconds_t>(kRunFlushSeconds * 1.1e6));
  write_steps(w, 21, 21);
  EXPECT_EQ(read_in_child(file, 21), "");
}

// The ```python blocks of results/SCHEMA.md's "Reading a run file" (h5py, then xarray) must run on a
// real run file.
TEST_F(RunFileTest, SchemaDocExampleRuns) {
  if (std::system("/usr/bin/python3 -c 'import h5py, numpy' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no h5py";
  std::ifstream in(std::string(FP4LAB_SOURCE_DIR) + "/results/SCHEMA.md");
  ASSERT_TRUE(in) << "results/SCHEMA.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::string file = path("run.h5");
  {
    auto w = RunWriter::create(file, test_meta());
    write_steps(w, 1, 100);
    w.set_status(RunStatus::done, 100);
  }
  std::string out;
  int blocks = 0;
  const size_t section_end = doc.find("\n## Run file");  // the examples of "Reading a run file"
  for (size_t start = doc.find("```python\n"); start < section_end; start = doc.find("```python\n", start + 1)) {
    const size_t end = doc.find("```", start + 10);
    ASSERT_NE(end, std::string::npos);
    const std::string script_path = path("example" + std::to_string(++blocks) + ".py");
    std::ofstream(script_path) << doc.substr(start + 10, end - start - 10);
    const std::string cmd = "cd " + dir_.string() + " && /usr/bin/python3 " + script_path + " run.h5 > out.txt 2>&1";
    const int rc = std::system(cmd.c_str());
    std::stringstream os;
    os << std::ifstream(path("out.txt")).rdbuf();
    ASSERT_EQ(rc, 0) << cmd << "\n" << os.str();
    out += os.str();
  }
  EXPECT_EQ(blocks, 2) << "SCHEMA.md has an h5py and an xarray example";
  EXPECT_NE(out.find("100 steps"), std::string::npos) << out;
  EXPECT_NE(out.find("step 50: train loss"), std::string::npos) << out;
  EXPECT_NE(out.find("18 rows; {'step': 10, 'tensor': 3, 'role': 3, 'operand': 2}"), std::string::npos) << out;
}

}  // namespace
}  // namespace fp4lab
