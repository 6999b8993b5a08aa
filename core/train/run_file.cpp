// The run file's layout on top of core/io/h5 (no HDF5 headers here): RunWriter buffers records
// and appends them column by column, reopen() truncates for a resume, read_run() loads a file,
// finished or still being written. The layout is documented name by name in results/SCHEMA.md.
#include "core/train/run_file.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>

#include "core/io/h5.hpp"

namespace fp4lab {
namespace {

using Clock = std::chrono::steady_clock;

// Every column of every table: its type, units, meaning (also written as dataset attributes
// `units` and `description`, so a file explains itself in h5py / h5dump), the schema version
// that added it (a reader fills a later column of an older file with NaN), and whether a curves
// pack keeps it (the columns the analysis reads; see write_packed_run).
enum class ColType { i64, f64, f32, i32, u8 };
struct Column {
  const char* table;
  const char* name;
  ColType type;
  const char* units;
  const char* description;
  int64_t since = 1;
  bool packed = false;
};

constexpr Column kColumns[] = {
    {"steps", "step", ColType::i64, "1", "optimizer step, 1-based", 1, true},
    {"steps", "tokens", ColType::i64, "tokens", "training tokens consumed after this step", 1, true},
    {"steps", "train_loss", ColType::f64, "nats/token", "mean training cross-entropy of this step's batch", 1, true},
    {"steps", "lr", ColType::f64, "1", "learning rate used in this step"},
    {"steps", "grad_norm", ColType::f64, "1", "global L2 norm of the gradient before clipping"},
    {"steps", "step_seconds", ColType::f64, "s", "wall time of this step", 1, true},
    {"steps", "tokens_per_second", ColType::f64, "tokens/s", "training tokens of this step / step_seconds", 3},
    {"steps", "model_tflops", ColType::f64, "TFLOP/s", "model FLOPs of this step (flops_per_token x tokens) / step_seconds / 1e12", 3},
    {"val", "step", ColType::i64, "1", "step after which validation ran", 1, true},
    {"val", "tokens", ColType::i64, "tokens", "training tokens consumed at that step", 1, true},
    {"val", "loss", ColType::f64, "nats/token", "mean validation cross-entropy", 1, true},
    {"quant", "step", ColType::i64, "1", "telemetry step"},
    {"quant", "tensor", ColType::i32, "index", "index into the root attribute tensor_names"},
    {"quant", "role", ColType::u8, "code", "GEMM: 0=fprop 1=dgrad 2=wgrad"},
    {"quant", "operand", ColType::u8, "code",
     "GEMM input: 0=a (fprop x, dgrad dy, wgrad dy), 1=b (fprop w, dgrad w, wgrad x)"},
    {"quant", "amax", ColType::f32, "1", "max |value| of the operand before quantization"},
    {"quant", "frac_flushed", ColType::f32, "fraction", "nonzero values quantized to zero"},
    {"quant", "frac_saturated", ColType::f32, "fraction", "values clamped to the format's max"},
    {"quant", "sqnr_db", ColType::f32, "dB", "10 log10(sum x^2 / sum (x - q(x))^2)"},
    {"quant", "scale_min", ColType::f32, "1", "smallest decoded block scale over valid blocks"},
    {"quant", "scale_max", ColType::f32, "1", "largest decoded block scale over valid blocks"},
    {"quant", "scale_std", ColType::f32, "1", "standard deviation of decoded block scales"},
    {"quant", "whatif_nvfp4_sqnr_db", ColType::f32, "dB", "SQNR of the same operand as plain nvfp4 (16, e4m3, 1d, rne)", 2},
    {"quant", "whatif_mxfp4_sqnr_db", ColType::f32, "dB", "SQNR of the same operand as plain mxfp4 (32, ue8m0, 1d, rne)", 2},
    {"quant", "bias_shrinkage", ColType::f32, "1", "sum q*x / sum x^2 - 1, x what the quantizer rounds (after any RHT)", 4},
    {"quant", "bias_mean", ColType::f32, "1", "mean(q - x) / rms(x), x what the quantizer rounds (after any RHT)", 4},
    {"quant", "sr_rms_k1", ColType::f32, "1", "stochastic rounding: rms(one extra draw - x) / rms(x) on the leading rows; NaN otherwise", 4},
    {"quant", "sr_rms_k4", ColType::f32, "1", "the same for the mean of 4 draws", 4},
    {"quant", "sr_rms_k16", ColType::f32, "1", "the same for the mean of 16 draws", 4},
    {"quant", "sr_rms_k64", ColType::f32, "1", "the same for the mean of 64 draws", 4},
    {"layers", "step", ColType::i64, "1", "optimizer step"},
    {"layers", "tensor", ColType::i32, "index", "index into the root attribute tensor_names"},
    {"layers", "grad_norm", ColType::f32, "1", "L2 norm of this tensor's gradient"},
    {"layers", "update_norm", ColType::f32, "1", "L2 norm of this step's parameter update"},
    {"layers", "adam_m_norm", ColType::f32, "1", "L2 norm of AdamW's first moment"},
    {"layers", "adam_v_norm", ColType::f32, "1", "L2 norm of AdamW's second moment"},
    {"gnr", "step", ColType::i64, "1", "telemetry step", 2},
    {"gnr", "tensor", ColType::i32, "index", "index into the root attribute tensor_names", 2},
    {"gnr", "grad_norm", ColType::f32, "1", "L2 norm of the weight gradient from fp32 wgrad operands", 2},
    {"gnr", "noise_rms", ColType::f32, "1", "rms of (quantized-wgrad gradient - fp32 gradient)", 2},
    {"gnr", "gnr", ColType::f32, "1", "grad_norm / (noise_rms * sqrt(elements)); stalls below sqrt(3)", 2},
};
constexpr const char* kTables[] = {"steps", "val", "quant", "layers", "gnr"};

// A column's dataset: "table/name" in a run file, "PREFIX/table/name" in a curves pack's cell group.
std::string col_path(const char* table, const char* name, const std::string& prefix = "") {
  return (prefix.empty() ? std::string() : prefix + "/") + table + "/" + name;
}

const Column& find_column(const char* table, const char* name) {
  for (const auto& c : kColumns)
    if (std::string(c.table) == table && std::string(c.name) == name) return c;
  throw std::logic_error(std::string("run file: no column ") + table + "/" + name);
}

void create_empty_column(h5::File& f, const Column& c) {
  const std::string p = col_path(c.table, c.name);
  switch (c.type) {
    case ColType::i64: f.append<int64_t>(p, nullptr, 0); break;
    case ColType::f64: f.append<double>(p, nullptr, 0); break;
    case ColType::f32: f.append<float>(p, nullptr, 0); break;
    case ColType::i32: f.append<int32_t>(p, nullptr, 0); break;
    case ColType::u8: f.append<uint8_t>(p, nullptr, 0); break;
  }
  f.set_attr(p, "units", std::string(c.units));
  f.set_attr(p, "description", std::string(c.description));
}

template <class T>
void append_column(h5::File& f, const char* table, const char* name, const std::vector<T>& v) {
  f.append(col_path(table, name), v.data(), v.size());
}

// Gathers one field of a record vector into a column vector.
template <class T, class Rec, class Get>
std::vector<T> gather(const std::vector<Rec>& recs, Get get) {
  std::vector<T> out;
  out.reserve(recs.size());
  for (const auto& r : recs) out.push_back(static_cast<T>(get(r)));
  return out;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty() || names[i].find('\n') != std::string::npos)
      throw std::invalid_argument("run file: tensor name #" + std::to_string(i) +
                                  " is empty or contains a newline");
    if (i) out += '\n';
    out += names[i];
  }
  return out;
}

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t i = 0;
  while (true) {
    const size_t j = s.find('\n', i);
    out.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

// Rows of `table` whose columns are all present: the shortest column (a reader racing a flush
// may see one column a batch longer than another). Columns newer than the file do not count; in
// a curves pack (`packed`) only the packed columns count.
uint64_t table_rows(const h5::File& f, const char* table, const std::string& prefix = "", bool packed = false) {
  uint64_t n = UINT64_MAX;
  for (const auto& c : kColumns) {
    if (std::string(c.table) != table || (packed && !c.packed)) continue;
    const std::string p = col_path(c.table, c.name, prefix);
    if (f.has(p)) n = std::min(n, f.length(p));
    else if (c.since == 1) n = 0;
  }
  return n == UINT64_MAX ? 0 : n;
}

// The columns of the steps/ and val/ tables gathered from their records: sink(table, name, values)
// per column, in kColumns order. RunWriter appends them; write_packed_run writes the packed ones.
template <class Sink>
void step_columns(const std::vector<StepRecord>& steps, Sink&& sink) {
  sink("steps", "step", gather<int64_t>(steps, [](auto& r) { return r.step; }));
  sink("steps", "tokens", gather<int64_t>(steps, [](auto& r) { return r.tokens; }));
  sink("steps", "train_loss", gather<double>(steps, [](auto& r) { return r.train_loss; }));
  sink("steps", "lr", gather<double>(steps, [](auto& r) { return r.lr; }));
  sink("steps", "grad_norm", gather<double>(steps, [](auto& r) { return r.grad_norm; }));
  sink("steps", "step_seconds", gather<double>(steps, [](auto& r) { return r.step_seconds; }));
  sink("steps", "tokens_per_second", gather<double>(steps, [](auto& r) { return r.tokens_per_second; }));
  sink("steps", "model_tflops", gather<double>(steps, [](auto& r) { return r.model_tflops; }));
}

template <class Sink>
void val_columns(const std::vector<ValRecord>& val, Sink&& sink) {
  sink("val", "step", gather<int64_t>(val, [](auto& r) { return r.step; }));
  sink("val", "tokens", gather<int64_t>(val, [](auto& r) { return r.tokens; }));
  sink("val", "loss", gather<double>(val, [](auto& r) { return r.loss; }));
}

// A column a file written by an older schema lacks: `rows` placeholders (NaN, or 0 for integers).
void create_missing_column(h5::File& f, const Column& c, uint64_t rows) {
  create_empty_column(f, c);
  if (rows == 0) return;
  const std::string p = col_path(c.table, c.name);
  auto fill = [&](auto placeholder) {
    const std::vector<decltype(placeholder)> v(rows, placeholder);
    f.append(p, v.data(), rows);
  };
  switch (c.type) {
    case ColType::f32: fill(std::numeric_limits<float>::quiet_NaN()); break;
    case ColType::f64: fill(std::numeric_limits<double>::quiet_NaN()); break;
    case ColType::i64: fill(int64_t{0}); break;
    case ColType::i32: fill(int32_t{0}); break;
    case ColType::u8: fill(uint8_t{0}); break;
  }
}

struct NotARunFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

std::string to_string(RunStatus s) {
  switch (s) {
    case RunStatus::running: return "running";
    case RunStatus::done: return "done";
    case RunStatus::diverged: return "diverged";
    case RunStatus::failed: return "failed";
  }
  return "unknown";
}

RunStatus parse_run_status(const std::string& s) {
  if (s == "running") return RunStatus::running;
  if (s == "done") return RunStatus::done;
  if (s == "diverged") return RunStatus::diverged;
  if (s == "failed") return RunStatus::failed;
  throw std::invalid_argument("unknown run status '" + s + "' (running, done, diverged, failed)");
}

std::string SentinelRecord::summary() const {
  std::string s = "non-finite value at step " + std::to_string(step) + (phase == "validation" ? " (validation)" : "") +
                  ": " + tensor_name + " " + role + " " + operand;
  if (operand != "output") s += " " + where;
  if (block >= 0) s += ", block " + std::to_string(block);
  return s + ", index " + std::to_string(index) + " of [" + std::to_string(rows) + ", " + std::to_string(cols) + "]" +
         (format.empty() || format == "none" ? "" : " (" + format + ")");
}

// ------------------------------------------------------------------------------------- writer

struct RunWriter::Impl {
  std::string path;
  h5::File file;
  std::vector<StepRecord> steps;
  std::vector<ValRecord> val;
  std::vector<QuantStatRecord> quant;
  std::vector<LayerNormRecord> layers;
  std::vector<GnrRecord> gnr;
  Clock::time_point last_flush = Clock::now();
  int64_t last_step = 0;

  Impl(std::string p, h5::File f) : path(std::move(p)), file(std::move(f)) {}
  ~Impl() {
    try {
      flush_now();
    } catch (...) {
      // Destruction must not throw; the caller saw no error, the tail may be lost.
    }
  }

  void write_pending() {
    const auto append = [this](const char* table, const char* name, const auto& v) {
      append_column(file, table, name, v);
    };
    if (!steps.empty()) {
      step_columns(steps, append);
      steps.clear();
    }
    if (!val.empty()) {
      val_columns(val, append);
      val.clear();
    }
    if (!quant.empty()) {
      append_column(file, "quant", "step", gather<int64_t>(quant, [](auto& r) { return r.step; }));
      append_column(file, "quant", "tensor", gather<int32_t>(quant, [](auto& r) { return r.tensor; }));
      append_column(file, "quant", "role", gather<uint8_t>(quant, [](auto& r) { return r.role; }));
      append_column(file, "quant", "operand", gather<uint8_t>(quant, [](auto& r) { return r.operand; }));
      append_column(file, "quant", "amax", gather<float>(quant, [](auto& r) { return r.amax; }));
      append_column(file, "quant", "frac_flushed", gather<float>(quant, [](auto& r) { return r.frac_flushed; }));
      append_column(file, "quant", "frac_saturated", gather<float>(quant, [](auto& r) { return r.frac_saturated; }));
      append_column(file, "quant", "sqnr_db", gather<float>(quant, [](auto& r) { return r.sqnr_db; }));
      append_column(file, "quant", "scale_min", gather<float>(quant, [](auto& r) { return r.scale_min; }));
      append_column(file, "quant", "scale_max", gather<float>(quant, [](auto& r) { return r.scale_max; }));
      append_column(file, "quant", "scale_std", gather<float>(quant, [](auto& r) { return r.scale_std; }));
      append_column(file, "quant", "whatif_nvfp4_sqnr_db",
                    gather<float>(quant, [](auto& r) { return r.whatif_nvfp4_sqnr_db; }));
      append_column(file, "quant", "whatif_mxfp4_sqnr_db",
                    gather<float>(quant, [](auto& r) { return r.whatif_mxfp4_sqnr_db; }));
      append_column(file, "quant", "bias_shrinkage", gather<float>(quant, [](auto& r) { return r.bias_shrinkage; }));
      append_column(file, "quant", "bias_mean", gather<float>(quant, [](auto& r) { return r.bias_mean; }));
      append_column(file, "quant", "sr_rms_k1", gather<float>(quant, [](auto& r) { return r.sr_rms_k1; }));
      append_column(file, "quant", "sr_rms_k4", gather<float>(quant, [](auto& r) { return r.sr_rms_k4; }));
      append_column(file, "quant", "sr_rms_k16", gather<float>(quant, [](auto& r) { return r.sr_rms_k16; }));
      append_column(file, "quant", "sr_rms_k64", gather<float>(quant, [](auto& r) { return r.sr_rms_k64; }));
      quant.clear();
    }
    if (!layers.empty()) {
      append_column(file, "layers", "step", gather<int64_t>(layers, [](auto& r) { return r.step; }));
      append_column(file, "layers", "tensor", gather<int32_t>(layers, [](auto& r) { return r.tensor; }));
      append_column(file, "layers", "grad_norm", gather<float>(layers, [](auto& r) { return r.grad_norm; }));
      append_column(file, "layers", "update_norm", gather<float>(layers, [](auto& r) { return r.update_norm; }));
      append_column(file, "layers", "adam_m_norm", gather<float>(layers, [](auto& r) { return r.adam_m_norm; }));
      append_column(file, "layers", "adam_v_norm", gather<float>(layers, [](auto& r) { return r.adam_v_norm; }));
      layers.clear();
    }
    if (!gnr.empty()) {
      append_column(file, "gnr", "step", gather<int64_t>(gnr, [](auto& r) { return r.step; }));
      append_column(file, "gnr", "tensor", gather<int32_t>(gnr, [](auto& r) { return r.tensor; }));
      append_column(file, "gnr", "grad_norm", gather<float>(gnr, [](auto& r) { return r.grad_norm; }));
      append_column(file, "gnr", "noise_rms", gather<float>(gnr, [](auto& r) { return r.noise_rms; }));
      append_column(file, "gnr", "gnr", gather<float>(gnr, [](auto& r) { return r.gnr; }));
      gnr.clear();
    }
  }

  void flush_now() {
    write_pending();
    file.flush();
    last_flush = Clock::now();
  }

  void maybe_flush() {
    const std::chrono::duration<double> since = Clock::now() - last_flush;
    if (since.count() >= kRunFlushSeconds) flush_now();
  }
};

RunWriter::RunWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunWriter::RunWriter(RunWriter&&) noexcept = default;
RunWriter& RunWriter::operator=(RunWriter&&) noexcept = default;
RunWriter::~RunWriter() = default;

RunWriter RunWriter::create(const std::string& path, const RunMeta& meta) {
  const std::string names = join_names(meta.tensor_names);  // validate before touching the file
  auto impl = std::make_unique<Impl>(path, h5::File::create(path));
  h5::File& f = impl->file;
  f.set_attr("/", "schema_version", kRunSchemaVersion);
  f.set_attr("/", "config", meta.config_yaml);
  f.set_attr("/", "cell_id", meta.cell_id);
  f.set_attr("/", "status", to_string(RunStatus::running));
  f.set_attr("/", "status_step", int64_t{0});
  f.set_attr("/", "status_message", std::string());
  f.set_attr("/", "n_params", meta.n_params);
  f.set_attr("/", "entropy_rate", meta.entropy_rate);
  f.set_attr("/", "recipe_manifest", meta.recipe_manifest);
  f.set_attr("/", "coverage", meta.coverage);
  f.set_attr("/", "fingerprint", meta.fingerprint);
  f.set_attr("/", "tensor_names", names);
  f.set_attr("/", "data_source", meta.data_source);
  f.set_attr("/", "data_files", meta.data_files);
  f.set_attr("/", "data_tokens", meta.data_tokens);
  f.set_attr("/", "data_hash", meta.data_hash);
  f.set_attr("/", "flops_per_token", meta.flops_per_token);
  f.set_attr("/", "threads", meta.threads);
  f.set_attr("/", "gemm_peak_gflops", meta.gemm_peak_gflops);
  for (const auto& c : kColumns) create_empty_column(f, c);
  f.flush();
  return RunWriter(std::move(impl));
}

RunWriter RunWriter::reopen(const std::string& path, int64_t step) {
  auto impl = std::make_unique<Impl>(path, h5::File::open_rw(path));
  h5::File& f = impl->file;
  if (!f.has_attr("/", "schema_version")) throw std::runtime_error(path + ": not an fp4lab run file");
  const int64_t version = f.attr_int("/", "schema_version");
  if (version > kRunSchemaVersion)
    throw std::runtime_error(path + ": run file schema " + std::to_string(version) + " is newer than " +
                             std::to_string(kRunSchemaVersion));
  for (const char* table : kTables) {
    const uint64_t rows = table_rows(f, table);
    const auto steps = rows ? f.read<int64_t>(col_path(table, "step")) : std::vector<int64_t>();
    uint64_t keep = 0;  // records are appended in step order: keep the leading ones <= step
    while (keep < rows && steps[keep] <= step) ++keep;
    for (const auto& c : kColumns) {
      if (std::string(c.table) != table) continue;
      if (!f.has(col_path(c.table, c.name))) create_missing_column(f, c, keep);
      f.truncate(col_path(c.table, c.name), keep);
    }
    if (std::string(table) == "steps" && keep > 0) impl->last_step = steps[keep - 1];
  }
  f.set_attr("/", "schema_version", kRunSchemaVersion);  // every column of this schema exists now
  f.set_attr("/", "status", to_string(RunStatus::running));
  f.set_attr("/", "status_step", step);
  f.set_attr("/", "status_message", "resumed after step " + std::to_string(step));
  f.flush();
  return RunWriter(std::move(impl));
}

void RunWriter::add_step(const StepRecord& r) {
  impl_->steps.push_back(r);
  impl_->last_step = r.step;
  impl_->maybe_flush();
}

void RunWriter::add_val(const ValRecord& r) {
  impl_->val.push_back(r);
  impl_->maybe_flush();
}

void RunWriter::add_quant_stats(const std::vector<QuantStatRecord>& rs) {
  impl_->quant.insert(impl_->quant.end(), rs.begin(), rs.end());
  impl_->maybe_flush();
}

void RunWriter::add_layer_norms(const std::vector<LayerNormRecord>& rs) {
  impl_->layers.insert(impl_->layers.end(), rs.begin(), rs.end());
  impl_->maybe_flush();
}

void RunWriter::add_gnr(const std::vector<GnrRecord>& rs) {
  impl_->gnr.insert(impl_->gnr.end(), rs.begin(), rs.end());
  impl_->maybe_flush();
}

void RunWriter::set_status(RunStatus s, int64_t at_step, const std::string& message) {
  impl_->write_pending();  // records first: a reader seeing `done` sees every step
  impl_->file.set_attr("/", "status", to_string(s));
  impl_->file.set_attr("/", "status_step", at_step);
  impl_->file.set_attr("/", "status_message", message);
  impl_->flush_now();
}

void RunWriter::set_manifest(const std::string& recipe_manifest, const std::string& coverage) {
  impl_->file.set_attr("/", "recipe_manifest", recipe_manifest);
  impl_->file.set_attr("/", "coverage", coverage);
  impl_->flush_now();
}

void RunWriter::set_machine(int64_t threads, double gemm_peak_gflops, const std::string& gemm_engine,
                            const std::string& fp4_kernel) {
  impl_->file.set_attr("/", "threads", threads);
  impl_->file.set_attr("/", "gemm_peak_gflops", gemm_peak_gflops);
  impl_->file.set_attr("/", "gemm_engine", gemm_engine);
  impl_->file.set_attr("/", "fp4_kernel", fp4_kernel);
  impl_->flush_now();
}

void RunWriter::set_sentinel(const SentinelRecord& s) {
  h5::File& f = impl_->file;
  const std::vector<uint64_t> shape = {uint64_t(s.rows), uint64_t(s.cols)};
  f.write("sentinel/input", s.input, shape);
  if (!s.dequant.empty()) f.write("sentinel/dequant", s.dequant, shape);
  f.set_attr("sentinel", "step", s.step);
  f.set_attr("sentinel", "phase", s.phase);
  f.set_attr("sentinel", "tensor", int64_t(s.tensor));
  f.set_attr("sentinel", "tensor_name", s.tensor_name);
  f.set_attr("sentinel", "role", s.role);
  f.set_attr("sentinel", "operand", s.operand);
  f.set_attr("sentinel", "where", s.where);
  f.set_attr("sentinel", "format", s.format);
  f.set_attr("sentinel", "index", s.index);
  f.set_attr("sentinel", "block", s.block);
  f.set_attr("sentinel", "row", s.cols > 0 ? s.index / s.cols : int64_t(-1));
  f.set_attr("sentinel", "col", s.cols > 0 ? s.index % s.cols : int64_t(-1));
  f.set_attr("sentinel", "summary", s.summary());
  impl_->flush_now();
}

void RunWriter::flush() { impl_->flush_now(); }

const std::string& RunWriter::path() const { return impl_->path; }
int64_t RunWriter::last_step() const { return impl_->last_step; }

// ------------------------------------------------------------------------------------- reader

namespace {

// A column's first `rows` values; a column the file's schema predates (or a pack leaves out)
// reads as NaN.
template <class T>
std::vector<T> read_column(const h5::File& f, const char* table, const char* name, uint64_t rows,
                           const std::string& prefix = "") {
  const std::string p = col_path(table, name, prefix);
  if (!f.has(p)) return std::vector<T>(rows, std::numeric_limits<T>::quiet_NaN());
  auto v = f.read<T>(p);
  v.resize(rows);
  return v;
}

std::string attr_string_or(const h5::File& f, const std::string& obj, const char* name, const std::string& fallback) {
  return f.has_attr(obj, name) ? f.attr_string(obj, name) : fallback;
}

// The attributes of a run (on the root of a run file, on the cell's group of a curves pack) that
// describe it: its config, status and accounting. `where` names the run in error messages.
void read_run_attributes(const h5::File& f, const std::string& obj, const std::string& where, RunData& d) {
  if (!f.has_attr(obj, "schema_version"))
    throw NotARunFile(where + ": not an fp4lab run file (no schema_version attribute)");
  d.schema_version = f.attr_int(obj, "schema_version");
  if (d.schema_version > kRunSchemaVersion)
    throw NotARunFile(where + ": run file schema " + std::to_string(d.schema_version) +
                      " is newer than this fp4lab's " + std::to_string(kRunSchemaVersion));
  d.meta.config_yaml = attr_string_or(f, obj, "config", "");
  d.meta.cell_id = attr_string_or(f, obj, "cell_id", "");
  d.meta.tensor_names = split_names(attr_string_or(f, obj, "tensor_names", ""));
  d.meta.n_params = f.has_attr(obj, "n_params") ? f.attr_int(obj, "n_params") : 0;
  d.meta.entropy_rate = f.has_attr(obj, "entropy_rate") ? f.attr_double(obj, "entropy_rate") : -1.0;
  d.meta.recipe_manifest = attr_string_or(f, obj, "recipe_manifest", "");
  d.meta.coverage = attr_string_or(f, obj, "coverage", "");
  d.meta.fingerprint = attr_string_or(f, obj, "fingerprint", "");
  d.meta.data_source = attr_string_or(f, obj, "data_source", "");
  d.meta.data_files = attr_string_or(f, obj, "data_files", "");
  d.meta.data_tokens = f.has_attr(obj, "data_tokens") ? f.attr_int(obj, "data_tokens") : 0;
  d.meta.data_hash = attr_string_or(f, obj, "data_hash", "");
  d.meta.flops_per_token = f.has_attr(obj, "flops_per_token") ? f.attr_double(obj, "flops_per_token") : 0.0;
  d.meta.gemm_peak_gflops = f.has_attr(obj, "gemm_peak_gflops") ? f.attr_double(obj, "gemm_peak_gflops") : 0.0;
  d.meta.threads = f.has_attr(obj, "threads") ? f.attr_int(obj, "threads") : 0;
  try {
    d.status = parse_run_status(attr_string_or(f, obj, "status", "running"));
  } catch (const std::invalid_argument& e) {
    throw NotARunFile(where + ": " + e.what());
  }
  d.status_step = f.has_attr(obj, "status_step") ? f.attr_int(obj, "status_step") : 0;
  d.status_message = attr_string_or(f, obj, "status_message", "");
}

// The steps/ and val/ tables under `prefix` ("" in a run file; the cell's group in a curves pack,
// which holds only the packed columns: the others read as NaN).
void read_curves(const h5::File& f, const std::string& prefix, bool packed, RunData& d) {
  if (const uint64_t n = table_rows(f, "steps", prefix, packed)) {
    const auto step = read_column<int64_t>(f, "steps", "step", n, prefix);
    const auto tokens = read_column<int64_t>(f, "steps", "tokens", n, prefix);
    const auto loss = read_column<double>(f, "steps", "train_loss", n, prefix);
    const auto lr = read_column<double>(f, "steps", "lr", n, prefix);
    const auto gn = read_column<double>(f, "steps", "grad_norm", n, prefix);
    const auto secs = read_column<double>(f, "steps", "step_seconds", n, prefix);
    const auto tps = read_column<double>(f, "steps", "tokens_per_second", n, prefix);
    const auto tflops = read_column<double>(f, "steps", "model_tflops", n, prefix);
    d.steps.resize(n);
    for (uint64_t i = 0; i < n; ++i)
      d.steps[i] = StepRecord{step[i], tokens[i], loss[i], lr[i], gn[i], secs[i], tps[i], tflops[i]};
  }
  if (const uint64_t n = table_rows(f, "val", prefix, packed)) {
    const auto step = read_column<int64_t>(f, "val", "step", n, prefix);
    const auto tokens = read_column<int64_t>(f, "val", "tokens", n, prefix);
    const auto loss = read_column<double>(f, "val", "loss", n, prefix);
    d.val.resize(n);
    for (uint64_t i = 0; i < n; ++i) d.val[i] = ValRecord{step[i], tokens[i], loss[i]};
  }
}

RunData read_run_once(const std::string& path, bool with_telemetry) {
  auto f = h5::File::open_ro(path);
  RunData d;
  d.path = path;
  read_run_attributes(f, "/", path, d);
  read_curves(f, "", false, d);
  if ((d.has_sentinel = f.has_attr("sentinel", "summary"))) {
    SentinelRecord& s = d.sentinel;
    s.step = f.attr_int("sentinel", "step");
    s.phase = f.attr_string("sentinel", "phase");
    s.tensor = int32_t(f.attr_int("sentinel", "tensor"));
    s.tensor_name = f.attr_string("sentinel", "tensor_name");
    s.role = f.attr_string("sentinel", "role");
    s.operand = f.attr_string("sentinel", "operand");
    s.where = f.attr_string("sentinel", "where");
    s.format = f.attr_string("sentinel", "format");
    s.index = f.attr_int("sentinel", "index");
    s.block = f.attr_int("sentinel", "block");
    if (f.has("sentinel/input")) {
      std::vector<uint64_t> shape;
      if (with_telemetry) s.input = f.read<float>("sentinel/input", &shape);
      else shape = f.shape("sentinel/input");
      if (shape.size() == 2) s.rows = int64_t(shape[0]), s.cols = int64_t(shape[1]);
    }
    if (with_telemetry && f.has("sentinel/dequant")) s.dequant = f.read<float>("sentinel/dequant");
  }
  if (!with_telemetry) return d;
  if (const uint64_t n = table_rows(f, "quant")) {
    const auto step = read_column<int64_t>(f, "quant", "step", n);
    const auto tensor = read_column<int32_t>(f, "quant", "tensor", n);
    const auto role = read_column<uint8_t>(f, "quant", "role", n);
    const auto operand = read_column<uint8_t>(f, "quant", "operand", n);
    const auto amax = read_column<float>(f, "quant", "amax", n);
    const auto flushed = read_column<float>(f, "quant", "frac_flushed", n);
    const auto saturated = read_column<float>(f, "quant", "frac_saturated", n);
    const auto sqnr = read_column<float>(f, "quant", "sqnr_db", n);
    const auto smin = read_column<float>(f, "quant", "scale_min", n);
    const auto smax = read_column<float>(f, "quant", "scale_max", n);
    const auto sstd = read_column<float>(f, "quant", "scale_std", n);
    const auto whatif_nv = read_column<float>(f, "quant", "whatif_nvfp4_sqnr_db", n);
    const auto whatif_mx = read_column<float>(f, "quant", "whatif_mxfp4_sqnr_db", n);
    const auto shrinkage = read_column<float>(f, "quant", "bias_shrinkage", n);
    const auto bias_mean = read_column<float>(f, "quant", "bias_mean", n);
    const auto sr_k1 = read_column<float>(f, "quant", "sr_rms_k1", n);
    const auto sr_k4 = read_column<float>(f, "quant", "sr_rms_k4", n);
    const auto sr_k16 = read_column<float>(f, "quant", "sr_rms_k16", n);
    const auto sr_k64 = read_column<float>(f, "quant", "sr_rms_k64", n);
    d.quant.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      if (role[i] > 2 || operand[i] > 1)
        throw NotARunFile(path + ": quant row " + std::to_string(i) + " has an unknown role/operand code");
      d.quant[i] = QuantStatRecord{step[i],     tensor[i],    static_cast<GemmRole>(role[i]),
                                   static_cast<Operand>(operand[i]), amax[i], flushed[i], saturated[i],
                                   sqnr[i],     smin[i],      smax[i],      sstd[i],
                                   whatif_nv[i], whatif_mx[i], shrinkage[i], bias_mean[i],
                                   sr_k1[i],    sr_k4[i],     sr_k16[i],    sr_k64[i]};
    }
  }
  if (const uint64_t n = table_rows(f, "layers")) {
    const auto step = read_column<int64_t>(f, "layers", "step", n);
    const auto tensor = read_column<int32_t>(f, "layers", "tensor", n);
    const auto gn = read_column<float>(f, "layers", "grad_norm", n);
    const auto un = read_column<float>(f, "layers", "update_norm", n);
    const auto mn = read_column<float>(f, "layers", "adam_m_norm", n);
    const auto vn = read_column<float>(f, "layers", "adam_v_norm", n);
    d.layer_norms.resize(n);
    for (uint64_t i = 0; i < n; ++i) d.layer_norms[i] = LayerNormRecord{step[i], tensor[i], gn[i], un[i], mn[i], vn[i]};
  }
  if (const uint64_t n = table_rows(f, "gnr")) {
    const auto step = read_column<int64_t>(f, "gnr", "step", n);
    const auto tensor = read_column<int32_t>(f, "gnr", "tensor", n);
    const auto gn = read_column<float>(f, "gnr", "grad_norm", n);
    const auto noise = read_column<float>(f, "gnr", "noise_rms", n);
    const auto ratio = read_column<float>(f, "gnr", "gnr", n);
    d.gnr.resize(n);
    for (uint64_t i = 0; i < n; ++i) d.gnr[i] = GnrRecord{step[i], tensor[i], gn[i], noise[i], ratio[i]};
  }
  return d;
}

// HDF5's signature sits at offset 0 or at 512, 1024, 2048, ... (after a user block).
bool has_hdf5_signature(const std::string& path) {
  static const char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  std::ifstream in(path, std::ios::binary);
  const auto size = std::filesystem::file_size(path);
  for (uint64_t offset = 0; offset + 8 <= size; offset = offset ? offset * 2 : 512) {
    char buf[8];
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(buf, 8)) return false;
    if (std::equal(buf, buf + 8, kSignature)) return true;
  }
  return false;
}

}  // namespace

