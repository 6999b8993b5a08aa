#include "experiments/cli/commands.hpp"
namespace fp4lab::cli {
void add_quantize_command(CLI::App&) {}
}
