// The single-rank Collective's abort (see parallel.hpp).
#include "core/model/parallel.hpp"

#include <cstdlib>
#include <iostream>

namespace fp4lab {

void Collective::abort(int code, const std::string& why) {
  std::cerr << "fp4lab: " << why << "\n";
  std::exit(code);
}

}  // namespace fp4lab
