// Model::forward_backward with a StepTelemetry: the stock telemetry observers attached for one call
// (benchmarks and tests; the trainer attaches its own, core/train/trainer.cpp).
#include <optional>

#include "core/model/fidelity.hpp"
#include "core/model/gnr.hpp"
#include "core/model/model.hpp"
#include "core/model/quant_stats.hpp"

namespace fp4lab {

double Model::forward_backward(const int32_t* tokens, int B, int T, uint64_t seed, int64_t step,
                               int64_t tokens_seen, StepTelemetry* tel) {
  if (!tel || !tel->quant_stats || !tel->quant) return forward_backward(tokens, B, T, seed, step, tokens_seen);
  QuantStatsObserver quant(tel->quant);
  std::optional<GnrObserver> gnr;
  std::optional<FidelityObserver> fidelity;
  std::vector<GemmObserver*> observers = {&quant};
  if (tel->gnr) observers.push_back(&gnr.emplace(tel->gnr));
  if (tel->fidelity) observers.push_back(&fidelity.emplace(*this, tel->fidelity));
  const AttachedObservers attached(*this, observers);
  return forward_backward(tokens, B, T, seed, step, tokens_seen);
}

}  // namespace fp4lab
