// Plots of an AnalysisReport through gnuplot (PNG via pngcairo, SVG): loss vs tokens per config
// group with seed bands, difference to the baseline with the converged window, gaps with CIs,
// tokens-to-target gaps, the multi-budget curve, and quantization SQNR over training.
// analysis/plot.cpp is the only file that includes gnuplot-iostream.h. No metrics here.
#pragma once
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/scaling.hpp"

namespace fp4lab::analysis {

struct PlotOptions {
  bool png = true, svg = true;
  int width = 960, height = 600;     // pixels
  size_t max_points = 2000;          // per curve, by stride (the run files keep every step)
  std::string gnuplot = "gnuplot";   // command
};

// Writes every plot the report has data for into `out_dir` (created if needed): for each plot
// NAME a script NAME.gp (data inline; re-render with `gnuplot NAME.gp` or
// `gnuplot -e "fmt='svg'" NAME.gp`) and the images NAME.png / NAME.svg, each written to a
// temporary name and renamed when complete. Returns the image paths. Throws std::runtime_error
// if gnuplot is missing or fails (with gnuplot's messages).
std::vector<std::string> plot_all(const AnalysisReport& report, const std::string& out_dir,
                                  const PlotOptions& options = {});

// The scaling plots: each series' loss gap against N (log x) with per-size CIs and its fit, and the
// token multiplier 1 + token gap against N (censored sizes as bounds). Same files as plot_all.
std::vector<std::string> plot_scaling(const ScalingReport& report, const std::string& out_dir,
                                      const PlotOptions& options = {});

bool gnuplot_available(const PlotOptions& options = {});

}  // namespace fp4lab::analysis
