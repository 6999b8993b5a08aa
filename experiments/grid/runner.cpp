// The local grid runner: output directory, per-cell locks and state, one forked child per cell,
// the --jobs pool, progress display and the final summary. MPI lives in mpi.cpp, which builds on
// this file (never the other way round); the CLI picks one of the two.
// A child trains one cell and reports over a pipe; the parent holds the cell's lock meanwhile.
#include "experiments/grid/runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#include "core/io/atomic_file.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/trainer.hpp"

namespace fp4lab::grid {

namespace fs = std::filesystem;

std::string run_file_path(const std::string& dir, const std::string& id) { return (fs::path(dir) / (id + ".h5")).string(); }
std::string lock_file_path(const std::string& dir, const std::string& id) { return (fs::path(dir) / (id + ".lock")).string(); }
std::string failed_file_path(const std::string& dir, const std::string& id) { return (fs::path(dir) / (id + ".failed")).string(); }
std::string grid_file_path(const std::string& dir) { return (fs::path(dir) / "grid.yaml").string(); }

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

bool lock_is_held(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);  // also releases the lock if we took it
  return held;
}

int64_t cell_total_tokens(const Config& c) {
  const int64_t per_step = int64_t(c.train.batch_size) * c.model.seq_len;
  return (c.train.tokens + per_step - 1) / per_step * per_step;
}

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long t = std::lround(s);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

std::string format_rate(double r) {
  char buf[32];
  if (r >= 1e6) std::snprintf(buf, sizeof buf, "%.2fM", r / 1e6);
  else if (r >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", r / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", r);
  return buf;
}

std::string clock_time() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&t));
  return buf;
}

// ---- signals ----

volatile std::sig_atomic_t g_stop_signal = 0;      // parent: SIGINT/SIGTERM received
std::atomic<bool> g_child_stop{false};             // child: checkpoint and return

extern "C" void on_parent_signal(int sig) { g_stop_signal = sig; }
extern "C" void on_child_signal(int) { g_child_stop.store(true); }

struct SignalGuard {  // installs the parent's handlers (no SA_RESTART: poll() wakes up) for a scope
  struct sigaction old_int {}, old_term {};
  SignalGuard() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_parent_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};

// ---- the child: trains one cell, reports over `out_fd`, never returns ----

constexpr int kChildDone = 0, kChildFailed = 1, kChildDiverged = 3, kChildInterrupted = 4;

void send_line(int fd, const std::string& line) {
  const std::string s = line + "\n";
  [[maybe_unused]] const ssize_t n = write(fd, s.data(), s.size());  // a dead parent is fine
}

// A cell with train.ranks K > 1: `mpirun -np K fp4lab run DIR/grid.yaml --cell I` trains it data
// parallel (this child holds the cell's lock meanwhile and passes SIGINT/SIGTERM on); the result is
// read back from the run file.
TrainResult train_under_mpirun(const Cell& cell, const RunSettings& s, const TrainOptions& opt) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  const std::vector<std::string> args = {"mpirun", "--oversubscribe", "-np", std::to_string(cell.config.train.ranks),
                                         exe, "run", grid_file_path(s.out_dir), "--cell", std::to_string(cell.index),
                                         "--out", s.out_dir, "--threads", std::to_string(opt.threads)};
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp("mpirun", argv.data());
    std::perror("fp4lab: cannot start mpirun for a multi-rank cell");
    _exit(127);
  }
  bool forwarded = false;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (opt.stop && opt.stop->load() && !forwarded) kill(pid, SIGTERM), forwarded = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) throw std::runtime_error("mpirun not found (train.ranks > 1)");
  TrainResult r = train_result_of(read_run(opt.out_path, false));
  if (r.status == RunStatus::running && !forwarded)
    r.message = "mpirun ended with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
                " before the run finished (a rank died?); rerun to resume";
  return r;
}

