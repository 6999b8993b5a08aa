// The quantized linear layer's three GEMMs (see linear.hpp). Each operand is quantized at most once
// per use: a shared input's copies are reused by every consumer, and dgrad reads fprop's Q(W) when
// 16×16 tiles make the columnwise copy its exact transpose.
#include "core/ops/linear.hpp"

#include <stdexcept>
#include <string>

#include "core/ops/matmul.hpp"

namespace fp4lab {
namespace {

constexpr int kFprop = 0, kDgrad = 1, kWgrad = 2;
constexpr int kOperandA = 0, kOperandB = 1;
constexpr const char* kOperandNames[kGemmRoles][kGemmOperands] = {
    {"fprop x", "fprop w"}, {"dgrad dy", "dgrad w"}, {"wgrad dy", "wgrad x"}};

QuantSpec bf16_spec() {
  QuantSpec s;
  s.element = ElementFormat::bf16;
  return s;
}

// copy = Q(src) as a [rows, cols] matrix; src is stored [rows, cols], or [cols, rows] if `transposed`.
const float* fill(OperandCopy& copy, const float* src, bool transposed, int64_t rows, int64_t cols,
                  const QuantSpec& spec, const LinearQuant& q, int role, int operand) {
  copy.values.resize(size_t(rows * cols));
  const float* in = src;
  if (transposed) {
    transpose(copy.values.data(), src, cols, rows);
    in = copy.values.data();
  }
  copy.stats = QuantStats{};
  QuantOutputs extra;
  if (q.collect_stats) {
    extra.scales = &copy.scales;
    extra.global_amax = &copy.global_amax;
    extra.stats = &copy.stats;
  }
  const QuantRandom rnd{q.seed, kGemmRoles * kGemmOperands * q.stream +
                                    uint64_t(kGemmOperands * role + operand),
                        q.step};
  try {
    quantize(in, copy.values.data(), rows, cols, spec, rnd, extra);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(kOperandNames[role][operand]) + " [" +
                                std::to_string(rows) + ", " + std::to_string(cols) +
                                "]: " + e.what());
  }
  copy.spec = spec;
  copy.valid = true;
  return copy.values.data();
}

// out [m, n] += op(A)·op(B), the product rounded to bf16 first when the recipe says so.
void accumulate_product(float* out, const float* a, Trans ta, const float* b, Trans tb, int64_t m,
                        int64_t n, int64_t k, bool bf16_output, std::vector<float>& tmp) {
  if (!bf16_output) {
    matmul(out, a, ta, b, tb, m, n, k, true);
    return;
  }
  tmp.resize(size_t(m * n));
  matmul(tmp.data(), a, ta, b, tb, m, n, k, false);
  quantize(tmp.data(), tmp.data(), m, n, bf16_spec());
  const int64_t total = m * n;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < total; ++i) out[i] += tmp[size_t(i)];
}

// Q(Wᵀ) equals Q(W)ᵀ bit for bit: same spec, 16×16 tiles, deterministic rounding, no transform.
bool dgrad_reuses_fprop_w(const LinearRecipe& r, const LinearState& st) {
  return r.dgrad_w == r.fprop_w && r.dgrad_w.tile == Tile::d2 &&
         r.dgrad_w.rounding == Rounding::rne && !r.dgrad_w.rht && st.w_fprop.valid &&
         st.w_fprop.spec == r.dgrad_w;
}

}  // namespace

void LinearInput::bind(const float* x_new, int64_t m_new, int64_t k_new) {
  x = x_new;
  m = m_new;
  k = k_new;
  fprop.valid = false;
  wgrad.valid = false;
}

