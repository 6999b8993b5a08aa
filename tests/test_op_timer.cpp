// Op-group timers (core/profile/op_timer.hpp): off they record nothing; on, each op's scope counts
// once in its group, nested scopes charge time exclusively (the groups never add up to more than the
// wall time around them), and scopes inside an OpenMP parallel region are ignored. Semantics only:
// no assertion on how long anything takes.
#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <vector>

#include "core/ops/matmul.hpp"
#include "core/profile/op_timer.hpp"

namespace fp4lab {
namespace {

int64_t total_calls(const OpTimes& t) {
  int64_t n = 0;
  for (int64_t c : t.calls) n += c;
  return n;
}

// C [37, 23] = A [37, 11] · B [11, 23]: one gemm scope.
void one_matmul() {
  std::vector<float> a(37 * 11, 1.0f), b(11 * 23, 2.0f), c(37 * 23);
  matmul(c.data(), a.data(), Trans::n, b.data(), Trans::n, 37, 23, 11, false);
}

TEST(OpTimer, OffRecordsNothing) {
  set_op_timers(false);
  reset_op_timers();
  one_matmul();
  const OpTimes t = op_times();
  EXPECT_EQ(total_calls(t), 0);
  for (double s : t.seconds) EXPECT_EQ(s, 0.0);
}

TEST(OpTimer, NestedScopesCountOnceAndChargeExclusively) {
  set_op_timers(true);
  reset_op_timers();
  const auto t0 = std::chrono::steady_clock::now();
  {
    const OpScope outer(OpGroup::attention);
    one_matmul();
    one_matmul();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  set_op_timers(false);
  const OpTimes t = op_times();
  EXPECT_EQ(t.calls[size_t(OpGroup::attention)], 1);
  EXPECT_EQ(t.calls[size_t(OpGroup::gemm)], 2);
  EXPECT_EQ(total_calls(t), 3);
  double sum = 0;
  for (double s : t.seconds) {
    EXPECT_GE(s, 0.0);
    sum += s;
  }
  EXPECT_GT(t.seconds[size_t(OpGroup::gemm)], 0.0);
  EXPECT_LE(sum, wall);  // exclusive: the matmuls' time is not also the outer scope's
}

TEST(OpTimer, ScopesInsideParallelRegionsAreIgnored) {
  set_op_timers(true);
  reset_op_timers();
  bool active = false;  // a team of one is no parallel region: its scope counts
#pragma omp parallel num_threads(2)
  {
    const OpScope s(OpGroup::optimizer);
#pragma omp master
    active = omp_in_parallel();
  }
  set_op_timers(false);
  EXPECT_EQ(op_times().calls[size_t(OpGroup::optimizer)], active ? 0 : 1);
}

}  // namespace
}  // namespace fp4lab
