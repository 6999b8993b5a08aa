// fp4lab plan / run / status / slurm: the grid commands. Parsing, expansion and validation are in
// experiments/grid/grid.hpp, running in runner.hpp; this file only maps options to them and prints.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

#include "analysis/curves.hpp"
#include "analysis/runs.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/grid/grid.hpp"
#include "experiments/grid/mpi.hpp"
#include "experiments/grid/runner.hpp"

namespace fp4lab::cli {

namespace fs = std::filesystem;
using grid::Grid;

namespace {

// Left-aligned text columns.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const {
    std::vector<size_t> width;
    for (const auto& r : rows_)
      for (size_t i = 0; i < r.size(); ++i) {
        if (width.size() <= i) width.push_back(0);
        width[i] = std::max(width[i], r[i].size());
      }
    for (const auto& r : rows_) {
      std::string line;
      for (size_t i = 0; i < r.size(); ++i)
        line += (i ? "  " : "") + r[i] + (i + 1 < r.size() ? std::string(width[i] - r[i].size(), ' ') : "");
      out << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string default_out_dir(const Grid& g) { return (fs::path("results") / g.name).string(); }

std::string baseline_column(const Grid& g, const grid::Cell& c) {
  if (g.baseline.empty()) return "";
  if (c.baseline == c.index) return "base";
  return c.baseline < 0 ? "-" : std::to_string(c.baseline);
}

std::string analysis_text(const Grid& g) {
  const analysis::ResolvedSettings a = analysis::resolve_settings(g.analysis, {});
  std::ostringstream s;
  s << "analysis: target " << a.target_text() << ", converged window " << a.window_text() << ", ema " << a.ema;
  return s.str();
}

void print_plan(const Grid& g) {
  std::cout << "grid " << g.name << " (" << g.path << "): " << g.cells.size() << (g.cells.size() == 1 ? " cell" : " cells");
  if (!g.baseline.empty()) {
    std::cout << "; baseline";
    for (const auto& [k, v] : g.baseline) std::cout << " " << k << "=" << v;
  }
  std::cout << "\n" << analysis_text(g) << "\n";
  std::vector<std::string> header = {"cell", "id"};
  for (const auto& a : g.axes) header.push_back(a.name);
  if (!g.baseline.empty()) header.push_back("vs");
  Table t(header);
  for (const auto& c : g.cells) {
    std::vector<std::string> row = {std::to_string(c.index), c.id};
    for (const auto& [k, v] : c.vary) row.push_back(v);
    if (!g.baseline.empty()) row.push_back(baseline_column(g, c));
    t.add(row);
  }
  t.print(std::cout);
  std::cout << g.cells.size() << (g.cells.size() == 1 ? " cell\n" : " cells\n");
}

std::string format_loss(double x) {
  if (!std::isfinite(x)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

std::string format_fidelity(double x) {
  if (!std::isfinite(x)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

// One run file: its state and, at its last telemetry step, the fidelity of its GEMM outputs
// against the fp32 replay (fidelity/ in the run file), per GEMM role over the linear layers.
void print_run_status(const std::string& path) {
  const RunData run = read_run(path);
  const StepRecord last = run.steps.empty() ? StepRecord{} : run.steps.back();
  std::cout << "run " << path << ": " << to_string(run.status) << ", step " << last.step << ", tokens " << last.tokens
            << ", loss " << format_loss(run.steps.empty() ? NAN : last.train_loss) << "\n";
  if (!run.status_message.empty()) std::cout << run.status_message << "\n";
  const analysis::RunFidelity f = analysis::last_fidelity(run);
  if (f.n_layers == 0) {
    std::cout << "fidelity: no records (train.fidelity or telemetry off, or a run file older than schema 6)\n";
    return;
  }
  std::cout << "fidelity against fp32 at step " << f.step << ", mean over " << f.n_layers << " linear layers:\n";
  Table t({"GEMM", "gain", "rel_err", "cosine", "sr_bias", "sr_rel_std", "lowest gain"});
  for (const GemmRole role : {GemmRole::fprop, GemmRole::dgrad, GemmRole::wgrad}) {
    const analysis::RunFidelity::Role& r = f.role[int(role)];
    t.add({to_string(role), format_fidelity(r.gain), format_fidelity(r.rel_err), format_fidelity(r.cosine),
           format_fidelity(r.sr_bias), format_fidelity(r.sr_rel_std),
           format_fidelity(r.lowest_gain) + " " + r.lowest_layer});
  }
  t.print(std::cout);
}

// Reads the folder's manifest (written by `fp4lab run`), so the ids are the ones the runs used
// even if presets changed since.
void print_status(const std::string& dir) {
  const std::optional<analysis::GridManifest> m = analysis::read_grid_manifest(dir);
  if (!m || m->cells.empty())
    throw ConfigError(SourceLoc{dir, 0, 0}, "DIR", "not a grid output folder (no manifest.yaml; `fp4lab run` writes one)");
  std::vector<std::string> keys;  // the seed first, then the other varying keys
  for (const auto& c : m->cells)
    for (const auto& [k, v] : c.vary)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  std::stable_partition(keys.begin(), keys.end(), analysis::is_seed_key);
  std::vector<std::string> header = {"cell", "id", "state", "step", "tokens", "loss", "tok/s", "quantized"};
  header.insert(header.end(), keys.begin(), keys.end());
  Table t(header);
  int counts[6] = {};
  std::vector<std::string> notes;
  std::vector<std::pair<std::string, std::string>> coverage;  // coverage line -> cells, first seen first
  for (const auto& c : m->cells) {
    const grid::CellStatus st = grid::cell_status(dir, c.id);
    ++counts[static_cast<int>(st.state)];
    const bool started = st.state != grid::CellState::pending;
    // "14/14 linear layers quantized ..." -> "14/14"
    const std::string quantized = st.coverage.find(" linear layers") != std::string::npos
                                      ? st.coverage.substr(0, st.coverage.find(' '))
                                      : "-";
    std::vector<std::string> row = {std::to_string(c.index), c.id, to_string(st.state),
                                    started ? std::to_string(st.step) : "-", started ? std::to_string(st.tokens) : "-",
                                    format_loss(st.last_loss),
                                    std::isfinite(st.tokens_per_second) ? std::to_string(std::llround(st.tokens_per_second)) : "-",
                                    quantized};
    for (const auto& k : keys) row.push_back(c.vary.count(k) ? c.vary.at(k) : "");
    t.add(row);
    if ((st.state == grid::CellState::failed || st.state == grid::CellState::diverged) && !st.message.empty())
      notes.push_back("cell " + std::to_string(c.index) + ": " + st.message);
    if (st.coverage.empty()) continue;
    auto it = std::find_if(coverage.begin(), coverage.end(), [&](const auto& e) { return e.first == st.coverage; });
    if (it == coverage.end()) coverage.emplace_back(st.coverage, std::to_string(c.index));
    else it->second += ", " + std::to_string(c.index);
  }
  std::cout << "grid " << dir << ": " << m->cells.size() << " cells";
  for (auto s : {grid::CellState::done, grid::CellState::running, grid::CellState::interrupted, grid::CellState::failed,
                 grid::CellState::diverged, grid::CellState::pending})
    if (counts[static_cast<int>(s)]) std::cout << ", " << counts[static_cast<int>(s)] << " " << to_string(s);
  std::cout << "\n";
  t.print(std::cout);
  for (const auto& [line, cells] : coverage) std::cout << "coverage (cells " << cells << "): " << line << "\n";
  for (const auto& n : notes) std::cout << n << "\n";
}

// A path for a shell script: absolute and single-quoted.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void write_slurm_script(const Grid& g, const std::string& out_dir, int threads, const std::string& time,
                        const std::string& partition) {
  const std::string dir = fs::absolute(out_dir).lexically_normal().string();
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  const std::string script = (fs::path(dir) / "slurm.sbatch").string();
  int max_ranks = 1;  // cells with train.ranks > 1 run under srun, data parallel
  std::string ranks;
  for (const auto& c : g.cells) {
    max_ranks = std::max(max_ranks, c.config.train.ranks);
    ranks += (ranks.empty() ? "" : " ") + std::to_string(c.config.train.ranks);
  }
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Slurm job array for grid '" << g.name << "': task i runs cell i of " << dir << "/grid.yaml.\n"
    << "# Written by `fp4lab slurm`; submit with: sbatch " << shell_quote(script) << "\n"
    << "#SBATCH --job-name=fp4lab-" << g.name << "\n"
    << "#SBATCH --array=0-" << g.cells.size() - 1 << "\n"
    << "#SBATCH --ntasks=" << max_ranks << "\n"
    << "#SBATCH --cpus-per-task=" << threads << "\n"
    << "#SBATCH --time=" << time << "\n";
  if (!partition.empty()) s << "#SBATCH --partition=" << partition << "\n";
  s << "#SBATCH --output=" << dir << "/slurm-%A_%a.out\n"
    << "set -euo pipefail\n"
    << "export OMP_NUM_THREADS=" << threads << "\n";
  if (max_ranks > 1)  // one srun step of the cell's train.ranks tasks (possibly across nodes)
    s << "ranks=(" << ranks << ")\n"
      << "exec srun --ntasks=\"${ranks[$SLURM_ARRAY_TASK_ID]}\" --cpus-per-task=" << threads << " " << shell_quote(exe);
  else
    s << "exec " << shell_quote(exe);
  s << " run " << shell_quote(dir + "/grid.yaml") << " --cell \"$SLURM_ARRAY_TASK_ID\" --out " << shell_quote(dir)
    << " --threads " << threads << "\n";
  grid::check_output_dir(g, out_dir);
  grid::write_output_dir(g, out_dir);
  std::ofstream(script) << s.str();
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  std::cout << "wrote " << script << " (" << g.cells.size() << " array tasks, " << threads << " threads each)\n"
            << "submit with: sbatch " << shell_quote(script) << "\n";
}

struct GridOptions {
  std::string grid, out, time = "04:00:00", partition;
  std::vector<std::string> sets, where;
  int jobs = 1, threads = 0, cell = -1;
  bool retry_failed = false;
};

void add_set_option(CLI::App* cmd, GridOptions& o) {
  cmd->add_option("--set", o.sets, "override a config key after the grid's axes: key=value (repeatable); seeds=[4,5,6] replaces the grid's seed list")
      ->allow_extra_args(false);
}

}  // namespace

void add_grid_commands(CLI::App& app) {
  auto o = std::make_shared<GridOptions>();

  CLI::App* plan = app.add_subcommand("plan", "Print a grid's cells (index, id, the values that vary) without running");
  plan->add_option("grid", o->grid, "grid file (YAML)")->required();
  add_set_option(plan, *o);
  plan->callback([o] { print_plan(grid::load_grid(o->grid, o->sets)); });

  CLI::App* run = app.add_subcommand(
      "run", "Run a grid's cells (finished cells are skipped, interrupted ones resume); under mpirun the ranks share it");
  run->footer("Exit status: 0 every cell done; 1 any cell failed, diverged or unfinished; 2 a grid or\n"
              "usage error (nothing run or written); 130/143 stopped by SIGINT/SIGTERM.");
  run->add_option("grid", o->grid, "grid file (YAML)")->required();
  run->add_option("--jobs,-j", o->jobs, "processes at the same time: cells, a cell with train.ranks K counting K (per MPI rank under mpirun)")
      ->check(CLI::PositiveNumber);
  run->add_option("--threads,-t", o->threads, "OpenMP threads per cell (default: cores / jobs)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--out,-o", o->out, "output folder (default: results/<grid name>)");
  run->add_option("--cell", o->cell, "run only this cell (e.g. $SLURM_ARRAY_TASK_ID); under mpirun/srun all ranks train it, data parallel")->check(CLI::NonNegativeNumber);
  run->add_option("--where", o->where,
                  "run only the cells whose axis has one of these values: AXIS=V[,V...] (repeatable; all must hold), "
                  "e.g. --where size=micro,tiny")
      ->allow_extra_args(false);
  run->add_flag("--retry-failed", o->retry_failed, "rerun failed and diverged cells from scratch");
  add_set_option(run, *o);
  run->callback([o] {
    const Grid g = grid::load_grid(o->grid, o->sets);
    if (o->cell >= static_cast<int>(g.cells.size()))
      throw ConfigError(SourceLoc{o->grid, 0, 0}, "--cell",
                        std::to_string(o->cell) + " is out of range: the grid has " + std::to_string(g.cells.size()) +
                            " cells (0-" + std::to_string(g.cells.size() - 1) + ")");
    grid::RunSettings s;
    s.out_dir = o->out.empty() ? default_out_dir(g) : o->out;
    s.jobs = o->jobs;
    s.threads = o->threads;
    s.only_cell = o->cell;
    s.retry_failed = o->retry_failed;
    if (!o->where.empty()) {
      if (o->cell >= 0 || grid::under_mpirun())
        throw ConfigError(SourceLoc{"--where", 0, 0}, "--where", "selects cells for a local run (not with --cell or under mpirun)");
      s.cells = grid::select_cells(g, o->where);
    }
    // Under mpirun (or srun), --cell trains that one cell on all the ranks, data parallel; without
    // --cell the ranks share the grid's cells.
    const int code = !grid::under_mpirun() ? grid::run_grid(g, s)
                     : s.only_cell >= 0    ? grid::run_cell_data_parallel(g, s)
                                           : grid::run_grid_mpi(g, s);
    if (code != kExitOk) throw Exit{code, ""};
  });

  CLI::App* status = app.add_subcommand(
      "status",
      "One line per cell of a grid output folder: state, step, tokens, loss; or one run file's state and, at its last "
      "telemetry step, its GEMMs' gain, relative error and cosine against the fp32 replay");
  status->add_option("dir", o->out, "grid output folder (holds manifest.yaml), or a run file")->required();
  status->callback([o] {
    if (fs::is_regular_file(o->out)) print_run_status(o->out);
    else print_status(o->out);
  });

  CLI::App* slurm = app.add_subcommand("slurm", "Write a Slurm job-array script running one cell per array task");
  slurm->add_option("grid", o->grid, "grid file (YAML)")->required();
  slurm->add_option("--out,-o", o->out, "output folder (default: results/<grid name>)");
  slurm->add_option("--threads,-t", o->threads, "CPUs and OpenMP threads per task (default 4)")->check(CLI::PositiveNumber);
  slurm->add_option("--time", o->time, "time limit per task, [D-]HH:MM:SS (default 04:00:00)");
  slurm->add_option("--partition,-p", o->partition, "Slurm partition");
  add_set_option(slurm, *o);
  slurm->callback([o] {
    const Grid g = grid::load_grid(o->grid, o->sets);
    if (!std::regex_match(o->time, std::regex(R"((\d+-)?\d{1,3}:\d{2}:\d{2})")))
      throw ConfigError(SourceLoc{"--time " + o->time, 0, 0}, "--time", "expected [D-]HH:MM:SS");
    write_slurm_script(g, o->out.empty() ? default_out_dir(g) : o->out, o->threads > 0 ? o->threads : 4, o->time,
                       o->partition);
  });
}

}  // namespace fp4lab::cli