[[noreturn]] void run_child(const Grid& g, const Cell& cell, const RunSettings& s, int out_fd, pid_t parent) {
  struct sigaction sa {};
  sa.sa_handler = on_child_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGTERM);  // the parent dies: checkpoint and stop
  if (getppid() != parent) g_child_stop.store(true);

  TrainOptions opt;
  opt.out_path = run_file_path(s.out_dir, cell.id);
  opt.cell_id = cell.id;
  opt.resume = true;
  opt.threads = s.threads > 0 ? s.threads : default_threads(s.jobs);
  opt.stop = &g_child_stop;
  double last_sent = 0;
  int64_t session = 0, session_start = -1;
  opt.on_progress = [&](const TrainProgress& p) {
    if (session_start < 0) session_start = p.tokens - int64_t(cell.config.train.batch_size) * cell.config.model.seq_len;
    session = p.tokens - session_start;
    const double t = now_seconds();
    if (t - last_sent < 0.5 && p.step != p.total_steps) return;
    last_sent = t;
    send_line(out_fd, "p " + std::to_string(p.tokens) + " " + std::to_string(session));
  };
  int code = kChildFailed;
  try {
    const TrainResult r = cell.config.train.ranks > 1 ? train_under_mpirun(cell, s, opt) : train(cell.config, opt);
    std::ostringstream line;
    line.precision(17);
    line << "r " << to_string(r.status) << " " << r.step << " " << r.tokens << " " << r.last_loss << " "
         << one_line(r.message);
    send_line(out_fd, line.str());
    switch (r.status) {
      case RunStatus::done: code = kChildDone; break;
      case RunStatus::diverged: code = kChildDiverged; break;
      case RunStatus::running: code = kChildInterrupted; break;
      case RunStatus::failed: code = kChildFailed; break;
    }
  } catch (const std::exception& e) {
    send_line(out_fd, "e " + one_line(e.what()));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(code);
}

// ---- the pool ----

struct Child {
  int cell = -1;
  int slots = 1;  // of --jobs: the cell's ranks (train.ranks), each one process
  pid_t pid = -1;
  int pipe_fd = -1, lock_fd = -1;
  std::string buffer;
  CellReport report;
  double start = 0;
};

// Reads what a child wrote; returns false at end of file.
bool drain(Child& c, CellSource& source) {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(c.pipe_fd, buf, sizeof buf);
    if (n == 0) return false;
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    c.buffer.append(buf, static_cast<size_t>(n));
    for (size_t nl; (nl = c.buffer.find('\n')) != std::string::npos;) {
      std::istringstream in(c.buffer.substr(0, nl));
      c.buffer.erase(0, nl + 1);
      std::string kind;
      in >> kind;
      if (kind == "p") {
        int64_t tokens = 0, session = 0;
        in >> tokens >> session;
        c.report.tokens = tokens;
        source.progress(c.cell, tokens, session);
      } else if (kind == "r") {  // r <status> <step> <tokens> <loss> <message...>; the loss may be nan
        std::string status, loss;
        in >> status >> c.report.step >> c.report.tokens >> loss;
        c.report.last_loss = std::strtod(loss.c_str(), nullptr);
        std::getline(in >> std::ws, c.report.message);
      } else if (kind == "e") {
        std::getline(in >> std::ws, c.report.message);
      }
    }
  }
}

std::string signal_name(int sig) {
  const char* d = strsignal(sig);
  return "signal " + std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
}

// The outcome of a reaped child; writes the failure marker for crashes and errors.
CellReport finish_child(Child& c, int wait_status, bool stopping, const std::string& dir, const std::string& id) {
  CellReport r = c.report;
  r.cell = c.cell;
  r.ran = true;
  r.seconds = now_seconds() - c.start;
  if (WIFEXITED(wait_status)) {
    switch (WEXITSTATUS(wait_status)) {
      case kChildDone: r.state = CellState::done; break;
      case kChildDiverged: r.state = CellState::diverged; break;
      case kChildInterrupted: r.state = CellState::interrupted; break;
      case kChildFailed:
        r.state = CellState::failed;
        if (r.message.empty()) r.message = "training failed";
        break;
      default:
        r.state = CellState::failed;
        r.message = "exited with status " + std::to_string(WEXITSTATUS(wait_status));
    }
  } else {
    const int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
    if (stopping && (sig == SIGINT || sig == SIGTERM || sig == SIGKILL)) {
      r.state = CellState::interrupted;
    } else {
      r.state = CellState::failed;
      r.message = "crashed: killed by " + signal_name(sig);
    }
  }
  if (r.state == CellState::failed) {
    try {
      io::write_file_atomically(failed_file_path(dir, id), r.message + "\n");
    } catch (const std::exception& e) {
      std::cerr << "fp4lab: " << e.what() << "\n";
    }
  }
  return r;
}


