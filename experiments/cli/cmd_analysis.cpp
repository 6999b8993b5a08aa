// `fp4lab analyze`, `fp4lab plot`, `fp4lab report` and `fp4lab findings`: thin command-line
// wrappers over analysis/ (metrics, plots, reports, findings). No metric is computed here.
#include <filesystem>
#include <iostream>

#include "analysis/findings.hpp"
#include "analysis/plot.hpp"
#include "analysis/report.hpp"
#include "analysis/runs.hpp"
#include "analysis/scaling.hpp"
#include "core/io/atomic_file.hpp"
#include "experiments/cli/commands.hpp"

namespace fp4lab::cli {

namespace {

struct AnalysisArgs {
  std::string dir;
  std::vector<std::string> sets;   // analysis.<key>=value overrides
  std::vector<std::string> where;  // AXIS=V[,V...]: the cells analysed
};

const char* kWhereHelp =
    "analyse only the cells whose axis has one of these values: AXIS=V[,V...] (repeatable; all must hold), e.g. "
    "--where size=micro,tiny";

void add_common(CLI::App* cmd, AnalysisArgs& a) {
  cmd->add_option("DIR", a.dir, "grid output directory or curves pack (fp4lab pack)")->required();
  cmd->add_option("--set", a.sets,
                  "analysis setting override, e.g. --set window=0.5, --set target=2.9, --set ema=0.95")
      ->allow_extra_args(false);
  cmd->add_option("--where", a.where, kWhereHelp)->allow_extra_args(false);
}

// Where plot and report write by default: the directory itself, or the folder holding a pack.
std::string default_out(const std::string& dir_or_pack) {
  if (std::filesystem::is_directory(dir_or_pack)) return dir_or_pack;
  const std::string parent = std::filesystem::path(dir_or_pack).parent_path().string();
  return parent.empty() ? "." : parent;
}

analysis::AnalysisReport load(const AnalysisArgs& a) {
  if (!std::filesystem::is_directory(a.dir) && !analysis::is_curves_pack(a.dir))
    throw Exit{kExitUsage, "no such directory or curves pack: " + a.dir};
  analysis::AnalysisSettings overrides;
  for (const auto& s : a.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos) throw Exit{kExitUsage, "--set expects key=value, got '" + s + "'"};
    std::string key = s.substr(0, eq);
    if (key.rfind("analysis.", 0) == 0) key = key.substr(9);
    analysis::set_analysis_setting(overrides, key, s.substr(eq + 1));
  }
  analysis::GridRuns runs = analysis::load_grid(a.dir);
  try {
    analysis::keep_cells(runs, a.where);
  } catch (const std::invalid_argument& e) {
    throw Exit{kExitUsage, e.what()};
  }
  return analysis::analyze(runs, overrides);
}

// What `analyze` and `report` print: the per-config table, then the comparisons.
std::string summary(const analysis::AnalysisReport& report) {
  const std::string cmp = analysis::comparison_table(report);
  return analysis::summary_table(report) + (cmp.empty() ? "" : "\nComparisons (A − B, paired by seed):\n" + cmp);
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
      std::cout << (*json ? analysis::to_json(report) : summary(report));
    });
  }
  {
    auto args = std::make_shared<AnalysisArgs>();
    auto out = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("plot", "Loss curves, gaps and quantization statistics as PNG and SVG");
    add_common(cmd, *args);
    cmd->add_option("--out", *out, "output directory (default DIR/plots; for a pack, plots/ beside it)");
    cmd->callback([args, out] {
      const auto report = load(*args);
      const std::string dir = out->empty() ? default_out(args->dir) + "/plots" : *out;
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
    cmd->add_option("--out", *out, "output directory (default DIR; for a pack, the folder holding it)");
    cmd->add_flag("--no-plots", *no_plots, "skip the plots");
    cmd->callback([args, out, no_plots] {
      const auto report = load(*args);
      analysis::ReportOptions opt;
      opt.plots = !*no_plots;
      const std::string dir = out->empty() ? default_out(args->dir) : *out;
      const auto files = analysis::write_report(report, dir, opt);
      std::cout << summary(report) << "\nreport: " << dir << "/report.md ("
                << files.size() << " files written)\n";
    });
  }
  {
    auto dirs = std::make_shared<std::vector<std::string>>();
    auto out = std::make_shared<std::string>("results/findings");
    CLI::App* cmd = app.add_subcommand(
        "findings", "One row per published claim from the grids' `analysis.claims`: estimate, CI, verdict");
    cmd->add_option("DIR", *dirs, "grid output directories or curves packs (fp4lab pack)")->required();
    cmd->add_option("--out", *out, "where FINDINGS.md and findings.json go (default results/findings)");
    auto transfer = std::make_shared<std::vector<std::string>>();
    cmd->add_option("--transfer", *transfer,
                    "model-size ladders (directories or curves packs) whose joint law L(N, D) predicts each published "
                    "number at its size and budget: a transfer table per ladder in FINDINGS.md");
    auto transfer_where = std::make_shared<std::vector<std::string>>();
    cmd->add_option("--transfer-where", *transfer_where,
                    std::string("the cells of the --transfer ladders the joint law fits: ") + kWhereHelp);
    cmd->callback([dirs, out, transfer, transfer_where] {
      std::vector<analysis::AnalysisReport> reports;
      for (const auto& d : *dirs) {
        if (!std::filesystem::is_directory(d) && !analysis::is_curves_pack(d))
          throw Exit{kExitUsage, "no such directory or curves pack: " + d};
        reports.push_back(analysis::analyze_dir(d));
        if (reports.back().claims.empty()) std::cerr << "note: " << d << " states no claims (analysis.claims)\n";
      }
      const auto rows = analysis::findings(reports);
      std::filesystem::create_directories(*out);
      std::string md = analysis::findings_markdown(rows);
      for (const auto& d : *transfer) {
        const analysis::ScalingReport sr = analysis::scaling_analysis({load(AnalysisArgs{d, {}, *transfer_where})});
        md += "\n" + analysis::transfer_markdown(sr.transfer, sr.joint, sr.options.confidence,
                                                 d + (sr.units.empty() ? "" : ", " + sr.units));
      }
      io::write_file_atomically(*out + "/FINDINGS.md", md);
      io::write_file_atomically(*out + "/findings.json", analysis::findings_json(rows));
      std::cout << md << "\nwritten: " << *out << "/FINDINGS.md, " << *out << "/findings.json\n";
    });
  }
  {
    auto dirs = std::make_shared<std::vector<std::string>>();
    auto sets = std::make_shared<std::vector<std::string>>();
    auto where = std::make_shared<std::vector<std::string>>();
    auto out = std::make_shared<std::string>();
    auto opt = std::make_shared<analysis::ScalingOptions>();
    auto no_plots = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand(
        "scaling",
        "How each compared gap moves with model size: per-size gaps, effN/effD, fits, extrapolation; the joint law "
        "L(N, D) = E + A/N^α + B/D^β on the baseline with effN/effD per recipe");
    cmd->add_option("DIR", *dirs, "grid outputs whose comparisons span model sizes (one grid with a model axis, or one per size)")
        ->required();
    auto* at = cmd->add_option("--at", opt->at,
                               "extrapolate each fit to this many non-embedding parameters, e.g. 8e9; the joint law "
                               "L(N, D) also predicts each pair's gaps there (besides N = 8e9 at D = 1e12 tokens and "
                               "N = 1.2e10 at D = 1e13)")
                   ->check(CLI::PositiveNumber);
    cmd->add_option("--at-tokens", opt->at_tokens,
                    "training tokens D for the joint law's prediction at --at (default: --at times the baseline's "
                    "largest tokens per parameter)")
        ->check(CLI::PositiveNumber)
        ->needs(at);
    cmd->add_option("--bootstrap", opt->bootstrap, "bootstrap resamples of the seeds (default 2000)")
        ->check(CLI::Range(100, 1000000));
    cmd->add_option("--set", *sets, "analysis setting override for every grid, as for analyze");
    cmd->add_option("--where", *where, std::string(kWhereHelp) + "; applies to every grid");
    cmd->add_option("--out", *out, "write scaling.md, scaling.csv, scaling.json and plots/ here");
    cmd->add_flag("--no-plots", *no_plots, "skip the plots");
    cmd->callback([dirs, sets, where, out, opt, no_plots] {
      std::vector<analysis::AnalysisReport> reports;
      for (const auto& d : *dirs) reports.push_back(load(AnalysisArgs{d, *sets, *where}));
      opt->confidence = reports.front().settings.confidence;
      const analysis::ScalingReport rep = analysis::scaling_analysis(reports, *opt);
      if (out->empty()) {
        std::cout << analysis::scaling_markdown(rep) << analysis::joint_law_summary(rep.joint) << "\n";
        return;
      }
      std::vector<std::string> images;
      if (!*no_plots) {
        if (analysis::gnuplot_available()) images = analysis::plot_scaling(rep, *out + "/plots");
        else std::cerr << "note: gnuplot not found: no plots (install gnuplot-nox)\n";
      }
      std::filesystem::create_directories(*out);
      const std::string md = analysis::scaling_markdown(rep, images, *out);
      io::write_file_atomically(*out + "/scaling.md", md);
      io::write_file_atomically(*out + "/scaling.csv", analysis::scaling_csv(rep));
      io::write_file_atomically(*out + "/scaling.json", analysis::scaling_json(rep));
      std::cout << md << "\nwritten: " << *out << "/scaling.md, scaling.csv, scaling.json (" << images.size()
                << " images)\n" << analysis::joint_law_summary(rep.joint) << "\n";
    });
  }
}

}  // namespace fp4lab::cli