void linear_forward(float* y, LinearInput& x, const float* w, int64_t n, const LinearQuant& q,
                    LinearState& st) {
  const LinearRecipe& r = *q.recipe;
  const int64_t m = x.m, k = x.k;
  st.used[kFprop][kOperandA] = st.used[kFprop][kOperandB] = nullptr;

  const float* xa = x.x;  // [M, K]
  if (r.fprop_x.quantized()) {
    if (!(x.fprop.valid && x.fprop.spec == r.fprop_x)) {
      fill(x.fprop, x.x, false, m, k, r.fprop_x, q, kFprop, kOperandA);
    }
    xa = x.fprop.values.data();
    st.used[kFprop][kOperandA] = &x.fprop;
  }
  const float* wb = w;  // [N, K]
  st.w_fprop.valid = false;
  if (r.fprop_w.quantized()) {
    wb = fill(st.w_fprop, w, false, n, k, r.fprop_w, q, kFprop, kOperandB);
    st.used[kFprop][kOperandB] = &st.w_fprop;
  }
  matmul(y, xa, Trans::n, wb, Trans::t, m, n, k, false);  // [M, N]
  if (r.bf16_output) quantize(y, y, m, n, bf16_spec());
}

void linear_backward(float* dx, float* dw, const float* dy, LinearInput& x, const float* w,
                     int64_t n, const LinearQuant& q, LinearState& st, LinearScratch& sc) {
  const LinearRecipe& r = *q.recipe;
  const int64_t m = x.m, k = x.k;
  for (int role : {kDgrad, kWgrad}) st.used[role][kOperandA] = st.used[role][kOperandB] = nullptr;

  // dgrad: dX [M, K] += Q(dY) [M, N] · Q(Wᵀ)ᵀ
  const float* dya = dy;  // [M, N]
  if (r.dgrad_dy.quantized()) {
    dya = fill(sc.dy_dgrad, dy, false, m, n, r.dgrad_dy, q, kDgrad, kOperandA);
    st.used[kDgrad][kOperandA] = &sc.dy_dgrad;
  }
  const float* wb = w;  // [N, K] as stored, or Q(Wᵀ) [K, N]
  Trans wt = Trans::n;
  if (r.dgrad_w.quantized()) {
    if (dgrad_reuses_fprop_w(r, st)) {
      wb = st.w_fprop.values.data();  // Q(W) [N, K] = Q(Wᵀ)ᵀ
      st.used[kDgrad][kOperandB] = &st.w_fprop;
    } else {
      wb = fill(sc.w_dgrad, w, true, k, n, r.dgrad_w, q, kDgrad, kOperandB);
      wt = Trans::t;
      st.used[kDgrad][kOperandB] = &sc.w_dgrad;
    }
  }
  accumulate_product(dx, dya, Trans::n, wb, wt, m, k, n, r.bf16_output, sc.out);

  // wgrad: dW [N, K] += Q(dYᵀ) [N, M] · Q(Xᵀ)ᵀ, both copies along the tokens M
  const float* dyw = dy;  // dY [M, N] used transposed, or Q(dYᵀ) [N, M]
  Trans dyt = Trans::t;
  if (r.wgrad_dy.quantized()) {
    dyw = fill(sc.dy_wgrad, dy, true, n, m, r.wgrad_dy, q, kWgrad, kOperandA);
    dyt = Trans::n;
    st.used[kWgrad][kOperandA] = &sc.dy_wgrad;
  }
  const float* xw = x.x;  // X [M, K] as stored, or Q(Xᵀ) [K, M] used transposed
  Trans xt = Trans::n;
  if (r.wgrad_x.quantized()) {
    if (!(x.wgrad.valid && x.wgrad.spec == r.wgrad_x)) {
      fill(x.wgrad, x.x, true, k, m, r.wgrad_x, q, kWgrad, kOperandB);
    }
    xw = x.wgrad.values.data();
    xt = Trans::t;
    st.used[kWgrad][kOperandB] = &x.wgrad;
  }
  accumulate_product(dw, dyw, dyt, xw, xt, n, k, m, r.bf16_output, sc.out);
}

}  // namespace fp4lab