// The state on disk; `held`: whether another process holds the cell's lock.
CellStatus disk_status(const std::string& dir, const std::string& id, bool held) {
  CellStatus s;
  s.last_loss = s.tokens_per_second = std::numeric_limits<double>::quiet_NaN();
  const std::string run = run_file_path(dir, id);
  RunStatus run_status = RunStatus::running;
  bool have_run = false;
  if (fs::exists(run)) {
    try {
      const RunData d = read_run(run, false);
      have_run = true;
      run_status = d.status;
      if (!d.steps.empty()) {
        s.step = d.steps.back().step;
        s.tokens = d.steps.back().tokens;
        s.last_loss = d.steps.back().train_loss;
        const size_t n = std::min<size_t>(10, d.steps.size());
        double secs = 0;
        for (size_t i = d.steps.size() - n; i < d.steps.size(); ++i) secs += d.steps[i].step_seconds;
        const int64_t before = d.steps.size() > n ? d.steps[d.steps.size() - n - 1].tokens : 0;
        if (secs > 0) s.tokens_per_second = double(d.steps.back().tokens - before) / secs;
      }
      s.message = d.status_message;
      s.coverage = d.meta.coverage;
    } catch (const std::exception& e) {
      s.message = std::string("unreadable run file: ") + e.what();
    }
  }
  if (have_run && run_status == RunStatus::done) s.state = CellState::done;
  else if (have_run && run_status == RunStatus::diverged) s.state = CellState::diverged;
  else if (held) s.state = CellState::running;
  else if (fs::exists(failed_file_path(dir, id))) {
    s.state = CellState::failed;
    s.message = one_line(read_text(failed_file_path(dir, id)));
    while (!s.message.empty() && s.message.back() == ' ') s.message.pop_back();
  } else if (have_run && run_status == RunStatus::failed) s.state = CellState::failed;
  else if (fs::exists(run)) s.state = CellState::interrupted;
  return s;
}

}  // namespace

int default_threads(int jobs) {
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, jobs));
}

CellStatus cell_status(const std::string& dir, const std::string& id) {
  return disk_status(dir, id, lock_is_held(lock_file_path(dir, id)));
}

void check_output_dir(const Grid& g, const std::string& dir) {
  const std::string existing = grid_file_path(dir);
  if (!fs::exists(existing)) {
    if (fs::exists(dir) && !fs::is_directory(dir))
      throw ConfigError(SourceLoc{dir, 0, 0}, "--out", "exists and is not a directory");
    return;
  }
  std::string name;
  try {
    const Value root = parse_yaml_file(existing);
    if (const Value* n = root.is_map() ? root.find("name") : nullptr) name = n->text();
  } catch (const ConfigError&) {
  }
  if (name != g.name)
    throw ConfigError(SourceLoc{existing, 0, 0}, "--out",
                      "the folder holds grid '" + name + "', not '" + g.name +
                          "'; choose another --out (a grid's cells can share run files only within one grid folder)");
}

void write_output_dir(const Grid& g, const std::string& dir) {
  fs::create_directories(dir);
  io::write_file_atomically(grid_file_path(dir), g.resolved_yaml);
  analysis::write_grid_manifest(dir, grid_manifest(g));
}

// ---- Monitor ----

Monitor::Monitor(const Grid& g, std::vector<int> scope, const std::string& dir, bool live)
    : grid_(g), scope_(std::move(scope)), state_(g.cells.size(), CellState::pending), tokens_(g.cells.size(), 0),
      session_tokens_(g.cells.size(), 0), total_tokens_(g.cells.size(), 0), waiting_noted_(g.cells.size(), false),
      start_(now_seconds()), live_(live && isatty(STDOUT_FILENO)) {
  for (int i : scope_) {
    const CellStatus st = cell_status(dir, g.cells[i].id);
    state_[i] = st.state;
    tokens_[i] = st.tokens;
    total_tokens_[i] = cell_total_tokens(g.cells[i].config);
  }
  last_log_ = start_;
}

int Monitor::counted(CellState s) const {
  int n = 0;
  for (int i : scope_) n += state_[i] == s;
  return n;
}

