// fp4lab train (one run from a config file) and fp4lab eval (a checkpoint's loss on a text).
// Config resolution is core/config, the loop core/train/trainer; this file maps options, prints
// progress and a summary, and turns outcomes into exit codes (0 done, 1 failed/diverged, 3 stopped
// by the non-finite sentinel, 130 stopped by a signal).
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "core/train/checkpoint.hpp"
#include "core/train/trainer.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/grid/mpi.hpp"

namespace fp4lab::cli {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  g_stop.store(true);
}

void print_config_help() {
  const Config defaults;
  std::cout << "Config keys (YAML nesting or dotted --set key=value; `model:` and `recipe:` also take a preset name,\n"
               "each recipe operand such as recipe.quantized.fprop_x a format name):\n";
  size_t width = 0;
  for (const auto& f : config_fields()) width = std::max(width, f.path.size());
  for (const auto& f : config_fields())
    std::cout << "  " << f.path << std::string(width - f.path.size() + 2, ' ') << f.type << " = " << f.get(defaults)
              << "  # " << f.help << "\n";
  for (const char* group : {"model", "recipe"}) {
    std::cout << group << " presets:";
    for (const auto& n : preset_names(group)) std::cout << " " << n;
    std::cout << "\n";
  }
}

std::string fixed(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::ostream& null_stream() {
  static std::ostream null(nullptr);
  return null;
}

struct TrainArgs {
  std::string config, out;
  std::vector<std::string> sets;
  int threads = 0;
  int64_t log_every = 0;
  double collective_timeout = 600;
  bool print_config = false, help_config = false;
};

void train_command(const TrainArgs& a) {
  if (a.help_config) return print_config_help();
  if (a.config.empty()) throw Exit{kExitUsage, "train: a CONFIG.yaml is required (see fp4lab train --help)"};
  ConfigBuilder b;
  b.add_file(a.config);
  for (const auto& s : a.sets) b.add_override(s);
  const Config cfg = b.build();
  const std::string id = config_id(cfg);
  if (a.print_config) {
    std::cout << "# resolved config of " << a.config << ", id " << id << "\n" << canonical_yaml(cfg);
    return;
  }
  const std::string out = a.out.empty() ? (fs::path("results") / "runs" / (id + ".h5")).string() : a.out;
  if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path());

  const int64_t per_step = int64_t(cfg.train.batch_size) * cfg.model.seq_len;
  const int64_t total_steps = (cfg.train.tokens + per_step - 1) / per_step;
  const int64_t every = a.log_every > 0 ? a.log_every : std::max<int64_t>(1, total_steps / 20);

  // Under mpirun the ranks train one run together (data parallel); rank 0 alone prints and writes.
  std::unique_ptr<Collective> comm = grid::under_mpirun() ? grid::mpi_collective(a.collective_timeout) : nullptr;
  const bool lead = !comm || comm->rank() == 0;
  std::ostream& log = lead ? std::cout : null_stream();

  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  log << "train " << a.config << " (id " << id << "): " << cfg.recipe.name << " recipe, " << total_steps
      << " steps of " << per_step << " tokens";
  if (comm) log << " on " << comm->size() << " ranks";
  log << " -> " << out << std::endl;
  TrainOptions opt;
  opt.out_path = out;
  opt.threads = a.threads;
  opt.stop = &g_stop;
  opt.collective = comm.get();
  opt.on_progress = [&](const TrainProgress& p) {
    if (p.step % every != 0 && p.step != p.total_steps) return;
    log << "step " << p.step << "/" << p.total_steps << "  tokens " << p.tokens << "  loss " << fixed(p.loss, 4)
              << "  " << fixed(p.tokens_per_second / 1e3, 1) << "k tok/s" << std::endl;
  };
  const TrainResult r = train(cfg, opt);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);

  if (r.skipped) {
    log << out << " is already finished (" << to_string(r.status) << " at step " << r.step
              << "); delete it to train again\n";
    if (r.status != RunStatus::done) throw Exit{r.nonfinite ? kExitNonfinite : kExitRuntime, r.message};
    return;
  }
  switch (r.status) {
    case RunStatus::done: {
      if (!lead) return;
      const RunData d = read_run(out, false);
      std::cout << "done: " << r.step << " steps, " << r.tokens << " tokens, final train loss " << fixed(r.last_loss, 4);
      if (!d.val.empty()) {
        std::cout << ", val loss " << fixed(d.val.back().loss, 4);
        if (d.meta.val_bytes_per_token > 0)
          std::cout << " (" << fixed(d.val.back().loss / std::log(2.0) / d.meta.val_bytes_per_token, 4) << " bits/byte)";
      }
      if (d.meta.data_epochs > 1)
        std::cout << "; data repeats: the budget reads the training stream " << fixed(d.meta.data_epochs, 2) << " times";
      std::cout << "; run file " << out << "\n";
      return;
    }
    case RunStatus::running:
      log << "interrupted at step " << r.step << "; checkpoint " << checkpoint_path_for(out)
                << "; run the same command to resume\n";
      throw Exit{g_signal ? 128 + int(g_signal) : 130, ""};
    case RunStatus::diverged: throw Exit{kExitRuntime, "diverged: " + r.message + " (run file " + out + ")"};
    case RunStatus::failed:
      throw Exit{r.nonfinite ? kExitNonfinite : kExitRuntime,
                 "failed: " + r.message + (r.nonfinite ? " (tensor dumped to " + out + ":sentinel/)" : "")};
  }
}

