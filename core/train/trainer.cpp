// The training loop. Every random stream is a function of (seed, step), so the state saved in a
// checkpoint (parameters, Adam moments, step) is enough to continue bit-identically. The run file
// gets every step, telemetry at its interval, the recipe manifest, and the non-finite sentinel's
// dump when a NaN/Inf reaches a GEMM.
#include "core/train/trainer.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include "core/model/fidelity.hpp"
#include "core/model/gemm_counters.hpp"
#include "core/model/gnr.hpp"
#include "core/model/model.hpp"
#include "core/model/probes.hpp"
#include "core/model/quant_stats.hpp"
#include "core/ops/matmul.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/data.hpp"
#include "core/train/fingerprint.hpp"
#include "core/train/manifest.hpp"
#include "core/train/optimizer.hpp"
#include "core/train/throughput.hpp"

namespace fp4lab {

TrainResult train_result_of(const RunData& d) {
  TrainResult r;
  r.status = d.status;
  r.step = d.steps.empty() ? 0 : d.steps.back().step;
  r.tokens = d.steps.empty() ? 0 : d.steps.back().tokens;
  r.last_loss = d.steps.empty() ? 0 : d.steps.back().train_loss;
  r.nonfinite = d.has_sentinel;
  r.message = d.status_message;
  return r;
}

static std::string read_status_if_finished(const std::string& path, TrainResult& r) {
  if (!std::filesystem::exists(path)) return "";
  try {
    RunData d = read_run(path, false);
    if (d.status == RunStatus::running) return "";
    r = train_result_of(d);
    r.skipped = true;
    return to_string(d.status);
  } catch (const std::exception&) {
    return "";  // unreadable (torn) run file: start again
  }
}

// The run file's record of a sentinel finding; `linear_param` maps linear indices to tensor_names.
static SentinelRecord sentinel_record(const NonfiniteFinding& f, const Model& model, const std::vector<int32_t>& linear_param,
                                      int64_t step, const std::string& phase) {
  SentinelRecord s;
  s.step = step;
  s.phase = phase;
  s.tensor_name = f.layer;
  const auto names = model.linear_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == f.layer) s.tensor = linear_param[i];
  s.role = to_string(GemmRole(f.role));
  s.operand = f.operand == kGemmOutput ? "output" : operand_name(GemmRole(f.role), Operand(f.operand));
  s.where = f.where;
  s.format = describe(f.spec);
  s.rows = f.rows;
  s.cols = f.cols;
  s.index = f.index;
  s.block = f.block;
  s.input = f.input;
  s.dequant = f.dequant;
  return s;
}

// Windows of the validation pass: val_tokens / seq_len of them (at least one), as far as they go.
static int64_t val_window_count(const TokenData& data, const Config& cfg) {
  const int T = cfg.model.seq_len;
  return std::min<int64_t>(val_windows(data.val, T), std::max<int64_t>(1, cfg.train.val_tokens / T));
}

static double validation_loss(Model& model, const TokenData& data, const Config& cfg, int64_t tokens_seen) {
  const int T = cfg.model.seq_len, B = cfg.train.batch_size;
  const int64_t windows = val_window_count(data, cfg);
  std::vector<int32_t> batch(static_cast<size_t>(B) * (T + 1));
  double sum = 0;
  int64_t count = 0;
  for (int64_t w = 0; w < windows; w += B) {
    const int b = static_cast<int>(std::min<int64_t>(B, windows - w));
    val_batch(data.val, w, b, T, batch.data());
    sum += model.forward_loss(batch.data(), b, T, tokens_seen) * b;
    count += b;
  }
  return sum / double(count);
}

// Refuses a rank count the batch cannot be split over without changing the results.
static void check_rank_count(const Config& cfg, int ranks) {
  if (cfg.train.batch_shards % ranks != 0)
    throw ConfigError(SourceLoc{"<mpirun>", 0, 0}, "train.batch_shards",
                      std::to_string(ranks) + " ranks do not divide " + std::to_string(cfg.train.batch_shards) + " batch shards");
  const int64_t shard_tokens = int64_t(cfg.train.batch_size / cfg.train.batch_shards) * cfg.model.seq_len;
  if (ranks > 1 && shard_tokens % matmul_row_tile != 0)
    throw ConfigError(SourceLoc{"<mpirun>", 0, 0}, "train.batch_shards",
                      "a shard holds " + std::to_string(shard_tokens) + " tokens; across ranks they must be a multiple of " +
                          std::to_string(matmul_row_tile) + " (the GEMM row tile) for results not to depend on the rank count");
}

