// Op-group timers (see op_timer.hpp): a per-thread stack of open scopes; at each scope boundary the
// time since the previous boundary goes to the scope that was innermost.
#include "core/profile/op_timer.hpp"

#include <omp.h>

#include <chrono>

namespace fp4lab {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxDepth = 16;

struct Stack {
  OpGroup open[kMaxDepth];
  int depth = 0;
  int dropped = 0;  // scopes opened beyond kMaxDepth: charged to the innermost one kept
  Clock::time_point last;
  OpTimes totals;

  void charge(Clock::time_point now) {
    if (depth > 0) totals.seconds[size_t(open[depth - 1])] += std::chrono::duration<double>(now - last).count();
    last = now;
  }
};

thread_local Stack stack;

}  // namespace

namespace detail {
std::atomic<bool> op_timers_on{false};

bool op_scope_enter(OpGroup g) {
  if (omp_in_parallel()) return false;
  stack.charge(Clock::now());
  ++stack.totals.calls[size_t(g)];
  if (stack.depth == kMaxDepth) ++stack.dropped;
  else stack.open[stack.depth++] = g;
  return true;
}

void op_scope_exit() {
  stack.charge(Clock::now());
  if (stack.dropped > 0) --stack.dropped;
  else if (stack.depth > 0) --stack.depth;
}
}  // namespace detail

void set_op_timers(bool on) { detail::op_timers_on.store(on, std::memory_order_relaxed); }

void reset_op_timers() { stack.totals = OpTimes{}; }

OpTimes op_times() { return stack.totals; }

}  // namespace fp4lab
