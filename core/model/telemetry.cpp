// Names of GEMM operands (core/model/telemetry.hpp).
#include "core/model/telemetry.hpp"

namespace fp4lab {

std::string operand_name(GemmRole r, Operand o) {
  // fprop Y = X·Wᵀ; dgrad dX = dY·W; wgrad dW = dYᵀ·X.
  if (o == Operand::a) return r == GemmRole::fprop ? "x" : "dy";
  return r == GemmRole::wgrad ? "x" : "w";
}

}  // namespace fp4lab
