// The MPI cell dispatcher (Boost.MPI; the only file that includes it). Rank 0 coordinates and
// runs nothing: workers request a cell, rank 0 assigns one (or "later"/"finished"), workers run it
// in a forked child and report back. Every rank parses the grid itself; rank 0 checks they agree.
#include "experiments/grid/mpi.hpp"

#include <mpi.h>

#include "core/train/trainer.hpp"

#include <array>
#include <atomic>
#include <boost/mpi.hpp>
#include <boost/serialization/string.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>
#include <thread>

namespace boost::serialization {
template <class Archive>
void serialize(Archive& ar, fp4lab::grid::CellReport& r, unsigned) {
  ar & r.cell & r.state & r.ran & r.busy & r.step & r.tokens & r.last_loss & r.seconds & r.message;
}
}  // namespace boost::serialization

namespace fp4lab::grid {

namespace mpi = boost::mpi;

namespace {

enum Tag : int { kRequest = 1, kAssign, kStarted, kProgress, kReport, kBye };
constexpr int kLater = -1, kFinished = -2;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// OpenMPI's blocking receive spins a core; wait by polling instead (cells run for minutes).
template <class T>
void receive_politely(mpi::communicator& world, int source, int tag, T& value) {
  mpi::request req = world.irecv(source, tag, value);
  while (!req.test()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

volatile std::sig_atomic_t g_coordinator_stop = 0;
extern "C" void on_coordinator_signal(int sig) { g_coordinator_stop = sig; }

// A worker's source of cells: rank 0.
class RankZero : public CellSource {
 public:
  explicit RankZero(mpi::communicator& w) : world_(w) {}
  Next next(int& cell) override {
    world_.send(0, kRequest, 0);
    receive_politely(world_, 0, kAssign, cell);
    if (cell == kFinished) return Next::finished;
    if (cell == kLater) return Next::later;
    return Next::cell;
  }
  void started(int cell, bool resumed) override { world_.send(0, kStarted, std::array<int, 2>{cell, resumed}); }
  void progress(int cell, int64_t tokens, int64_t session) override {
    world_.send(0, kProgress, std::array<int64_t, 3>{cell, tokens, session});
  }
  void report(const CellReport& r) override { world_.send(0, kReport, r); }

 private:
  mpi::communicator& world_;
};

int coordinate(const Grid& g, const RunSettings& s, mpi::communicator& world) {
  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_coordinator_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  std::vector<int> scope;
  for (const auto& c : g.cells) scope.push_back(c.index);
  const double start = now_seconds();
  Monitor monitor(g, scope, s.out_dir, false);
  std::cout << "grid " << g.name << ": " << scope.size() << " cells (" << monitor.counted(CellState::done)
            << " already done) over " << world.size() - 1 << " MPI worker ranks x " << s.jobs << " at a time x "
            << s.threads << " threads; results in " << s.out_dir << std::endl;

  std::deque<int> pending(scope.begin(), scope.end());
  std::vector<std::pair<int, double>> deferred;  // locked by a process outside this job
  std::map<int, int> in_flight;                  // cell -> rank
  int workers = world.size() - 1;
  while (workers > 0) {
    const boost::optional<mpi::status> st = world.iprobe(mpi::any_source, mpi::any_tag);
    if (!st) {
      monitor.tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    const int rank = st->source();
    const std::string where = " on rank " + std::to_string(rank);
    switch (st->tag()) {
      case kRequest: {
        int unused = 0;
        world.recv(rank, kRequest, unused);
        int answer = kFinished;
        if (!g_coordinator_stop) {
          const double t = now_seconds();
          auto ready = std::find_if(deferred.begin(), deferred.end(), [&](const auto& d) { return d.second <= t; });
          if (!pending.empty()) {
            answer = pending.front();
            pending.pop_front();
          } else if (ready != deferred.end()) {
            answer = ready->first;
            deferred.erase(ready);
          } else if (!deferred.empty() || !in_flight.empty()) {
            answer = kLater;
          }
        }
        if (answer >= 0) in_flight[answer] = rank;
        world.send(rank, kAssign, answer);
        break;
      }
      case kStarted: {
        std::array<int, 2> started{};
        world.recv(rank, kStarted, started);
        monitor.started(started[0], started[1] != 0, where);
        break;
      }
      case kProgress: {
        std::array<int64_t, 3> p{};
        world.recv(rank, kProgress, p);
        monitor.progress(static_cast<int>(p[0]), p[1], p[2]);
        break;
      }
      case kReport: {
        CellReport r;
        world.recv(rank, kReport, r);
        in_flight.erase(r.cell);
        if (r.busy) deferred.push_back({r.cell, now_seconds() + 2.0});
        monitor.finished(r, where);
        break;
      }
      case kBye: {
        int code = 0;
        world.recv(rank, kBye, code);
        --workers;
        break;
      }
      default: {
        int junk = 0;
        world.recv(rank, st->tag(), junk);
      }
    }
    monitor.tick();
  }
  monitor.close();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return finish_run(g, scope, s.out_dir, g_coordinator_stop, now_seconds() - start);
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

}  // namespace

bool under_mpirun() {
  return env_int("OMPI_COMM_WORLD_SIZE") > 1 || env_int("PMI_SIZE") > 1 || env_int("SLURM_STEP_NUM_TASKS") > 1;
}

int run_grid_mpi(const Grid& g, const RunSettings& settings) {
  if (settings.only_cell >= 0)
    throw ConfigError(SourceLoc{"--cell", 0, 0}, "--cell", "runs one cell without mpirun (e.g. in a Slurm array)");
  // Each cell runs in a forked child that never calls MPI; silence OpenMPI's warning about fork.
  setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
  mpi::environment env(mpi::threading::single, /*abort_on_exception=*/false);
  mpi::communicator world;
  RunSettings s = settings;
  if (s.threads <= 0) {
    const int local = std::max(1, env_int("OMPI_COMM_WORLD_LOCAL_SIZE") - 1);  // ranks beside rank 0
    s.threads = std::max(1, default_threads(1) / (local * std::max(1, s.jobs)));
  }

  // Rank 0 prepares the output folder; everyone learns whether that worked and which cells exist.
  std::string error, ids;
  int error_code = 0;
  for (const auto& c : g.cells) ids += c.id + " ";
  if (world.rank() == 0) {
    try {
      check_output_dir(g, s.out_dir);
      write_output_dir(g, s.out_dir);
    } catch (const ConfigError& e) {
      error = e.what();
      error_code = 2;
    } catch (const std::exception& e) {
      error = e.what();
      error_code = 1;
    }
  }
  mpi::broadcast(world, error_code, 0);
  if (error_code) {
    if (world.rank() == 0) std::cerr << "fp4lab: " << error << "\n";
    return error_code;
  }
  std::string ids_of_rank0 = ids;
  mpi::broadcast(world, ids_of_rank0, 0);
  const bool agree = mpi::all_reduce(world, ids_of_rank0 == ids, std::logical_and<bool>());
  if (!agree) {
    if (world.rank() == 0) std::cerr << "fp4lab: the MPI ranks resolved the grid to different cells (different files or presets?)\n";
    return 1;
  }

  if (world.rank() == 0) return coordinate(g, s, world);
  RankZero source(world);
  const int sig = run_pool(g, s, source);
  world.send(0, kBye, sig);
  return sig ? 128 + sig : 0;
}

namespace {

// MPI's collectives have no timeout: each one here is started non-blocking and tested in a loop
// against a deadline. The loop spins (yielding the core between tests), as MPI's own blocking
// collectives do: a non-blocking collective only advances when tested, so a sleeping rank would
// slow a large all-gather down to one fragment per sleep.
class MpiCollective : public Collective {
 public:
  explicit MpiCollective(double timeout) : timeout_(timeout) {
    int ok = 0;
    MPI_Initialized(&ok);
    if (!ok) env_ = std::make_unique<mpi::environment>(mpi::threading::single, /*abort_on_exception=*/false);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  float max(float local) override {
    float out = 0;
    MPI_Request req;
    MPI_Iallreduce(&local, &out, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD, &req);
    wait(req, "the amax all-reduce");
    return out;
  }
  void allgather(const float* local, int64_t n, float* all) override {
    if (n > INT32_MAX) abort(1, "allgather of " + std::to_string(n) + " floats per rank exceeds MPI's int count");
    MPI_Request req;
    MPI_Iallgather(local, int(n), MPI_FLOAT, all, int(n), MPI_FLOAT, MPI_COMM_WORLD, &req);
    wait(req, "the gradient all-gather");
  }
  int64_t broadcast(int64_t value) override {
    MPI_Request req;
    MPI_Ibcast(&value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &req);
    wait(req, "a broadcast from rank 0");
    return value;
  }
  bool any(bool local) override {
    int in = local, out = 0;
    MPI_Request req;
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD, &req);
    wait(req, "the stop vote");
    return out != 0;
  }
  [[noreturn]] void abort(int code, const std::string& why) override {
    std::cerr << "fp4lab (rank " << rank_ << " of " << size_ << "): " << why << std::endl;
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  void wait(MPI_Request& req, const char* what) {
    const double start = now_seconds();
    for (int done = 0;;) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (done) return;
      const double waited = now_seconds() - start;
      if (waited > timeout_)
        abort(1, std::string("no answer from the other ranks in ") + what + " for " + std::to_string(int(timeout_)) +
                     " s: a rank died or hangs; stopping the run (rerun the command to resume from its checkpoint)");
      std::this_thread::yield();  // keep testing: a non-blocking collective advances only when tested
    }
  }

  double timeout_;
  std::unique_ptr<mpi::environment> env_;
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<Collective> mpi_collective(double timeout_seconds) {
  return std::make_unique<MpiCollective>(timeout_seconds);
}

namespace {
std::atomic<bool> g_cell_stop{false};
volatile std::sig_atomic_t g_cell_signal = 0;
extern "C" void on_cell_signal(int sig) {
  g_cell_signal = sig;
  g_cell_stop.store(true);
}
}  // namespace

int run_cell_data_parallel(const Grid& g, const RunSettings& s) {
  const std::unique_ptr<Collective> comm = mpi_collective(600);
  const Cell& cell = g.cells[size_t(s.only_cell)];
  if (comm->rank() == 0) {
    check_output_dir(g, s.out_dir);
    write_output_dir(g, s.out_dir);
  }
  struct sigaction sa {};
  sa.sa_handler = on_cell_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  TrainOptions opt;
  opt.out_path = run_file_path(s.out_dir, cell.id);
  opt.cell_id = cell.id;
  opt.threads = s.threads > 0 ? s.threads : default_threads(comm->size());
  opt.stop = &g_cell_stop;
  opt.collective = comm.get();
  const TrainResult r = train(cell.config, opt);
  if (comm->rank() == 0)
    std::cout << "cell " << cell.index << " (" << cell.id << ") on " << comm->size() << " ranks: " << to_string(r.status)
              << " at step " << r.step << (r.message.empty() ? "" : ": " + r.message) << std::endl;
  if (r.status == RunStatus::done) return 0;
  if (r.status == RunStatus::running) return 128 + (g_cell_signal ? int(g_cell_signal) : SIGINT);
  return 1;
}

}  // namespace fp4lab::grid
