// Numerics fingerprint: a hash of the quantizer's outputs (dequantized bits, codes, scales) for
// every operand format of a recipe (attention's when quantized) on fixed canary tensors, so two builds or machines can be
// compared without training; also the choices the canary cannot show (copies made from the forward
// copy, the delayed-scaling history settings, coverage other than all_linear). Stored in every run file.
#pragma once
#include <string>

#include "core/model/recipe.hpp"

namespace fp4lab {

std::string numerics_fingerprint(const RecipeConfig& recipe);  // 16 hex digits
std::string numerics_fingerprint(const QuantSpec& spec);

}  // namespace fp4lab