std::string Monitor::status_text() const {
  int64_t session = 0, remaining = 0;
  for (int i : scope_) {
    session += session_tokens_[i];
    if (state_[i] == CellState::pending || state_[i] == CellState::running || state_[i] == CellState::interrupted)
      remaining += std::max<int64_t>(0, total_tokens_[i] - tokens_[i]);
  }
  const double elapsed = now_seconds() - start_;
  const double rate = elapsed > 0 ? session / elapsed : 0;
  const int failed = counted(CellState::failed) + counted(CellState::diverged);
  std::ostringstream s;
  s << grid_.name << ": " << counted(CellState::done) << "/" << scope_.size() << " done, "
    << counted(CellState::running) << " running, " << failed << " failed, "
    << counted(CellState::pending) + counted(CellState::interrupted) << " pending";
  if (rate > 0) s << " | " << format_rate(rate) << " tok/s | ETA " << format_duration(remaining / rate);
  s << " | " << format_duration(elapsed);
  return s.str();
}

void Monitor::line(const std::string& text) {
  if (live_) {
    std::cout << "\r\x1b[K" << text << "\n";
    drawn_ = false;
    tick();
  } else {
    std::cout << "[" << clock_time() << "] " << text << std::endl;
  }
}

void Monitor::started(int cell, bool resumed, const std::string& where) {
  state_[cell] = CellState::running;
  if (!resumed) tokens_[cell] = 0;
  const Cell& c = grid_.cells[cell];
  line("cell " + std::to_string(cell) + " " + c.id + " (" + grid_.describe(c) + ") " +
       (resumed ? "resumed from its checkpoint" : "started") + where);
}

void Monitor::progress(int cell, int64_t tokens, int64_t session_tokens) {
  tokens_[cell] = tokens;
  session_tokens_[cell] = session_tokens;
}

void Monitor::finished(const CellReport& r, const std::string& where) {
  const Cell& c = grid_.cells[r.cell];
  const std::string head = "cell " + std::to_string(r.cell) + " " + c.id + " (" + grid_.describe(c) + ")";
  if (r.busy) {
    state_[r.cell] = CellState::running;
    if (!waiting_noted_[r.cell]) line(head + " is running in another process; waiting for it");
    waiting_noted_[r.cell] = true;
    return;
  }
  state_[r.cell] = r.state;
  if (r.tokens > 0) tokens_[r.cell] = r.tokens;
  std::ostringstream s;
  s << head;
  if (!r.ran) {
    if (r.state == CellState::done) return;  // counted, not worth a line
    s << " " << to_string(r.state) << " earlier: " << r.message << " (--retry-failed reruns it)";
    line(s.str());
    return;
  }
  char loss[32];
  std::snprintf(loss, sizeof loss, "%.4f", r.last_loss);
  switch (r.state) {
    case CellState::done:
      s << " done: " << r.step << " steps, " << r.tokens << " tokens, loss " << loss;
      break;
    case CellState::diverged: s << " DIVERGED at step " << r.step << ": " << r.message; break;
    case CellState::failed: s << " FAILED: " << r.message; break;
    default: s << " interrupted at step " << r.step << " (resumes from its checkpoint)"; break;
  }
  s << ", " << format_duration(r.seconds) << where;
  line(s.str());
}

void Monitor::tick() {
  const double t = now_seconds();
  if (live_) {
    if (drawn_ && t - last_log_ < 0.25) return;
    std::cout << "\r\x1b[K" << status_text() << std::flush;
    drawn_ = true;
    last_log_ = t;
  } else if (t - last_log_ >= 10) {
    last_log_ = t;
    std::cout << "[" << clock_time() << "] " << status_text() << std::endl;
  }
}

