// Shared helpers for the op and model tests: the named tolerances, an element-wise comparison that
// reports the worst index, expected and actual values and how many elements missed, and a central
// finite-difference gradient check. Test code only; never finite-differences through a quantizer.
#pragma once
#include "core/model/model.hpp"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/recipe.hpp"
#include "core/ops/matmul.hpp"

namespace fp4lab::testing {

// ---- Tolerances (every gradient/product test uses these; each states what it bounds) ----
// Double-precision central differences with step kFdStepDouble: truncation ~h²·|f'''| and rounding
// ~1e-16·|f|/h are both far below 1e-7 for the O(1) test functions.
constexpr double kFdStepDouble = 1e-5;
constexpr double kFdTolDouble = 1e-7;  // |analytic − FD| <= tol·(1 + |FD|)
// fp32 GEMM (k <= a few hundred, O(1) inputs) against a double reference: rel. error ~k·2⁻²⁴.
constexpr double kFloatProductTol = 2e-5;  // relative to the largest reference magnitude
// Whole-model fp32 directional derivative against fp32 central differences: the loss carries
// ~1e-7 relative rounding noise, amplified by 1/h; quantization is off.
constexpr double kModelFdStep = 1e-2;
constexpr double kModelFdTol = 2e-2;  // relative to |directional derivative|

// Compares `actual` with `expected` element by element: |a − e| <= atol + rtol·|e|.
// On failure prints the worst element, the values there and how many elements missed.
template <class A, class E>
::testing::AssertionResult all_close(const A* actual, const E* expected, int64_t n, double rtol,
                                     double atol) {
  int64_t misses = 0, worst = -1;
  double worst_excess = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = double(actual[i]), e = double(expected[i]);
    const double err = std::fabs(a - e), allowed = atol + rtol * std::fabs(e);
    if (!(err <= allowed)) {  // also catches NaN
      ++misses;
      const double excess = std::isnan(err) ? INFINITY : err - allowed;
      if (worst < 0 || excess > worst_excess) worst = i, worst_excess = excess;
    }
  }
  if (misses == 0) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(9);
  os << misses << " of " << n << " elements differ; worst at index " << worst
     << ": expected " << double(expected[worst]) << ", actual " << double(actual[worst])
     << " (rtol " << rtol << ", atol " << atol << ")";
  return ::testing::AssertionFailure() << os.str();
}

template <class A, class E>
::testing::AssertionResult all_close(const std::vector<A>& actual, const std::vector<E>& expected,
                                     double rtol, double atol) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << "sizes differ: " << actual.size() << " vs "
                                         << expected.size();
  }
  return all_close(actual.data(), expected.data(), int64_t(actual.size()), rtol, atol);
}

// Bitwise equality of two float buffers (reports like all_close).
inline ::testing::AssertionResult bit_equal(const float* a, const float* b, int64_t n) {
  return all_close(a, b, n, 0.0, 0.0);
}

// Central differences of f at x (in place, restored), compared with `grad`:
// |grad_i − FD_i| <= kFdTolDouble·(1 + |FD_i|) for every element.
inline ::testing::AssertionResult fd_gradient_matches(std::vector<double>& x,
                                                      const std::vector<double>& grad,
                                                      const std::function<double()>& f) {
  std::vector<double> fd(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + kFdStepDouble;
    const double up = f();
    x[i] = keep - kFdStepDouble;
    const double down = f();
    x[i] = keep;
    fd[i] = (up - down) / (2 * kFdStepDouble);
  }
  return all_close(grad, fd, kFdTolDouble, kFdTolDouble);
}

template <class T>
std::vector<T> random_vector(size_t n, uint32_t seed, double scale = 1.0) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist(0.0, scale);
  std::vector<T> v(n);
  for (auto& x : v) x = T(dist(gen));
  return v;
}

// Σ g ⊙ y in double: the scalar whose gradient with respect to y is g.
template <class T>
double dot(const std::vector<T>& g, const std::vector<T>& y) {
  double s = 0.0;
  for (size_t i = 0; i < g.size(); ++i) s += double(g[i]) * double(y[i]);
  return s;
}

// Reference C = op(A)·op(B) in double.
inline std::vector<double> reference_product(const std::vector<float>& a, Trans ta,
                                      const std::vector<float>& b, Trans tb, int64_t m, int64_t n,
                                      int64_t k) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = ta == Trans::n ? a[i * k + p] : a[p * m + i];
        const double bv = tb == Trans::n ? b[p * n + j] : b[j * k + p];
        s += av * bv;
      }
      c[i * n + j] = s;
    }
  }
  return c;
}

inline double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// The small model of the model tests: widths divisible by 16 (NVFP4 blocks, 16x16 tiles).
inline ModelConfig tiny_model_config(int seq_len) {
  ModelConfig c;
  c.vocab = 256;
  c.d_model = 32;
  c.n_layers = 2;
  c.n_heads = 4;
  c.d_ff = 64;
  c.seq_len = seq_len;
  return c;
}

// B x (T+1) uniform random tokens.
inline std::vector<int32_t> random_tokens(int B, int T, int vocab, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int32_t> t(size_t(B) * (T + 1));
  for (auto& x : t) x = int32_t(gen() % uint32_t(vocab));
  return t;
}

// The operand formats of TE's NVFP4BlockScaling (core/quant/NUMERICS.md, Operands and copies): E2M1
// in 16-blocks with E4M3 scales under an fp32 tensor scale; weights in 16×16 tiles; gradients
// stochastically rounded; RHT on both wgrad operands.
struct Nvfp4Specs {
  QuantSpec input, weight, grad, wgrad_grad, wgrad_input;
};

inline Nvfp4Specs nvfp4_specs() {
  Nvfp4Specs s;
  s.input.element = ElementFormat::fp4_e2m1;
  s.input.block = 16;
  s.input.scale = ScaleFormat::e4m3;
  s.input.operand_dtype = OperandDtype::fp32;  // as resolve_linear() hands it to the model's linears
  s.weight = s.grad = s.input;
  s.weight.tile = Tile::d2;
  s.grad.rounding = Rounding::sr;
  s.wgrad_grad = s.grad;
  s.wgrad_input = s.input;
  s.wgrad_grad.rht = s.wgrad_input.rht = true;
  return s;
}

inline LinearRecipe nvfp4_linear() {
  const Nvfp4Specs s = nvfp4_specs();
  return LinearRecipe{s.input, s.weight, s.grad, s.weight, s.wgrad_grad, s.wgrad_input, true};
}

// Every covered linear in NVFP4 with bf16 outputs; the LM head in fp32 with bf16 outputs.
inline RecipeConfig nvfp4_recipe() {
  RecipeConfig r;
  r.name = "nvfp4";
  r.quantized = nvfp4_linear();
  r.high_precision.bf16_output = true;
  return r;
}

}  // namespace fp4lab::testing
