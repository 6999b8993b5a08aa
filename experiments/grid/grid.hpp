// The grid language (DESIGN.md "Grid language"): reads a grid file, expands its axes into cells
// and builds and validates every cell's Config before anything runs. Every problem is a
// ConfigError naming the grid file, line and key. Not the scheduler (runner.hpp) and not the CLI.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/runs.hpp"
#include "core/config/config.hpp"
#include "core/config/value.hpp"

namespace fp4lab::grid {

// One value of an axis.
struct AxisValue {
  std::string label;  // how it prints: "nvfp4", "0.003", a variant's name, "{a: 1}"
  Value value;        // a key axis: the value given to the key; a variant axis: its settings map
  SourceLoc loc;      // where the value (or the variant's name) is written
};

// An axis: a config key by dotted path (`optim.lr`, a preset group like `recipe`), a named
// variant axis (values given as a map name -> settings), the seed axis (`seeds:`), or the budget
// axis (`budgets:`: multiples of each cell's training tokens, named `budget`).
struct Axis {
  enum class Kind { key, variants, seed, budget };
  std::string name;
  Kind kind = Kind::key;
  std::vector<AxisValue> values;
  SourceLoc loc;  // of the axis's key
};

// The axis values of one cell, in axis order: (axis name, value label).
using Vary = std::vector<std::pair<std::string, std::string>>;

struct Cell {
  int index = 0;
  std::string id;  // config_id(config)
  Config config;
  Vary vary;
  uint64_t seed = 0;       // config.train.seed
  std::vector<int> value;  // per axis, the index of this cell's value
  int baseline = -1;       // index of the cell this one is compared with (itself for a baseline
                           // cell); -1 when the grid has no baseline or no comparable cell
};

struct Grid {
  std::string name;
  std::string path;  // the grid file
  std::vector<Axis> axes;  // in expansion order of the file, the seed axis (if any) first
  std::vector<Cell> cells;
  Vary baseline;  // axis -> value label naming the baseline cells; empty = none
  analysis::AnalysisSettings analysis;  // the `analysis:` section, read by analysis/runs.hpp
  // A self-contained copy of the grid (the base config inlined, --set recorded under `set:`):
  // planning it gives the same cells with the same ids. Written to DIR/grid.yaml.
  std::string resolved_yaml;

  int axis_index(const std::string& name) const;  // -1 if absent
  std::string describe(const Cell& c) const;      // "recipe=nvfp4 seed=0"
};

// Reads, expands and validates a grid file. A cell's keys are layered
//   base (or config:) < overrides < axes, in file order < set: < `sets` (--set key=value)
// Throws ConfigError on any problem.
Grid load_grid(const std::string& path, const std::vector<std::string>& sets = {});
// The same from an already parsed document; a relative `base:` is resolved against `path`'s folder.
Grid parse_grid(const Value& root, const std::string& path, const std::vector<std::string>& sets = {});

// The keys a grid file may have at its top level.
const std::vector<std::string>& grid_keys();

// The manifest `fp4lab analyze` reads (analysis/runs.hpp): cells, seeds, varying keys, baseline.
analysis::GridManifest grid_manifest(const Grid& g);

}  // namespace fp4lab::grid
