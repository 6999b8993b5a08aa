// Loading a grid's output directory for analysis: the grid manifest (which cells exist, their
// seeds and varying keys, the baseline, the analysis settings) and every run file; or the same
// from a curves pack, one small HDF5 file holding what the analysis reads of a grid directory.
// YAML is read and written only through core/config's Value tree. No metrics here (metrics.hpp).
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/formats/enum_names.hpp"
#include "core/config/value.hpp"
#include "core/train/run_file.hpp"

namespace fp4lab::analysis {

constexpr int64_t kManifestVersion = 1;
constexpr const char* kManifestFile = "manifest.yaml";  // written by the grid engine
constexpr const char* kGridFile = "grid.yaml";          // optional copy of the grid file

// ---------------------------------------------------------------------------- settings

// Which curve tokens-to-target crosses: the debiased-EMA-smoothed training loss, or the raw
// validation loss (validation is already an average over a held-out set).
enum class TargetCurve { train_ema, val };

// Enum names (core/formats/enum_names.hpp), also for calls from other namespaces and analysis::to_string.
using fp4lab::parse;
using fp4lab::to_string;

}  // namespace fp4lab::analysis

template <>
struct fp4lab::EnumNames<fp4lab::analysis::TargetCurve> {
  using TargetCurve = analysis::TargetCurve;
  static constexpr EnumName<TargetCurve> names[] = {{TargetCurve::train_ema, "train_ema"}, {TargetCurve::val, "val"}};
  static constexpr EnumName<TargetCurve> aliases[] = {{TargetCurve::train_ema, "train"}};
};

