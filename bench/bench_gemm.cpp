// fp4lab's two GEMM engines and plain OpenBLAS sgemm at the GEMM shapes of one `small` and one
// `medium` training step (4 sequences, as bench_model), at the same thread count: OMP_NUM_THREADS,
// which OpenBLAS's OpenMP build follows. Each iteration times three engines back to back on the
// same operands:
//   eigen     matmul(GemmEngine::eigen): Eigen per tile of the shape-fixed grid, OpenMP over tiles
//   tiled     matmul(GemmEngine::openblas): one single-threaded cblas_sgemm per tile of that grid
//             over the whole K (the bit-identical way to use a BLAS: what each element sums, and
//             in which order, cannot depend on the thread count)
//   openblas  one cblas_sgemm, threaded by OpenBLAS (what a BLAS reaches without the grid)
// x_openblas / x_tiled = eigen time / that engine's time (> 1: OpenBLAS faster). Also checks that
// OpenBLAS computes the same product (relative difference < 1e-5) and whether the tiled and the
// plain sgemm give the same bits at 1 and at N threads. OpenBLAS picks its kernels by CPU;
// OPENBLAS_CORETYPE=SkylakeX forces its AVX-512 ones (0.3.21 runs CPUs it does not know, such as
// the development VM's AMD Zen 5, on its AVX2 Haswell kernels). Not a correctness test of matmul
// (tests/test_ops.cpp).
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/ops/matmul.hpp"

