// `fp4lab analyze`, `fp4lab plot` and `fp4lab report`: thin command-line wrappers over analysis/
// (metrics, plots, reports). No metric is computed here.
#include <filesystem>
#include <iostream>

#include "analysis/plot.hpp"
#include "analysis/report.hpp"
#include "analysis/runs.hpp"
#include "experiments/cli/commands.hpp"

namespace fp4lab::cli {

namespace {

struct AnalysisArgs {
  std::string dir;
  std::vector<std::string> sets;  // analysis.<key>=value overrides
};

void add_common(CLI::App* cmd, AnalysisArgs& a) {
  cmd->add_option("DIR", a.dir, "grid output directory (run files + manifest)")->required();
  cmd->add_option("--set", a.sets,
                  "analysis setting override, e.g. --set window=0.5, --set target=2.9, --set ema=0.95")
      ->allow_extra_args(false);
}

analysis::AnalysisReport load(const AnalysisArgs& a) {
  if (!std::filesystem::is_directory(a.dir)) throw Exit{kExitUsage, "no such directory: " + a.dir};
  analysis::AnalysisSettings overrides;
  for (const auto& s : a.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos) throw Exit{kExitUsage, "--set expects key=value, got '" + s + "'"};
    std::string key = s.substr(0, eq);
    if (key.rfind("analysis.", 0) == 0) key = key.substr(9);
    analysis::set_analysis_setting(overrides, key, s.substr(eq + 1));
  }
  return analysis::analyze_dir(a.dir, overrides);
}

}  // namespace

void add_analysis_commands(CLI::App& app) {
  {
    auto args = std::make_shared<AnalysisArgs>();
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand(
        "analyze", "Token-to-target and converged-regime gaps against the grid's baseline, over seeds");
    add_common(cmd, *args);
    cmd->add_flag("--json", *json, "print the full analysis as JSON (field names: results/SCHEMA.md)");
    cmd->callback([args, json] {
      const auto report = load(*args);
      std::cout << (*json ? analysis::to_json(report) : analysis::summary_table(report));
    });
  }
  {
    auto args = std::make_shared<AnalysisArgs>();
    auto out = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("plot", "Loss curves, gaps and quantization statistics as PNG and SVG");
    add_common(cmd, *args);
    cmd->add_option("--out", *out, "output directory (default DIR/plots)");
    cmd->callback([args, out] {
      const auto report = load(*args);
      const std::string dir = out->empty() ? args->dir + "/plots" : *out;
      if (!analysis::gnuplot_available()) throw Exit{kExitRuntime, "gnuplot not found (install gnuplot-nox)"};
      for (const auto& f : analysis::plot_all(report, dir)) std::cout << f << "\n";
    });
  }
  {
    auto args = std::make_shared<AnalysisArgs>();
    auto out = std::make_shared<std::string>();
    auto no_plots = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("report", "Markdown + CSV + JSON report with the plots embedded");
    add_common(cmd, *args);
    cmd->add_option("--out", *out, "output directory (default DIR)");
    cmd->add_flag("--no-plots", *no_plots, "skip the plots");
    cmd->callback([args, out, no_plots] {
      const auto report = load(*args);
      analysis::ReportOptions opt;
      opt.plots = !*no_plots;
      const std::string dir = out->empty() ? args->dir : *out;
      const auto files = analysis::write_report(report, dir, opt);
      std::cout << analysis::summary_table(report) << "\nreport: " << dir << "/report.md ("
                << files.size() << " files written)\n";
    });
  }
}

}  // namespace fp4lab::cli
