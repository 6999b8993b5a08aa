// The field table of Config and the layered resolution (defaults → files → presets → overrides).
// Every key a user can write is declared exactly once below.
#include "core/config/config.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/io/corpus.hpp"
#include "core/io/fnv.hpp"
#include "core/io/tokenizer.hpp"
#include "core/ops/matmul.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quant_options.hpp"

namespace fp4lab {

static std::string format_double(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  // Shortest round-tripping form.
  for (int prec = 1; prec <= 17; ++prec) {
    char b2[64];
    std::snprintf(b2, sizeof b2, "%.*g", prec, d);
    if (std::strtod(b2, nullptr) == d) return b2;
  }
  return buf;
}

namespace {

// Builders for the field table: each takes an accessor returning a reference into Config.
template <class T>
using Accessor = std::function<T&(Config&)>;

class FieldTable {
 public:
  std::vector<ConfigField> fields;
  bool omit_default = false;  // set on the fields added from now on (see ConfigField)

  void push(ConfigField f) {
    f.omit_default = omit_default;
    fields.push_back(std::move(f));
  }

  void add_int(const std::string& path, const std::string& help, Accessor<int> acc) {
    push({path, "int", help,
                      [=](Config& c, const Value& v) {
                        long long x = v.as_int(path);
                        if (x < INT32_MIN || x > INT32_MAX) throw ConfigError(v.loc(), path, "out of range");
                        acc(c) = static_cast<int>(x);
                      },
                      [=](const Config& c) { return std::to_string(acc(const_cast<Config&>(c))); }});
  }
  void add_i64(const std::string& path, const std::string& help, Accessor<int64_t> acc) {
    push({path, "int", help, [=](Config& c, const Value& v) { acc(c) = v.as_int(path); },
                      [=](const Config& c) { return std::to_string(acc(const_cast<Config&>(c))); }});
  }
  void add_u64(const std::string& path, const std::string& help, Accessor<uint64_t> acc) {
    push({path, "int", help,
                      [=](Config& c, const Value& v) {
                        long long x = v.as_int(path);
                        if (x < 0) throw ConfigError(v.loc(), path, "must be >= 0");
                        acc(c) = static_cast<uint64_t>(x);
                      },
                      [=](const Config& c) { return std::to_string(acc(const_cast<Config&>(c))); }});
  }
  void add_float(const std::string& path, const std::string& help, Accessor<double> acc) {
    push({path, "float", help, [=](Config& c, const Value& v) { acc(c) = v.as_double(path); },
                      [=](const Config& c) { return format_double(acc(const_cast<Config&>(c))); }});
  }
  void add_bool(const std::string& path, const std::string& help, Accessor<bool> acc) {
    push({path, "bool", help, [=](Config& c, const Value& v) { acc(c) = v.as_bool(path); },
                      [=](const Config& c) { return acc(const_cast<Config&>(c)) ? "true" : "false"; }});
  }
  void add_string(const std::string& path, const std::string& help, Accessor<std::string> acc) {
    push({path, "string", help,
                      [=](Config& c, const Value& v) { acc(c) = v.as_string(path); },
                      [=](const Config& c) { return acc(const_cast<Config&>(c)); }});
  }
  // An enum key taking every value of E, or only `values`, by their names (core/formats/enum_names.hpp).
  template <class E>
  void add_enum(const std::string& path, const std::string& help, Accessor<E> acc) {
    const auto all = enum_values<E>();
    add_enum(path, help, std::vector<E>(all.begin(), all.end()), acc);
  }
  template <class E>
  void add_enum(const std::string& path, const std::string& help, std::vector<E> values, Accessor<E> acc) {
    std::string type;
    for (auto v : values) type += (type.empty() ? "" : "|") + to_string(v);
    push({path, type, help,
                      [=](Config& c, const Value& v) {
                        E e{};
                        if (!parse(v.as_string(path), e))
                          throw ConfigError(v.loc(), path, "expected one of " + type + ", got '" + v.text() + "'");
                        acc(c) = e;
                      },
                      [=](const Config& c) { return to_string(acc(const_cast<Config&>(c))); }});
  }

  // One key per QuantSpec field (core/quant/quant_options.hpp declares them).
  void add_spec(const std::string& prefix, const std::string& what, std::function<QuantSpec&(Config&)> acc) {
    const bool was = omit_default;
    for (const SpecField& f : spec_fields()) {
      const std::string path = prefix + "." + f.key;
      const std::string type = value_type(f);
      omit_default = was || f.omit_default;
      push({path, f.kind == SpecField::Kind::unsigned_integer ? "int" : type,
            f.key == "element" ? f.help + " of " + what : f.help,
            [=](Config& c, const Value& v) {
              std::string text;
              switch (f.kind) {
                case SpecField::Kind::enumeration: text = v.as_string(path); break;
                case SpecField::Kind::boolean: text = v.as_bool(path) ? "true" : "false"; break;
                default: text = std::to_string(v.as_int(path));
              }
              if (!f.set(acc(c), text)) {
                if (f.kind == SpecField::Kind::enumeration)
                  throw ConfigError(v.loc(), path, "expected one of " + type + ", got '" + v.text() + "'");
                throw ConfigError(v.loc(), path, f.kind == SpecField::Kind::unsigned_integer ? "must be >= 0" : "out of range");
              }
            },
            [=](const Config& c) { return f.get(acc(const_cast<Config&>(c))); }});
    }
    omit_default = was;
  }

