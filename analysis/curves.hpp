// One run's curves as the analysis reads them (steps cleaned, the training loss smoothed,
// validation points deduplicated), and what the per-config summaries build from several runs:
// bands over seeds, the quantization-statistics series, the gradient-to-noise and fidelity summaries of a
// run's last telemetry step. Internal to the analysis layer (metrics.cpp; `fp4lab status RUN` prints
// last_fidelity); no report structure beyond the series types of metrics.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"

namespace fp4lab::analysis {

struct Curves {  // one run's curves, cleaned
  std::vector<StepRecord> steps;  // clean_steps of the run's steps
  std::vector<double> tokens, loss, ema;  // per step: tokens, raw and smoothed training loss
  std::vector<double> val_tokens, val_loss;
  std::vector<int64_t> val_step;
};
Curves build_curves(const RunData& run, double ema);

double last_finite(const std::vector<double>& v);  // NaN if none

// One quantity of one run on its steps; make_band keeps the steps every series has.
struct Series {
  std::vector<int64_t> steps;
  std::vector<double> tokens, values;
};
SeriesBand make_band(const std::vector<Series>& series);
// Smoothed cell minus smoothed reference on the steps both have.
Series diff_series(const Curves& cell, const Curves& ref);

// Per GEMM operand and format, the quantization statistics averaged over tensors and runs at
// each telemetry step (`runs` and `curves` in parallel).
std::vector<QuantSeries> quant_series(const std::vector<const RunData*>& runs, const std::vector<const Curves*>& curves);

// One run's gradient-to-noise ratios at its last telemetry step with any (n_layers = 0: none).
struct RunGnr {
  int64_t step = -1;
  int n_layers = 0, n_below = 0;
  double min_gnr = kNaN, median_gnr = kNaN;
  std::string lowest_layer;
};
RunGnr last_gnr(const RunData& run);

// One run's fidelity records at its last telemetry step with any (n_layers = 0: none), per GEMM
// role (index: GemmRole): means over the linear layers (sr_*: over the finite ones, NaN if none)
// and the layer with the lowest gain.
struct RunFidelity {
  int64_t step = -1;
  int n_layers = 0;
  struct Role {
    double gain = kNaN, rel_err = kNaN, cosine = kNaN, sr_bias = kNaN, sr_rel_std = kNaN;
    double lowest_gain = kNaN;
    std::string lowest_layer;
  } role[3];
};
RunFidelity last_fidelity(const RunData& run);

// Per linear layer, its wgrad gain against the fp32 replay at each telemetry step, averaged over
// `runs` on the steps every run has (tokens from the first run's steps).
std::vector<LayerSeries> wgrad_gain_series(const std::vector<const RunData*>& runs);

}  // namespace fp4lab::analysis
