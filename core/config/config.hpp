// The typed run configuration: every field declared once (path, default, help) in config.cpp's
// field table, which drives the YAML reader, --set overrides, `fp4lab train --help-config`, the
// canonical resolved YAML (and so the cell id) and the run file's config attribute.
// Not the grid language (experiments/grid) and not the numerics.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/formats/enum_names.hpp"
#include "core/config/value.hpp"
#include "core/model/model.hpp"

namespace fp4lab {

enum class LrSchedule : uint8_t { cosine, wsd, constant };
template <>
struct EnumNames<LrSchedule> {
  static constexpr EnumName<LrSchedule> names[] = {
      {LrSchedule::cosine, "cosine"}, {LrSchedule::wsd, "wsd"}, {LrSchedule::constant, "constant"}};
};

struct OptimConfig {
  double lr = 1e-3;
  double min_lr_ratio = 0.1;   // final lr = lr * min_lr_ratio
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  double weight_decay = 0.1;   // decoupled (AdamW); not applied to norms
  double grad_clip = 1.0;      // global L2 norm; 0 = off
  LrSchedule schedule = LrSchedule::cosine;
  double warmup_fraction = 0.1;  // of train.tokens (used when warmup_tokens = 0)
  int64_t warmup_tokens = 0;
  double decay_fraction = 0.2;   // wsd: final fraction of tokens spent decaying
};

struct DataConfig {
  std::string source = "synthetic";  // "synthetic", a named corpus, or a text file / directory
  std::string tokenizer = "bytes";   // bytes | bpe:<vocab> | a SentencePiece .model path (core/io/tokenizer.hpp)
  double val_fraction = 0.05;        // held out: the stream's tail, or whole documents of a document corpus
  // Synthetic corpus: an order-2 Markov chain over `synthetic_vocab` symbols with an exactly
  // known entropy rate; the corpus is fixed by synthetic_seed (independent of train.seed).
  int synthetic_vocab = 8;
  int64_t synthetic_tokens = 1 << 21;
  uint64_t synthetic_seed = 1234;
  double synthetic_concentration = 0.3;  // smaller = peakier transitions = lower entropy
};

struct TrainConfig {
  uint64_t seed = 0;          // init, data order and stochastic rounding
  int batch_size = 16;        // sequences per step
  int64_t tokens = 1 << 20;   // training budget (tokens)
  int64_t val_interval_tokens = 1 << 17;
  int64_t val_tokens = 1 << 14;
  int telemetry_interval = 50;   // steps between telemetry (quant/, gnr/ in the run file; 0 = off)
  bool fidelity = true;          // telemetry steps also replay the step in fp32 (fidelity/ in the run file)
  int checkpoint_interval = 50;  // steps between checkpoints (0 = only at the end)
  int batch_shards = 4;          // data parallelism: gradients are summed over this many shards of
                                 // the batch (a power of two) in a fixed tree, so 1, 2, 4 ranks give
                                 // identical runs
  int ranks = 1;                 // MPI ranks a grid cell trains on (fp4lab run / slurm launch it so)
  double diverge_factor = 2.0;   // loss above factor * initial loss (or non-finite) = diverged
  // Budgets that follow the model and schedules that follow the budget (0 = off), resolved by
  // ConfigBuilder::build into train.tokens, val_interval_tokens and telemetry_interval.
  double tokens_per_param = 0;   // train.tokens = whole steps nearest to this x non-embedding params
  int val_count = 0;             // validations per run
  int telemetry_count = 0;       // telemetry steps per run
};

struct Config {
  ModelConfig model;
  RecipeConfig recipe;
  OptimConfig optim;
  DataConfig data;
  TrainConfig train;
};

// One declared field.
struct ConfigField {
  std::string path;  // dotted, e.g. "recipe.quantized.fprop_x.block"
  std::string type;  // "int", "float", "bool", "string" or "a|b|c" for enums
  std::string help;
  std::function<void(Config&, const Value&)> set;  // throws ConfigError
  std::function<std::string(const Config&)> get;   // canonical text
  // Left out of canonical_yaml (and so of the cell id) while at its default value: keys added after
  // results were published, so that configs not using them keep their ids.
  bool omit_default = false;
};
const std::vector<ConfigField>& config_fields();
const ConfigField* find_config_field(const std::string& path);
// The candidate closest to `word`: the shortest one it is a prefix of, else the smallest edit
// distance; for "did you mean" messages.
std::string closest_word(const std::string& word, const std::vector<std::string>& candidates);
// The declared config path closest to `path`.
std::string closest_config_key(const std::string& path);

// Preset groups: a scalar value at one of these paths names a YAML file in
// experiments/<dir>/<name>.yaml whose keys are applied under that path.
//   model: small      recipe: nvfp4      recipe.quantized.fprop_x: nvfp4 (a named operand format)
bool is_preset_group(const std::string& path);
std::vector<std::string> preset_names(const std::string& group);  // e.g. all recipe names
// FP4LAB_PRESETS env var, else relative to the running program: <prefix>/share/fp4lab/experiments
// for an installed fp4lab (<prefix>/bin/fp4lab), else the source tree's experiments/ for a binary
// in build/<preset>/.
std::string presets_dir();

struct ConfigEntry {
  std::string path;
  Value value;  // a scalar (or a list for list-typed fields); carries its file:line
};

// Collects config layers in order (later wins) and resolves them into a Config.
class ConfigBuilder {
 public:
  // A config file; a top-level `base: other.yaml` (relative to the file) is applied first.
  void add_file(const std::string& path);
  // A map of keys (nested or dotted) applied under `prefix`.
  void add_tree(const Value& map, const std::string& prefix = "");
  // One key: preset names are expanded here, maps are flattened.
  void add(const std::string& path, const Value& value);
  // "key=value" from the command line (value parsed as YAML).
  void add_override(const std::string& assignment, const std::string& source = "--set");