  void add_linear(const std::string& prefix, std::function<LinearRecipe&(Config&)> acc) {
    const std::pair<const char*, QuantSpec LinearRecipe::*> ops[] = {
        {"fprop_x", &LinearRecipe::fprop_x},   {"fprop_w", &LinearRecipe::fprop_w},
        {"dgrad_dy", &LinearRecipe::dgrad_dy}, {"dgrad_w", &LinearRecipe::dgrad_w},
        {"wgrad_dy", &LinearRecipe::wgrad_dy}, {"wgrad_x", &LinearRecipe::wgrad_x}};
    for (const auto& [name, member] : ops) {
      auto m = member;
      add_spec(prefix + "." + name, std::string(name) + " operand",
               [=](Config& c) -> QuantSpec& { return acc(c).*m; });
    }
    add_bool(prefix + ".bf16_output", "round GEMM outputs to bf16",
             [=](Config& c) -> bool& { return acc(c).bf16_output; });
  }
};

FieldTable make_table() {
  FieldTable t;
  // model
  t.add_int("model.vocab", "vocabulary size (byte-level: 256)", [](Config& c) -> int& { return c.model.vocab; });
  t.add_int("model.d_model", "hidden size", [](Config& c) -> int& { return c.model.d_model; });
  t.add_int("model.n_layers", "decoder blocks", [](Config& c) -> int& { return c.model.n_layers; });
  t.add_int("model.n_heads", "attention heads", [](Config& c) -> int& { return c.model.n_heads; });
  t.add_int("model.d_ff", "SwiGLU hidden size", [](Config& c) -> int& { return c.model.d_ff; });
  t.add_int("model.seq_len", "sequence length (tokens)", [](Config& c) -> int& { return c.model.seq_len; });
  t.add_float("model.rope_theta", "RoPE base", [](Config& c) -> double& { return c.model.rope_theta; });
  t.add_float("model.norm_eps", "RMSNorm epsilon", [](Config& c) -> double& { return c.model.norm_eps; });
  t.add_float("model.init_std", "init standard deviation", [](Config& c) -> double& { return c.model.init_std; });
  // recipe
  t.add_string("recipe.name", "recipe name (set by the preset)", [](Config& c) -> std::string& { return c.recipe.name; });
  t.add_linear("recipe.quantized", [](Config& c) -> LinearRecipe& { return c.recipe.quantized; });
  t.add_linear("recipe.high_precision", [](Config& c) -> LinearRecipe& { return c.recipe.high_precision; });
  t.add_enum<Coverage>("recipe.coverage", "which block linears are quantized",
                       [](Config& c) -> Coverage& { return c.recipe.coverage; });
  t.add_bool("recipe.quantize_lm_head", "quantize the LM head too",
             [](Config& c) -> bool& { return c.recipe.quantize_lm_head; });
  t.add_int("recipe.keep_first", "first N blocks stay in high precision",
            [](Config& c) -> int& { return c.recipe.keep_first; });
  t.add_int("recipe.keep_last", "last N blocks stay in high precision",
            [](Config& c) -> int& { return c.recipe.keep_last; });
  t.add_enum<SwitchAt>("recipe.switch_at",
                       "precision schedule: switch to the high-precision operands at tokens (switch_tokens), "
                       "fraction (switch_fraction of train.tokens) or decay (where the learning rate starts to decay)",
                       [](Config& c) -> SwitchAt& { return c.recipe.switch_at; });
  t.add_i64("recipe.switch_tokens", "switch_at tokens: the token count from which steps run in high precision",
            [](Config& c) -> int64_t& { return c.recipe.switch_tokens; });
  t.add_float("recipe.switch_fraction", "switch_at fraction: the switch point as a fraction of train.tokens",
              [](Config& c) -> double& { return c.recipe.switch_fraction; });
  t.add_bool("recipe.switch_fprop", "the precision switch applies to fprop GEMMs",
             [](Config& c) -> bool& { return c.recipe.switch_fprop; });
  t.add_bool("recipe.switch_dgrad", "the precision switch applies to dgrad GEMMs",
             [](Config& c) -> bool& { return c.recipe.switch_dgrad; });
  t.add_bool("recipe.switch_wgrad", "the precision switch applies to wgrad GEMMs",
             [](Config& c) -> bool& { return c.recipe.switch_wgrad; });
  t.omit_default = true;
  t.add_enum<OperandDtype>("recipe.operand_dtype", "operands round to bf16 before quantizing (TE) or stay fp32",
                           {OperandDtype::fp32, OperandDtype::bf16},  // not inherit (a recipe has no parent)
                           [](Config& c) -> OperandDtype& { return c.recipe.operand_dtype; });
  t.add_int("recipe.amax_history_len", "delayed scaling: amax history length",
            [](Config& c) -> int& { return c.recipe.delayed.history_len; });
  t.add_enum<AmaxAlgo>("recipe.amax_compute_algo", "delayed scaling: the history's max or its most recent amax",
                       [](Config& c) -> AmaxAlgo& { return c.recipe.delayed.algo; });
  t.add_float("recipe.margin", "delayed scaling: scale = fp8_max * 2^-margin / amax",
              [](Config& c) -> double& { return c.recipe.delayed.margin; });
  t.add_spec("recipe.attention.fwd", "attention's forward products (q, k, v, probabilities)",
             [](Config& c) -> QuantSpec& { return c.recipe.attention.fwd; });
  t.add_spec("recipe.attention.bwd", "attention's backward products (output and score gradients)",
             [](Config& c) -> QuantSpec& { return c.recipe.attention.bwd; });
  t.add_enum<GemmNumerics>("recipe.gemm_numerics",
                           "FP4 x FP4 GEMMs: fp32 product of the dequantized operands, or exact integer products "
                           "per block with one scale multiply per block and fp32 accumulation across blocks",
                           [](Config& c) -> GemmNumerics& { return c.recipe.gemm_numerics; });
  t.omit_default = false;
  // optim
  t.add_float("optim.lr", "peak learning rate", [](Config& c) -> double& { return c.optim.lr; });
  t.add_float("optim.min_lr_ratio", "final lr / peak lr", [](Config& c) -> double& { return c.optim.min_lr_ratio; });
  t.add_float("optim.beta1", "AdamW beta1", [](Config& c) -> double& { return c.optim.beta1; });
  t.add_float("optim.beta2", "AdamW beta2", [](Config& c) -> double& { return c.optim.beta2; });
  t.add_float("optim.eps", "AdamW epsilon", [](Config& c) -> double& { return c.optim.eps; });
  t.add_float("optim.weight_decay", "decoupled weight decay", [](Config& c) -> double& { return c.optim.weight_decay; });
  t.add_float("optim.grad_clip", "global gradient-norm clip (0 = off)", [](Config& c) -> double& { return c.optim.grad_clip; });
  t.add_enum<LrSchedule>("optim.schedule", "learning-rate schedule",
                         [](Config& c) -> LrSchedule& { return c.optim.schedule; });
  t.add_float("optim.warmup_fraction", "warmup length as a fraction of train.tokens",
              [](Config& c) -> double& { return c.optim.warmup_fraction; });
  t.add_i64("optim.warmup_tokens", "warmup length in tokens (overrides warmup_fraction when > 0)",
            [](Config& c) -> int64_t& { return c.optim.warmup_tokens; });
  t.add_float("optim.decay_fraction", "wsd: fraction of tokens in the final decay",
              [](Config& c) -> double& { return c.optim.decay_fraction; });
  // data
  t.add_string("data.source",
               "synthetic, a named corpus (fortunes, prose), or a text file or directory (its text files, sorted; binary "
               "files and symlinks skipped)",
               [](Config& c) -> std::string& { return c.data.source; });
  t.add_float("data.val_fraction", "held-out fraction of the token stream", [](Config& c) -> double& { return c.data.val_fraction; });
  t.add_int("data.synthetic_vocab", "symbols of the synthetic Markov chain", [](Config& c) -> int& { return c.data.synthetic_vocab; });
  t.add_i64("data.synthetic_tokens", "length of the synthetic corpus", [](Config& c) -> int64_t& { return c.data.synthetic_tokens; });
  t.add_u64("data.synthetic_seed", "seed of the synthetic corpus", [](Config& c) -> uint64_t& { return c.data.synthetic_seed; });
  t.add_float("data.synthetic_concentration", "peakiness of the synthetic transitions (smaller = lower entropy)",
              [](Config& c) -> double& { return c.data.synthetic_concentration; });
  t.omit_default = true;
  t.add_string("data.tokenizer",
               "bytes (one token per byte, vocabulary 256), bpe:<vocab> (a SentencePiece BPE model trained on the "
               "corpus's training documents, cached) or the path of a SentencePiece .model file; model.vocab follows it",
               [](Config& c) -> std::string& { return c.data.tokenizer; });
  t.omit_default = false;
  // train
  t.add_u64("train.seed", "seed of init, data order and stochastic rounding", [](Config& c) -> uint64_t& { return c.train.seed; });
  t.add_int("train.batch_size", "sequences per step", [](Config& c) -> int& { return c.train.batch_size; });
  t.add_i64("train.tokens", "training budget in tokens", [](Config& c) -> int64_t& { return c.train.tokens; });
  t.add_i64("train.val_interval_tokens", "tokens between validations", [](Config& c) -> int64_t& { return c.train.val_interval_tokens; });
  t.add_i64("train.val_tokens", "validation tokens per evaluation", [](Config& c) -> int64_t& { return c.train.val_tokens; });
  t.add_int("train.telemetry_interval",
            "steps between telemetry: quantization statistics, what-if SQNRs, GNR (0 = off; else also step 1)",
            [](Config& c) -> int& { return c.train.telemetry_interval; });
  t.add_int("train.checkpoint_interval", "steps between checkpoints (0 = only at the end)",
            [](Config& c) -> int& { return c.train.checkpoint_interval; });
  t.add_int("train.batch_shards",
            "the batch is cut into this many shards of whole sequences (a power of two); gradients are summed over them "
            "in a fixed tree, so a run under mpirun is bit-identical for any rank count dividing it",
            [](Config& c) -> int& { return c.train.batch_shards; });
  t.omit_default = true;
  t.add_float("train.tokens_per_param",
              "when > 0: train.tokens = this many tokens per non-embedding parameter, in whole steps (instead of "
              "setting train.tokens)",
              [](Config& c) -> double& { return c.train.tokens_per_param; });
  t.add_int("train.val_count",
            "when > 0: validations per run, evenly spaced (instead of train.val_interval_tokens), so they follow the budget",
            [](Config& c) -> int& { return c.train.val_count; });
  t.add_int("train.telemetry_count",
            "when > 0: telemetry steps per run, evenly spaced (instead of train.telemetry_interval)",
            [](Config& c) -> int& { return c.train.telemetry_count; });
  t.add_bool("train.fidelity",
             "at each telemetry step, replay the step with every GEMM in fp32 and record each GEMM output's gain, "
             "relative error and cosine against it, and the bias/variance split of stochastic rounding (the training "
             "trajectory is the same either way)",
             [](Config& c) -> bool& { return c.train.fidelity; });
  t.add_int("train.ranks",
            "MPI ranks a grid cell trains on, data parallel (fp4lab run starts it under mpirun, fp4lab slurm under srun); "
            "must divide train.batch_shards",
            [](Config& c) -> int& { return c.train.ranks; });
  t.omit_default = false;
  t.add_float("train.diverge_factor", "loss above this multiple of the initial loss means diverged",
              [](Config& c) -> double& { return c.train.diverge_factor; });
  return t;
}

}  // namespace

const std::vector<ConfigField>& config_fields() {
  static const std::vector<ConfigField> fields = make_table().fields;
  return fields;
}

const ConfigField* find_config_field(const std::string& path) {
  static const std::map<std::string, const ConfigField*> index = [] {
    std::map<std::string, const ConfigField*> m;
    for (const auto& f : config_fields()) m[f.path] = &f;
    return m;
  }();
  auto it = index.find(path);
  return it == index.end() ? nullptr : it->second;
}

static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_word(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  for (const auto& c : candidates)  // a truncated key: the shortest candidate it begins
    if (c.size() > word.size() && c.rfind(word, 0) == 0 && (best.empty() || c.size() < best.size())) best = c;
  if (!best.empty()) return best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates)
    if (size_t d = edit_distance(word, c); d < best_d) best_d = d, best = c;
  return best;
}

