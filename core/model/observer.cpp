// Helpers for GEMM observers (see observer.hpp).
#include "core/model/observer.hpp"

namespace fp4lab {

std::vector<float> local_wgrad(const LinearCall& call) {
  const int64_t d = call.n * call.input->k;
  std::vector<float> sum(call.dw[0], call.dw[0] + d);
  for (int s = 1; s < call.shards; ++s)
    for (int64_t i = 0; i < d; ++i) sum[size_t(i)] += call.dw[s][i];
  return sum;
}

}  // namespace fp4lab
