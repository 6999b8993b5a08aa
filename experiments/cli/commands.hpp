// The fp4lab subcommands. Each command file defines one add_*_command that registers itself
// on the CLI11 app. Exit codes: 0 success, 1 runtime failure, 2 usage or config error, 3 a run
// stopped by the non-finite sentinel (fp4lab train).
#pragma once
#include <CLI/CLI.hpp>

namespace fp4lab::cli {

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNonfinite = 3;  // the sentinel met a NaN/Inf: the run file's sentinel/ holds the tensor

// A command's callback throws this to exit with a code and a one-line message on stderr.
struct Exit {
  int code;
  std::string message;
};

void add_quantize_command(CLI::App& app);
void add_gemm_command(CLI::App& app);
void add_formats_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_grid_commands(CLI::App& app);      // plan, run, status, slurm
void add_analysis_commands(CLI::App& app);  // analyze, plot, report, findings
void add_pack_command(CLI::App& app);       // pack (a grid's curves in one file)

}  // namespace fp4lab::cli
