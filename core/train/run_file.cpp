// The run file's layout on top of core/io/h5 (no HDF5 headers here): RunWriter buffers records
// and appends them column by column, reopen() truncates for a resume, read_run() loads a file,
// finished or still being written. Every table column is declared once, in kTables. The layout is
// documented name by name in results/SCHEMA.md.
#include "core/train/run_file.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/io/h5.hpp"

namespace fp4lab {

namespace {
// RunMeta's data attributes, one row each for the writer, the reader and the pack.
struct TextAttr {
  const char* name;
  std::string RunMeta::*field;
};
constexpr TextAttr kDataTexts[] = {{"tokenizer", &RunMeta::tokenizer},
                                   {"tokenizer_hash", &RunMeta::tokenizer_hash},
                                   {"tokenizer_library", &RunMeta::tokenizer_library},
                                   {"data_split", &RunMeta::data_split},
                                   {"data_sources", &RunMeta::data_sources}};
struct NumberAttr {
  const char* name;
  double RunMeta::*field;
};
constexpr NumberAttr kDataNumbers[] = {{"val_bytes_per_token", &RunMeta::val_bytes_per_token},
                                       {"train_bytes_per_token", &RunMeta::train_bytes_per_token},
                                       {"data_epochs", &RunMeta::data_epochs}};

void write_data_attrs(h5::File& f, const std::string& obj, const RunMeta& m) {
  for (const auto& a : kDataTexts) f.set_attr(obj, a.name, m.*a.field);
  for (const auto& a : kDataNumbers) f.set_attr(obj, a.name, m.*a.field);
  f.set_attr(obj, "tokenizer_vocab", m.tokenizer_vocab);
}

void read_data_attrs(const h5::File& f, const std::string& obj, RunMeta& m) {
  for (const auto& a : kDataTexts)
    if (f.has_attr(obj, a.name)) m.*a.field = f.attr_string(obj, a.name);
  for (const auto& a : kDataNumbers)
    if (f.has_attr(obj, a.name)) m.*a.field = f.attr_double(obj, a.name);
  if (f.has_attr(obj, "tokenizer_vocab")) m.tokenizer_vocab = f.attr_int(obj, "tokenizer_vocab");
}
}  // namespace

namespace {

using Clock = std::chrono::steady_clock;

// ------------------------------------------------------------------------------------- tables
// The run file's tables, each declared once: its group, the RunData member holding its records,
// and per column the record member it stores, its dataset name, its `units`, `long_name` (a short
// label; xarray labels plot axes with it and the units) and `description` (also written as dataset
// attributes, so a file explains itself in xarray, h5py and h5dump), the schema version that added
// it (a reader fills a later column of an older file with NaN) and its flags. The writer, the
// readers, the curves pack, the attributes and the dimension scales all walk these lists: a new
// column is one line here (and a row in results/SCHEMA.md).
//
// netCDF-4 layout (schema 5), so that xarray opens every group as it is: each table's `step`
// column (kDim) is the dimension scale `step` of the table's group (a coordinate variable) and
// every other column is attached to it; the data columns name the table's auxiliary coordinates
// (kCoord) in a CF `coordinates` attribute. In the telemetry tables `step` repeats: one row per
// tensor (and GEMM and operand) of a step.

enum ColumnFlags : unsigned {
  kPacked = 1,  // a curves pack keeps it (the columns the analysis reads; see write_packed_run)
  kCoord = 2,   // an auxiliary coordinate along `step` (steps/tokens, quant/tensor, ...)
};

// How a record member is stored: an enum (GemmRole, Operand) as its underlying integer.
template <class M>
struct StoredAs {
  using type = M;
};
template <class M>
  requires std::is_enum_v<M>
struct StoredAs<M> {
  using type = std::underlying_type_t<M>;
};

template <class Rec, class M>
struct Column {
  M Rec::*member;
  const char* name;
  const char* units;
  const char* long_name;
  const char* description;
  int64_t since = 1;
  unsigned flags = 0;
  using Stored = typename StoredAs<M>::type;
};

template <class Rec, class... Cols>
struct Table {
  const char* name;                    // the group
  std::vector<Rec> RunData::*records;  // where read_run puts its rows (and RunWriter buffers them)
  bool telemetry;                      // quant, layers, gnr, fidelity: skipped by read_run(path, false), never packed
  std::tuple<Cols...> columns;
};
template <class Rec, class... Cols>
constexpr Table<Rec, Cols...> table(const char* name, std::vector<Rec> RunData::*records, bool telemetry,
                                    Cols... columns) {
  return {name, records, telemetry, {columns...}};
}

constexpr const char* kDim = "step";  // every table's first column and the dimension of its group

constexpr auto kTables = std::tuple{
    table("steps", &RunData::steps, false,
          Column{&StepRecord::step, "step", "1", "optimizer step", "optimizer step, 1-based", 1, kPacked},
          Column{&StepRecord::tokens, "tokens", "tokens", "training tokens", "training tokens consumed after this step",
                 1, kPacked | kCoord},
          Column{&StepRecord::train_loss, "train_loss", "nats/token", "training loss",
                 "mean training cross-entropy of this step's batch", 1, kPacked},
          Column{&StepRecord::lr, "lr", "1", "learning rate", "learning rate used in this step"},
          Column{&StepRecord::grad_norm, "grad_norm", "1", "gradient norm", "global L2 norm of the gradient before clipping"},
          Column{&StepRecord::step_seconds, "step_seconds", "s", "step time", "wall time of this step", 1, kPacked},
          Column{&StepRecord::tokens_per_second, "tokens_per_second", "tokens/s", "throughput",
                 "training tokens of this step / step_seconds", 3},
          Column{&StepRecord::model_tflops, "model_tflops", "TFLOP/s", "model TFLOP/s",
                 "model FLOPs of this step (flops_per_token x tokens) / step_seconds / 1e12", 3}),
    table("val", &RunData::val, false,
          Column{&ValRecord::step, "step", "1", "optimizer step", "step after which validation ran", 1, kPacked},
          Column{&ValRecord::tokens, "tokens", "tokens", "training tokens", "training tokens consumed at that step", 1,
                 kPacked | kCoord},
          Column{&ValRecord::loss, "loss", "nats/token", "validation loss", "mean validation cross-entropy", 1, kPacked}),
    table("quant", &RunData::quant, true,
          Column{&QuantStatRecord::step, "step", "1", "telemetry step", "telemetry step"},
          Column{&QuantStatRecord::tensor, "tensor", "index", "tensor", "index into the root attribute tensor_names", 1,
                 kCoord},
          Column{&QuantStatRecord::role, "role", "code", "GEMM", "GEMM: 0=fprop 1=dgrad 2=wgrad", 1, kCoord},
          Column{&QuantStatRecord::operand, "operand", "code", "GEMM input",
                 "GEMM input: 0=a (fprop x, dgrad dy, wgrad dy), 1=b (fprop w, dgrad w, wgrad x)", 1, kCoord},
          Column{&QuantStatRecord::amax, "amax", "1", "amax", "max |value| of the operand before quantization"},
          Column{&QuantStatRecord::frac_flushed, "frac_flushed", "fraction", "flushed to zero",
                 "nonzero values quantized to zero"},
          Column{&QuantStatRecord::frac_saturated, "frac_saturated", "fraction", "saturated",
                 "values clamped to the format's max"},
          Column{&QuantStatRecord::sqnr_db, "sqnr_db", "dB", "SQNR", "10 log10(sum x^2 / sum (x - q(x))^2)"},
          Column{&QuantStatRecord::scale_min, "scale_min", "1", "smallest block scale",
                 "smallest decoded block scale over valid blocks"},
          Column{&QuantStatRecord::scale_max, "scale_max", "1", "largest block scale",
                 "largest decoded block scale over valid blocks"},
          Column{&QuantStatRecord::scale_std, "scale_std", "1", "block scale std",
                 "standard deviation of decoded block scales"},
          Column{&QuantStatRecord::whatif_nvfp4_sqnr_db, "whatif_nvfp4_sqnr_db", "dB", "SQNR as nvfp4",
                 "SQNR of the same operand as plain nvfp4 (16, e4m3, 1d, rne)", 2},
          Column{&QuantStatRecord::whatif_mxfp4_sqnr_db, "whatif_mxfp4_sqnr_db", "dB", "SQNR as mxfp4",
                 "SQNR of the same operand as plain mxfp4 (32, ue8m0, 1d, rne)", 2},
          Column{&QuantStatRecord::bias_shrinkage, "bias_shrinkage", "1", "magnitude shrinkage",
                 "sum q*x / sum x^2 - 1, x what the quantizer rounds (after any RHT)", 4},
          Column{&QuantStatRecord::bias_mean, "bias_mean", "1", "mean bias",
                 "mean(q - x) / rms(x), x what the quantizer rounds (after any RHT)", 4},
          Column{&QuantStatRecord::sr_rms_k1, "sr_rms_k1", "1", "SR error, 1 draw",
                 "stochastic rounding: rms(one extra draw - x) / rms(x) on the leading rows; NaN otherwise", 4},
          Column{&QuantStatRecord::sr_rms_k4, "sr_rms_k4", "1", "SR error, mean of 4 draws",
                 "the same for the mean of 4 draws", 4},
          Column{&QuantStatRecord::sr_rms_k16, "sr_rms_k16", "1", "SR error, mean of 16 draws",
                 "the same for the mean of 16 draws", 4},
          Column{&QuantStatRecord::sr_rms_k64, "sr_rms_k64", "1", "SR error, mean of 64 draws",
                 "the same for the mean of 64 draws", 4}),
    table("layers", &RunData::layer_norms, true,
          Column{&LayerNormRecord::step, "step", "1", "optimizer step", "optimizer step"},
          Column{&LayerNormRecord::tensor, "tensor", "index", "tensor", "index into the root attribute tensor_names", 1,
                 kCoord},
          Column{&LayerNormRecord::grad_norm, "grad_norm", "1", "gradient norm", "L2 norm of this tensor's gradient"},
          Column{&LayerNormRecord::update_norm, "update_norm", "1", "update norm",
                 "L2 norm of this step's parameter update"},
          Column{&LayerNormRecord::adam_m_norm, "adam_m_norm", "1", "AdamW m norm", "L2 norm of AdamW's first moment"},
          Column{&LayerNormRecord::adam_v_norm, "adam_v_norm", "1", "AdamW v norm", "L2 norm of AdamW's second moment"}),
    table("gnr", &RunData::gnr, true,
          Column{&GnrRecord::step, "step", "1", "telemetry step", "telemetry step", 2},
          Column{&GnrRecord::tensor, "tensor", "index", "tensor", "index into the root attribute tensor_names", 2,
                 kCoord},
          Column{&GnrRecord::grad_norm, "grad_norm", "1", "fp32 gradient norm",
                 "L2 norm of the weight gradient from fp32 wgrad operands", 2},
          Column{&GnrRecord::noise_rms, "noise_rms", "1", "quantization noise rms",
                 "rms of (quantized-wgrad gradient - fp32 gradient)", 2},
          Column{&GnrRecord::gnr, "gnr", "1", "gradient-to-noise ratio",
                 "grad_norm / (noise_rms * sqrt(elements)); stalls below sqrt(3)", 2}),
    table("fidelity", &RunData::fidelity, true,
          Column{&FidelityRecord::step, "step", "1", "telemetry step", "telemetry step", 6},
          Column{&FidelityRecord::tensor, "tensor", "index", "tensor", "index into the root attribute tensor_names", 6,
                 kCoord},
          Column{&FidelityRecord::role, "role", "code", "GEMM", "GEMM output: 0=fprop Y 1=dgrad dX 2=wgrad dW", 6,
                 kCoord},
          Column{&FidelityRecord::rel_err, "rel_err", "1", "relative error vs fp32",
                 "||g - g_ref|| / ||g_ref||, g_ref the same GEMM output in an fp32 replay of the step", 6},
          Column{&FidelityRecord::gain, "gain", "1", "gain vs fp32", "<g, g_ref> / <g_ref, g_ref>", 6},
          Column{&FidelityRecord::cosine, "cosine", "1", "cosine vs fp32", "<g, g_ref> / (||g|| ||g_ref||)", 6},
          Column{&FidelityRecord::sr_bias, "sr_bias", "1", "SR bias",
                 "||mean of 8 SR redraws - g_local|| / ||g_local||, g_local the fp32 product of the same inputs; "
                 "NaN without an SR operand", 6},
          Column{&FidelityRecord::sr_rel_std, "sr_rel_std", "1", "SR draw spread",
                 "sqrt(sum_d ||g_d - mean||^2 / 7) / ||g_local|| over the 8 redraws; NaN without an SR operand", 6}),
};

template <class F>
void for_each_table(F&& f) {
  std::apply([&](const auto&... t) { (f(t), ...); }, kTables);
}
template <class T, class F>
void for_each_column(const T& table, F&& f) {
  std::apply([&](const auto&... c) { (f(c), ...); }, table.columns);
}

static_assert(std::apply([](const auto&... t) { return ((std::string_view(std::get<0>(t.columns).name) == kDim) && ...); },
                         kTables),
              "every table's first column is its dimension, step");

// A column's dataset: "table/name" in a run file, "PREFIX/table/name" in a curves pack's cell group.
std::string col_path(const char* table, const char* name, const std::string& prefix = "") {
  return (prefix.empty() ? std::string() : prefix + "/") + table + "/" + name;
}

// Creates column `c` of `table` with `rows` placeholders (NaN, or 0 for integers: a column a file
// of an older schema lacks; none in a new file).
template <class C>
void create_column(h5::File& f, const char* table, const C& c, uint64_t rows = 0) {
  using S = typename C::Stored;
  const std::vector<S> placeholders(rows, std::numeric_limits<S>::quiet_NaN());
  f.append(col_path(table, c.name), placeholders.data(), rows);
}

// Writes the attributes of table `t`'s columns (units, long_name, description; coordinates on the
// data columns) and makes `step` its group's dimension, attached to every other column.
// Idempotent: create() writes it, reopen() rewrites it (upgrading a file of an older schema).
template <class T>
void describe_table(h5::File& f, const T& t) {
  const std::string dim = col_path(t.name, kDim);
  f.make_dimension_scale(dim);
  std::string coordinates;  // "tokens", "tensor role operand", ...
  for_each_column(t, [&](const auto& c) {
    if (c.flags & kCoord) coordinates += (coordinates.empty() ? "" : " ") + std::string(c.name);
  });
  for_each_column(t, [&](const auto& c) {
    const std::string p = col_path(t.name, c.name);
    f.set_attr(p, "units", std::string(c.units));
    f.set_attr(p, "long_name", std::string(c.long_name));
    f.set_attr(p, "description", std::string(c.description));
    if (p == dim) return;
    f.attach_scale(p, dim, 0);
    if (!(c.flags & kCoord) && !coordinates.empty()) f.set_attr(p, "coordinates", coordinates);
  });
}

// Gathers column `c` of a record vector, as stored.
template <class Rec, class C>
std::vector<typename C::Stored> gather(const std::vector<Rec>& recs, const C& c) {
  std::vector<typename C::Stored> out;
  out.reserve(recs.size());
  for (const auto& r : recs) out.push_back(static_cast<typename C::Stored>(r.*c.member));
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

// Rows of table `t` whose columns are all present: the shortest column (a reader racing a flush
// may see one column a batch longer than another). Columns newer than the file do not count; in
// a curves pack (`packed`) only the packed columns count.
template <class T>
uint64_t table_rows(const h5::File& f, const T& t, const std::string& prefix = "", bool packed = false) {
  uint64_t n = UINT64_MAX;
  for_each_column(t, [&](const auto& c) {
    if (packed && !(c.flags & kPacked)) return;
    const std::string p = col_path(t.name, c.name, prefix);
    if (f.has(p)) n = std::min(n, f.length(p));
    else if (c.since == 1) n = 0;
  });
  return n == UINT64_MAX ? 0 : n;
}

// Appends `recs` to the columns of table `t`.
template <class T, class Rec>
void append_table(h5::File& f, const T& t, const std::vector<Rec>& recs) {
  for_each_column(t, [&](const auto& c) {
    const auto v = gather(recs, c);
    f.append(col_path(t.name, c.name), v.data(), v.size());
  });
}

struct NotARunFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

RunStatus parse_run_status(const std::string& s) {
  RunStatus status{};
  if (!parse(s, status)) throw std::invalid_argument("unknown run status '" + s + "' (" + enum_choices<RunStatus>(", ") + ")");
  return status;
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
  RunData pending;  // the tables' records added since the last append
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
    for_each_table([this](const auto& t) {
      auto& recs = pending.*t.records;
      if (recs.empty()) return;
      append_table(file, t, recs);
      recs.clear();
    });
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

  // Queues records of one table for the next append.
  template <class Record>
  void add(std::vector<Record>& table, const std::vector<Record>& records) {
    table.insert(table.end(), records.begin(), records.end());
    maybe_flush();
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
  write_data_attrs(f, "/", meta);
  for_each_table([&](const auto& t) {
    for_each_column(t, [&](const auto& c) { create_column(f, t.name, c); });
    describe_table(f, t);
  });
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
  for_each_table([&](const auto& t) {
    const uint64_t rows = table_rows(f, t);
    const auto steps = rows ? f.read<int64_t>(col_path(t.name, kDim)) : std::vector<int64_t>();
    uint64_t keep = 0;  // records are appended in step order: keep the leading ones <= step
    while (keep < rows && steps[keep] <= step) ++keep;
    for_each_column(t, [&](const auto& c) {
      const std::string p = col_path(t.name, c.name);
      if (!f.has(p)) create_column(f, t.name, c, keep);
      f.truncate(p, keep);
    });
    describe_table(f, t);  // a file of an older schema gains this schema's attributes and dimensions
    if (std::string_view(t.name) == "steps" && keep > 0) impl->last_step = steps[keep - 1];
  });
  f.set_attr("/", "schema_version", kRunSchemaVersion);  // every column and dimension of this schema exists now
  f.set_attr("/", "status", to_string(RunStatus::running));
  f.set_attr("/", "status_step", step);
  f.set_attr("/", "status_message", "resumed after step " + std::to_string(step));
  f.flush();
  return RunWriter(std::move(impl));
}

void RunWriter::add_step(const StepRecord& r) {
  impl_->last_step = r.step;
  impl_->add(impl_->pending.steps, {r});
}

void RunWriter::add_val(const ValRecord& r) { impl_->add(impl_->pending.val, {r}); }
void RunWriter::add_quant_stats(const std::vector<QuantStatRecord>& rs) { impl_->add(impl_->pending.quant, rs); }
void RunWriter::add_layer_norms(const std::vector<LayerNormRecord>& rs) { impl_->add(impl_->pending.layer_norms, rs); }
void RunWriter::add_gnr(const std::vector<GnrRecord>& rs) { impl_->add(impl_->pending.gnr, rs); }
void RunWriter::add_fidelity(const std::vector<FidelityRecord>& rs) { impl_->add(impl_->pending.fidelity, rs); }

// The process's peak resident memory (VmHWM of /proc/self/status), MiB; NaN where unreadable.
static double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;  // kB
  return std::numeric_limits<double>::quiet_NaN();
}

void RunWriter::set_status(RunStatus s, int64_t at_step, const std::string& message) {
  impl_->write_pending();  // records first: a reader seeing `done` sees every step
  impl_->file.set_attr("/", "peak_rss_mib", peak_rss_mib());
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
  // Their axes are the netCDF dimensions (not variables) `row` and `col`; @row, @col index them.
  f.make_dimension("sentinel/row", shape[0]);
  f.make_dimension("sentinel/col", shape[1]);
  for (const auto& [name, long_name] : {std::pair{"sentinel/input", "tensor before quantization"},
                                        std::pair{"sentinel/dequant", "dequantized tensor"}}) {
    if (!f.has(name)) continue;
    f.attach_scale(name, "sentinel/row", 0);
    f.attach_scale(name, "sentinel/col", 1);
    f.set_attr(name, "units", std::string("1"));
    f.set_attr(name, "long_name", std::string(long_name));
  }
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

// The first `rows` values of the column at `path`; a column the file's schema predates (or a pack
// leaves out) reads as NaN (0 for integers).
template <class T>
std::vector<T> read_column(const h5::File& f, const std::string& path, uint64_t rows) {
  if (!f.has(path)) return std::vector<T>(rows, std::numeric_limits<T>::quiet_NaN());
  auto v = f.read<T>(path);
  v.resize(rows);
  return v;
}

// Reads table `t` under `prefix` ("" in a run file, the cell's group in a curves pack, which holds
// only the packed columns: `packed`) into d.*t.records.
template <class T>
void read_table(const h5::File& f, const T& t, const std::string& prefix, bool packed, RunData& d) {
  auto& recs = d.*t.records;
  recs.assign(table_rows(f, t, prefix, packed), {});
  if (recs.empty()) return;
  for_each_column(t, [&](const auto& c) {
    using C = std::decay_t<decltype(c)>;
    using M = std::remove_reference_t<decltype(recs[0].*c.member)>;
    const auto v = read_column<typename C::Stored>(f, col_path(t.name, c.name, prefix), recs.size());
    for (size_t i = 0; i < recs.size(); ++i) recs[i].*c.member = static_cast<M>(v[i]);
  });
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
  read_data_attrs(f, obj, d.meta);
  try {
    d.status = parse_run_status(attr_string_or(f, obj, "status", "running"));
  } catch (const std::invalid_argument& e) {
    throw NotARunFile(where + ": " + e.what());
  }
  d.status_step = f.has_attr(obj, "status_step") ? f.attr_int(obj, "status_step") : 0;
  d.status_message = attr_string_or(f, obj, "status_message", "");
}

// The curves (steps/ and val/) under `prefix`, as read_table.
void read_curves(const h5::File& f, const std::string& prefix, bool packed, RunData& d) {
  for_each_table([&](const auto& t) {
    if (!t.telemetry) read_table(f, t, prefix, packed, d);
  });
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
  for_each_table([&](const auto& t) {
    if (t.telemetry) read_table(f, t, "", false, d);
  });
  for (size_t i = 0; i < d.quant.size(); ++i)
    if (uint8_t(d.quant[i].role) > 2 || uint8_t(d.quant[i].operand) > 1)
      throw NotARunFile(path + ": quant row " + std::to_string(i) + " has an unknown role/operand code");
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
  write_data_attrs(f, group, d.meta);
  for_each_table([&](const auto& t) {
    if (t.telemetry) return;
    const auto& recs = d.*t.records;
    for_each_column(t, [&](const auto& c) {
      if (c.flags & kPacked) f.write(col_path(t.name, c.name, group), gather(recs, c), {recs.size()}, kPackDeflateLevel);
    });
  });
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