struct EvalArgs {
  std::string checkpoint, text;
  int batch = 8;
};

void eval_command(const EvalArgs& a) {
  if (!fs::exists(a.checkpoint)) throw ConfigError(SourceLoc{a.checkpoint, 0, 0}, "CHECKPOINT", "no such file");
  const CheckpointState s = read_checkpoint_state(a.checkpoint);
  ConfigBuilder b;
  b.add_tree(parse_yaml_string(s.config_yaml, a.checkpoint + ":config"));
  const Config cfg = b.build();
  if (cfg.model.vocab < 256)
    throw ConfigError(SourceLoc{a.checkpoint, 0, 0}, "model.vocab",
                      "the checkpoint's model has a " + std::to_string(cfg.model.vocab) +
                          "-symbol vocabulary (synthetic data), not one for text");
  const EvalResult r = evaluate_checkpoint(a.checkpoint, a.text, a.batch);
  std::cout << "loss " << fixed(r.loss, 4) << " nats/token = " << fixed(r.loss / std::log(2.0) / r.bytes_per_token, 4)
            << " bits/byte (" << r.tokens << " tokens of " << cfg.data.tokenizer << ", " << fixed(r.bytes_per_token, 3)
            << " bytes/token; " << a.text << ", checkpoint at step " << s.step << ")\n";
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train one run from a config file");
  cmd->footer("Exit status: 0 done (or already finished); 1 diverged or a runtime error; 2 a usage or\n"
              "config error (file:line and key named); 3 a non-finite value stopped the run (failed);\n"
              "130/143 interrupted by SIGINT/SIGTERM after writing a checkpoint (rerun to resume). Under mpirun a\n"
              "rank that waits longer than --collective-timeout for the others stops the job with 1 (rerun to resume).");
  cmd->add_option("config", a->config, "config file (YAML); `base: FILE` inside it is applied first");
  cmd->add_option("--set", a->sets, "override a config key: key=value (repeatable)")->allow_extra_args(false);
  cmd->add_option("--out,-o", a->out, "run file (default results/runs/<id>.h5); its checkpoint is <run>.ckpt.h5");
  cmd->add_option("--threads,-t", a->threads, "OpenMP threads (default: all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--log-every", a->log_every, "print a progress line every N steps (default: 20 lines per run)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--print-config", a->print_config, "print the resolved config and its id, then exit");
  cmd->add_flag("--help-config", a->help_config, "list every config key with its type, default and meaning");
  cmd->add_option("--collective-timeout", a->collective_timeout,
                  "under mpirun: seconds a rank waits for the others before it stops the run (exit 1)")
      ->check(CLI::PositiveNumber);
  cmd->callback([a] { train_command(*a); });
}

void add_eval_command(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand("eval", "Mean loss of a checkpoint's model on a text file, tokenized as its run's data was: nats per token and bits per byte");
  cmd->add_option("checkpoint", a->checkpoint, "checkpoint file (<run>.ckpt.h5)")->required();
  cmd->add_option("--text", a->text, "text file, read as bytes")->required()->check(CLI::ExistingFile);
  cmd->add_option("--batch", a->batch, "sequences per forward pass")->check(CLI::PositiveNumber);
  cmd->callback([a] { eval_command(*a); });
}

}  // namespace fp4lab::cli