std::string closest_config_key(const std::string& path) {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& f : config_fields()) k.push_back(f.path);
    return k;
  }();
  return closest_word(path, keys);
}

std::string presets_dir() {
  if (const char* env = std::getenv("FP4LAB_PRESETS")) return env;
  // Relative to the file this code was loaded from (the fp4lab program, or the Python module): the
  // nearest ancestor holding share/fp4lab/experiments (installed: <prefix>/bin, or
  // <prefix>/lib/python3.X/dist-packages/fp4lab) or experiments/ (the build tree build/<preset>/,
  // build/<preset>/python/fp4lab, inside the source tree).
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    std::error_code ec;
    Dl_info info{};
    fs::path here = dladdr(reinterpret_cast<void*>(&presets_dir), &info) && info.dli_fname
                        ? fs::path(info.dli_fname)
                        : fs::read_symlink("/proc/self/exe", ec);
    here = fs::weakly_canonical(here, ec).parent_path();
    const fs::path installed = here / ".." / "share" / "fp4lab" / "experiments";
    for (fs::path p = here; !p.empty() && p != p.root_path(); p = p.parent_path())
      for (const fs::path& c : {p / "share" / "fp4lab" / "experiments", p / "experiments"})
        if (fs::is_directory(c / "models", ec) && fs::is_directory(c / "recipes", ec))
          return fs::weakly_canonical(c, ec).string();
    return installed.lexically_normal().string();
  }();
  return dir;
}

