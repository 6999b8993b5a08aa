// Running a grid's cells: the output folder (grid.yaml, manifest.yaml, per cell a run file,
// checkpoint, lock and failure marker), one forked child per cell under a flock(2) on DIR/<id>.lock,
// the --jobs pool (also used by the MPI workers, mpi.cpp), progress display and clean stops.
// Not the grid language (grid.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/formats/enum_names.hpp"
#include "experiments/grid/grid.hpp"

namespace fp4lab::grid {

struct RunSettings {
  std::string out_dir;
  int jobs = 1;              // cells at a time (per MPI rank under mpirun)
  int threads = 0;           // OpenMP threads per cell; 0: cores / jobs
  int only_cell = -1;        // --cell: run exactly this cell
  std::vector<int> cells;    // --where: run these cells (empty: all)
  bool retry_failed = false;  // rerun failed and diverged cells from scratch
};

// The cells whose axes have the values `where` names ("AXIS=V[,V...]" each; all must hold), in
// grid order. Throws ConfigError naming --where for an unknown axis or value, or no cell left.
std::vector<int> select_cells(const Grid& g, const std::vector<std::string>& where);

// A cell as seen on disk. `interrupted`: a run file still marked running with nobody holding the
// cell's lock (the next `fp4lab run` resumes it from its checkpoint).
enum class CellState { pending, running, interrupted, done, failed, diverged };

// Enum names (core/formats/enum_names.hpp), also for calls from other namespaces and grid::to_string.
using fp4lab::parse;
using fp4lab::to_string;

}  // namespace fp4lab::grid

template <>
struct fp4lab::EnumNames<fp4lab::grid::CellState> {
  using CellState = grid::CellState;
  static constexpr EnumName<CellState> names[] = {
      {CellState::pending, "pending"}, {CellState::running, "running"}, {CellState::interrupted, "interrupted"},
      {CellState::done, "done"},       {CellState::failed, "failed"},   {CellState::diverged, "diverged"}};
};

namespace fp4lab::grid {

struct CellStatus {
  CellState state = CellState::pending;
  int64_t step = 0, tokens = 0;
  double last_loss = 0;  // NaN when no step was recorded
  double tokens_per_second = 0;  // mean over the last (up to 10) steps; NaN when none was recorded
  std::string message;   // why it failed or diverged
  std::string coverage;  // the run file's coverage line ("" without a run file)
};

// Files of cell `id` in the output directory `dir`.
std::string run_file_path(const std::string& dir, const std::string& id);   // <id>.h5
std::string lock_file_path(const std::string& dir, const std::string& id);  // <id>.lock
std::string failed_file_path(const std::string& dir, const std::string& id);  // <id>.failed
std::string grid_file_path(const std::string& dir);                         // grid.yaml

// The state of a cell from its lock, failure marker and run file (never creates anything).
CellStatus cell_status(const std::string& dir, const std::string& id);

// Refuses (ConfigError) a directory that holds a different grid; otherwise creates it and
// atomically writes grid.yaml and the manifest.
void check_output_dir(const Grid& g, const std::string& dir);
void write_output_dir(const Grid& g, const std::string& dir);

// The default per-cell thread count: the machine's cores shared by `jobs` cells.
int default_threads(int jobs);

// Runs the grid (all cells, or settings.only_cell) on this machine with the local pool (under
// mpirun the CLI calls run_grid_mpi, mpi.hpp, instead). Returns the exit status: 0 when every cell is done, 1 otherwise, 128 + signal when stopped.
int run_grid(const Grid& g, const RunSettings& settings);

// ---- the pieces the MPI coordinator builds on ----

// What became of one cell handed to a pool.
struct CellReport {
  int cell = -1;
  CellState state = CellState::pending;  // done, diverged, failed, interrupted; pending = busy
  bool ran = false;   // run (or resumed) now, as opposed to found finished
  bool busy = false;  // its lock is held by another process; try again later
  int64_t step = 0, tokens = 0;
  double last_loss = 0, seconds = 0;
  std::string message;
};

// Where a pool gets cells: a local queue, or rank 0 over MPI.
class CellSource {
 public:
  enum class Next { cell, later, finished };
  virtual ~CellSource() = default;
  virtual Next next(int& cell) = 0;
  virtual void started(int cell, bool resumed) = 0;
  // tokens: the cell's position; session_tokens: trained by this process (for the rate).
  virtual void progress(int cell, int64_t tokens, int64_t session_tokens) = 0;
  virtual void report(const CellReport& r) = 0;
};

// Runs cells from `source` in forked children, up to settings.jobs at a time, until the source
// is finished or SIGINT/SIGTERM arrives (forwarded to the children, which checkpoint and exit).
// Returns the signal that stopped it, or 0.
int run_pool(const Grid& g, const RunSettings& settings, CellSource& source);

// Cell events and a progress line: a live single line on a terminal, otherwise plain log lines
// (one per event and one every 10 s) for batch logs.
class Monitor {
 public:
  // `live`: a single redrawn line when stdout is a terminal (false under mpirun, which gives
  // ranks a pseudo-terminal even in batch jobs).
  Monitor(const Grid& g, std::vector<int> scope, const std::string& dir, bool live);
  void started(int cell, bool resumed, const std::string& where = "");
  void progress(int cell, int64_t tokens, int64_t session_tokens);
  void finished(const CellReport& r, const std::string& where = "");
  void tick();  // redraws or logs when due
  void close();  // ends the live line
  int counted(CellState s) const;

 private:
  void line(const std::string& text);
  std::string status_text() const;
  const Grid& grid_;
  std::vector<int> scope_;
  std::vector<CellState> state_;
  std::vector<int64_t> tokens_, session_tokens_, total_tokens_;  // per cell
  std::vector<bool> waiting_noted_;
  double start_, last_log_ = 0;
  bool live_, drawn_ = false;
};

// Final states from disk, a summary line, and the exit status for `scope`.
int finish_run(const Grid& g, const std::vector<int>& scope, const std::string& dir, int stop_signal,
               double seconds);

}  // namespace fp4lab::grid
