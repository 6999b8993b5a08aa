// Grid manifest cells for the analysis and pack tests. Test code only.
#pragma once
#include <cstdint>
#include <string>

#include "analysis/runs.hpp"

namespace fp4lab::analysis::testing {

// Cell `index` of a grid over recipe and seed: its vary holds both.
inline CellInfo recipe_cell(int index, const std::string& id, int64_t seed, const std::string& recipe) {
  CellInfo c;
  c.index = index;
  c.id = id;
  c.seed = seed;
  c.vary = {{"recipe", recipe}, {"train.seed", std::to_string(seed)}};
  return c;
}

}  // namespace fp4lab::analysis::testing