static const std::map<std::string, std::string>& preset_group_dirs() {
  static const std::map<std::string, std::string> m = {{"model", "models"}, {"recipe", "recipes"}};
  return m;
}

static bool is_spec_path(const std::string& path) {
  if (path == "recipe.attention.fwd" || path == "recipe.attention.bwd") return true;
  for (const char* lin : {"recipe.quantized.", "recipe.high_precision."})
    if (path.rfind(lin, 0) == 0) {
      const std::string rest = path.substr(std::string(lin).size());
      for (const char* op : {"fprop_x", "fprop_w", "dgrad_dy", "dgrad_w", "wgrad_dy", "wgrad_x"})
        if (rest == op) return true;
    }
  return false;
}

bool is_preset_group(const std::string& path) { return preset_group_dirs().count(path) || is_spec_path(path); }

std::vector<std::string> preset_names(const std::string& group) {
  std::vector<std::string> names;
  auto it = preset_group_dirs().find(group);
  if (it == preset_group_dirs().end()) return names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(presets_dir() + "/" + it->second, ec))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

void ConfigBuilder::add_file(const std::string& path) {
  Value root = parse_yaml_file(path);
  if (root.is_null()) return;
  if (!root.is_map()) throw ConfigError(root.loc(), "", "a config file must be a map of keys");
  if (const Value* base = root.find("base")) {
    std::filesystem::path p = base->as_string("base");
    if (p.is_relative()) p = std::filesystem::path(path).parent_path() / p;
    add_file(p.string());
  }
  Value rest = Value::map(root.loc());
  for (const auto& e : root.entries())
    if (e.key != "base") rest.set(e.key, e.value, e.key_loc);
  add_tree(rest);
}

