// Grid files: parse, expand (product, zip, exclude, seeds), build and validate every cell.
// Precedence of a cell's keys: base < overrides < axes (in file order) < set: < --set.
// Nothing here touches the output directory or runs anything.
#include "experiments/grid/grid.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace fp4lab::grid {

namespace {

[[noreturn]] void fail(const SourceLoc& loc, const std::string& key, const std::string& message) {
  throw ConfigError(loc, key, message);
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string c = closest_word(word, candidates);
  return c.empty() ? "" : " (did you mean '" + c + "'?)";
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// Every path a config map may name: the declared fields and each of their parent maps.
const std::vector<std::string>& config_paths() {
  static const std::vector<std::string> paths = [] {
    std::set<std::string> s;
    for (const auto& f : config_fields()) {
      s.insert(f.path);
      for (size_t dot = f.path.find('.'); dot != std::string::npos; dot = f.path.find('.', dot + 1))
        s.insert(f.path.substr(0, dot));
    }
    return std::vector<std::string>(s.begin(), s.end());
  }();
  return paths;
}

bool is_config_path(const std::string& path) {
  return std::binary_search(config_paths().begin(), config_paths().end(), path);
}

std::string unknown_config_key(const std::string& path) {
  return "unknown config key" + did_you_mean(path, config_paths());
}

// Checks the entries a builder collected from index `from` on: every key declared, every value of
// the field's type. (Cross-field checks wait for the cell's full Config.)
void check_entries(const ConfigBuilder& b, size_t from) {
  Config scratch;
  for (size_t i = from; i < b.entries().size(); ++i) {
    const ConfigEntry& e = b.entries()[i];
    const ConfigField* f = find_config_field(e.path);
    if (!f) fail(e.value.loc(), e.path, unknown_config_key(e.path));
    f->set(scratch, e.value);
  }
}

std::string flow_text(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::null: return "null";
    case Value::Kind::scalar: return v.text();
    case Value::Kind::list: {
      std::string s;
      for (const auto& item : v.items()) s += (s.empty() ? "" : ", ") + flow_text(item);
      return "[" + s + "]";
    }
    case Value::Kind::map: {
      std::string s;
      for (const auto& e : v.entries()) s += (s.empty() ? "" : ", ") + e.key + ": " + flow_text(e.value);
      return "{" + s + "}";
    }
  }
  return "";
}

bool as_number(const Value& v, double& out) {
  if (!v.is_scalar() || v.quoted() || v.text().empty()) return false;
  char* end = nullptr;
  out = std::strtod(v.text().c_str(), &end);
  return *end == '\0';
}

// Two axis values are the same if their text is, or both are the same number (1e-3 == 0.001).
bool same_value(const Value& a, const Value& b) {
  double x, y;
  if (a.is_scalar() && b.is_scalar() && as_number(a, x) && as_number(b, y)) return x == y;
  return flow_text(a) == flow_text(b);
}

// The top-level keys of a grid file, in the order messages list them. The unknown-key check and
// did-you-mean read this list, and parse_grid's steps read the file only through keys it holds.
const std::vector<std::string> kGridKeys = {"name",  "base",     "config",   "overrides", "axes", "budgets",
                                            "zip",   "exclude",  "seeds",    "baseline",  "analysis", "set",
                                            "ladder"};

std::vector<std::string> axis_names(const std::vector<Axis>& axes) {
  std::vector<std::string> names;
  for (const auto& a : axes) names.push_back(a.name);
  return names;
}

std::vector<std::string> value_labels(const Axis& a) {
  std::vector<std::string> labels;
  for (const auto& v : a.values) labels.push_back(a.kind == Axis::Kind::variants ? v.label : flow_text(v.value));
  return labels;
}

// The index of the value of axis `a` that `given` names, or -1.
int find_value(const Axis& a, const Value& given) {
  for (size_t i = 0; i < a.values.size(); ++i) {
    const bool match = a.kind == Axis::Kind::variants ? given.is_scalar() && given.text() == a.values[i].label
                                                      : same_value(a.values[i].value, given);
    if (match) return static_cast<int>(i);
  }
  return -1;
}

// Where the settings of a variant axis apply: under the axis name if that is a config path.
std::string variant_prefix(const Axis& a) { return is_config_path(a.name) ? a.name : ""; }

// Applies one axis value to a builder.
void apply(ConfigBuilder& b, const Axis& a, const AxisValue& v) {
  switch (a.kind) {
    case Axis::Kind::key: b.add(a.name, v.value); break;
    case Axis::Kind::seed: b.add("train.seed", v.value); break;
    case Axis::Kind::variants: b.add_tree(v.value, variant_prefix(a)); break;
    case Axis::Kind::budget: break;  // scales the cell's resolved train.tokens (see parse_grid)
  }
}

// `budgets: {scale: [0.7, 1.0, 1.5], cells: {recipe: mxfp4}}`: the budget axis, named `budget`.
// Every scale is a positive number, 1 (the base budget) among them.
Axis parse_budgets(const Value& v, const SourceLoc& key_loc) {
  const std::vector<std::string> keys = {"scale", "cells"};
  if (!v.is_map())
    fail(v.loc(), "budgets", "expected a map, e.g. {scale: [0.7, 0.85, 1.0, 1.25, 1.5], cells: {recipe: mxfp4}}");
  for (const auto& e : v.entries())
    if (std::find(keys.begin(), keys.end(), e.key) == keys.end())
      fail(e.key_loc, "budgets." + e.key, "unknown key" + did_you_mean(e.key, keys) + " (budgets has scale and cells)");
  const Value* scale = v.find("scale");
  if (!scale) fail(v.loc(), "budgets.scale", "missing: the multiples of each cell's train.tokens, e.g. [0.85, 1.0, 1.25]");
  if (!scale->is_list() || scale->items().empty())
    fail(scale->loc(), "budgets.scale", "expected a non-empty list of multiples, e.g. [0.85, 1.0, 1.25]");
  Axis axis{"budget", Axis::Kind::budget, {}, key_loc};
  bool has_one = false;
  for (const auto& item : scale->items()) {
    double x = 0;
    if (!as_number(item, x) || !std::isfinite(x) || x <= 0)
      fail(item.loc(), "budgets.scale", "'" + flow_text(item) + "' is not a positive number");
    for (const auto& prev : axis.values)
      if (same_value(prev.value, item))
        fail(item.loc(), "budgets.scale", "value '" + flow_text(item) + "' is listed twice (also at " + prev.loc.str() + ")");
    has_one = has_one || x == 1.0;
    axis.values.push_back({flow_text(item), item, item.loc()});
  }
  if (!has_one) fail(scale->loc(), "budgets.scale", "must list 1 (the base budget every cell runs at)");
  return axis;
}

Axis parse_key_axis(const std::string& name, const SourceLoc& key_loc, const Value& list) {
  if (name == "train.seed" || name == "seed" || name == "seeds")
    fail(key_loc, name, "the seed axis is the top-level `seeds: [0, 1, ...]` list, not an axis");
  if (!is_config_path(name) && !is_preset_group(name)) fail(key_loc, name, unknown_config_key(name));
  if (list.items().empty()) fail(list.loc(), name, "axis has no values");
  Axis axis{name, Axis::Kind::key, {}, key_loc};
  for (const auto& item : list.items()) {
    if (!item.is_scalar() && !item.is_map())
      fail(item.loc(), name, "an axis value must be a scalar or a map, got " + flow_text(item));
    ConfigBuilder probe;
    probe.add(name, item);
    check_entries(probe, 0);
    for (const auto& prev : axis.values)
      if (same_value(prev.value, item))
        fail(item.loc(), name, "value '" + flow_text(item) + "' is listed twice (also at " + prev.loc.str() + ")");
    axis.values.push_back({flow_text(item), item, item.loc()});
  }
  return axis;
}

Axis parse_variant_axis(const std::string& name, const SourceLoc& key_loc, const Value& map) {
  if (map.entries().empty()) fail(map.loc(), name, "axis has no values");
  Axis axis{name, Axis::Kind::variants, {}, key_loc};
  const std::string prefix = variant_prefix(axis);
  for (const auto& e : map.entries()) {
    Value settings = e.value.is_null() ? Value::map(e.value.loc()) : e.value;
    if (!settings.is_map())
      fail(e.value.loc(), name + "." + e.key,
           "a named variant is a map of settings (`" + e.key + ": {key: value}`); for a list of values "
           "write the axis as a dotted key, e.g. `" + (name + "." + e.key) + ": [...]`");
    ConfigBuilder probe;
    probe.add_tree(settings, prefix);
    check_entries(probe, 0);
    axis.values.push_back({e.key, settings, e.key_loc});
  }
  return axis;
}

// `ladder: {axis, from, steps, orders, to}`: an attribution ladder as a variant axis. `from` and
// `to` are settings maps (as a named variant's), `steps` a map of components (name -> settings),
// `orders` a list of climbs, each a permutation of the step names or `listed` / `reversed`
// (default: [listed]). A climb's arm after k steps is `from` with those k steps' settings layered
// in the climb's order; arms are named by their set of components ("base", "+fp4+rht", components
// in listed order), so climbs share the arms they both pass. The target is its own arm `target`
// unless its config equals the ladder's top arm (up to the recipe's name).
struct LadderAxis {
  Axis axis;
  analysis::Ladder ladder;
};

// Whether two settings layered on `fixed` give the same config up to recipe.name (nullopt: one
// of them does not build; the cell builder reports that with its own message).
std::optional<bool> same_config(const ConfigBuilder& fixed, const Value& a, const Value& b, const std::string& prefix) {
  try {
    ConfigBuilder ba = fixed, bb = fixed;
    ba.add_tree(a, prefix);
    bb.add_tree(b, prefix);
    Config ca = ba.build(), cb = bb.build();
    ca.recipe.name = cb.recipe.name = "";
    return canonical_yaml(ca) == canonical_yaml(cb);
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

// Adds a settings map's leaves to `out` under their dotted paths (`recipe.quantized: {a.b: 1}` ->
// `recipe.quantized.a.b: 1`), replacing a path set before, so steps that set different leaves of
// one map add up.
void add_leaves(Value& out, const Value& settings, const std::string& prefix = "") {
  for (const auto& e : settings.entries()) {
    const std::string path = prefix.empty() ? e.key : prefix + "." + e.key;
    if (e.value.is_map()) add_leaves(out, e.value, path);
    else out.set(path, e.value, e.key_loc);
  }
}

LadderAxis parse_ladder(const Value& v, const SourceLoc& key_loc, const ConfigBuilder& fixed) {
  const std::vector<std::string> keys = {"axis", "from", "steps", "orders", "to"};
  if (!v.is_map())
    fail(v.is_null() ? key_loc : v.loc(), "ladder",
         "expected a map, e.g. {from: {recipe: bf16}, steps: {rht: {...}, sr: {...}}, to: {recipe: te_nvfp4}}");
  for (const auto& e : v.entries())
    if (std::find(keys.begin(), keys.end(), e.key) == keys.end())
      fail(e.key_loc, "ladder." + e.key, "unknown key" + did_you_mean(e.key, keys) + " (ladder has " + join(keys) + ")");
  LadderAxis out;
  analysis::Ladder& l = out.ladder;
  l.axis = "arm";
  if (const Value* a = v.find("axis")) {
    if (!a->is_scalar() || a->text().empty()) fail(a->loc(), "ladder.axis", "expected an axis name");
    l.axis = a->text();
  }
  if (is_config_path(l.axis) || is_preset_group(l.axis) || l.axis == "seed" || l.axis == "budget")
    fail(v.find("axis") ? v.find("axis")->loc() : key_loc, "ladder.axis",
         "'" + l.axis + "' is a config key or a reserved axis name; name the arm axis otherwise, e.g. arm");
  auto settings_map = [&](const Value& s, const std::string& what) {
    Value m = s.is_null() ? Value::map(s.loc()) : s;
    if (!m.is_map()) fail(s.loc(), what, "expected a map of settings, e.g. {recipe: bf16}");
    ConfigBuilder probe;
    probe.add_tree(m);
    check_entries(probe, 0);
    return m;
  };
  const Value* from = v.find("from");
  if (!from) fail(v.loc(), "ladder.from", "missing: the base arm's settings, e.g. {recipe: bf16}");
  const Value base = settings_map(*from, "ladder.from");
  const Value* steps = v.find("steps");
  if (!steps || !steps->is_map() || steps->entries().empty())
    fail(steps ? steps->loc() : v.loc(), "ladder.steps",
         "expected a map of components, each a map of settings, e.g. {rht: {recipe.quantized.wgrad_x.rht: true}}");
  std::map<std::string, Value> step_settings;
  for (const auto& e : steps->entries()) {
    if (e.key == "base" || e.key == "target" || e.key.find('+') != std::string::npos)
      fail(e.key_loc, "ladder.steps." + e.key, "a component name may not be 'base' or 'target' or contain '+'");
    l.components.push_back(e.key);
    step_settings.emplace(e.key, settings_map(e.value, "ladder.steps." + e.key));
  }
  // climbs
  std::vector<std::pair<std::vector<std::string>, SourceLoc>> orders;
  const Value* ord = v.find("orders");
  if (!ord) orders.push_back({l.components, key_loc});
  else {
    if (!ord->is_list() || ord->items().empty())
      fail(ord->loc(), "ladder.orders", "expected a list of climbs: `listed`, `reversed` or a list of step names");
    for (const auto& o : ord->items()) {
      std::vector<std::string> order;
      if (o.is_scalar() && o.text() == "listed") order = l.components;
      else if (o.is_scalar() && o.text() == "reversed") order.assign(l.components.rbegin(), l.components.rend());
      else if (o.is_list()) {
        for (const auto& i : o.items()) {
          const std::string name = i.is_scalar() ? i.text() : flow_text(i);
          if (!step_settings.count(name))
            fail(i.loc(), "ladder.orders", "'" + name + "' is not a step" + did_you_mean(name, l.components));
          if (std::find(order.begin(), order.end(), name) != order.end())
            fail(i.loc(), "ladder.orders", "step '" + name + "' is listed twice in one climb");
          order.push_back(name);
        }
        if (order.size() != l.components.size())
          fail(o.loc(), "ladder.orders", "a climb lists every step once (" + join(l.components) + ")");
      } else {
        fail(o.loc(), "ladder.orders", "expected `listed`, `reversed` or a list of step names, got " + flow_text(o));
      }
      for (const auto& prev : orders)
        if (prev.first == order) fail(o.loc(), "ladder.orders", "this climb is listed twice (also at " + prev.second.str() + ")");
      orders.push_back({order, o.loc()});
    }
  }
  // arms: named by their component set; the same set reached by two climbs must be the same config
  auto arm_name = [&](const std::set<std::string>& set) {
    if (set.empty()) return std::string("base");
    std::string n;
    for (const auto& c : l.components)
      if (set.count(c)) n += "+" + c;
    return n;
  };
  out.axis = Axis{l.axis, Axis::Kind::variants, {}, key_loc};
  std::map<std::string, std::pair<Value, SourceLoc>> arms;  // name -> (settings, where its climb is)
  const std::string prefix = variant_prefix(out.axis);
  for (const auto& [order, loc] : orders) {
    analysis::Ladder::Climb climb;
    climb.steps = order;
    Value settings = Value::map(base.loc());
    add_leaves(settings, base);
    std::set<std::string> set;
    for (size_t k = 0; k <= order.size(); ++k) {
      if (k > 0) {
        set.insert(order[k - 1]);
        add_leaves(settings, step_settings.at(order[k - 1]));
      }
      const std::string name = arm_name(set);
      climb.arms.push_back(name);
      auto [it, fresh] = arms.emplace(name, std::make_pair(settings, loc));
      if (!fresh && same_config(fixed, it->second.first, settings, prefix) == false)
        fail(loc, "ladder.orders",
             "arm " + name + " differs between climbs: two steps set the same key to different values, so "
             "their order matters; give the steps disjoint keys");
      if (fresh) out.axis.values.push_back({name, settings, loc});
    }
    l.climbs.push_back(std::move(climb));
  }
  l.target = l.climbs.front().arms.back();
  if (const Value* to = v.find("to")) {
    const Value target = settings_map(*to, "ladder.to");
    if (same_config(fixed, target, arms.at(l.target).first, prefix) != true) {
      l.target = "target";
      out.axis.values.push_back({"target", target, to->loc()});
    }
  }
  return out;
}

Axis parse_seeds(const Value& v, const SourceLoc& key_loc) {
  if (!v.is_list()) fail(v.loc(), "seeds", "expected a list of seeds, e.g. [0, 1, 2]");
  if (v.items().empty()) fail(v.loc(), "seeds", "seed list is empty");
  Axis axis{"seed", Axis::Kind::seed, {}, key_loc};
  for (const auto& item : v.items()) {
    const long long s = item.as_int("seeds");
    if (s < 0) fail(item.loc(), "seeds", "a seed must be >= 0");
    const Value canonical = Value::scalar(std::to_string(s), item.loc());
    for (const auto& prev : axis.values)
      if (prev.label == canonical.text())
        fail(item.loc(), "seeds", "seed " + canonical.text() + " is listed twice");
    axis.values.push_back({canonical.text(), canonical, item.loc()});
  }
  return axis;
}

// zip: a list of groups (lists of axis names), or one group written as a flat list.
std::vector<std::vector<int>> parse_zip(const Value& v, const Grid& grid) {
  if (!v.is_list()) fail(v.loc(), "zip", "expected a list of axis groups, e.g. [[optim.lr, optim.warmup_tokens]]");
  std::vector<Value> groups;
  const bool flat = !v.items().empty() && std::all_of(v.items().begin(), v.items().end(),
                                                      [](const Value& i) { return i.is_scalar(); });
  if (flat) groups.push_back(v);
  else groups = v.items();
  std::vector<std::vector<int>> out;
  std::set<int> used;
  for (const auto& g : groups) {
    if (!g.is_list()) fail(g.loc(), "zip", "each zip group is a list of axis names, e.g. [a, b]");
    if (g.items().size() < 2) fail(g.loc(), "zip", "a zip group links two or more axes");
    std::vector<int> group;
    for (const auto& n : g.items()) {
      const std::string name = n.is_scalar() ? n.text() : flow_text(n);
      const int a = grid.axis_index(name);
      if (a >= 0 && grid.axes[a].kind == Axis::Kind::budget)
        fail(n.loc(), "zip", "the budget axis cannot be zipped (`budgets.cells` says which cells get which budgets)");
      if (a < 0 || grid.axes[a].kind == Axis::Kind::seed)
        fail(n.loc(), "zip", "names unknown axis '" + name + "'" + did_you_mean(name, axis_names(grid.axes)));
      if (!used.insert(a).second) fail(n.loc(), "zip", "axis '" + name + "' is in more than one zip group");
      if (!group.empty() && grid.axes[a].values.size() != grid.axes[group[0]].values.size())
        fail(n.loc(), "zip",
             "zipped axes must have equal lengths: '" + grid.axes[group[0]].name + "' has " +
                 std::to_string(grid.axes[group[0]].values.size()) + " values, '" + name + "' has " +
                 std::to_string(grid.axes[a].values.size()));
      group.push_back(a);
    }
    out.push_back(group);
  }
  return out;
}

// A condition on cells: per axis, the value indices that match (exclude entries, baseline).
using Match = std::vector<std::pair<int, std::set<int>>>;

Match parse_match(const Value& m, const std::string& what, const Grid& g, bool allow_lists, bool allow_seed) {
  if (!m.is_map() || m.entries().empty())
    fail(m.loc(), what, "expected a map of axis: value, e.g. {recipe: bf16}");
  Match match;
  for (const auto& e : m.entries()) {
    const int a = g.axis_index(e.key);
    if (a < 0) fail(e.key_loc, what, "names unknown axis '" + e.key + "'" + did_you_mean(e.key, axis_names(g.axes)));
    if (!allow_seed && g.axes[a].kind == Axis::Kind::seed)
      fail(e.key_loc, what, "the baseline is chosen per seed; do not name the seed");
    std::vector<Value> wanted;
    if (e.value.is_list() && allow_lists) wanted = e.value.items();
    else wanted.push_back(e.value);
    std::set<int> values;
    for (const auto& w : wanted) {
      const int i = find_value(g.axes[a], w);
      if (i < 0)
        fail(w.loc(), what, "axis '" + e.key + "' has no value '" + flow_text(w) + "' (values: " +
                                join(value_labels(g.axes[a])) + ")");
      values.insert(i);
    }
    match.push_back({a, values});
  }
  return match;
}

bool matches(const Match& m, const std::vector<int>& value) {
  for (const auto& [a, vals] : m)
    if (!vals.count(value[a])) return false;
  return true;
}

// The text of a ConfigError without its "file:line: key 'k': " prefix.
std::string bare_message(const ConfigError& e) {
  std::string prefix = e.loc.str() + ": ";
  if (!e.key.empty()) prefix += "key '" + e.key + "': ";
  const std::string w = e.what();
  return w.rfind(prefix, 0) == 0 ? w.substr(prefix.size()) : w;
}

// The base config as one nested map of the keys it changes from the defaults (presets already
// expanded), so that the resolved grid no longer depends on the base file.
Value base_as_map(const ConfigBuilder& base) {
  const Config defaults;
  std::vector<const ConfigField*> order;
  std::map<const ConfigField*, std::string> text;  // the last value each field is given
  for (const auto& e : base.entries()) {
    const ConfigField* f = find_config_field(e.path);
    Config probe;
    f->set(probe, e.value);
    if (!text.count(f)) order.push_back(f);
    text[f] = f->get(probe);
  }
  Value root = Value::map();
  for (const ConfigField* f : order) {
    if (text[f] == f->get(defaults)) continue;
    Value* node = &root;
    size_t start = 0;
    for (size_t dot; (dot = f->path.find('.', start)) != std::string::npos; start = dot + 1) {
      const std::string part = f->path.substr(start, dot - start);
      if (!node->find(part)) node->set(part, Value::map());
      node = const_cast<Value*>(node->find(part));
    }
    node->set(f->path.substr(start), Value::scalar(text[f]));
  }
  return root;
}

// ---------------------------------------------------------------------------- parse_grid's steps
//
// parse_grid reads a grid file in steps, in this order: each needs what the ones before it built
// (a ladder's arms layer on base and overrides, zip and exclude name every axis, analysis needs the
// baseline), and the first problem found is the one reported.

// What the steps have read so far. A step reads its top-level keys through find() or entry(),
// which take only the keys kGridKeys lists.
struct GridParse {
  GridParse(const Value& root, const std::string& path, const std::vector<std::string>& all_sets);

  const ValueEntry* entry(const std::string& key) const {  // nullptr when the file has no `key:`
    if (std::find(kGridKeys.begin(), kGridKeys.end(), key) == kGridKeys.end())
      throw std::logic_error("'" + key + "' is not in kGridKeys");
    for (const auto& e : root.entries())
      if (e.key == key) return &e;
    return nullptr;
  }
  const Value* find(const std::string& key) const {
    const ValueEntry* e = entry(key);
    return e ? &e->value : nullptr;
  }

  const Value& root;
  Grid g;
  std::vector<std::string> sets;        // --set key=value
  std::optional<Value> seeds_override;  // --set seeds=[...]
  ConfigBuilder base;                   // base: or config:
  ConfigBuilder fixed;                  // base, then overrides:
  std::optional<analysis::Ladder> ladder;
  std::vector<std::vector<int>> combos;  // the cells to build: per axis, the index of the cell's value
  std::vector<std::pair<std::string, std::string>> assignments;  // set: then --set (text, source)
};

// `--set seeds=[4, 5, 6]` replaces the grid's seed list (rerun a grid with other seeds); every
// other --set is a config key. The file is a map of known keys.
GridParse::GridParse(const Value& root, const std::string& path, const std::vector<std::string>& all_sets)
    : root(root) {
  for (const auto& s : all_sets)
    if (s.rfind("seeds=", 0) == 0) seeds_override = parse_yaml_string(s.substr(6), "--set " + s);
    else sets.push_back(s);
  if (root.is_null()) fail(SourceLoc{path, 0, 0}, "", "empty grid file");
  if (!root.is_map()) fail(root.loc(), "", "a grid file is a map with keys " + join(kGridKeys));
  for (const auto& e : root.entries())
    if (std::find(kGridKeys.begin(), kGridKeys.end(), e.key) == kGridKeys.end()) {
      std::string hint = did_you_mean(e.key, kGridKeys);
      if (is_config_path(e.key) || is_preset_group(e.key))
        hint = " (config keys go under `overrides:`, or make it an axis under `axes:`)";
      fail(e.key_loc, e.key, "unknown grid key" + hint);
    }
  g.path = path;
}

// name: the output folder's name (default: the file's).
void read_name(GridParse& p) {
  Grid& g = p.g;
  g.name = std::filesystem::path(g.path).stem().string();
  if (const Value* n = p.find("name")) {
    if (!n->is_scalar() || n->text().empty()) fail(n->loc(), "name", "expected a name");
    g.name = n->text();
    const bool safe = g.name != "." && g.name != ".." &&
                      std::all_of(g.name.begin(), g.name.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
                      });
    if (!safe) fail(n->loc(), "name", "use letters, digits, '_', '-' and '.' only (it names the output folder)");
  }
}

// base: (a file) or config: (an inline map), then overrides: on top.
void read_base(GridParse& p) {
  const Value* base_file = p.find("base");
  const Value* inline_config = p.find("config");
  if (base_file && inline_config) fail(inline_config->loc(), "config", "give either `base:` or `config:`, not both");
  if (!base_file && !inline_config)
    fail(p.root.loc(), "base", "a grid needs a base config: `base: FILE.yaml` or an inline `config:` map");
  if (base_file) {
    if (!base_file->is_scalar()) fail(base_file->loc(), "base", "expected a file name");
    std::filesystem::path f = base_file->text();
    if (f.is_relative()) f = std::filesystem::path(p.g.path).parent_path() / f;
    if (!std::filesystem::is_regular_file(f)) fail(base_file->loc(), "base", "cannot open '" + f.string() + "'");
    p.base.add_file(f.string());
  } else {
    if (!inline_config->is_map()) fail(inline_config->loc(), "config", "expected a map of config keys");
    p.base.add_tree(*inline_config);
  }
  check_entries(p.base, 0);
  p.fixed = p.base;
  if (const Value* o = p.find("overrides")) {
    if (!o->is_map()) fail(o->loc(), "overrides", "expected a map of config keys, e.g. {optim.lr: 1e-3}");
    p.fixed.add_tree(*o);
    check_entries(p.fixed, p.base.entries().size());
  }
}

// The axes, in this order: the seed axis (outermost), the file's axes, a ladder's arms, the budgets.

void read_seed_axis(GridParse& p) {
  if (p.seeds_override) p.g.axes.push_back(parse_seeds(*p.seeds_override, p.seeds_override->loc()));
  else if (const ValueEntry* e = p.entry("seeds")) p.g.axes.push_back(parse_seeds(e->value, e->key_loc));
}

void read_axes(GridParse& p) {
  const Value* ax = p.find("axes");
  if (!ax) return;
  if (!ax->is_map() || ax->entries().empty())
    fail(ax->loc(), "axes", "expected a map of axis: [values], e.g. {recipe: [nvfp4, bf16]}");
  for (const auto& e : ax->entries()) {
    if (e.value.is_list()) p.g.axes.push_back(parse_key_axis(e.key, e.key_loc, e.value));
    else if (e.value.is_map()) {
      if (e.key == "seed") fail(e.key_loc, e.key, "the name 'seed' is reserved for `seeds:`");
      p.g.axes.push_back(parse_variant_axis(e.key, e.key_loc, e.value));
    } else {
      fail(e.value.is_null() ? e.key_loc : e.value.loc(), e.key,
           "an axis is a list of values (`" + e.key + ": [a, b]`) or named variants (`" + e.key +
               ": {name: {key: value}}`)");
    }
  }
}

void read_ladder_axis(GridParse& p) {
  const ValueEntry* e = p.entry("ladder");
  if (!e) return;
  LadderAxis la = parse_ladder(e->value, e->key_loc, p.fixed);
  if (p.g.axis_index(la.axis.name) >= 0)
    fail(e->key_loc, "ladder.axis", "an axis named '" + la.axis.name + "' exists already; name the ladder's axis otherwise");
  p.g.axes.push_back(std::move(la.axis));
  p.ladder = std::move(la.ladder);
}

void read_budget_axis(GridParse& p) {
  const ValueEntry* e = p.entry("budgets");
  if (!e) return;
  Grid& g = p.g;
  if (g.axis_index("budget") >= 0)
    fail(g.axes[g.axis_index("budget")].loc, "budget", "the axis name 'budget' is reserved for `budgets:`");
  g.axes.push_back(parse_budgets(e->value, e->key_loc));
}

// The cells' value combinations: the product over factors (a zip: group is one factor), the first
// factor outermost.
void expand(GridParse& p) {
  const Grid& g = p.g;
  std::vector<std::vector<int>> factors;
  std::vector<std::vector<int>> zips;
  if (const Value* z = p.find("zip")) zips = parse_zip(*z, g);
  for (size_t a = 0; a < g.axes.size(); ++a) {
    auto in_group = std::find_if(zips.begin(), zips.end(), [&](const std::vector<int>& grp) {
      return std::find(grp.begin(), grp.end(), int(a)) != grp.end();
    });
    if (in_group == zips.end()) factors.push_back({int(a)});
    else if (*std::min_element(in_group->begin(), in_group->end()) == int(a)) factors.push_back(*in_group);
  }
  std::vector<std::vector<int>> combos(1);
  for (const auto& f : factors) {
    std::vector<std::vector<int>> next;
    for (const auto& c : combos)
      for (size_t v = 0; v < g.axes[f[0]].values.size(); ++v) {
        std::vector<int> n = c;
        n.resize(g.axes.size(), -1);
        for (int a : f) n[a] = static_cast<int>(v);
        next.push_back(n);
      }
    combos = std::move(next);
  }
  for (auto& c : combos) c.resize(g.axes.size(), 0);
  p.combos = std::move(combos);
}

void read_exclude(GridParse& p) {
  const Value* ex = p.find("exclude");
  if (!ex) return;
  if (!ex->is_list()) fail(ex->loc(), "exclude", "expected a list of maps, e.g. [{recipe: bf16, model: small}]");
  std::vector<Match> rules;
  for (const auto& item : ex->items()) rules.push_back(parse_match(item, "exclude", p.g, true, true));
  std::erase_if(p.combos, [&](const std::vector<int>& c) {
    return std::any_of(rules.begin(), rules.end(), [&](const Match& m) { return matches(m, c); });
  });
  if (p.combos.empty()) fail(ex->loc(), "exclude", "removes every cell of the grid");
}

// budgets.cells: cells it does not select run at the base budget only.
void select_budget_cells(GridParse& p) {
  const Value* budgets = p.find("budgets");
  const Value* cells = budgets ? budgets->find("cells") : nullptr;
  if (!cells) return;
  const Grid& g = p.g;
  const Match m = parse_match(*cells, "budgets.cells", g, true, false);
  const int ba = g.axis_index("budget");
  for (const auto& [a, vals] : m)
    if (a == ba) fail(cells->loc(), "budgets.cells", "selects cells by the other axes, not by `budget`");
  const Axis& axis = g.axes[ba];
  std::erase_if(p.combos, [&](const std::vector<int>& c) {
    double x = 0;
    return !matches(m, c) && !(as_number(axis.values[c[ba]].value, x) && x == 1.0);
  });
  if (std::none_of(p.combos.begin(), p.combos.end(), [&](const std::vector<int>& c) { return matches(m, c); }))
    fail(cells->loc(), "budgets.cells", "selects no cell of the grid (excluded?)");
}

// set: (in the file) then --set, applied after the axes; each checked on its own here.
void read_set(GridParse& p) {
  if (const Value* st = p.find("set")) {
    if (!st->is_list()) fail(st->loc(), "set", "expected a list of \"key=value\" strings");
    for (const auto& item : st->items()) {
      if (!item.is_scalar()) fail(item.loc(), "set", "expected a \"key=value\" string");
      p.assignments.push_back({item.text(), item.loc().str() + ": set"});
    }
  }
  for (const auto& s : p.sets) p.assignments.push_back({s, "--set"});
  for (const auto& [text, source] : p.assignments) {
    ConfigBuilder probe;
    probe.add_override(text, source);
    check_entries(probe, 0);
  }
}

// A cell's Config: base and overrides, its axis values, set: and --set, its budget. A ConfigError
// is reported at the axis value that set the key (or a sibling of it), naming the cell.
Config cell_config(const GridParse& p, const Cell& cell) {
  const Grid& g = p.g;
  const std::vector<int>& combo = cell.value;
  ConfigBuilder b = p.fixed;
  std::map<std::string, int> set_by_axis;
  for (size_t a = 0; a < g.axes.size(); ++a) {
    const size_t before = b.entries().size();
    apply(b, g.axes[a], g.axes[a].values[combo[a]]);
    for (size_t i = before; i < b.entries().size(); ++i) set_by_axis[b.entries()[i].path] = static_cast<int>(a);
  }
  for (const auto& [text, source] : p.assignments) {
    const size_t before = b.entries().size();
    b.add_override(text, source);
    for (size_t i = before; i < b.entries().size(); ++i) set_by_axis.erase(b.entries()[i].path);
  }
  try {
    const int ba = g.axis_index("budget");
    double scale = 1.0;
    if (ba >= 0 && as_number(g.axes[ba].values[combo[ba]].value, scale) && scale != 1.0) {
      // A whole number of steps nearest to `scale` times the cell's base number of steps.
      const Config base_cell = b.build();
      const int64_t per_step = int64_t(base_cell.train.batch_size) * base_cell.model.seq_len;
      const int64_t base_steps = (base_cell.train.tokens + per_step - 1) / per_step;
      const int64_t steps = std::llround(scale * double(base_steps));
      const SourceLoc& loc = g.axes[ba].values[combo[ba]].loc;
      if (steps < 1)
        fail(loc, "budgets.scale", g.axes[ba].values[combo[ba]].label + " x " + std::to_string(base_steps) +
                                       " steps rounds to no step");
      b.add("train.tokens", Value::scalar(std::to_string(steps * per_step), loc));
      set_by_axis["train.tokens"] = ba;
    }
    return b.build();
  } catch (const ConfigError& e) {
    // The axis that set the key, or else one that set a sibling (another field of the same operand).
    auto it = set_by_axis.find(e.key);
    const std::string parent = e.key.substr(0, e.key.rfind('.') + 1);
    for (auto s = set_by_axis.begin(); it == set_by_axis.end() && s != set_by_axis.end(); ++s)
      if (!parent.empty() && s->first.rfind(parent, 0) == 0 && g.axes[s->second].kind != Axis::Kind::seed) it = s;
    const std::string where = "cell " + std::to_string(cell.index) + " (" + g.describe(cell) + ")";
    if (it == set_by_axis.end()) throw ConfigError(e.loc, e.key, where + ": " + bare_message(e));
    const AxisValue& v = g.axes[it->second].values[combo[it->second]];
    std::string msg = where + ": " + bare_message(e);
    if (e.loc.file != v.loc.file || e.loc.line != v.loc.line) msg += " [set at " + e.loc.str() + "]";
    throw ConfigError(v.loc, e.key, msg);
  }
}

// Every cell, built and validated; two cells may not be the same run.
void build_cells(GridParse& p) {
  Grid& g = p.g;
  std::map<std::string, int> first_with_id;
  for (const auto& combo : p.combos) {
    Cell cell;
    cell.index = static_cast<int>(g.cells.size());
    cell.value = combo;
    for (size_t a = 0; a < g.axes.size(); ++a) cell.vary.push_back({g.axes[a].name, g.axes[a].values[combo[a]].label});
    cell.config = cell_config(p, cell);
    cell.id = config_id(cell.config);
    cell.seed = cell.config.train.seed;
    if (auto [it, fresh] = first_with_id.insert({cell.id, cell.index}); !fresh) {
      const Cell& other = g.cells[it->second];
      SourceLoc loc = p.root.loc();
      for (size_t a = 0; a < g.axes.size(); ++a)
        if (other.value[a] != combo[a]) {
          loc = g.axes[a].values[combo[a]].loc;
          break;
        }
      fail(loc, "axes",
           "cells " + std::to_string(other.index) + " (" + g.describe(other) + ") and " +
               std::to_string(cell.index) + " (" + g.describe(cell) +
               ") are the same run (id " + cell.id +
               "): an axis value changes nothing, or a later axis or --set overrides it");
    }
    g.cells.push_back(std::move(cell));
  }
}

// baseline: for each cell, the baseline cell with its seed and its other axis values. A ladder
// without a `baseline:` is compared with its base arm.
void read_baseline(GridParse& p) {
  Grid& g = p.g;
  std::optional<Value> ladder_baseline;
  if (p.ladder && !p.find("baseline")) {
    ladder_baseline = Value::map(p.find("ladder")->loc());
    ladder_baseline->set(p.ladder->axis, Value::scalar("base", p.find("ladder")->loc()));
  }
  const Value* bl = ladder_baseline ? &*ladder_baseline : p.find("baseline");
  if (!bl) return;
  const Match m = parse_match(*bl, "baseline", g, false, false);
  for (const auto& [a, vals] : m) g.baseline.push_back({g.axes[a].name, g.axes[a].values[*vals.begin()].label});
  std::vector<int> base_cells;
  for (const auto& c : g.cells)
    if (matches(m, c.value)) base_cells.push_back(c.index);
  if (base_cells.empty()) fail(bl->loc(), "baseline", "matches no cell of the grid (excluded?)");
  const int seed_axis = g.axis_index("seed");
  auto in_match = [&](int a) { return std::any_of(m.begin(), m.end(), [&](const auto& e) { return e.first == a; }); };
  if (seed_axis >= 0)
    for (size_t v = 0; v < g.axes[seed_axis].values.size(); ++v)
      if (std::none_of(base_cells.begin(), base_cells.end(), [&](int i) { return g.cells[i].value[seed_axis] == int(v); }))
        fail(bl->loc(), "baseline", "matches no cell with seed " + g.axes[seed_axis].values[v].label + " (excluded?)");
  // A cell at a budget the baseline does not run at is compared with the baseline's base budget.
  const int budget_axis = g.axis_index("budget");
  for (auto& c : g.cells) {
    std::vector<int> same_seed, same_rest, same_but_budget;
    for (int i : base_cells) {
      const Cell& b = g.cells[i];
      if (seed_axis >= 0 && b.value[seed_axis] != c.value[seed_axis]) continue;
      same_seed.push_back(i);
      bool rest = true, but_budget = true;
      for (size_t a = 0; a < g.axes.size(); ++a)
        if (int(a) != seed_axis && !in_match(int(a)) && b.value[a] != c.value[a]) {
          rest = false;
          if (int(a) != budget_axis) but_budget = false;
        }
      if (rest) same_rest.push_back(i);
      double x = 0;
      if (but_budget && budget_axis >= 0 && as_number(g.axes[budget_axis].values[b.value[budget_axis]].value, x) && x == 1.0)
        same_but_budget.push_back(i);
    }
    if (same_rest.size() == 1) c.baseline = same_rest[0];
    else if (same_rest.empty() && same_but_budget.size() == 1) c.baseline = same_but_budget[0];
    else if (same_seed.size() == 1) c.baseline = same_seed[0];
  }
}

// A compare: side or a claim's: cells selected as baseline: does, stored as the axes' value labels.
analysis::Selector parse_selector(const Grid& g, const Value& v, const std::string& what) {
  const Match m = parse_match(v, what, g, false, false);
  if (std::none_of(g.cells.begin(), g.cells.end(), [&](const Cell& c) { return matches(m, c.value); }))
    fail(v.loc(), what, "matches no cell of the grid (excluded?)");
  analysis::Selector sel;
  for (const auto& [a, vals] : m) sel[g.axes[a].name] = g.axes[a].values[*vals.begin()].label;
  return sel;
}

std::pair<analysis::Selector, analysis::Selector> parse_selector_pair(const Grid& g, const Value& pair,
                                                                      const std::string& what) {
  return std::make_pair(parse_selector(g, pair.items()[0], what), parse_selector(g, pair.items()[1], what));
}

// analysis.compare and analysis.claims: their cell selectors, on the grid's axes.
void read_comparisons(Grid& g, const Value& an) {
  if (const Value* cmp = an.find("compare"))
    for (size_t i = 0; i < cmp->items().size(); ++i)
      g.analysis.compare[i] = parse_selector_pair(g, cmp->items()[i], "analysis.compare");
  if (const Value* claims = an.find("claims")) {
    std::set<std::string> ids;
    for (size_t i = 0; i < claims->items().size(); ++i) {
      analysis::Claim& c = g.analysis.claims[i];
      if (!ids.insert(c.id).second) fail(claims->items()[i].loc(), "analysis.claims", "duplicate claim id '" + c.id + "'");
      std::tie(c.a, c.b) = parse_selector_pair(g, *claims->items()[i].find("compare"), "analysis.claims." + c.id + ".compare");
    }
  }
}

// analysis: the settings analysis/runs.hpp reads; the multi-budget form with budgets:, the ladder.
void read_analysis(GridParse& p) {
  Grid& g = p.g;
  if (const Value* an = p.find("analysis")) {
    g.analysis = analysis::parse_analysis_settings(*an);
    const Value* target = an->is_map() ? an->find("target") : nullptr;
    if (target && g.analysis.target->rfind("baseline", 0) == 0 && g.baseline.empty())
      fail(target->loc(), "analysis.target", "target " + *g.analysis.target + " needs a `baseline:`");
    read_comparisons(g, *an);
  }
  if (p.find("budgets") && !g.analysis.budget_key) g.analysis.budget_key = "budget";
  if (p.ladder) g.analysis.ladder = p.ladder;
}

// The self-contained copy: the base config inlined under config:, --set recorded under set:.
std::string resolved_yaml(const GridParse& p) {
  const Grid& g = p.g;
  Value resolved = Value::map();
  resolved.set("name", Value::scalar(g.name));
  resolved.set("config", base_as_map(p.base));
  for (const char* key : {"overrides", "axes", "ladder", "budgets", "zip", "exclude", "seeds", "baseline", "analysis"})
    if (const Value* v = p.find(key)) resolved.set(key, *v);
  if (p.seeds_override) resolved.set("seeds", *p.seeds_override);
  if (!p.assignments.empty()) {
    Value list = Value::list();
    for (const auto& [text, source] : p.assignments) list.push_back(Value::scalar(text, {}, true));
    resolved.set("set", list);
  }
  return "# The resolved grid '" + g.name + "' (written by fp4lab from " + g.path +
         "): its base config inlined under `config:`, --set recorded under `set:`.\n" + emit_yaml(resolved);
}

}  // namespace

const std::vector<std::string>& grid_keys() { return kGridKeys; }

analysis::GridManifest grid_manifest(const Grid& g) {
  analysis::GridManifest m;
  m.grid = g.path;
  for (const auto& c : g.cells) {
    analysis::CellInfo info;
    info.index = c.index;
    info.id = c.id;
    info.seed = static_cast<int64_t>(c.seed);
    info.vary.insert(c.vary.begin(), c.vary.end());
    m.cells.push_back(std::move(info));
  }
  m.baseline.insert(g.baseline.begin(), g.baseline.end());
  m.settings = g.analysis;
  return m;
}

int Grid::axis_index(const std::string& name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string Grid::describe(const Cell& c) const {
  std::string s;
  for (const auto& [k, v] : c.vary) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s.empty() ? "(single cell)" : s;
}

Grid load_grid(const std::string& path, const std::vector<std::string>& sets) {
  return parse_grid(parse_yaml_file(path), path, sets);
}

Grid parse_grid(const Value& root, const std::string& path, const std::vector<std::string>& all_sets) {
  GridParse p(root, path, all_sets);
  read_name(p);
  read_base(p);
  read_seed_axis(p);
  read_axes(p);
  read_ladder_axis(p);
  read_budget_axis(p);
  expand(p);
  read_exclude(p);
  select_budget_cells(p);
  read_set(p);
  build_cells(p);
  read_baseline(p);
  read_analysis(p);
  p.g.resolved_yaml = resolved_yaml(p);
  return std::move(p.g);
}

}  // namespace fp4lab::grid
