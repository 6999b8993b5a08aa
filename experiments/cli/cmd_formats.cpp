#include "experiments/cli/commands.hpp"
namespace fp4lab::cli {
void add_formats_command(CLI::App&) {}
}
