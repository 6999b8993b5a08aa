// The training loop: builds the model and data from a resolved Config, trains for the token
// budget, writes the run file (every step) and checkpoints, resumes from a checkpoint bit for bit,
// ends a run failed when the non-finite sentinel fires (with the tensor dumped to the run file),
// and marks exploding runs diverged. Not the grid scheduler (experiments/grid).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/config/config.hpp"
#include "core/model/model.hpp"
#include "core/model/probes.hpp"
#include "core/train/run_file.hpp"

namespace fp4lab {

struct TrainProgress {
  int64_t step = 0, total_steps = 0, tokens = 0;
  double loss = 0, tokens_per_second = 0;
};

struct TrainOptions {
  std::string out_path;         // run file; the checkpoint is checkpoint_path_for(out_path)
  std::string cell_id;          // recorded in the run file (default: config_id(config))
  bool resume = true;           // continue from an existing checkpoint / skip a finished run
  int threads = 0;              // OpenMP threads (0: leave as is)
  const std::atomic<bool>* stop = nullptr;  // set (e.g. by SIGINT) to checkpoint and return early
  int64_t stop_after_step = -1;             // testing: stop (as if interrupted) after this step
  std::optional<NonfiniteProbe> nonfinite_probe;  // testing: NaN into one operand (the sentinel's test)
  std::function<void(const TrainProgress&)> on_progress;  // called after every step
  // Data parallelism (`mpirun -np K fp4lab train`): the ranks of this run (null: one rank). Each
  // rank trains its shards of every batch (train.batch_shards / K); rank 0 alone writes the run
  // file and checkpoints; every rank reads the checkpoint on resume.
  Collective* collective = nullptr;
};

struct TrainResult {
  RunStatus status = RunStatus::running;  // running = interrupted (resumable)
  int64_t step = 0, tokens = 0;
  double last_loss = 0;
  bool skipped = false;  // the run file was already finished
  bool nonfinite = false;  // failed because the non-finite sentinel fired (sentinel/ in the run file)
  std::string message;
};

TrainResult train(const Config& cfg, const TrainOptions& options);

// What a run file says of its run (status, last step, tokens and loss, message); skipped stays false.
TrainResult train_result_of(const RunData& run);

// Mean loss of a checkpoint's model on `text_path`, tokenized as its run's data was (fp4lab eval),
// over non-overlapping windows of seq_len + 1 tokens, and the text bytes per scored token.
struct EvalResult {
  double loss = 0, bytes_per_token = 1;
  int64_t tokens = 0;  // scored
};
EvalResult evaluate_checkpoint(const std::string& checkpoint_path, const std::string& text_path, int batch_size);

}  // namespace fp4lab