void ConfigBuilder::add_tree(const Value& map, const std::string& prefix) {
  for (const auto& e : map.entries()) add(prefix.empty() ? e.key : prefix + "." + e.key, e.value);
}

void ConfigBuilder::add(const std::string& path, const Value& value) {
  if (value.is_map()) return add_tree(value, path);
  if (value.is_scalar() && is_preset_group(path)) {
    if (is_spec_path(path)) {  // a named operand format, e.g. fprop_x: nvfp4
      QuantSpec spec;
      if (!named_format(value.text(), spec))
        throw ConfigError(value.loc(), path, "unknown format '" + value.text() + "' (" +
                                                 named_format_list() + ")");
      Config probe;
      // Express the spec through the field table so every field is set explicitly.
      for (const auto& f : config_fields())
        if (f.path.rfind("recipe.quantized.fprop_x.", 0) == 0) {
          probe.recipe.quantized.fprop_x = spec;
          const std::string leaf = f.path.substr(std::string("recipe.quantized.fprop_x.").size());
          entries_.push_back({path + "." + leaf, Value::scalar(f.get(probe), value.loc())});
        }
      return;
    }
    const std::string file = presets_dir() + "/" + preset_group_dirs().at(path) + "/" + value.text() + ".yaml";
    if (!std::filesystem::exists(file)) {
      std::string known;
      for (const auto& n : preset_names(path)) known += (known.empty() ? "" : ", ") + n;
      throw ConfigError(value.loc(), path, "unknown preset '" + value.text() + "' (known: " + known + ")");
    }
    Value preset = parse_yaml_file(file);
    if (!preset.is_map()) throw ConfigError(preset.loc(), path, "a preset file must be a map");
    add_tree(preset, path);
    return;
  }
  entries_.push_back({path, value});
}

void ConfigBuilder::add_override(const std::string& assignment, const std::string& source) {
  const auto eq = assignment.find('=');
  SourceLoc loc{source + " " + assignment, 0, 0};
  if (eq == std::string::npos || eq == 0) throw ConfigError(loc, "", "expected key=value");
  const std::string key = assignment.substr(0, eq);
  Value v = parse_yaml_string(assignment.substr(eq + 1), source);
  if (v.is_null()) v = Value::scalar("", loc);
  // Relocate every node to the override's own source.
  std::function<Value(const Value&)> relocate = [&](const Value& n) -> Value {
    Value out;
    if (n.is_scalar()) out = Value::scalar(n.text(), loc, n.quoted());
    else if (n.is_list()) {
      out = Value::list(loc);
      for (const auto& item : n.items()) out.push_back(relocate(item));
    } else if (n.is_map()) {
      out = Value::map(loc);
      for (const auto& e : n.entries()) out.set(e.key, relocate(e.value), loc);
    } else out.set_loc(loc);
    return out;
  };
  add(key, relocate(v));
}

Config ConfigBuilder::build() const {
  Config c;
  std::map<std::string, KeyOrigins::Origin> where;
  int order = 0;
  for (const auto& e : entries_) {
    const ConfigField* f = find_config_field(e.path);
    if (!f) {
      throw ConfigError(e.value.loc(), e.path,
                        "unknown key (did you mean '" + closest_config_key(e.path) + "'?)");
    }
    f->set(c, e.value);
    where[e.path] = {e.value.loc(), order++};
  }
  const KeyOrigins origins{[&](const std::string& path) {
    auto it = where.find(path);
    return it == where.end() ? KeyOrigins::Origin{} : it->second;
  }};
  resolve_derived(c, origins);
  validate_config(c, origins);
  return c;
}

