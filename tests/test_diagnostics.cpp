// Diagnostics on the tiny model: recipes quantizing nothing are refused; coverage matches the GEMM
// operand count and survives a resume; the sentinel locates an injected NaN exactly; flushes count
// -0; telemetry and GNR records are complete; the fingerprint is thread-stable and format-sensitive;
// precision schedules switch at exactly the stated token, also across a resume; the fidelity records
// against the fp32 shadow have their known gains and leave the trajectory bit-identical.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/wait.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/io/h5.hpp"
#include "core/model/fidelity.hpp"
#include "core/model/gemm_counters.hpp"
#include "core/model/probes.hpp"
#include "core/model/quant_stats.hpp"
#include "core/ops/linear.hpp"
#include "core/quant/format_table.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/fingerprint.hpp"
#include "core/train/manifest.hpp"
#include "core/train/trainer.hpp"

namespace fp4lab {
namespace {

namespace fs = std::filesystem;

constexpr int kSeqLen = 32, kBatch = 8;
constexpr int64_t kTokensPerStep = int64_t(kSeqLen) * kBatch;  // 256

std::string temp_dir(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("fp4lab_test_diagnostics_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

ConfigBuilder tiny_builder(const std::string& recipe, int64_t steps, const std::vector<std::string>& extra) {
  ConfigBuilder b;
  b.add_file(std::string(FP4LAB_SOURCE_DIR) + "/experiments/base/default.yaml");
  b.add_override("recipe=" + recipe);
  b.add_override("model.seq_len=" + std::to_string(kSeqLen));
  b.add_override("train.batch_size=" + std::to_string(kBatch));
  b.add_override("train.tokens=" + std::to_string(steps * kTokensPerStep));
  b.add_override("train.val_interval_tokens=" + std::to_string(4 * kTokensPerStep));
  b.add_override("train.val_tokens=512");
  b.add_override("train.telemetry_interval=4");
  b.add_override("train.checkpoint_interval=100");
  b.add_override("data.synthetic_tokens=65536");
  for (const auto& e : extra) b.add_override(e);
  return b;
}

Config tiny(const std::string& recipe, int64_t steps, const std::vector<std::string>& extra = {}) {
  return tiny_builder(recipe, steps, extra).build();
}

TrainResult run(const Config& c, const std::string& path, int64_t stop_after = -1,
                std::optional<NonfiniteProbe> probe = std::nullopt) {
  TrainOptions o;
  o.out_path = path;
  o.threads = 1;
  o.stop_after_step = stop_after;
  o.nonfinite_probe = probe;
  return train(c, o);
}

int linear_index(const Model& m, const std::string& name) {
  const auto names = m.linear_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return int(i);
  ADD_FAILURE() << "no linear " << name;
  return -1;
}

// Uses of one (linear, GEMM, operand) in the manifest, by format.
std::map<std::string, int64_t> uses_of(const std::vector<ManifestEntry>& entries, const std::string& tensor,
                                       GemmRole role, Operand operand) {
  std::map<std::string, int64_t> out;
  for (const auto& e : entries)
    if (e.site.kind == SiteKind::linear && e.site.tensor == tensor && e.site.role == role && e.site.operand == operand)
      out[e.format] += e.count;
  return out;
}

std::vector<ManifestEntry> manifest_of(const std::string& run_file) {
  const std::string ckpt = final_checkpoint_path_for(run_file);
  return parse_manifest(read_checkpoint_state(ckpt).gemm_uses);
}

// ---- recipes that quantize nothing

TEST(Diagnostics, RecipeThatQuantizesNothingIsRefused) {
  auto refused = [](const std::string& recipe, const std::vector<std::string>& extra, const std::string& key) {
    try {
      tiny(recipe, 16, extra);
      ADD_FAILURE() << recipe << ": accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refused("nvfp4", {"recipe.keep_first=1", "recipe.keep_last=1"}, "quantizes no layer");
  refused("mxfp4", {"recipe.keep_last=2"}, "quantizes no layer");
  // A precision switch at token 0 leaves nothing quantized.
  refused("nvfp4", {"optim.schedule=wsd", "optim.decay_fraction=1.0", "recipe.switch_at=decay"}, "quantize nowhere");
  refused("nvfp4", {"optim.warmup_fraction=0", "recipe.switch_at=decay"}, "quantize nowhere");
  // Schedule keys that contradict switch_at, or a point the run never reaches.
  refused("nvfp4", {"recipe.switch_tokens=1024"}, "recipe.switch_at: tokens");
  refused("nvfp4", {"recipe.switch_at=fraction"}, "recipe.switch_fraction");
  refused("nvfp4", {"recipe.switch_at=tokens", "recipe.switch_tokens=" + std::to_string(16 * kTokensPerStep)},
          "never reached");
  refused("nvfp4", {"recipe.switch_at=decay", "optim.schedule=constant"}, "decaying learning rate");
  refused("nvfp4",
          {"recipe.switch_at=fraction", "recipe.switch_fraction=0.5", "recipe.switch_fprop=false",
           "recipe.switch_dgrad=false", "recipe.switch_wgrad=false"},
          "applies to no GEMM");
  // Quantizing a part of the model is fine, and so is a high-precision recipe.
  EXPECT_NO_THROW(tiny("nvfp4", 16, {"recipe.keep_last=1"}));
  EXPECT_NO_THROW(tiny("bf16", 16));
}

// ---- coverage

// One training step of `c`'s model with its GEMM uses counted: the manifest and its coverage.
struct OneStep {
  std::vector<ManifestEntry> entries;
  RecipeCoverage coverage;
};

OneStep one_step(const Config& c) {
  Model m(c.model, run_recipe(c));
  m.init_parameters(1);
  GemmCounters counters(m);
  m.attach(&counters);
  std::vector<int32_t> tokens(size_t(kBatch) * (kSeqLen + 1));
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = int32_t(i * 7 % 8);
  m.forward_backward(tokens.data(), kBatch, kSeqLen, 1, 1, 0);
  OneStep out{manifest_entries(counters), {}};
  out.coverage = recipe_coverage(out.entries, m.linear_names());
  return out;
}

TEST(Diagnostics, CoverageCountsMatchTheModelsGemmCount) {
  const Config c = tiny("nvfp4", 2);
  const int block_linears = c.model.n_layers * 7;
  const OneStep step = one_step(c);
  const auto& entries = step.entries;
  const RecipeCoverage& cov = step.coverage;
  EXPECT_EQ(cov.block_linears, block_linears);
  EXPECT_EQ(cov.quantized_linears, block_linears);
  EXPECT_EQ(cov.operand_slots, block_linears * kGemmRoles * kGemmOperands);
  EXPECT_EQ(cov.quantized_slots, block_linears * kGemmRoles * kGemmOperands);
  EXPECT_EQ(cov.lm_head_formats, std::vector<std::string>{"bf16 rne"});
  EXPECT_EQ(cov.summary().rfind("14/14 linear layers quantized (84/84 GEMM operands): fp4_e2m1/16 e4m3", 0), 0u)
      << cov.summary();
  int64_t uses = 0;
  for (const auto& e : entries) uses += e.site.tensor != "lm_head" ? e.count : 0;
  EXPECT_EQ(uses, block_linears * kGemmRoles * kGemmOperands);  // one step: every operand once

  const RecipeCoverage hc = one_step(tiny("nvfp4", 2, {"recipe.keep_last=1"})).coverage;
  EXPECT_EQ(hc.quantized_linears, 7);
  EXPECT_EQ(hc.quantized_slots, 42);
  EXPECT_NE(hc.summary().find("high precision: bf16 rne"), std::string::npos) << hc.summary();
}

// Under block_exact every FP4 x FP4 GEMM says so in the manifest (the LM head's bf16 GEMMs stay
// dequant_fp32), the coverage line names it, and a checkpoint line of five fields reads as
// dequant_fp32.
TEST(Diagnostics, ManifestRecordsEachGemmsNumerics) {
  const OneStep step = one_step(tiny("nvfp4", 2, {"recipe.gemm_numerics=block_exact"}));
  const auto& entries = step.entries;
  for (const auto& e : entries)
    EXPECT_EQ(e.numerics, e.site.tensor == "lm_head" ? GemmNumerics::dequant_fp32 : GemmNumerics::block_exact)
        << e.site.tensor << " " << e.format;
  const RecipeCoverage& cov = step.coverage;
  EXPECT_NE(cov.summary().find("; FP4 x FP4 GEMMs block_exact"), std::string::npos) << cov.summary();
  const auto back = parse_manifest(serialize_manifest(entries));
  ASSERT_EQ(back.size(), entries.size());
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i].numerics, entries[i].numerics);
  EXPECT_NE(manifest_yaml(entries, cov).find("numerics: block_exact"), std::string::npos);
  const auto old = parse_manifest("layers.0.mlp.up_proj\t0\t1\tfp4_e2m1/16 e4m3 2d rne\t5\n");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].numerics, GemmNumerics::dequant_fp32);
  EXPECT_THROW(parse_manifest("layers.0.mlp.up_proj\t0\t1\tfp4_e2m1/16 e4m3 2d rne\t5\texact\n"), std::runtime_error);
}

// The manifest and coverage in the run file count every use of the whole run, also across a resume.
TEST(Diagnostics, ManifestIsCarriedAcrossAResume) {
  const std::string dir = temp_dir("manifest");
  const Config c = tiny("nvfp4", 10);
  ASSERT_EQ(run(c, dir + "/whole.h5").status, RunStatus::done);
  ASSERT_EQ(run(c, dir + "/split.h5", 4).status, RunStatus::running);
  ASSERT_EQ(run(c, dir + "/split.h5").status, RunStatus::done);
  const RunData whole = read_run(dir + "/whole.h5", false), split = read_run(dir + "/split.h5", false);
  EXPECT_EQ(whole.meta.recipe_manifest, split.meta.recipe_manifest);
  EXPECT_EQ(whole.meta.coverage, split.meta.coverage);
  EXPECT_EQ(whole.meta.coverage.rfind("14/14 linear layers quantized", 0), 0u) << whole.meta.coverage;
  const auto uses = uses_of(manifest_of(dir + "/split.h5"), "layers.0.self_attn.q_proj", GemmRole::wgrad, Operand::b);
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses.begin()->second, 10);  // one wgrad per training step, ten steps in two sessions
}

// A checkpoint written before manifest sites were typed (integer roles and operands, attention's
// products as tensor "layers.N.self_attn.core") resumes to the manifest of an uninterrupted run.
TEST(Diagnostics, ManifestOfAnOlderCheckpointResumes) {
  const std::string dir = temp_dir("manifest_old");
  const Config c = tiny("te_nvfp4_fp8_dpa", 8);
  ASSERT_EQ(run(c, dir + "/whole.h5").status, RunStatus::done);
  ASSERT_EQ(run(c, dir + "/split.h5", 4).status, RunStatus::running);
  const std::string ckpt = checkpoint_path_for(dir + "/split.h5");
  std::string old;  // the older line: tensor, role, operand, format, count, numerics
  for (const auto& e : parse_manifest(read_checkpoint_state(ckpt).gemm_uses)) {
    const bool attention = e.site.kind == SiteKind::attention;
    old += e.site.tensor + "\t" + std::to_string(attention ? int(e.site.side) : int(e.site.role)) + "\t" +
           std::to_string(attention ? 0 : int(e.site.operand)) + "\t" + e.format + "\t" + std::to_string(e.count) +
           "\t" + to_string(e.numerics) + "\n";
  }
  ASSERT_NE(old.find(".self_attn.core\t1\t0\t"), std::string::npos) << old;
  h5::File::open_rw(ckpt).set_attr("/", "gemm_uses", old);
  ASSERT_EQ(run(c, dir + "/split.h5").status, RunStatus::done);
  const RunData whole = read_run(dir + "/whole.h5", false), split = read_run(dir + "/split.h5", false);
  EXPECT_EQ(whole.meta.recipe_manifest, split.meta.recipe_manifest);
  EXPECT_NE(split.meta.recipe_manifest.find("{kind: attention, layer: 0, tensor: \"layers.0.self_attn.core\", role: bwd"),
            std::string::npos)
      << split.meta.recipe_manifest;
}

// ---- the non-finite sentinel

TEST(Diagnostics, InjectedNanIsLocatedExactly) {
  const std::string dir = temp_dir("sentinel");
  const Config c = tiny("nvfp4", 6);
  Model probe_model(c.model, run_recipe(c));
  const std::string layer = "layers.1.mlp.down_proj";
  // wgrad's x operand is Xᵀ [d_ff, B·T] = [192, 256], blocks of 16 along the tokens.
  const int64_t row = 5, col = 37, index = row * kTokensPerStep + col;
  const int64_t block = row * (kTokensPerStep / 16) + col / 16;
  const NonfiniteProbe probe{3, linear_index(probe_model, layer), NonfiniteInjection{2, 1, index}};
  const std::string path = dir + "/run.h5";
  const TrainResult r = run(c, path, -1, probe);
  EXPECT_EQ(r.status, RunStatus::failed);
  EXPECT_TRUE(r.nonfinite);
  EXPECT_EQ(r.step, 2);

  const RunData d = read_run(path);
  EXPECT_EQ(d.status, RunStatus::failed);  // not diverged, not done
  EXPECT_EQ(d.status_step, 2);
  EXPECT_EQ(d.steps.size(), 2u);
  ASSERT_TRUE(d.has_sentinel);
  const SentinelRecord& s = d.sentinel;
  EXPECT_EQ(s.step, 3);
  EXPECT_EQ(s.phase, "train");
  EXPECT_EQ(s.tensor_name, layer);
  ASSERT_GE(s.tensor, 0);
  EXPECT_EQ(d.meta.tensor_names.at(size_t(s.tensor)), layer);
  EXPECT_EQ(s.role, "wgrad");
  EXPECT_EQ(s.operand, "x");
  EXPECT_EQ(s.where, "input");
  EXPECT_EQ(s.index, index);
  EXPECT_EQ(s.block, block);
  EXPECT_EQ(s.rows, c.model.d_ff);
  EXPECT_EQ(s.cols, kTokensPerStep);
  EXPECT_EQ(s.format, "fp4_e2m1/16 e4m3 1d rne rht16");
  ASSERT_EQ(s.input.size(), size_t(c.model.d_ff * kTokensPerStep));
  ASSERT_EQ(s.dequant.size(), s.input.size());
  for (size_t i = 0; i < s.input.size(); ++i)
    ASSERT_EQ(std::isnan(s.input[i]), int64_t(i) == index) << i;  // exactly the injected element
  EXPECT_EQ(d.status_message, s.summary());
  EXPECT_NE(d.status_message.find("layers.1.mlp.down_proj wgrad x input, block " + std::to_string(block)),
            std::string::npos)
      << d.status_message;
  EXPECT_FALSE(fs::exists(checkpoint_path_for(path)));
  // A finished failed run is not trained again, and still reports the sentinel.
  const TrainResult again = run(c, path);
  EXPECT_TRUE(again.skipped);
  EXPECT_TRUE(again.nonfinite);
}

// A NaN in a pass-through (fp32) operand shows in the GEMM output; the finding names the operand.
TEST(Diagnostics, PassThroughOperandIsNamedFromTheGemmOutput) {
  const int64_t m = 16, k = 32, n = 48;
  std::vector<float> x(size_t(m * k), 0.5f), w(size_t(n * k), 0.25f), y(size_t(m * n));
  w[size_t(7 * k + 3)] = INFINITY;
  const LinearRecipe fp32;
  LinearInput in;
  in.bind(x.data(), m, k);
  LinearState st;
  try {
    linear_forward(y.data(), in, w.data(), n, LinearQuant{&fp32, 0, 0, 0, false}, st);
    FAIL() << "expected NonfiniteError";
  } catch (const NonfiniteError& e) {
    EXPECT_EQ(e.finding.role, 0);
    EXPECT_EQ(e.finding.operand, 1);
    EXPECT_EQ(e.finding.where, "input");
    EXPECT_EQ(e.finding.index, 7 * k + 3);
    EXPECT_EQ(e.finding.block, -1);
    EXPECT_TRUE(e.finding.dequant.empty());
  }
  // Finite operands whose product overflows: the output itself.
  std::fill(w.begin(), w.end(), 3e38f);
  try {
    linear_forward(y.data(), in, w.data(), n, LinearQuant{&fp32, 0, 0, 0, false}, st);
    FAIL() << "expected NonfiniteError";
  } catch (const NonfiniteError& e) {
    EXPECT_EQ(e.finding.operand, kGemmOutput);
    EXPECT_EQ(e.finding.where, "output");
    EXPECT_EQ(e.finding.index, 0);
  }
}

// `fp4lab train` exits 3 when the sentinel stops a run (here: an absurd learning rate drives the
// weights to ~1e30, attention overflows, and the next quantizer input is NaN).
TEST(Diagnostics, SentinelExitStatusOfFp4labTrain) {
  const std::string dir = temp_dir("exit");
  const std::string cfg = dir + "/run.yaml";
  {
    std::ofstream out(cfg);
    out << "base: " << FP4LAB_SOURCE_DIR << "/experiments/base/default.yaml\n"
        << "recipe: nvfp4\nmodel.seq_len: 32\noptim.lr: 1.0e30\n"
        << "train: {batch_size: 8, tokens: 4096, val_interval_tokens: 2048, val_tokens: 512}\n"
        << "data: {synthetic_tokens: 65536}\n";
  }
  const std::string cmd = std::string(FP4LAB_BINARY) + " train " + cfg + " --threads 1 --out " + dir +
                          "/run.h5 > " + dir + "/log.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 3);
  const RunData d = read_run(dir + "/run.h5", false);
  EXPECT_EQ(d.status, RunStatus::failed);
  EXPECT_TRUE(d.has_sentinel);
  EXPECT_EQ(d.status_message.rfind("non-finite value at step ", 0), 0u) << d.status_message;
}

// ---- telemetry

// Flush-to-zero and saturation counts take both signs: values that dequantize to -0 are flushed.
TEST(Diagnostics, FlushToZeroCountsNegativeZero) {
  QuantSpec nvfp4;
  named_format("nvfp4", nvfp4);
  std::vector<float> x(32, 0.0f), out(32);
  x[0] = 448.0f * 6.0f;                       // sets the block scale: 1e-3 below is far under half a step
  for (int i = 1; i < 8; ++i) x[size_t(i)] = -1e-3f;  // -> -0
  for (int i = 8; i < 12; ++i) x[size_t(i)] = 1e-3f;  // -> +0
  x[16] = -6.0f;                              // block 1: amax 6
  x[17] = 1e-4f;
  QuantStats st;
  quantize(x.data(), out.data(), 1, 32, nvfp4, {}, QuantOutputs{nullptr, nullptr, nullptr, &st});
  for (int i = 1; i < 8; ++i) EXPECT_TRUE(out[size_t(i)] == 0.0f && std::signbit(out[size_t(i)])) << i;
  EXPECT_EQ(st.flushed, 7 + 4 + 1);

  QuantSpec mxfp4;
  named_format("mxfp4", mxfp4);
  std::vector<float> y(32, 1.0f), q(32);
  y[0] = 7.5f;   // floor rule: scale 1, so +-7.5 and -7 clip to +-6
  y[1] = -7.5f;
  y[2] = -7.0f;
  quantize(y.data(), q.data(), 1, 32, mxfp4, {}, QuantOutputs{nullptr, nullptr, nullptr, &st});
  EXPECT_EQ(st.saturated, 3);
  EXPECT_EQ(q[1], -6.0f);
}

// Per telemetry step: one quant record per quantized operand use with valid-block scale statistics,
// what-if SQNRs and the signed bias (SR concentration for SR operands), one GNR record per linear;
// every step: norms for every parameter tensor.
TEST(Diagnostics, TelemetryAndLayerNormsAreComplete) {
  const std::string dir = temp_dir("telemetry");
  const Config c = tiny("nvfp4", 8);
  ASSERT_EQ(run(c, dir + "/run.h5").status, RunStatus::done);
  const RunData d = read_run(dir + "/run.h5");
  const size_t n_params = d.meta.tensor_names.size();
  const int n_linears = c.model.n_layers * 7 + 1;
  ASSERT_EQ(n_params, size_t(c.model.n_layers * 9 + 3));  // embed, 9 per block, norm, lm_head
  ASSERT_EQ(d.layer_norms.size(), 8 * n_params);
  for (const auto& l : d.layer_norms) {
    ASSERT_LT(size_t(l.tensor), n_params);
    EXPECT_GT(l.grad_norm, 0.f) << d.meta.tensor_names[size_t(l.tensor)];
    EXPECT_GT(l.update_norm, 0.f);
    EXPECT_GT(l.adam_m_norm, 0.f);
    EXPECT_GT(l.adam_v_norm, 0.f);
  }
  const std::vector<int64_t> telemetry_steps = {1, 4, 8};
  ASSERT_EQ(d.quant.size(), telemetry_steps.size() * size_t(n_linears) * 6);  // the lm_head's are bf16 copies
  for (const auto& q : d.quant) {
    const std::string& name = d.meta.tensor_names.at(size_t(q.tensor));
    EXPECT_TRUE(name.find("_proj") != std::string::npos || name == "lm_head") << name;
    // Signed bias for every operand; SR concentration for the stochastically rounded gradients only.
    EXPECT_TRUE(std::isfinite(q.bias_shrinkage) && std::isfinite(q.bias_mean)) << name;
    const bool sr = name != "lm_head" && q.role != GemmRole::fprop && q.operand == Operand::a;
    for (float v : {q.sr_rms_k1, q.sr_rms_k4, q.sr_rms_k16, q.sr_rms_k64}) EXPECT_EQ(std::isfinite(v), sr) << name;
    if (sr) {
      EXPECT_LT(q.sr_rms_k64, q.sr_rms_k1) << name;
    }
    if (name == "lm_head") {
      EXPECT_EQ(q.scale_max, 0.f);  // bf16 has no block scales
      continue;
    }
    // Valid blocks only; a nonzero block may still underflow E4M3 to 0 (tiny gradient rows).
    EXPECT_GE(q.scale_min, 0.f) << name;
    EXPECT_GT(q.scale_max, 0.f) << name;
    if (q.role == GemmRole::fprop) {
      EXPECT_GT(q.scale_min, 0.f) << name;
    }
    EXPECT_LE(q.scale_min, q.scale_max);
    EXPECT_LE(q.scale_max, 448.f);
    EXPECT_TRUE(std::isfinite(q.whatif_nvfp4_sqnr_db)) << name;
    EXPECT_TRUE(std::isfinite(q.whatif_mxfp4_sqnr_db)) << name;
    EXPECT_GT(q.whatif_nvfp4_sqnr_db, q.whatif_mxfp4_sqnr_db - 3.f);  // NVFP4 is the finer format
  }
  ASSERT_EQ(d.gnr.size(), telemetry_steps.size() * size_t(n_linears));
  for (const auto& g : d.gnr) {
    const std::string& name = d.meta.tensor_names.at(size_t(g.tensor));
    EXPECT_GT(g.grad_norm, 0.f) << name;
    EXPECT_GT(g.noise_rms, 0.f) << name;
    EXPECT_GT(g.gnr, 0.f) << name;
    EXPECT_LT(g.gnr, g.grad_norm / g.noise_rms) << name;  // divided by √d > 1
  }
  // GNR = ‖dW‖ / (σ_q·√d) for one layer of known shape: q_proj is d_model x d_model.
  for (const auto& g : d.gnr) {
    if (d.meta.tensor_names[size_t(g.tensor)] != "layers.0.self_attn.q_proj") continue;
    const double dim = double(c.model.d_model) * c.model.d_model;
    EXPECT_NEAR(g.gnr, g.grad_norm / (g.noise_rms * std::sqrt(dim)), 1e-4 * g.gnr);
  }

  // fp32: the quantized wgrad is the reference, GNR is infinite and nothing is recorded as quantized.
  const Config f = tiny("fp32", 4);
  ASSERT_EQ(run(f, dir + "/fp32.h5").status, RunStatus::done);
  const RunData fd = read_run(dir + "/fp32.h5");
  EXPECT_TRUE(fd.quant.empty());
  ASSERT_FALSE(fd.gnr.empty());
  for (const auto& g : fd.gnr) EXPECT_EQ(g.gnr, INFINITY);
  EXPECT_EQ(fd.meta.coverage.rfind("0/14 linear layers quantized", 0), 0u) << fd.meta.coverage;
}

// ---- fidelity against the fp32 shadow

// One telemetry step of a 2-block model (d_model 64) on fixed tokens: the fidelity records.
std::vector<FidelityRecord> fidelity_of(const Config& c, std::optional<OutputScaleProbe> probe = std::nullopt) {
  Model m(c.model, run_recipe(c));
  m.init_parameters(1);
  m.set_data_parallel(c.train.batch_shards, nullptr);
  if (probe) m.attach(&*probe);  // before the fidelity observer, which sees the scaled output
  std::vector<int32_t> tokens(size_t(kBatch) * (kSeqLen + 1));
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = int32_t((i * 7 + i / 5) % 8);
  std::vector<QuantStatRecord> quant;
  std::vector<FidelityRecord> fidelity;
  QuantStatsObserver stats(&quant);
  FidelityObserver fidelity_observer(m, &fidelity);
  m.attach(&stats);
  m.attach(&fidelity_observer);
  m.forward_backward(tokens.data(), kBatch, kSeqLen, c.train.seed, 1, 0);
  EXPECT_EQ(fidelity.size(), m.linear_names().size() * kGemmRoles);
  return fidelity;
}

// The fp32 recipe against its fp32 shadow: gain 1, error 0; a GEMM output the training pass scales
// by c (a testing probe) has gain c, relative error |1 − c| and cosine 1, and leaves the others exact.
TEST(Fidelity, KnownGainOfAScaledGemmOutput) {
  const Config c = tiny("fp32", 1);
  for (const auto& f : fidelity_of(c)) {
    EXPECT_EQ(f.gain, 1.0f) << f.tensor << " " << to_string(f.role);
    EXPECT_EQ(f.rel_err, 0.0f);
    EXPECT_NEAR(f.cosine, 1.0f, 1e-6f);
    EXPECT_TRUE(std::isnan(f.sr_bias) && std::isnan(f.sr_rel_std));  // no SR operand
  }
  Model probe_model(c.model, run_recipe(c));
  const int down = linear_index(probe_model, "layers.0.mlp.down_proj");
  const int head = linear_index(probe_model, "lm_head");
  EXPECT_THROW(OutputScaleProbe(down, GemmRole::dgrad, 0.5f), std::invalid_argument);
  constexpr float kC = 0.75f;
  // dW of one layer: nothing downstream of it in the step.
  for (const auto& f : fidelity_of(c, OutputScaleProbe{down, GemmRole::wgrad, kC})) {
    const bool scaled = f.tensor == down && f.role == GemmRole::wgrad;
    EXPECT_NEAR(f.gain, scaled ? kC : 1.0f, 1e-6f) << f.tensor << " " << to_string(f.role);
    EXPECT_NEAR(f.rel_err, scaled ? 1.0f - kC : 0.0f, 1e-6f);
    EXPECT_NEAR(f.cosine, 1.0f, 1e-6f);
  }
  // Y of the LM head (the logits): every forward output before it is exact.
  for (const auto& f : fidelity_of(c, OutputScaleProbe{head, GemmRole::fprop, kC})) {
    if (f.role != GemmRole::fprop) continue;
    EXPECT_NEAR(f.gain, f.tensor == head ? kC : 1.0f, 1e-6f) << f.tensor;
    EXPECT_NEAR(f.rel_err, f.tensor == head ? 1.0f - kC : 0.0f, 1e-6f);
    EXPECT_NEAR(f.cosine, 1.0f, 1e-6f);
  }
}

// nvfp4 against the shadow: close but not exact; the SR bias/variance split exists exactly for the
// GEMMs with a stochastically rounded operand (dgrad and wgrad of the quantized layers).
TEST(Fidelity, Nvfp4RecordsAreCloseAndSplitSrGemms) {
  const Config c = tiny("nvfp4", 1);
  Model names_model(c.model, run_recipe(c));
  const int head = linear_index(names_model, "lm_head");
  for (const auto& f : fidelity_of(c)) {
    const std::string what = names_model.linear_names()[size_t(f.tensor)] + " " + to_string(f.role);
    EXPECT_GT(f.rel_err, 0.0f) << what;
    EXPECT_LT(f.rel_err, 0.5f) << what;
    EXPECT_GT(f.gain, 0.8f) << what;
    EXPECT_LT(f.gain, 1.2f) << what;
    EXPECT_GT(f.cosine, 0.85f) << what;
    EXPECT_LE(f.cosine, 1.0f) << what;
    const bool sr = f.tensor != head && f.role != GemmRole::fprop;
    EXPECT_EQ(std::isfinite(f.sr_bias), sr) << what;
    EXPECT_EQ(std::isfinite(f.sr_rel_std), sr) << what;
    if (sr) {  // the bias holds the round-to-nearest operand's error too: of the order of rel_err
      EXPECT_GT(f.sr_rel_std, 0.0f) << what;
      EXPECT_GT(f.sr_bias, 0.0f) << what;
      EXPECT_LT(f.sr_bias, 0.5f) << what;
    }
  }
}

// The shadow changes nothing: losses, weights, quant and GNR records are bit-identical with
// train.fidelity on and off, and the key's default leaves the config id as it was.
TEST(Fidelity, TrajectoryIsBitIdenticalWithTheShadowOnOrOff) {
  const std::string dir = temp_dir("fidelity");
  const Config on = tiny("nvfp4", 6);
  const Config off = tiny("nvfp4", 6, {"train.fidelity=false"});
  EXPECT_EQ(config_id(on), config_id(tiny("nvfp4", 6, {"train.fidelity=true"})));
  EXPECT_EQ(canonical_yaml(on).find("fidelity"), std::string::npos);
  EXPECT_NE(config_id(on), config_id(off));
  ASSERT_EQ(run(on, dir + "/on.h5").status, RunStatus::done);
  ASSERT_EQ(run(off, dir + "/off.h5").status, RunStatus::done);
  const RunData a = read_run(dir + "/on.h5"), b = read_run(dir + "/off.h5");
  EXPECT_EQ(a.fidelity.size(), 3 * a.gnr.size());  // three GEMMs per layer and telemetry step
  EXPECT_TRUE(b.fidelity.empty());
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].train_loss, b.steps[i].train_loss) << i;
    EXPECT_EQ(a.steps[i].grad_norm, b.steps[i].grad_norm) << i;
  }
  ASSERT_EQ(a.quant.size(), b.quant.size());
  for (size_t i = 0; i < a.quant.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(a.quant[i].sqnr_db), std::bit_cast<uint32_t>(b.quant[i].sqnr_db)) << i;
    EXPECT_EQ(std::bit_cast<uint32_t>(a.quant[i].sr_rms_k64), std::bit_cast<uint32_t>(b.quant[i].sr_rms_k64)) << i;
  }
  ASSERT_EQ(a.gnr.size(), b.gnr.size());
  for (size_t i = 0; i < a.gnr.size(); ++i) EXPECT_EQ(a.gnr[i].gnr, b.gnr[i].gnr) << i;
  Model ma(on.model, run_recipe(on)), mb(off.model, run_recipe(off));
  load_checkpoint(final_checkpoint_path_for(dir + "/on.h5"), ma, nullptr);
  load_checkpoint(final_checkpoint_path_for(dir + "/off.h5"), mb, nullptr);
  EXPECT_EQ(std::memcmp(ma.param_data(), mb.param_data(), sizeof(float) * size_t(ma.num_params())), 0);
}

