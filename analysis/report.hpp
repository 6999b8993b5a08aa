// Serializing an AnalysisReport: JSON (analysis.json), Markdown (report.md, plots embedded by
// relative links) and CSV (report.csv), and writing them (atomically: core/io/atomic_file.hpp).
// Field names are documented in results/SCHEMA.md. No metrics (metrics.hpp), no gnuplot
// (plot.hpp).
#pragma once
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/plot.hpp"

namespace fp4lab::analysis {

constexpr int kAnalysisJsonVersion = 1;

// The whole report except the curves; numbers at full precision, NaN as null.
std::string to_json(const AnalysisReport& report);
// Human-readable report. `images` are paths (PNG and/or SVG) embedded relative to `base_dir`
// (the directory report.md will live in; "" = as given).
std::string to_markdown(const AnalysisReport& report, const std::vector<std::string>& images = {},
                        const std::string& base_dir = "");
// Just the per-config summary table of the Markdown report (for a terminal: `fp4lab analyze`).
std::string summary_table(const AnalysisReport& report);
// The "Comparisons" table (the grid's `compare:` pairs and claims; "" if none).
std::string comparison_table(const AnalysisReport& report);
// One row per config group (level=group), per comparison (level=comparison) and per cell
// (level=cell), full precision.
std::string to_csv(const AnalysisReport& report);

struct ReportOptions {
  bool plots = true;  // render plots into <out_dir>/plots (skipped with a note if no gnuplot)
  PlotOptions plot;
};

// Writes report.md, report.csv and analysis.json (and plots) into `out_dir`; returns every
// file written.
std::vector<std::string> write_report(const AnalysisReport& report, const std::string& out_dir,
                                      const ReportOptions& options = {});

}  // namespace fp4lab::analysis