void Monitor::close() {
  if (live_ && drawn_) std::cout << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

// ---- the pool ----

int run_pool(const Grid& g, const RunSettings& s, CellSource& source) {
  SignalGuard signals;
  std::vector<Child> running;
  bool finished = false, stopping = false;
  double next_ask = 0;
  const pid_t self = getpid();

  // Takes the cell's lock and either reports it at once (busy, already finished) or forks it.
  auto launch = [&](int index) {
    const Cell& cell = g.cells[index];
    CellReport r;
    r.cell = index;
    const int lock_fd = open(lock_file_path(s.out_dir, cell.id).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd < 0) throw std::runtime_error("cannot open " + lock_file_path(s.out_dir, cell.id) + ": " + std::strerror(errno));
    if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
      close(lock_fd);
      r.busy = true;
      source.report(r);
      return;
    }
    const CellStatus st = disk_status(s.out_dir, cell.id, false);
    const bool finished_before = st.state == CellState::done || st.state == CellState::failed || st.state == CellState::diverged;
    if (finished_before && (st.state == CellState::done || !s.retry_failed)) {
      close(lock_fd);
      r.state = st.state;
      r.step = st.step;
      r.tokens = st.tokens;
      r.last_loss = st.last_loss;
      r.message = st.message;
      source.report(r);
      return;
    }
    if (finished_before) {  // --retry-failed: start again from scratch
      const std::string run = run_file_path(s.out_dir, cell.id);
      fs::remove(run);
      fs::remove(checkpoint_path_for(run));
      fs::remove(failed_file_path(s.out_dir, cell.id));
    }
    const std::string run = run_file_path(s.out_dir, cell.id);
    const bool resumed = fs::exists(run) && fs::exists(checkpoint_path_for(run));
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::fflush(stdout);
    std::cout.flush();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      for (const Child& other : running) {  // siblings' locks must not outlive the siblings
        close(other.pipe_fd);
        close(other.lock_fd);
      }
      close(fds[0]);
      run_child(g, cell, s, fds[1], self);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    Child c;
    c.cell = index;
    c.slots = std::max(1, cell.config.train.ranks);
    c.pid = pid;
    c.pipe_fd = fds[0];
    c.lock_fd = lock_fd;
    c.start = now_seconds();
    c.report.last_loss = std::numeric_limits<double>::quiet_NaN();
    running.push_back(std::move(c));
    source.started(index, resumed);
  };

  for (;;) {
    if (g_stop_signal && !stopping) {
      stopping = true;
      for (const Child& c : running) kill(c.pid, SIGTERM);
    }
    // A cell of K ranks fills K of the --jobs slots; one starts while a slot is free (so a K-rank
    // cell may overrun --jobs by K - 1 rather than wait for the grid to drain).
    auto slots_used = [&] {
      int n = 0;
      for (const Child& c : running) n += c.slots;
      return n;
    };
    while (!stopping && !finished && slots_used() < std::max(1, s.jobs) && now_seconds() >= next_ask) {
      int cell = -1;
      const CellSource::Next n = source.next(cell);
      if (n == CellSource::Next::finished) finished = true;
      else if (n == CellSource::Next::later) next_ask = now_seconds() + 1.0;
      else launch(cell);
    }
    if (running.empty() && (finished || stopping)) break;

    std::vector<pollfd> fds;
    for (const Child& c : running) fds.push_back({c.pipe_fd, POLLIN, 0});
    int timeout_ms = 250;
    if (running.empty()) timeout_ms = std::clamp(int((next_ask - now_seconds()) * 1000) + 1, 1, 1000);
    poll(fds.data(), fds.size(), timeout_ms);  // EINTR: a signal; handled at the top

    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      if (drain(c, source)) {
        ++i;
        continue;
      }
      int status = 0;
      while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
      }
      const CellReport r = finish_child(c, status, stopping, s.out_dir, g.cells[c.cell].id);
      close(c.pipe_fd);
      close(c.lock_fd);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      source.report(r);
    }
  }
  return stopping ? int(g_stop_signal) : 0;
}

// ---- the local run ----

namespace {

// All cells in order; cells locked by another process are retried every two seconds.
class LocalQueue : public CellSource {
 public:
  LocalQueue(const std::vector<int>& scope, Monitor& m) : pending_(scope.begin(), scope.end()), monitor_(m) {}
  Next next(int& cell) override {
    if (!pending_.empty()) {
      cell = pending_.front();
      pending_.pop_front();
      return Next::cell;
    }
    if (deferred_.empty()) return Next::finished;
    const double t = now_seconds();
    for (auto it = deferred_.begin(); it != deferred_.end(); ++it)
      if (it->second <= t) {
        cell = it->first;
        deferred_.erase(it);
        return Next::cell;
      }
    monitor_.tick();
    return Next::later;
  }
  void started(int cell, bool resumed) override {
    monitor_.started(cell, resumed);
    monitor_.tick();
  }
  void progress(int cell, int64_t tokens, int64_t session) override {
    monitor_.progress(cell, tokens, session);
    monitor_.tick();
  }
  void report(const CellReport& r) override {
    if (r.busy) deferred_.push_back({r.cell, now_seconds() + 2.0});
    monitor_.finished(r);
    monitor_.tick();
  }

