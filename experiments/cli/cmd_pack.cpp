// `fp4lab pack DIR OUT.h5`: a grid directory's curves in one small HDF5 file (a curves pack) that
// analyze, plot, report and findings read in place of the directory. The layout lives in
// analysis/runs.hpp (write_curves_pack) and core/train/run_file.hpp (write_packed_run).
#include <filesystem>
#include <iostream>

#include "analysis/runs.hpp"
#include "experiments/cli/commands.hpp"

namespace fp4lab::cli {

void add_pack_command(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "pack", "Pack a grid's curves (manifest, per-run attributes, steps and val; no telemetry) into one HDF5 file");
  cmd->add_option("DIR", *dir, "grid output directory (manifest.yaml + run files)")->required();
  cmd->add_option("OUT", *out, "the curves pack to write, e.g. results/findings/GRID/curves.h5")->required();
  cmd->callback([dir, out] {
    if (!std::filesystem::is_directory(*dir)) throw Exit{kExitUsage, "no such directory: " + *dir};
    if (std::filesystem::is_directory(*out)) throw Exit{kExitUsage, "OUT is a directory: " + *out};
    const auto manifest = analysis::read_grid_manifest(*dir);
    if (!manifest || manifest->cells.empty())
      throw Exit{kExitUsage, *dir + ": no manifest.yaml listing cells: not a grid output directory"};
    const analysis::PackSummary s = analysis::write_curves_pack(*dir, *out);
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(*out, ec);
    std::cout << "packed " << s.packed << " of " << s.cells << " cells (" << s.running << " running, " << s.pending
              << " pending, " << s.unreadable << " unreadable) into " << *out << " (" << (ec ? 0 : bytes)
              << " bytes)\n";
  });
}

}  // namespace fp4lab::cli
