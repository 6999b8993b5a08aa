// The run file: one HDF5 file per training run holding every step's losses, validation losses,
// per-tensor quantization statistics, per-layer optimizer norms, the resolved config and status.
// RunWriter appends as training goes (flushing regularly, readable while written); read_run loads
// a finished or in-progress file. Names are documented in results/SCHEMA.md.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fp4lab {

constexpr int64_t kRunSchemaVersion = 1;

enum class RunStatus { running, done, diverged, failed };
std::string to_string(RunStatus);
RunStatus parse_run_status(const std::string&);  // throws std::invalid_argument

struct StepRecord {  // one optimizer step
  int64_t step = 0;     // 1-based step index
  int64_t tokens = 0;   // tokens consumed after this step
  double train_loss = 0, lr = 0, grad_norm = 0, step_seconds = 0;
};

struct ValRecord {
  int64_t step = 0, tokens = 0;
  double loss = 0;
};

// GEMM roles and operands of a linear layer (spec §3).
enum class GemmRole : uint8_t { fprop = 0, dgrad = 1, wgrad = 2 };
enum class Operand : uint8_t { a = 0, b = 1 };  // fprop: a=X b=W; dgrad: a=dY b=W; wgrad: a=dY b=X
std::string to_string(GemmRole);
std::string operand_name(GemmRole, Operand);  // "x", "w", "dy"

struct QuantStatRecord {  // one quantized tensor at a telemetry step
  int64_t step = 0;
  int32_t tensor = 0;  // index into RunMeta::tensor_names ("layers.3.mlp.down_proj")
  GemmRole role = GemmRole::fprop;
  Operand operand = Operand::a;
  float amax = 0;
  float frac_flushed = 0, frac_saturated = 0, sqnr_db = 0;
  float scale_min = 0, scale_max = 0, scale_std = 0;  // decoded block scales over valid blocks
};

struct LayerNormRecord {  // per step, per parameter tensor
  int64_t step = 0;
  int32_t tensor = 0;
  float grad_norm = 0, update_norm = 0, adam_m_norm = 0, adam_v_norm = 0;
};

struct RunMeta {
  std::string config_yaml;  // resolved config
  std::string cell_id;
  std::vector<std::string> tensor_names;  // linear weights by Llama name
  int64_t n_params = 0;
  double entropy_rate = -1;  // nats/token of the synthetic corpus; -1 if unknown
  std::string recipe_manifest;  // YAML: per layer/role/operand the format applied and its count
  std::string fingerprint;      // numerics fingerprint (hash of quantizer outputs on canaries)
};

class RunWriter {
 public:
  // Creates `path` (status running). Writes to `path + ".part"` first?  No: the run file is
  // written in place; a file is complete only when attribute status != running.
  static RunWriter create(const std::string& path, const RunMeta& meta);
  // Reopens an interrupted run and truncates every series to the steps <= `step` (resume).
  static RunWriter reopen(const std::string& path, int64_t step);
  RunWriter(RunWriter&&) noexcept;
  ~RunWriter();

  void add_step(const StepRecord&);
  void add_val(const ValRecord&);
  void add_quant_stats(const std::vector<QuantStatRecord>&);
  void add_layer_norms(const std::vector<LayerNormRecord>&);
  void set_status(RunStatus, int64_t at_step, const std::string& message = "");
  void set_manifest(const std::string& recipe_manifest);
  void flush();

 private:
  struct Impl;
  explicit RunWriter(std::unique_ptr<Impl>);
  std::unique_ptr<Impl> impl_;
};

struct RunData {
  std::string path;
  RunMeta meta;
  RunStatus status = RunStatus::running;
  int64_t status_step = 0;
  std::string status_message;
  int64_t schema_version = 0;
  std::vector<StepRecord> steps;
  std::vector<ValRecord> val;
  std::vector<QuantStatRecord> quant;
  std::vector<LayerNormRecord> layer_norms;
};

// Reads a run file (also one still being written). Throws std::runtime_error on a file that is
// not an fp4lab run file.
RunData read_run(const std::string& path, bool with_telemetry = true);

}  // namespace fp4lab
