// TEMPORARY: placeholder registrations until cmd_quantize.cpp / cmd_formats.cpp land. Delete me.
#include "experiments/cli/commands.hpp"
namespace fp4lab::cli {
void add_quantize_command(CLI::App&) {}
void add_formats_command(CLI::App&) {}
}  // namespace fp4lab::cli