void resolve_derived(Config& c, const KeyOrigins& origins) {
  auto origin = [&](const std::string& key) { return origins.find ? origins.find(key) : KeyOrigins::Origin{}; };
  auto fail = [&](const std::string& key, const std::string& msg) {
    const auto o = origin(key);
    throw ConfigError(o.order < 0 ? SourceLoc{"<defaults>", 0, 0} : o.loc, key, msg);
  };
  // The later of a derived key and the key it sets wins (a grid's budget sets train.tokens last).
  auto derive = [&](const std::string& from, const std::string& to) { return origin(from).order > origin(to).order; };
  if (c.data.tokenizer != "bytes" && origin("model.vocab").order < 0) {  // model.vocab follows the tokenizer
    try {
      const TokenizerSpec spec = parse_tokenizer(c.data.tokenizer);
      c.model.vocab = spec.kind == TokenizerSpec::Kind::file ? Tokenizer::from_file(spec.path).vocab() : spec.vocab;
    } catch (const TokenizerError& e) {
      fail("data.tokenizer", e.what());
    }
  }
  const int64_t per_step = int64_t(c.train.batch_size) * c.model.seq_len;
  if (per_step <= 0) return;  // validate_config names the key
  if (c.train.tokens_per_param < 0) fail("train.tokens_per_param", "must be >= 0 (0: use train.tokens)");
  if (c.train.tokens_per_param > 0) {
    if (derive("train.tokens_per_param", "train.tokens")) {
      const double tokens = c.train.tokens_per_param * double(non_embedding_params(c.model));
      c.train.tokens = std::max<int64_t>(1, std::llround(tokens / double(per_step))) * per_step;
    } else {
      c.train.tokens_per_param = 0;  // a later train.tokens (a budget multiple) replaced it
    }
  }
  const int64_t steps = (c.train.tokens + per_step - 1) / per_step;
  if (c.train.val_count < 0) fail("train.val_count", "must be >= 0 (0: use train.val_interval_tokens)");
  if (c.train.val_count > 0) {
    if (derive("train.val_count", "train.val_interval_tokens"))
      c.train.val_interval_tokens = std::max<int64_t>(1, steps / c.train.val_count) * per_step;
    else
      c.train.val_count = 0;
  }
  if (c.train.telemetry_count < 0) fail("train.telemetry_count", "must be >= 0 (0: use train.telemetry_interval)");
  if (c.train.telemetry_count > 0) {
    if (derive("train.telemetry_count", "train.telemetry_interval"))
      c.train.telemetry_interval = int(std::max<int64_t>(1, steps / c.train.telemetry_count));
    else
      c.train.telemetry_count = 0;
  }
}

int64_t switch_point_tokens(const Config& c) {
  const RecipeConfig& r = c.recipe;
  const double total = double(c.train.tokens);
  switch (r.switch_at) {
    case SwitchAt::never: return 0;
    case SwitchAt::tokens: return r.switch_tokens;
    case SwitchAt::fraction: return int64_t(std::ceil(r.switch_fraction * total));
    case SwitchAt::decay:
      switch (c.optim.schedule) {
        case LrSchedule::wsd: return int64_t(std::ceil(total * (1.0 - c.optim.decay_fraction)));
        case LrSchedule::cosine:
          return c.optim.warmup_tokens > 0 ? c.optim.warmup_tokens
                                           : int64_t(std::ceil(c.optim.warmup_fraction * total));
        case LrSchedule::constant: return 0;
      }
  }
  return 0;
}

RecipeConfig run_recipe(const Config& c) {
  RecipeConfig r = c.recipe;
  if (r.switch_at == SwitchAt::fraction || r.switch_at == SwitchAt::decay) {
    r.switch_tokens = switch_point_tokens(c);
    r.switch_fraction = 0.0;
    r.switch_at = SwitchAt::tokens;
  }
  return r;
}

// The precision schedule's keys agree with switch_at, and its switch point lies inside the run.
template <class Fail>
static void validate_switch(const Config& c, const Fail& fail) {
  const RecipeConfig& r = c.recipe;
  const std::string at = "recipe.switch_at: " + to_string(r.switch_at);
  if (r.switch_tokens < 0) fail("recipe.switch_tokens", "must be >= 0");
  if (r.switch_tokens != 0 && r.switch_at != SwitchAt::tokens)
    fail("recipe.switch_tokens", "is only read with recipe.switch_at: tokens (" + at + ")");
  if (r.switch_fraction != 0.0 && r.switch_at != SwitchAt::fraction)
    fail("recipe.switch_fraction", "is only read with recipe.switch_at: fraction (" + at + ")");
  if (r.switch_at == SwitchAt::never) return;
  if (r.switch_at == SwitchAt::tokens && r.switch_tokens <= 0) fail("recipe.switch_tokens", "must be > 0 with " + at);
  if (r.switch_at == SwitchAt::fraction && !(r.switch_fraction > 0.0 && r.switch_fraction < 1.0))
    fail("recipe.switch_fraction", "must be in (0, 1) with " + at);
  if (r.switch_at == SwitchAt::decay && c.optim.schedule == LrSchedule::constant)
    fail("recipe.switch_at", "decay needs a decaying learning rate (optim.schedule wsd or cosine)");
  if (!r.switch_fprop && !r.switch_dgrad && !r.switch_wgrad)
    fail("recipe.switch_wgrad", "the precision switch applies to no GEMM (switch_fprop, switch_dgrad, switch_wgrad all false)");
  const int64_t point = switch_point_tokens(c);
  if (point <= 0)
    fail("recipe.switch_at", "switches at token 0, so the recipe would quantize nowhere");
  const int64_t per_step = int64_t(c.train.batch_size) * c.model.seq_len;
  const int64_t last_start = (c.train.tokens + per_step - 1) / per_step * per_step - per_step;  // tokens before the last step
  if (point > last_start)
    fail(r.switch_at == SwitchAt::tokens ? "recipe.switch_tokens" : r.switch_at == SwitchAt::fraction ? "recipe.switch_fraction" : "recipe.switch_at",
         "the switch point (" + std::to_string(point) + " tokens) is never reached: the last step starts at " +
             std::to_string(last_start) + " tokens");
}