namespace fp4lab::analysis {

constexpr double kDefaultEma = 0.9;              // debiased EMA weight per logged step
constexpr double kDefaultWindowFraction = 0.25;  // converged window: last 25% of steps
constexpr double kDefaultConfidence = 0.95;      // two-sided Student-t CI over seeds
constexpr const char* kDefaultTarget = "baseline_final";
constexpr const char* kDefaultBudgetKey = "train.tokens";

// Every field optional: an unset field falls back to the manifest's `analysis` section, then to
// the defaults above (see resolve_settings). YAML keys (grid `analysis:` section / --set):
//   target: baseline_final | baseline_final_val | <loss in nats>
//   target_curve: train | val          (only for a numeric target; the rules imply their curve)
//   ema: 0.9                           (0 <= ema < 1; 0 = no smoothing)
//   window: 0.25                       (converged window = last fraction of the paired steps)
//   window_tokens: [2.0e6, 4.0e6]      (or an explicit token range; overrides window)
//   budget_key: train.tokens     (the key whose variation makes the multi-budget form)
//   confidence: 0.95
//   compare: [[{recipe: mxfp4}, {recipe: nvfp4}], ...]   (paired comparisons A vs B, see metrics.hpp)
//   claims: [{id, claim, source, compare: [A, B], metric, direction, published}, ...]   (findings.hpp)

// Cells selected by axis values, as `baseline:` selects them: axis (dotted key) -> value label.
using Selector = std::map<std::string, std::string>;

// A published claim that a grid tests: A − B of `metric` (converged_gap, final_gap or token_gap)
// has the sign `direction` (YAML a_worse = +1: A has the higher loss / needs more tokens;
// a_better = -1). A trend claim (loss_gap_trend: the final-loss gap; token_gap_trend) is about how
// that gap moves with model size across the grid's sizes (scaling.hpp): direction grows (+1) or
// shrinks (-1); `at` names a parameter count to extrapolate to.
struct Claim {
  std::string id;         // short name, unique across a findings suite
  std::string claim;      // the claim in words
  std::string source;     // the publication and section/figure the claim comes from
  Selector a, b;
  std::string metric = "converged_gap";
  int direction = 1;
  std::string published;  // the published number, as text ("+36% tokens", "+0.026 nats")
  std::string note;       // e.g. "shows only at scale"
  double at = std::numeric_limits<double>::quiet_NaN();  // trend claims: extrapolate to this many parameters
};
inline bool is_trend_metric(const std::string& m) { return m == "loss_gap_trend" || m == "token_gap_trend"; }

// An attribution ladder (a grid's `ladder:`, experiments/grid/grid.hpp): arms of one axis from a
// base to a target, each rung adding one component; each climb adds the components in its own
// order and passes its own arms. Kept in the manifest's analysis section as
//   ladder: {axis, components: [...], climbs: [{steps: [...], arms: [...]}, ...], target}
struct Ladder {
  std::string axis;                     // the arm axis
  std::vector<std::string> components;  // as the grid lists them
  struct Climb {
    std::vector<std::string> steps;  // the components in the order this climb adds them
    std::vector<std::string> arms;   // arms[0] the base; arms[i] after steps[0..i-1]
    bool operator==(const Climb&) const = default;
  };
  std::vector<Climb> climbs;  // at least one
  std::string target;         // the target arm (the last arm when the ladder ends at the target)
  bool operator==(const Ladder&) const = default;
};

struct AnalysisSettings {
  std::optional<std::string> target;
  std::optional<TargetCurve> target_curve;
  std::optional<double> ema;
  std::optional<double> window_fraction;
  std::optional<std::pair<double, double>> window_tokens;
  std::optional<std::string> budget_key;
  std::optional<double> confidence;
  std::vector<std::pair<Selector, Selector>> compare;  // (A, B) pairs; merged: overrides replace
  std::vector<Claim> claims;
  std::optional<Ladder> ladder;
};

enum class TargetRule { baseline_final, baseline_final_val, fixed };

struct ResolvedSettings {
  TargetRule target_rule = TargetRule::baseline_final;
  double target_value = 0;  // for TargetRule::fixed
  TargetCurve target_curve = TargetCurve::train_ema;
  double ema = kDefaultEma;
  double window_fraction = kDefaultWindowFraction;
  bool window_by_tokens = false;
  double window_tokens_min = 0, window_tokens_max = 0;
  std::string budget_key = kDefaultBudgetKey;
  double confidence = kDefaultConfidence;
  std::string target_text() const;  // "baseline_final", "baseline_final_val" or the number
  std::string window_text() const;  // "last 25% of steps" / "tokens in [a, b]"
};

// Reads an `analysis:` section. Unknown keys, wrong types and out-of-range values are
// ConfigErrors naming file:line and key.
AnalysisSettings parse_analysis_settings(const Value& section);
// Applies one "key=value" override (value in YAML syntax, e.g. "0.3" or "[1e6, 2e6]").
void set_analysis_setting(AnalysisSettings& s, const std::string& key, const std::string& value);
// Fields set in `overrides` replace those in `base`.
AnalysisSettings merge(AnalysisSettings base, const AnalysisSettings& overrides);
ResolvedSettings resolve_settings(const AnalysisSettings& manifest, const AnalysisSettings& overrides);
Value to_value(const AnalysisSettings&);  // only the set fields

// ---------------------------------------------------------------------------- manifest

struct CellInfo {
  int index = -1;
  std::string id;    // cell id (short hash of the resolved config)
  int64_t seed = 0;
  std::map<std::string, std::string> vary;  // varying keys (dotted paths) -> value as text
  std::string file;  // run file name relative to the directory; empty = id + ".h5"
};

struct GridManifest {
  std::string grid;  // source grid file (informational)
  std::vector<CellInfo> cells;
  std::map<std::string, std::string> baseline;  // key -> value that the baseline cells have
  AnalysisSettings settings;
};

// A seed key is "seed" or ends in ".seed"; config groups ignore seed keys.
bool is_seed_key(const std::string& key);
// The cell's varying keys minus the seed keys: cells with equal config keys form a config group.
std::map<std::string, std::string> config_key(const CellInfo&);
// "a=1, b=x" (or "(all cells)" when nothing varies).
std::string config_label(const std::map<std::string, std::string>& keys);
// Equal as text, or both numbers with the same value ("1e6" == "1000000").
bool values_equal(const std::string& a, const std::string& b);

GridManifest parse_grid_manifest(const Value& root);  // ConfigError on malformed content
// The directory's manifest.yaml, else a grid.yaml holding `cells`; nullopt if neither. A
// grid.yaml without cells still contributes `baseline` and `analysis` (cells then come from
// the run files, see load_grid).
std::optional<GridManifest> read_grid_manifest(const std::string& dir);
// Writes dir/manifest.yaml atomically (temporary file + rename). Throws std::runtime_error.
void write_grid_manifest(const std::string& dir, const GridManifest&);
std::string manifest_to_yaml(const GridManifest&);

// ---------------------------------------------------------------------------- run files

struct CellRun {
  CellInfo info;
  std::string path;           // run file path ("" if none)
  std::optional<RunData> run;  // absent: pending (no file yet) or unreadable (error set)
  std::string error;          // read error, if any
};

struct GridRuns {
  std::string dir;
  GridManifest manifest;
  bool manifest_found = false;       // false: cells derived from the run files' configs
  std::vector<CellRun> cells;        // manifest order (or file-name order when derived)
  std::vector<std::string> notes;    // things the analysis should tell the reader
};

// A run's resolved config (the run file's `config` attribute) as dotted key -> value text; empty
// when the attribute is missing or not YAML.
std::map<std::string, std::string> flat_config(const RunData& run);

// Every "*.h5" in `dir` that is not a checkpoint ("*.ckpt.h5") or a temporary file, sorted.
std::vector<std::string> list_run_files(const std::string& dir);

// Loads a grid directory. With a manifest, cells are the manifest's; run files named by no
// cell are noted and ignored. Without one, every run file is a cell: its varying keys are the
// config keys (flattened resolved-config YAML) whose values differ between run files, its seed
// the value of a seed key. Unreadable files become cells with `error` set; never throws for
// one bad file. `dir` may also be a curves pack (below): then the cells come from the pack
// (no telemetry, whatever `with_telemetry`; `path` = "PACK#cells/<id>"), with the note
// kPackNote. Throws std::runtime_error if `dir` is neither a directory nor a curves pack.
GridRuns load_grid(const std::string& dir, bool with_telemetry = true);

// Keeps the cells whose axis values match every `AXIS=V[,V...]` of `where` (the labels a cell's
// `vary` records, as `fp4lab run --where` takes them), and notes the selection. Throws
// std::invalid_argument naming an unknown axis or value, or a selection that keeps no cell.
void keep_cells(GridRuns& runs, const std::vector<std::string>& where);

// The grid's name in reports and findings: the `name:` of a directory's grid.yaml, else the
// directory's own name; a curves pack's `grid_name` attribute (the same, taken when it was packed).
std::string grid_name_of(const std::string& dir_or_pack);

// ---------------------------------------------------------------------------- curves packs
// `fp4lab pack DIR OUT.h5`: one HDF5 file (HDF5 1.10 format, deflated) with what analyze, report,
// plot and findings read of a grid directory, so a grid's curves can be committed and
// re-analysed without its run files; the analysis of a pack equals that of the directory except
// for paths and the telemetry-derived parts (quantization statistics, GNR). Layout
// (results/SCHEMA.md "Curves pack"): root attributes fp4lab_pack (kPackVersion), grid_name,
// manifest (manifest_to_yaml), notes (load_grid's notes, one per line), grid_yaml (DIR/grid.yaml,
// if any); per manifest cell with a run file a group cells/<id>: the run (write_packed_run), or
// for an unreadable file only the attribute `error`. Cells without a run file have no group.
constexpr int64_t kPackVersion = 1;
constexpr const char* kPackAttribute = "fp4lab_pack";
constexpr const char* kPackNote = "read from a curves pack: no telemetry";

struct PackSummary {
  int cells = 0, packed = 0, running = 0, pending = 0, unreadable = 0;
};

// Packs grid directory `dir` (it needs a manifest listing the cells) into `out`, atomically
// (a temporary file, then renamed; nothing left on failure). Throws std::runtime_error.
PackSummary write_curves_pack(const std::string& dir, const std::string& out);
// A regular file that is an HDF5 file with the fp4lab_pack attribute. Never throws.
bool is_curves_pack(const std::string& path);

}  // namespace fp4lab::analysis
