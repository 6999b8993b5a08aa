// TEMPORARY: placeholder registrations until the train/grid/analysis commands land. Delete me.
#include "experiments/cli/commands.hpp"
namespace fp4lab::cli {
void add_analysis_commands(CLI::App&) {}
}  // namespace fp4lab::cli
