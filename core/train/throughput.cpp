// Model FLOPs per token and the measured GEMM peak (throughput.hpp).
#include "core/train/throughput.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/ops/matmul.hpp"

namespace fp4lab {

double model_flops_per_token(const ModelConfig& m) {
  const double linear = double(non_embedding_params(m)) + double(m.d_model) * m.vocab;
  return 6 * linear + 12.0 * m.n_layers * m.seq_len * m.d_model;
}

double measure_gemm_peak_gflops() {
  constexpr int64_t n = 512;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int64_t i = 0; i < n * n; ++i) a[size_t(i)] = float(i % 7) * 0.25f - 0.75f, b[size_t(i)] = float(i % 5) * 0.5f - 1.0f;
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    matmul(c.data(), a.data(), Trans::n, b.data(), Trans::t, n, n, n, false);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, 2.0 * n * n * n / s / 1e9);
  }
  return best;
}

}  // namespace fp4lab