// A new run file's root attributes: the config, the model, the data and its tokenizer.
static RunMeta run_meta(const Config& cfg, const TokenData& data, const Model& model, const std::string& config_yaml,
                        const std::string& cell_id, const std::vector<std::string>& tensor_names) {
  RunMeta meta;
  meta.config_yaml = config_yaml;
  meta.cell_id = cell_id;
  meta.tensor_names = tensor_names;
  meta.n_params = model.num_params();
  meta.entropy_rate = data.entropy_rate;
  meta.coverage = RecipeCoverage{}.summary();
  meta.fingerprint = numerics_fingerprint(cfg.recipe);
  meta.data_source = data.description;
  for (const auto& f : data.files) meta.data_files += f + "\n";
  meta.data_tokens = data.tokens;
  meta.data_hash = data.hash;
  meta.tokenizer = data.tokenizer;
  meta.tokenizer_hash = data.tokenizer_hash;
  meta.tokenizer_library = data.tokenizer_library;
  meta.tokenizer_vocab = data.tokenizer_vocab;
  meta.data_split = data.split;
  meta.data_sources = data.sources;
  meta.val_bytes_per_token = val_bytes_per_token(data, val_window_count(data, cfg), cfg.model.seq_len);
  meta.train_bytes_per_token = data.train.empty() || data.token_bytes.empty()
                                   ? std::nan("")
                                   : double(data.train_text_bytes) / double(data.train.size());
  meta.data_epochs = double(cfg.train.tokens) / double(data.train.size());
  meta.flops_per_token = model_flops_per_token(cfg.model);
  return meta;
}

// A telemetry step's records with their step and run-file tensor index (the observers give the
// linear layer's index).
template <class Record>
static const std::vector<Record>& placed(std::vector<Record>& records, int64_t step,
                                         const std::vector<int32_t>& linear_param) {
  for (Record& r : records) r.step = step, r.tensor = linear_param[size_t(r.tensor)];
  return records;
}

static std::vector<LayerNormRecord> layer_norm_records(const std::vector<TensorNorms>& norms, int64_t step) {
  std::vector<LayerNormRecord> out;
  for (size_t i = 0; i < norms.size(); ++i)
    out.push_back({step, int32_t(i), float(norms[i].grad), float(norms[i].update), float(norms[i].m), float(norms[i].v)});
  return out;
}

