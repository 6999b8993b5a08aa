// The run file: one HDF5 file per training run holding every step's losses, validation losses,
// per-tensor quantization statistics, per-layer optimizer norms, gradient-to-noise ratios, GEMM
// fidelity against an fp32 replay (schema 6), the resolved config, the recipe manifest, status,
// and the non-finite sentinel's dump if it fired.
// RunWriter appends as training goes (flushing regularly, readable while written); read_run loads
// a finished or in-progress file. Since schema 5 the file is also netCDF-4 (dimension scales), so
// xarray opens each group: xr.open_dataset(path, group="steps", engine="h5netcdf"). Names are
// documented in results/SCHEMA.md.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/model/telemetry.hpp"

namespace fp4lab {

namespace h5 {
class File;
}

constexpr int64_t kRunSchemaVersion = 6;

enum class RunStatus { running, done, diverged, failed };
template <>
struct EnumNames<RunStatus> {
  static constexpr EnumName<RunStatus> names[] = {{RunStatus::running, "running"},
                                                  {RunStatus::done, "done"},
                                                  {RunStatus::diverged, "diverged"},
                                                  {RunStatus::failed, "failed"}};
  static constexpr const char* unknown = "unknown";
};
RunStatus parse_run_status(const std::string&);  // parse(), but throws std::invalid_argument

struct StepRecord {  // one optimizer step
  int64_t step = 0;     // 1-based step index
  int64_t tokens = 0;   // tokens consumed after this step
  double train_loss = 0, lr = 0, grad_norm = 0, step_seconds = 0;
  // Throughput of this step (schema 3; NaN in older files): tokens / step_seconds, and model
  // FLOPs (RunMeta::flops_per_token x tokens) / step_seconds / 1e12.
  double tokens_per_second = 0, model_tflops = 0;
};

struct ValRecord {
  int64_t step = 0, tokens = 0;
  double loss = 0;
};

struct LayerNormRecord {  // per step, per parameter tensor
  int64_t step = 0;
  int32_t tensor = 0;  // index into RunMeta::tensor_names (which may list non-linear tensors too)
  float grad_norm = 0, update_norm = 0, adam_m_norm = 0, adam_v_norm = 0;
};

// What the non-finite sentinel found: the first NaN/Inf of a run (training step or validation
// pass) in a quantizer's input or output or a GEMM's output, and the tensor (with its quantized
// copy) as the GEMM reads it. Written under `sentinel/`.
struct SentinelRecord {
  int64_t step = 0;          // the training step (for validation: the step after which it ran)
  std::string phase;         // "train" or "validation"
  int32_t tensor = -1;       // index into RunMeta::tensor_names
  std::string tensor_name;   // Llama name of the linear layer
  std::string role;          // fprop | dgrad | wgrad
  std::string operand;       // x | w | dy, or "output"
  std::string where;         // input | transformed | dequant | output (see NonfiniteFinding)
  std::string format;        // describe() of the operand's QuantSpec ("none" for pass-through/outputs)
  int64_t rows = 0, cols = 0;
  int64_t index = -1;        // row-major index into [rows, cols]
  int64_t block = -1;        // the element's quantization block (scale index), -1 without blocks
  std::vector<float> input;    // [rows, cols]
  std::vector<float> dequant;  // [rows, cols] or empty
  std::string summary() const;  // one line: step, layer, role, operand, where, block, index
};

struct RunMeta {
  std::string config_yaml;  // resolved config
  std::string cell_id;
  std::vector<std::string> tensor_names;  // by Llama name; indexed by quant and layer records
  int64_t n_params = 0;
  double entropy_rate = -1;  // nats/token of the synthetic corpus; -1 if unknown
  std::string recipe_manifest;  // YAML: per layer/role/operand the format applied and its count
  std::string coverage;         // one line: how many linear layers ran quantized, in which formats
  std::string fingerprint;      // numerics fingerprint (hash of quantizer outputs on canaries)
  // What was read (schema 3): the data source's description, the files read ("PATH\tBYTES" per
  // line, in order), the stream's length in tokens and its FNV-1a hash (core/train/data.hpp).
  std::string data_source, data_files, data_hash;
  int64_t data_tokens = 0;
  // Throughput accounting (schema 3, core/train/throughput.hpp): model FLOPs per training token,
  // and the fp32 GEMM rate measured at the start of the latest session with its thread count.
  double flops_per_token = 0, gemm_peak_gflops = 0;
  int64_t threads = 0;
  // How the text became tokens and what a run reads of it (absent in older files: bytes, tail):
  // the tokenizer ("bytes", "bpe:4096", a model path; "" for synthetic data), its model's hash,
  // vocabulary and library; the validation split ("tail" | "documents") and a document corpus's
  // sources.tsv (package, version, licence); text bytes per token of the validation targets and of
  // the training stream (loss / ln 2 / bytes per token = bits per byte); and how many times the
  // budget reads the training stream (train.tokens / training tokens; > 1 repeats data).
  std::string tokenizer = "bytes", tokenizer_hash, tokenizer_library, data_split = "tail", data_sources;
  int64_t tokenizer_vocab = 256;
  double val_bytes_per_token = 1, train_bytes_per_token = 1, data_epochs = std::numeric_limits<double>::quiet_NaN();
};

// Writes one run file. Records are buffered in memory and appended to the file at most every
// kRunFlushSeconds of wall time (checked on each add_*), and always on set_status, set_manifest,
// flush() and destruction; every append is followed by an HDF5 flush, so a reader (read_run,
// h5py) opening the file at any time sees every record up to the last flush. Call flush() right
// after writing a checkpoint so the run file holds every step the checkpoint covers.
// Not thread-safe: one writer object per run, used from one thread.
constexpr double kRunFlushSeconds = 1.0;

class RunWriter {
 public:
  // Creates (or truncates) `path` in place with status `running` and empty series. There is no
  // temporary name: a run file is finished only once its `status` attribute is no longer
  // `running` (set_status with done/diverged/failed). Throws std::runtime_error on I/O errors,
  // std::invalid_argument on a tensor name containing a newline.
  static RunWriter create(const std::string& path, const RunMeta& meta);
  // Reopens an interrupted run for resuming from a checkpoint taken after step `step`: every
  // series (steps, val, quant, layers) is truncated to its records with step <= `step`, status is
  // set back to `running` (status_step = step).
  static RunWriter reopen(const std::string& path, int64_t step);
  RunWriter(RunWriter&&) noexcept;
  RunWriter& operator=(RunWriter&&) noexcept;
  ~RunWriter();  // flushes; never throws