  const std::vector<ConfigEntry>& entries() const { return entries_; }
  // Defaults, then every entry; unknown keys, wrong types and impossible combinations throw
  // ConfigError naming the key and where it was set.
  Config build() const;

 private:
  std::vector<ConfigEntry> entries_;
};

// Where each key was set: its location and its position among the layers (-1: a default).
struct KeyOrigins {
  struct Origin {
    SourceLoc loc;
    int order = -1;
  };
  std::function<Origin(const std::string&)> find;
};

// Fills what other keys imply (ConfigBuilder::build calls it before validating): model.vocab from
// a subword data.tokenizer (unless set), train.tokens from train.tokens_per_param, the validation
// and telemetry intervals from train.val_count and train.telemetry_count. Of a derived key and
// the key it sets, the one set later wins (the other is reset to 0).
void resolve_derived(Config& c, const KeyOrigins& origins);

// Cross-field checks (head count divides d_model, block sizes divide dimensions, SR only where
// defined, ...). Errors name the key and the location that set it.
void validate_config(const Config& c, const KeyOrigins& origins = {});

// The precision schedule's switch point in tokens (0: never): recipe.switch_tokens, or
// ceil(switch_fraction · train.tokens), or where the learning rate starts to decay: wsd
// ceil((1 − optim.decay_fraction) · train.tokens), cosine the end of warmup. A step runs in high
// precision when the tokens consumed before it are >= this.
int64_t switch_point_tokens(const Config& c);
// The recipe a run trains with: c.recipe with a fraction/decay switch resolved to switch_at tokens.
RecipeConfig run_recipe(const Config& c);

// The data split: the tail llround(total · val_fraction) tokens are held out for validation.
int64_t held_out_tokens(int64_t total, double val_fraction);
// Why a stream of `total` tokens is too short for a run ("" if it is not): the training part must
// hold one batch of distinct windows (batch_size · (seq_len + 1) tokens) and the held-out part the
// validation windows the run asks for (max(1, val_tokens / seq_len) windows of seq_len + 1).
std::string data_too_short(int64_t total, double val_fraction, int seq_len, int batch_size, int64_t val_tokens);

// The canonical resolved config: every field in declaration order, as nested YAML.
std::string canonical_yaml(const Config& c);
// Short stable id of a config: 12 hex digits of the 64-bit FNV-1a hash of canonical_yaml().
std::string config_id(const Config& c);

}  // namespace fp4lab