// One function from setup to the final checkpoint (about 190 lines): the step loop's exits (failed,
// diverged, interrupted, done) each close the run file and the checkpoint from the same state, so
// they stay beside the loop; the setup and the per-step records are the helpers above.
TrainResult train(const Config& cfg, const TrainOptions& opt) {
  TrainResult result;
  if (opt.threads > 0) omp_set_num_threads(opt.threads);
  const std::string run_path = opt.out_path;
  const std::string ckpt_path = checkpoint_path_for(run_path);
  const std::string cell_id = opt.cell_id.empty() ? config_id(cfg) : opt.cell_id;
  Collective single;
  Collective& comm = opt.collective ? *opt.collective : single;
  const bool lead = comm.rank() == 0;  // writes the run file and the checkpoints
  // Rank 0 decides whether the run is finished (and so skipped) and whether it resumes.
  const bool finished = opt.resume && !read_status_if_finished(run_path, result).empty();
  if (comm.broadcast(finished)) {
    if (!lead) result.skipped = true, result.status = RunStatus::done;  // rank 0 reports what it was
    return result;
  }
  check_rank_count(cfg, comm.size());

  const TokenData data = load_data(cfg.data, cfg.model.seq_len);
  Model model(cfg.model, run_recipe(cfg));
  model.init_parameters(cfg.train.seed);
  model.set_data_parallel(cfg.train.batch_shards, &comm);
  std::optional<NonfiniteProbe> probe = opt.nonfinite_probe;
  if (probe) model.attach(&*probe);
  GemmCounters counters(model);  // what ran, for the recipe manifest
  model.attach(&counters);
  std::vector<std::string> tensor_names;  // every parameter; records index this list
  std::vector<int32_t> linear_param;      // linear index -> parameter index
  for (const ParamInfo& p : model.params()) {
    if (p.is_linear) linear_param.push_back(int32_t(tensor_names.size()));
    tensor_names.push_back(p.name);
  }
  AdamW adam(cfg.optim, model.params(), model.num_params());

  const int B = cfg.train.batch_size, T = cfg.model.seq_len;
  const int64_t tokens_per_step = int64_t(B) * T;
  const int64_t total_steps = (cfg.train.tokens + tokens_per_step - 1) / tokens_per_step;
  const int64_t val_every = std::max<int64_t>(1, cfg.train.val_interval_tokens / tokens_per_step);

  CheckpointState state;
  state.config_yaml = canonical_yaml(cfg);
  state.cell_id = cell_id;
  state.seed = cfg.train.seed;

  std::optional<RunWriter> writer;  // rank 0 only
  std::vector<ManifestEntry> carried_uses;  // GEMM uses before this session (from the checkpoint)
  const bool resume = comm.broadcast(opt.resume && std::filesystem::exists(ckpt_path) && std::filesystem::exists(run_path));
  if (resume) {
    state = load_checkpoint(ckpt_path, model, &adam);
    carried_uses = parse_manifest(state.gemm_uses);
    if (lead) writer.emplace(RunWriter::reopen(run_path, state.step));
  } else if (lead) {
    std::filesystem::remove(ckpt_path);
    writer.emplace(RunWriter::create(run_path, run_meta(cfg, data, model, state.config_yaml, cell_id, tensor_names)));
  }

  if (writer)
    writer->set_machine(omp_get_max_threads(), measure_gemm_peak_gflops(), gemm_engine_name(gemm_engine()),
                        to_string(fp4_kernel()));
  const double flops_per_step = model_flops_per_token(cfg.model) * double(tokens_per_step);

  std::vector<int32_t> batch(static_cast<size_t>(B) * (T + 1));
  const int local_b = B / comm.size();  // this rank's sequences of each batch
  const int32_t* local_batch = batch.data() + int64_t(comm.rank()) * local_b * (T + 1);
  // Telemetry steps attach these (rank 0 only: its shards).
  std::vector<QuantStatRecord> quant;
  std::vector<GnrRecord> gnr;
  std::vector<FidelityRecord> fidelity;
  QuantStatsObserver quant_stats(&quant);
  GnrObserver gnr_observer(&gnr);
  FidelityObserver fidelity_observer(model, &fidelity);
  std::vector<GemmObserver*> telemetry_observers = {&quant_stats, &gnr_observer};
  if (cfg.train.fidelity) telemetry_observers.push_back(&fidelity_observer);
  std::vector<TensorNorms> norms;
  const auto t_start = std::chrono::steady_clock::now();
  int64_t tokens_this_session = 0;

  auto write_manifest = [&] {
    if (!writer) return std::vector<ManifestEntry>{};
    const auto entries = manifest_entries(counters, carried_uses);
    const RecipeCoverage coverage = recipe_coverage(entries, model.linear_names());
    writer->set_manifest(manifest_yaml(entries, coverage), coverage.summary());
    return entries;
  };
  auto checkpoint = [&] {
    if (!lead) return;
    state.gemm_uses = serialize_manifest(write_manifest());
    save_checkpoint(ckpt_path, state, model, &adam);
    writer->flush();
  };
  // The sentinel fired: dump the tensor, end the run as failed (never done, never diverged).
  auto fail_nonfinite = [&](const NonfiniteError& e, int64_t step, const std::string& phase, int64_t completed) {
    if (!writer) comm.abort(3, "rank " + std::to_string(comm.rank()) + ": " + e.what());
    const SentinelRecord s = sentinel_record(e.finding, model, linear_param, step, phase);
    writer->set_sentinel(s);
    write_manifest();
    writer->set_status(RunStatus::failed, completed, s.summary());
    std::filesystem::remove(ckpt_path);
    result.status = RunStatus::failed;
    result.nonfinite = true;
    result.message = s.summary();
    if (comm.size() > 1) comm.abort(3, result.message);  // the run file says failed; stop the other ranks
    return result;
  };

  for (int64_t step = state.step + 1; step <= total_steps; ++step) {
    const auto t0 = std::chrono::steady_clock::now();
    sample_batch(data.train, cfg.train.seed, step, B, T, batch.data());
    const bool telemetry = cfg.train.telemetry_interval > 0 &&
                           (step == 1 || step % cfg.train.telemetry_interval == 0);
    quant.clear();
    gnr.clear();
    fidelity.clear();
    double loss = 0;
    try {
      const AttachedObservers attached(model, telemetry && lead ? telemetry_observers : std::vector<GemmObserver*>{});
      loss = model.forward_backward(local_batch, local_b, T, cfg.train.seed, step, state.tokens);
    } catch (const NonfiniteError& e) {
      return fail_nonfinite(e, step, "train", step - 1);
    }
    const int64_t tokens_after = state.tokens + tokens_per_step;
    const double lr = learning_rate(cfg.optim, cfg.train.tokens, tokens_after);
    const bool finite = std::isfinite(loss);
    double grad_norm = 0;
    if (finite) grad_norm = adam.step(model.param_data(), model.grad_data(), lr, &norms);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    state.step = step;
    state.tokens = tokens_after;
    if (step == 1) state.initial_loss = loss;
    if (writer)
      writer->add_step({step, tokens_after, loss, lr, grad_norm, secs, double(tokens_per_step) / secs,
                        flops_per_step / secs / 1e12});
    if (writer) {
      writer->add_quant_stats(placed(quant, step, linear_param));
      writer->add_gnr(placed(gnr, step, linear_param));
      writer->add_fidelity(placed(fidelity, step, linear_param));
      if (finite) writer->add_layer_norms(layer_norm_records(norms, step));
    }
    result.step = step;
    result.tokens = tokens_after;
    result.last_loss = loss;

    if (!finite || loss > cfg.train.diverge_factor * state.initial_loss) {
      std::ostringstream msg;
      msg << (finite ? "loss exploded: " : "non-finite loss: ") << loss << " at step " << step
          << " (initial " << state.initial_loss << ")";
      write_manifest();
      if (writer) writer->set_status(RunStatus::diverged, step, msg.str());
      if (lead) std::filesystem::remove(ckpt_path);
      result.status = RunStatus::diverged;
      result.message = msg.str();
      return result;
    }
    if (step % val_every == 0 || step == total_steps) {
      try {
        const double val = validation_loss(model, data, cfg, tokens_after);  // every rank, locally
        if (writer) writer->add_val({step, tokens_after, val});
      } catch (const NonfiniteError& e) {
        return fail_nonfinite(e, step, "validation", step);
      }
    }
    if (step == 1) write_manifest();  // coverage visible from the first step on

    tokens_this_session += tokens_per_step;
    if (opt.on_progress) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      opt.on_progress({step, total_steps, tokens_after, loss, tokens_this_session / std::max(1e-9, elapsed)});
    }
    const bool interrupted = comm.any((opt.stop && opt.stop->load()) || step == opt.stop_after_step);
    if (step < total_steps &&
        (interrupted || (cfg.train.checkpoint_interval > 0 && step % cfg.train.checkpoint_interval == 0)))
      checkpoint();
    if (interrupted && step < total_steps) {
      result.status = RunStatus::running;
      result.message = "interrupted at step " + std::to_string(step);
      return result;
    }
  }
  // The final weights stay next to the finished run file (fp4lab eval); the resume checkpoint goes.
  if (lead) {
    state.gemm_uses = serialize_manifest(write_manifest());
    save_checkpoint(final_checkpoint_path_for(run_path), state, model, &adam);
    writer->set_status(RunStatus::done, state.step);
    std::filesystem::remove(ckpt_path);
  }
  result.status = RunStatus::done;
  return result;
}