 private:
  std::deque<int> pending_;
  std::vector<std::pair<int, double>> deferred_;
  Monitor& monitor_;
};

}  // namespace

int finish_run(const Grid& g, const std::vector<int>& scope, const std::string& dir, int stop_signal, double seconds) {
  int counts[6] = {};
  std::vector<std::string> problems;
  for (int i : scope) {
    const CellStatus st = cell_status(dir, g.cells[i].id);
    ++counts[static_cast<int>(st.state)];
    if (st.state == CellState::failed || st.state == CellState::diverged)
      problems.push_back("  cell " + std::to_string(i) + " " + g.cells[i].id + " (" + g.describe(g.cells[i]) + ") " +
                         to_string(st.state) + ": " + st.message);
  }
  const int done = counts[static_cast<int>(CellState::done)];
  std::ostringstream s;
  s << "grid " << g.name << ": " << done << "/" << scope.size() << " cells done";
  for (CellState st : {CellState::failed, CellState::diverged, CellState::interrupted, CellState::running, CellState::pending})
    if (counts[static_cast<int>(st)]) s << ", " << counts[static_cast<int>(st)] << " " << to_string(st);
  s << " in " << format_duration(seconds) << "; results in " << dir;
  if (stop_signal) s << " (stopped by " << signal_name(stop_signal) << "; run again to resume)";
  std::cout << s.str() << "\n";
  for (const auto& p : problems) std::cout << p << "\n";
  std::cout << std::flush;
  if (stop_signal) return 128 + stop_signal;
  return done == static_cast<int>(scope.size()) ? 0 : 1;
}

std::vector<int> select_cells(const Grid& g, const std::vector<std::string>& where) {
  auto fail = [](const std::string& msg) -> void { throw ConfigError(SourceLoc{"--where", 0, 0}, "--where", msg); };
  std::vector<std::pair<int, std::vector<std::string>>> wanted;  // axis, labels
  for (const auto& w : where) {
    const size_t eq = w.find('=');
    if (eq == std::string::npos) fail("'" + w + "': expected AXIS=VALUE[,VALUE...]");
    const std::string name = w.substr(0, eq);
    const int a = g.axis_index(name);
    std::vector<std::string> names;
    for (const auto& ax : g.axes) names.push_back(ax.name);
    if (a < 0) fail("'" + name + "' is not an axis of grid " + g.name + " (did you mean '" + closest_word(name, names) + "'?)");
    std::vector<std::string> labels, known;
    for (const auto& v : g.axes[size_t(a)].values) known.push_back(v.label);
    std::stringstream list(w.substr(eq + 1));
    for (std::string label; std::getline(list, label, ',');) {
      if (std::find(known.begin(), known.end(), label) == known.end())
        fail("'" + label + "' is not a value of axis " + name + " (did you mean '" + closest_word(label, known) + "'?)");
      labels.push_back(label);
    }
    wanted.push_back({a, labels});
  }
  std::vector<int> out;
  for (const auto& c : g.cells) {
    bool keep = true;
    for (const auto& [a, labels] : wanted) {
      const std::string& label = g.axes[size_t(a)].values[size_t(c.value[size_t(a)])].label;
      keep = keep && std::find(labels.begin(), labels.end(), label) != labels.end();
    }
    if (keep) out.push_back(c.index);
  }
  if (out.empty()) fail("selects no cell of grid " + g.name);
  return out;
}

int run_grid(const Grid& g, const RunSettings& s) {
  std::vector<int> scope = s.cells;
  if (s.only_cell >= 0) scope = {s.only_cell};
  else if (scope.empty())
    for (const auto& c : g.cells) scope.push_back(c.index);
  check_output_dir(g, s.out_dir);
  write_output_dir(g, s.out_dir);

  const double start = now_seconds();
  Monitor monitor(g, scope, s.out_dir, true);
  const int threads = s.threads > 0 ? s.threads : default_threads(s.jobs);
  std::cout << "grid " << g.name << ": " << scope.size() << (scope.size() == 1 ? " cell" : " cells") << " ("
            << monitor.counted(CellState::done) << " already done), " << s.jobs << " at a time x " << threads
            << " threads; results in " << s.out_dir << std::endl;
  LocalQueue queue(scope, monitor);
  const int sig = run_pool(g, s, queue);
  monitor.close();
  return finish_run(g, scope, s.out_dir, sig, now_seconds() - start);
}

}  // namespace fp4lab::grid