// ---- fingerprint

TEST(Diagnostics, FingerprintIsThreadStableAndFormatSensitive) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const std::string one = numerics_fingerprint(tiny("nvfp4", 16).recipe);
  omp_set_num_threads(2);
  const std::string two = numerics_fingerprint(tiny("nvfp4", 16).recipe);
  omp_set_num_threads(saved);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one.size(), 16u);
  EXPECT_NE(one, numerics_fingerprint(tiny("nvfp4_te213", 16).recipe));
  EXPECT_NE(one, numerics_fingerprint(tiny("nvfp4_no_rht", 16).recipe));
  QuantSpec block16, block32;
  named_format("nvfp4", block16);
  block32 = block16;
  block32.block = 32;
  EXPECT_NE(numerics_fingerprint(block16), numerics_fingerprint(block32));
}

// ---- precision schedules

// Steps whose tokens seen before them reach the switch point run the switched roles in the high
// precision recipe; counted per format in the run's manifest.
TEST(Diagnostics, PrecisionSwitchHappensAtExactlyTheStatedToken) {
  const std::string dir = temp_dir("switch");
  const std::string fp4 = "fp4_e2m1/16 e4m3 1d rne rht16", bf16 = "bf16 rne";
  struct Case {
    std::vector<std::string> keys;
    int64_t quantized_steps;  // of 16: steps s with (s-1)*256 < switch point
  };
  const Case cases[] = {
      {{"recipe.switch_at=tokens", "recipe.switch_tokens=" + std::to_string(5 * kTokensPerStep)}, 5},
      {{"recipe.switch_at=tokens", "recipe.switch_tokens=" + std::to_string(5 * kTokensPerStep + 1)}, 6},
      {{"recipe.switch_at=fraction", "recipe.switch_fraction=0.8"}, 13},  // ceil(0.8 * 4096) = 3277
      {{"recipe.switch_at=decay", "optim.schedule=wsd", "optim.decay_fraction=0.25"}, 12},
  };
  for (const Case& k : cases) {
    const Config c = tiny("nvfp4", 16, k.keys);
    const std::string path = dir + "/" + std::to_string(k.quantized_steps) + ".h5";
    ASSERT_EQ(run(c, path).status, RunStatus::done);
    const auto uses = uses_of(manifest_of(path), "layers.1.mlp.down_proj", GemmRole::wgrad, Operand::b);
    EXPECT_EQ(uses.at(fp4), k.quantized_steps) << k.keys[0];
    EXPECT_EQ(uses.at(bf16), 16 - k.quantized_steps) << k.keys[0];
    EXPECT_NE(read_run(path, false).meta.coverage.find("84 operands switched precision"), std::string::npos);
  }
  // Per role: only wgrad switches; fprop stays in fp4 throughout.
  const Config w = tiny("nvfp4", 16, {"recipe.switch_at=fraction", "recipe.switch_fraction=0.5",
                                      "recipe.switch_fprop=false", "recipe.switch_dgrad=false"});
  ASSERT_EQ(run(w, dir + "/wgrad.h5").status, RunStatus::done);
  const auto entries = manifest_of(dir + "/wgrad.h5");
  const auto wgrad = uses_of(entries, "layers.0.mlp.up_proj", GemmRole::wgrad, Operand::a);
  EXPECT_EQ(wgrad.at("fp4_e2m1/16 e4m3 1d sr rht16"), 8);
  EXPECT_EQ(wgrad.at(bf16), 8);
  const auto fprop = uses_of(entries, "layers.0.mlp.up_proj", GemmRole::fprop, Operand::a);
  ASSERT_EQ(fprop.size(), 1u);
  EXPECT_EQ(fprop.begin()->first, "fp4_e2m1/16 e4m3 1d rne");
}