namespace fp4lab {
namespace {

constexpr int kSequences = 4;  // per step, as bench_model: M = 4·seq_len tokens

struct Gemm {  // C [m, n] (+)= op(A) [m, k] · op(B) [k, n], row-major, as matmul()
  int64_t m, n, k;
  Trans ta, tb;
  bool accumulate;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

enum Role { kFprop, kDgrad, kWgrad };
const char* const kRoleNames[] = {"fprop", "dgrad", "wgrad"};

// A linear layer W [N, K] (y = x·Wᵀ) over M tokens, with the fp32 path's operand layouts
// (core/ops/linear.cpp): fprop Y = X·Wᵀ (n,t), dgrad dX += dY·W (n,n), wgrad dW += dYᵀ·X (t,n).
Gemm gemm_of(int64_t M, int64_t N, int64_t K, Role role) {
  switch (role) {
    case kFprop: return {M, N, K, Trans::n, Trans::t, false};
    case kDgrad: return {M, K, N, Trans::n, Trans::n, true};
    case kWgrad: return {N, K, M, Trans::t, Trans::n, true};
  }
  return {};
}

struct Kind {  // one kind of linear layer and how many a step has
  const char* name;
  int64_t n, k, count;
};

struct ModelGemms {
  const char* name;
  int64_t M;
  std::vector<Kind> kinds;
};

ModelGemms model_gemms(const char* name) {
  ConfigBuilder b;
  b.add_file(std::string(FP4LAB_SOURCE_DIR) + "/experiments/base/default.yaml");
  b.add_override(std::string("model=") + name);
  const ModelConfig c = b.build().model;
  const int64_t C = c.d_model, F = c.d_ff, V = c.vocab, L = c.n_layers;
  return {name,
          int64_t(kSequences) * c.seq_len,
          {{"d-d", C, C, 4 * L}, {"d-ff", F, C, 2 * L}, {"ff-d", C, F, L}, {"d-vocab", V, C, 1}}};
}

const ModelGemms& small() {
  static const ModelGemms m = model_gemms("small");
  return m;
}
const ModelGemms& medium() {
  static const ModelGemms m = model_gemms("medium");
  return m;
}

CBLAS_TRANSPOSE cblas_trans(Trans t) { return t == Trans::n ? CblasNoTrans : CblasTrans; }

// One sgemm on row-major operands with matmul()'s conventions; ld* are the stored row lengths.
void sgemm(float* c, int64_t ldc, const float* a, int64_t lda, Trans ta, const float* b, int64_t ldb,
           Trans tb, int64_t m, int64_t n, int64_t k, bool accumulate) {
  cblas_sgemm(CblasRowMajor, cblas_trans(ta), cblas_trans(tb), int(m), int(n), int(k), 1.0f, a, int(lda), b,
              int(ldb), accumulate ? 1.0f : 0.0f, c, int(ldc));
}

void openblas(float* c, const float* a, const float* b, const Gemm& g) {
  sgemm(c, g.n, a, g.ta == Trans::n ? g.k : g.m, g.ta, b, g.tb == Trans::n ? g.n : g.k, g.tb, g.m, g.n, g.k,
        g.accumulate);
}

struct Operands {
  std::vector<float> a, b, c;
  explicit Operands(const Gemm& g) : a(size_t(g.m * g.k)), b(size_t(g.k * g.n)), c(size_t(g.m * g.n)) {
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& x : a) x = u(gen);
    for (float& x : b) x = u(gen);
  }
};

// matmul on engine e, into c.
void engine(GemmEngine e, float* c, const Operands& o, const Gemm& g) {
  matmul(e, c, o.a.data(), g.ta, o.b.data(), g.tb, g.m, g.n, g.k, g.accumulate);
}

using Clock = std::chrono::steady_clock;

// Seconds of eigen, openblas and tiled over one pass of `gemms` (each with its repeat count).
struct Seconds {
  double eigen = 0, openblas = 0, tiled = 0;
};

// OpenBLAS's pthreads build would run its own spinning workers beside fp4lab's OpenMP threads.
bool openblas_shares_openmp_threads(benchmark::State& state) {
  if (openblas_get_parallel() == OPENBLAS_OPENMP) return true;
  state.SkipWithError("OpenBLAS is not its OpenMP build (Debian: libopenblas-openmp-dev)");
  return false;
}

void time_once(std::vector<std::pair<Gemm, int64_t>>& gemms, std::vector<Operands>& ops, Seconds& s) {
  auto run = [&](double& total, auto&& engine) {
    const auto t0 = Clock::now();
    for (size_t i = 0; i < gemms.size(); ++i) {
      for (int64_t r = 0; r < gemms[i].second; ++r) engine(gemms[i].first, ops[i]);
    }
    benchmark::ClobberMemory();
    total += std::chrono::duration<double>(Clock::now() - t0).count();
  };
  run(s.eigen, [](const Gemm& g, Operands& o) { engine(GemmEngine::eigen, o.c.data(), o, g); });
  run(s.tiled, [](const Gemm& g, Operands& o) { engine(GemmEngine::openblas, o.c.data(), o, g); });
  run(s.openblas, [](const Gemm& g, Operands& o) { openblas(o.c.data(), o.a.data(), o.b.data(), g); });
}

// ‖eigen − openblas‖ / ‖eigen‖ over C (from zero): the engines must compute the same product.
double relative_difference(const Gemm& g, const Operands& o) {
  std::vector<float> both(2 * o.c.size(), 0.0f);
  float* mine = both.data();
  float* theirs = mine + o.c.size();
  engine(GemmEngine::eigen, mine, o, g);
  openblas(theirs, o.a.data(), o.b.data(), g);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < o.c.size(); ++i) {
    diff += (double(mine[i]) - theirs[i]) * (double(mine[i]) - theirs[i]);
    norm += double(mine[i]) * mine[i];
  }
  return std::sqrt(diff / norm);
}

// Whether `engine` writes the same bits at 1 thread and at `threads` threads (OMP_NUM_THREADS, which
// OpenBLAS's OpenMP build follows).
template <class Engine>
bool same_bits(Operands& o, int threads, Engine engine) {
  const size_t n = o.c.size();
  std::vector<float> both(2 * n, 0.0f);  // [1 thread | `threads` threads]
  omp_set_num_threads(1);
  engine(both.data());
  omp_set_num_threads(threads);
  engine(both.data() + n);
  return std::memcmp(both.data(), both.data() + n, n * sizeof(float)) == 0;
}

void report(benchmark::State& state, const Seconds& s, double flops_per_iteration, const std::string& label) {
  const double flops = flops_per_iteration * double(state.iterations()) / 1e9;
  state.counters["eigen_GF/s"] = flops / s.eigen;
  state.counters["openblas_GF/s"] = flops / s.openblas;
  state.counters["tiled_GF/s"] = flops / s.tiled;
  state.counters["x_openblas"] = s.eigen / s.openblas;
  state.counters["x_tiled"] = s.eigen / s.tiled;
  state.SetLabel(label + " " + std::to_string(omp_get_max_threads()) + "thr");
}

// One GEMM of one linear kind: args (model 0 small / 1 medium, kind, role).
void BM_GemmVsOpenBlas(benchmark::State& state) {
  if (!openblas_shares_openmp_threads(state)) return;
  const ModelGemms& mdl = state.range(0) == 0 ? small() : medium();
  const Kind& kind = mdl.kinds[size_t(state.range(1))];
  const Role role = Role(state.range(2));
  const int threads = omp_get_max_threads();
  std::vector<std::pair<Gemm, int64_t>> gemms{{gemm_of(mdl.M, kind.n, kind.k, role), 1}};
  const Gemm& g = gemms[0].first;
  std::vector<Operands> ops{Operands(g)};
  Operands& o = ops[0];
  const double rel_diff = relative_difference(g, o);
  if (!(rel_diff < 1e-5)) {  // fp32 rounding differences are ~1e-7 of the norm
    state.SkipWithError(("OpenBLAS and matmul disagree: relative difference " + std::to_string(rel_diff)).c_str());
    return;
  }
  const bool tiled_same = same_bits(o, threads, [&](float* c) { engine(GemmEngine::openblas, c, o, g); });
  const bool openblas_same = same_bits(o, threads, [&](float* c) { openblas(c, o.a.data(), o.b.data(), g); });
  Seconds s;
  for (auto _ : state) {
    const Seconds before = s;
    time_once(gemms, ops, s);
    state.SetIterationTime(s.eigen - before.eigen);
  }
  report(state, s, g.flops(),
         std::string(mdl.name) + " " + kind.name + " " + kRoleNames[role] + " " + std::to_string(g.m) + "x" +
             std::to_string(g.n) + "x" + std::to_string(g.k));
  const MatmulTiles t = matmul_tiles(g.m, g.n);
  state.counters["tiles"] = double(t.row_parts * t.col_parts);
  state.counters["tiled_same_bits"] = tiled_same;
  state.counters["openblas_same_bits"] = openblas_same;
  state.counters["rel_diff"] = rel_diff;
}
BENCHMARK(BM_GemmVsOpenBlas)
    ->ArgsProduct({{0, 1}, {0, 1, 2, 3}, {kFprop, kDgrad, kWgrad}})
    ->ArgNames({"model", "kind", "role"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Every linear GEMM of one training step (each kind × role as often as the step runs it).
void BM_StepGemmsVsOpenBlas(benchmark::State& state) {
  if (!openblas_shares_openmp_threads(state)) return;
  const ModelGemms& mdl = state.range(0) == 0 ? small() : medium();
  std::vector<std::pair<Gemm, int64_t>> gemms;
  std::vector<Operands> ops;
  double flops = 0;
  for (const Kind& kind : mdl.kinds) {
    for (Role role : {kFprop, kDgrad, kWgrad}) {
      gemms.emplace_back(gemm_of(mdl.M, kind.n, kind.k, role), kind.count);
      ops.emplace_back(gemms.back().first);
      flops += gemms.back().first.flops() * double(kind.count);
    }
  }
  Seconds s;
  for (auto _ : state) {
    const Seconds before = s;
    time_once(gemms, ops, s);
    state.SetIterationTime(s.eigen - before.eigen);
  }
  report(state, s, flops, std::string(mdl.name) + " step");
}
BENCHMARK(BM_StepGemmsVsOpenBlas)->Arg(0)->Arg(1)->ArgName("model")->UseManualTime()->Unit(benchmark::kMillisecond);

// Which OpenBLAS kernels ran, in the benchmark's context header.
const bool kContext = [] {
  benchmark::AddCustomContext("openblas", std::string(openblas_get_config()) + " core " + openblas_get_corename());
  return true;
}();

}  // namespace
}  // namespace fp4lab
