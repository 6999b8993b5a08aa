// Wall-clock time per op group (GEMM, quantizer, attention, ...) for the step-breakdown benchmark.
// Each op opens an OpScope naming its group; while timers are on, time is charged to the innermost
// open scope, so nested scopes never count twice and the groups add up to the time spent inside any
// scope. Timers are off unless a benchmark turns them on; off, a scope is one relaxed load and a
// branch (~1 ns; a medium step opens a few hundred). Not a profiler: only the calling thread's
// scopes outside OpenMP parallel regions count, and a group's time includes its barriers.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "core/formats/enum_names.hpp"

namespace fp4lab {

enum class OpGroup : uint8_t {
  gemm,              // matmul
  quantizer,         // quantize() (formats, bf16 output rounding), operand transposes
  attention,         // attention forward/backward, RoPE
  norm_elementwise,  // RMSNorm, SwiGLU, residual adds, zeroing, non-finite scans
  embedding_loss,    // embedding lookup and its backward, softmax cross-entropy
  optimizer,         // AdamW with gradient clipping and per-tensor norms
};
constexpr int kOpGroups = 6;
template <>
struct EnumNames<OpGroup> {
  static constexpr EnumName<OpGroup> names[] = {{OpGroup::gemm, "gemm"},
                                                {OpGroup::quantizer, "quantizer"},
                                                {OpGroup::attention, "attention"},
                                                {OpGroup::norm_elementwise, "norm_elementwise"},
                                                {OpGroup::embedding_loss, "embedding_loss"},
                                                {OpGroup::optimizer, "optimizer"}};
};
static_assert(std::size(EnumNames<OpGroup>::names) == kOpGroups);

struct OpTimes {
  std::array<double, kOpGroups> seconds{};  // exclusive of nested scopes
  std::array<int64_t, kOpGroups> calls{};
};

void set_op_timers(bool on);  // process-wide
void reset_op_timers();       // the calling thread's totals
OpTimes op_times();           // the calling thread's totals since the last reset

namespace detail {
extern std::atomic<bool> op_timers_on;
bool op_scope_enter(OpGroup g);  // false (nothing recorded) inside a parallel region
void op_scope_exit();
}  // namespace detail

class OpScope {
 public:
  explicit OpScope(OpGroup g)
      : active_(detail::op_timers_on.load(std::memory_order_relaxed) && detail::op_scope_enter(g)) {}
  ~OpScope() {
    if (active_) detail::op_scope_exit();
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  bool active_;
};

}  // namespace fp4lab