TEST(Diagnostics, ResumeAcrossTheSwitchIsBitIdentical) {
  const std::string dir = temp_dir("switch_resume");
  const Config c = tiny("nvfp4", 12, {"recipe.switch_at=tokens", "recipe.switch_tokens=" + std::to_string(6 * kTokensPerStep)});
  ASSERT_EQ(run(c, dir + "/whole.h5").status, RunStatus::done);
  for (int64_t stop : {4, 9}) {  // before and after the switch
    const std::string path = dir + "/split" + std::to_string(stop) + ".h5";
    ASSERT_EQ(run(c, path, stop).status, RunStatus::running);
    ASSERT_EQ(run(c, path).status, RunStatus::done);
    const RunData a = read_run(dir + "/whole.h5"), b = read_run(path);
    ASSERT_EQ(a.steps.size(), b.steps.size());
    for (size_t i = 0; i < a.steps.size(); ++i) {
      EXPECT_EQ(a.steps[i].train_loss, b.steps[i].train_loss) << "stop " << stop << " step " << i + 1;
      EXPECT_EQ(a.steps[i].grad_norm, b.steps[i].grad_norm) << "stop " << stop << " step " << i + 1;
    }
    ASSERT_EQ(a.val.size(), b.val.size());
    for (size_t i = 0; i < a.val.size(); ++i) EXPECT_EQ(a.val[i].loss, b.val[i].loss);
    ASSERT_EQ(a.gnr.size(), b.gnr.size());
    for (size_t i = 0; i < a.gnr.size(); ++i) EXPECT_EQ(a.gnr[i].gnr, b.gnr[i].gnr);
    EXPECT_EQ(a.meta.recipe_manifest, b.meta.recipe_manifest);
  }
}

}  // namespace
}  // namespace fp4lab