  void add_step(const StepRecord&);
  void add_val(const ValRecord&);
  void add_quant_stats(const std::vector<QuantStatRecord>&);
  void add_layer_norms(const std::vector<LayerNormRecord>&);
  void add_gnr(const std::vector<GnrRecord>&);
  void add_fidelity(const std::vector<FidelityRecord>&);
  // Final (or interim) state; flushes. `at_step` is the last step the run completed.
  void set_status(RunStatus, int64_t at_step, const std::string& message = "");
  void set_manifest(const std::string& recipe_manifest, const std::string& coverage);
  // The GEMM peak measured at the start of this session and its thread count (a resumed run
  // records the latest session's).
  void set_machine(int64_t threads, double gemm_peak_gflops, const std::string& gemm_engine, const std::string& fp4_kernel);
  void set_sentinel(const SentinelRecord&);  // writes sentinel/ (once); flushes
  void flush();

  const std::string& path() const;
  int64_t last_step() const;  // step of the last add_step record (0 if none)

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
  std::vector<GnrRecord> gnr;
  std::vector<FidelityRecord> fidelity;  // schema 6; empty in older files
  bool has_sentinel = false;
  SentinelRecord sentinel;  // attributes always; input/dequant only with telemetry
};

// Reads a run file (also one still being written: a read that races a flush is retried a few
// times). Columns of one table cut at the shortest; columns added in a later schema read as NaN
// from an older file. `with_telemetry` = false skips quant, layers, gnr, fidelity and the sentinel's
// tensors (cheap status reads). Throws std::runtime_error on a file that is not an fp4lab run
// file or was written by a newer schema.
RunData read_run(const std::string& path, bool with_telemetry = true);

// ---------------------------------------------------------------------------- curves packs
// A curves pack (`fp4lab pack`, analysis/runs.hpp) holds each run as a group with what the
// analysis reads: the attributes cell_id, status, status_step, status_message, schema_version
// (the run file's), n_params, entropy_rate, coverage, fingerprint, data_source, data_tokens,
// data_hash, flops_per_token, threads, gemm_peak_gflops; the texts config and recipe_manifest as
// deflated UTF-8 byte datasets; the columns steps/{step, tokens, train_loss, step_seconds} and
// val/{step, tokens, loss} at their run-file types, deflated. Left out: the other steps/ columns,
// quant/, layers/, gnr/, fidelity/, sentinel/, tensor_names, data_files, gemm_engine, fp4_kernel
// (results/SCHEMA.md "Curves pack").

constexpr int kPackDeflateLevel = 6;  // zlib level of the packed columns (after a byte shuffle)

// Writes `run` (as read_run read it) under `group` of `pack`. Throws std::runtime_error.
void write_packed_run(h5::File& pack, const std::string& group, const RunData& run);
// Reads a run written by write_packed_run: the RunData read_run(path, false) gave, with the
// left-out columns NaN (lr, grad_norm, tokens_per_second, model_tflops), no telemetry, no
// sentinel, empty tensor_names and data_files. `path` becomes RunData::path ("PACK#cells/<id>").
// Throws std::runtime_error on a group that is missing or not a packed run.
RunData read_packed_run(const h5::File& pack, const std::string& group, const std::string& path);

}  // namespace fp4lab
