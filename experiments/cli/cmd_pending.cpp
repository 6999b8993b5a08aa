// TEMPORARY: placeholder registrations until the train/grid/analysis commands land. Delete me.
#include "experiments/cli/commands.hpp"
namespace fp4lab::cli {
void add_train_command(CLI::App&) {}
void add_eval_command(CLI::App&) {}
void add_grid_commands(CLI::App&) {}
void add_analysis_commands(CLI::App&) {}
}  // namespace fp4lab::cli
