// Checkpoints: parameters under Llama's names (PyTorch Linear layout [out, in], row-major),
// AdamW moments under adam_m/ and adam_v/, and the loop state (step, tokens, Adam t, RNG seed and
// counter, the recipe manifest so far) and the delayed-scaling amax histories, written atomically (temp file + rename) so a crash never
// leaves a torn checkpoint.
#pragma once
#include <cstdint>
#include <string>

#include "core/model/model.hpp"
#include "core/train/optimizer.hpp"

namespace fp4lab {

struct CheckpointState {
  std::string config_yaml;
  std::string cell_id;
  int64_t step = 0;    // optimizer steps completed
  int64_t tokens = 0;  // tokens consumed
  double initial_loss = 0;  // loss of step 1 (divergence reference)
  uint64_t seed = 0;   // all streams are counter-based: (seed, step) is the whole RNG state
  std::string gemm_uses;  // the recipe manifest so far (serialize_manifest, core/train/manifest.hpp)
};

void save_checkpoint(const std::string& path, const CheckpointState& state, Model& model, AdamW* opt);
// Loads parameters (and optimizer moments when opt is given) into an already-built model.
CheckpointState load_checkpoint(const std::string& path, Model& model, AdamW* opt);
// Only the state attributes (config etc.), without building a model.
CheckpointState read_checkpoint_state(const std::string& path);

// "<run>.ckpt.h5" for a run file "<run>.h5": the resume checkpoint, present only while unfinished.
std::string checkpoint_path_for(const std::string& run_path);
// "<run>.final.ckpt.h5": the final weights of a finished run (for fp4lab eval).
std::string final_checkpoint_path_for(const std::string& run_path);

}  // namespace fp4lab
