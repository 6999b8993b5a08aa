// Names of GEMM roles and operands (core/model/telemetry.hpp).
#include "core/model/telemetry.hpp"

namespace fp4lab {

std::string to_string(GemmRole r) {
  switch (r) {
    case GemmRole::fprop: return "fprop";
    case GemmRole::dgrad: return "dgrad";
    case GemmRole::wgrad: return "wgrad";
  }
  return "unknown";
}

std::string operand_name(GemmRole r, Operand o) {
  // fprop Y = X·Wᵀ; dgrad dX = dY·W; wgrad dW = dYᵀ·X.
  if (o == Operand::a) return r == GemmRole::fprop ? "x" : "dy";
  return r == GemmRole::wgrad ? "x" : "w";
}

}  // namespace fp4lab