void validate_config(const Config& c, const KeyOrigins& origins) {
  auto origin = [&](const std::string& key) {
    return origins.find ? origins.find(key) : KeyOrigins::Origin{};
  };
  auto where = [&](const std::string& key) {
    const auto o = origin(key);
    return o.order < 0 ? SourceLoc{"<defaults>", 0, 0} : o.loc;
  };
  auto fail = [&](const std::string& key, const std::string& msg) { throw ConfigError(where(key), key, msg); };
  const ModelConfig& m = c.model;
  auto positive = [&](const std::string& key, double v) {
    if (!(v > 0)) fail(key, "must be > 0");
  };
  positive("model.vocab", m.vocab);
  positive("model.d_model", m.d_model);
  positive("model.n_layers", m.n_layers);
  positive("model.n_heads", m.n_heads);
  positive("model.d_ff", m.d_ff);
  positive("model.seq_len", m.seq_len);
  positive("train.batch_size", c.train.batch_size);
  positive("train.tokens", static_cast<double>(c.train.tokens));
  positive("optim.lr", c.optim.lr);
  if (m.d_model % m.n_heads != 0)
    fail("model.n_heads", "n_heads (" + std::to_string(m.n_heads) + ") must divide d_model (" +
                              std::to_string(m.d_model) + ")");
  if ((m.d_model / m.n_heads) % 2 != 0) fail("model.n_heads", "head size d_model/n_heads must be even (RoPE)");
  if (c.data.tokenizer == "bytes") {
    if (m.vocab > 256 && c.data.source != "synthetic") fail("model.vocab", "byte-level data needs vocab <= 256");
    if (m.vocab < 256 && c.data.source != "synthetic") fail("model.vocab", "byte-level data needs vocab 256");
  } else {
    TokenizerSpec spec;
    try {
      spec = parse_tokenizer(c.data.tokenizer);
      if (spec.kind == TokenizerSpec::Kind::file) spec.vocab = Tokenizer::from_file(spec.path).vocab();
    } catch (const TokenizerError& e) {
      fail("data.tokenizer", e.what());
    }
    if (c.data.source == "synthetic")
      fail("data.tokenizer", "a subword tokenizer reads text, and data.source is synthetic (use bytes, or a corpus)");
    if (m.vocab != spec.vocab)
      fail("model.vocab", std::to_string(m.vocab) + " differs from the tokenizer's vocabulary (" + std::to_string(spec.vocab) +
                              ", data.tokenizer: " + c.data.tokenizer + "); leave model.vocab unset to follow it");
  }
  if (c.data.source == "synthetic" && c.data.synthetic_vocab > m.vocab)
    fail("data.synthetic_vocab", "larger than model.vocab");
  if (c.data.synthetic_vocab < 2) fail("data.synthetic_vocab", "must be >= 2");
  if (!(c.data.val_fraction > 0 && c.data.val_fraction < 0.5)) fail("data.val_fraction", "must be in (0, 0.5)");
  {  // the corpus exists, is readable and is long enough for this run (checked at plan time)
    int64_t total = c.data.synthetic_tokens;
    if (c.data.source != "synthetic") {
      try {
        total = find_corpus(c.data.source).bytes;
      } catch (const CorpusError& e) {
        fail("data.source", e.what());
      }
    }
    const std::string why = data_too_short(total, c.data.val_fraction, m.seq_len, c.train.batch_size, c.train.val_tokens);
    if (!why.empty()) fail(c.data.source == "synthetic" ? "data.synthetic_tokens" : "data.source", why);
  }
  if (c.recipe.keep_first < 0 || c.recipe.keep_last < 0 || c.recipe.keep_first + c.recipe.keep_last > m.n_layers)
    fail("recipe.keep_last", "keep_first + keep_last must be within [0, n_layers]");
  if (c.train.tokens < static_cast<int64_t>(c.train.batch_size) * m.seq_len)
    fail("train.tokens", "budget is smaller than one batch (batch_size * seq_len tokens)");
  if (c.train.diverge_factor <= 1) fail("train.diverge_factor", "must be > 1");
  if (c.train.batch_shards < 1 || (c.train.batch_shards & (c.train.batch_shards - 1)) != 0 ||
      c.train.batch_size % c.train.batch_shards != 0)
    fail("train.batch_shards", "must be a power of two dividing train.batch_size (" + std::to_string(c.train.batch_size) + ")");
  if (c.train.ranks < 1 || c.train.batch_shards % c.train.ranks != 0)
    fail("train.ranks", "must divide train.batch_shards (" + std::to_string(c.train.batch_shards) + ")");
  if (c.train.ranks > 1 && (c.train.batch_size / c.train.batch_shards) * int64_t(m.seq_len) % matmul_row_tile != 0)
    fail("train.ranks", "across ranks a batch shard must hold a multiple of " + std::to_string(matmul_row_tile) +
                            " tokens (it holds " + std::to_string((c.train.batch_size / c.train.batch_shards) * int64_t(m.seq_len)) + ")");
  validate_switch(c, fail);
  // A recipe that asks for quantization must quantize at least one layer: never a silent fallback.
  if (c.recipe.quantized.any_quantized() && !c.recipe.quantize_lm_head &&
      c.recipe.keep_first + c.recipe.keep_last >= m.n_layers)
    fail(origin("recipe.keep_last").order >= origin("recipe.keep_first").order ? "recipe.keep_last" : "recipe.keep_first",
         "the recipe quantizes no layer: keep_first + keep_last covers all " + std::to_string(m.n_layers) +
             " blocks and the LM head is not quantized");

  // Every operand of every linear shape must be quantizable as specified, on one shard's tokens
  // (blocks and transforms along the tokens must not straddle shards or ranks).
  const int64_t tokens_per_shard = static_cast<int64_t>(c.train.batch_size / c.train.batch_shards) * m.seq_len;
  struct Shape { int64_t in, out; };
  const Shape shapes[] = {{m.d_model, m.d_model}, {m.d_model, m.d_ff}, {m.d_ff, m.d_model}, {m.d_model, m.vocab}};
  const std::pair<const char*, const LinearRecipe*> recipes[] = {{"recipe.quantized", &c.recipe.quantized},
                                                                {"recipe.high_precision", &c.recipe.high_precision}};
  for (const auto& [prefix, lr] : recipes) {
    for (size_t s = 0; s < std::size(shapes); ++s) {
      if (s == 3 && std::string(prefix) == "recipe.quantized" && !c.recipe.quantize_lm_head) continue;
      const int64_t K = shapes[s].in, N = shapes[s].out, M = tokens_per_shard;
      const std::tuple<const char*, const QuantSpec*, int64_t, int64_t> ops[] = {
          {"fprop_x", &lr->fprop_x, M, K},   {"fprop_w", &lr->fprop_w, N, K},
          {"dgrad_dy", &lr->dgrad_dy, M, N}, {"dgrad_w", &lr->dgrad_w, K, N},
          {"wgrad_dy", &lr->wgrad_dy, N, M}, {"wgrad_x", &lr->wgrad_x, K, M}};
      for (const auto& [name, spec, rows, cols] : ops) {
        const std::string why = validate(*spec, rows, cols);
        if (!why.empty()) {
          const std::string key = std::string(prefix) + "." + name;
          // Point at the field of this operand that was set last.
          std::string at = key + ".block";
          int latest = -1;
          for (const SpecField& f : spec_fields())
            if (origin(key + "." + f.key).order > latest) latest = origin(key + "." + f.key).order, at = key + "." + f.key;
          fail(at, why + " (operand " + std::to_string(rows) + "x" + std::to_string(cols) + ")");
        }
      }
    }
  }
}