EvalResult evaluate_checkpoint(const std::string& ckpt, const std::string& text_path, int batch_size) {
  const CheckpointState s = read_checkpoint_state(ckpt);
  ConfigBuilder b;
  b.add_tree(parse_yaml_string(s.config_yaml, ckpt + ":config"));
  Config cfg = b.build();
  Model model(cfg.model, run_recipe(cfg));
  load_checkpoint(ckpt, model, nullptr);
  std::ifstream in(text_path, std::ios::binary);
  if (!in) throw ConfigError(SourceLoc{text_path, 0, 0}, "--text", "cannot open file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Tokenizer tok = data_tokenizer(cfg.data);
  const std::vector<int32_t> tokens = tok.encode(text);
  const int T = cfg.model.seq_len;
  const int64_t windows = val_windows(tokens, T);
  if (windows == 0) throw ConfigError(SourceLoc{text_path, 0, 0}, "--text", "text shorter than seq_len + 1 tokens");
  std::vector<int32_t> batch(static_cast<size_t>(batch_size) * (T + 1));
  EvalResult r;
  double sum = 0;
  int64_t bytes = 0;
  for (int64_t w = 0; w < windows; w += batch_size) {
    const int n = static_cast<int>(std::min<int64_t>(batch_size, windows - w));
    val_batch(tokens, w, n, T, batch.data());
    sum += model.forward_loss(batch.data(), n, T, s.tokens) * n;
    for (int64_t i = 0; i < int64_t(n) * (T + 1); ++i)
      if (i % (T + 1) != 0) bytes += tok.token_bytes()[size_t(batch[size_t(i)])];
  }
  r.loss = sum / double(windows);
  r.tokens = windows * T;
  r.bytes_per_token = double(bytes) / double(r.tokens);
  return r;
}

}  // namespace fp4lab