RunData read_run(const std::string& path, bool with_telemetry) {
  if (!std::filesystem::exists(path)) throw std::runtime_error(path + ": no such file");
  if (std::filesystem::file_size(path) > 0 && !has_hdf5_signature(path))
    throw std::runtime_error(path + ": not an HDF5 file (so not an fp4lab run file)");
  // A read racing the writer's flush can see half-updated metadata; such errors are transient.
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    try {
      return read_run_once(path, with_telemetry);
    } catch (const NotARunFile&) {
      throw;
    } catch (const std::runtime_error&) {
      if (attempt == kAttempts) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
    }
  }
}

// ---------------------------------------------------------------------------- curves packs

namespace {

// The long YAML texts of a packed run (config, recipe_manifest: about 20 KB a run, and
// repetitive) are stored as deflated UTF-8 bytes (uint8 [n]) rather than as attributes, which
// HDF5 cannot compress.
struct PackedText {
  const char* name;
  std::string RunMeta::*field;
};
constexpr PackedText kPackedTexts[] = {{"config", &RunMeta::config_yaml}, {"recipe_manifest", &RunMeta::recipe_manifest}};

}  // namespace

void write_packed_run(h5::File& f, const std::string& group, const RunData& d) {
  f.create_group(group);
  for (const auto& t : kPackedTexts) {
    const std::string& text = d.meta.*t.field;
    f.write(group + "/" + t.name, reinterpret_cast<const uint8_t*>(text.data()), {text.size()}, kPackDeflateLevel);
  }
  f.set_attr(group, "schema_version", d.schema_version);
  f.set_attr(group, "cell_id", d.meta.cell_id);
  f.set_attr(group, "status", to_string(d.status));
  f.set_attr(group, "status_step", d.status_step);
  f.set_attr(group, "status_message", d.status_message);
  f.set_attr(group, "n_params", d.meta.n_params);
  f.set_attr(group, "entropy_rate", d.meta.entropy_rate);
  f.set_attr(group, "coverage", d.meta.coverage);
  f.set_attr(group, "fingerprint", d.meta.fingerprint);
  f.set_attr(group, "data_source", d.meta.data_source);
  f.set_attr(group, "data_tokens", d.meta.data_tokens);
  f.set_attr(group, "data_hash", d.meta.data_hash);
  f.set_attr(group, "flops_per_token", d.meta.flops_per_token);
  f.set_attr(group, "threads", d.meta.threads);
  f.set_attr(group, "gemm_peak_gflops", d.meta.gemm_peak_gflops);
  const auto write = [&](const char* table, const char* name, const auto& v) {
    if (find_column(table, name).packed) f.write(col_path(table, name, group), v, {v.size()}, kPackDeflateLevel);
  };
  step_columns(d.steps, write);
  val_columns(d.val, write);
}

RunData read_packed_run(const h5::File& f, const std::string& group, const std::string& path) {
  if (!f.has(group)) throw std::runtime_error(path + ": no such group in the pack");
  RunData d;
  d.path = path;
  read_run_attributes(f, group, path, d);
  for (const auto& t : kPackedTexts) {
    const std::string p = group + "/" + t.name;
    if (!f.has(p)) throw NotARunFile(path + ": no " + t.name + " in the pack");
    const std::vector<uint8_t> bytes = f.read<uint8_t>(p);
    (d.meta.*t.field).assign(bytes.begin(), bytes.end());
  }
  read_curves(f, group, true, d);
  return d;
}

}  // namespace fp4lab