std::string canonical_yaml(const Config& c) {
  static const Config defaults;
  Value root = Value::map();
  for (const auto& f : config_fields()) {
    if (f.omit_default && f.get(c) == f.get(defaults)) continue;
    Value* node = &root;
    size_t start = 0;
    std::string path = f.path;
    for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1) {
      const std::string part = path.substr(start, dot - start);
      if (!node->find(part)) node->set(part, Value::map());
      node = const_cast<Value*>(node->find(part));
    }
    node->set(path.substr(start), Value::scalar(f.get(c)));
  }
  return emit_yaml(root);
}

std::string config_id(const Config& c) {
  const std::string text = canonical_yaml(c);
  Fnv64 fnv;
  fnv.add(text.data(), text.size());
  return fnv.hex().substr(0, 12);
}

int64_t held_out_tokens(int64_t total, double val_fraction) {
  return static_cast<int64_t>(std::llround(double(total) * val_fraction));
}

std::string data_too_short(int64_t total, double val_fraction, int seq_len, int batch_size, int64_t val_tokens) {
  const int64_t n_val = held_out_tokens(total, val_fraction), n_train = total - n_val;
  const int64_t need_train = int64_t(batch_size) * (seq_len + 1);
  const int64_t need_val = std::max<int64_t>(1, val_tokens / seq_len) * (seq_len + 1);
  if (n_train >= need_train && n_val >= need_val) return "";
  return "too short for this run: " + std::to_string(total) + " tokens give " + std::to_string(n_train) +
         " for training (needs >= " + std::to_string(need_train) + ": one batch of distinct windows) and " +
         std::to_string(n_val) + " held out (needs >= " + std::to_string(need_val) +
         " for train.val_tokens); use a longer corpus or smaller batch, seq_len or val_tokens";
}

}  // namespace fp4lab
