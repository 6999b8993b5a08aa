// The quantized linear layer's three GEMMs (see linear.hpp). Each operand is quantized at most once
// per use (shared inputs' copies are reused; dgrad reads fprop's Q(W) when 16×16 tiles make it the
// exact transpose). The sentinel rides on passes that run anyway (encoding, bf16 output rounding,
// accumulation); only outputs no pass touches get a scan; locating a finding re-reads the tensors.
#include "core/ops/linear.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/ops/fp4_quantize.hpp"
#include "core/ops/matmul.hpp"
#include "core/profile/op_timer.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/format_table.hpp"

namespace fp4lab {
namespace {

constexpr int kFprop = 0, kDgrad = 1, kWgrad = 2;
constexpr int kOperandA = 0, kOperandB = 1;
constexpr const char* kOperandNames[kGemmRoles][kGemmOperands] = {
    {"fprop x", "fprop w"}, {"dgrad dy", "dgrad w"}, {"wgrad dy", "wgrad x"}};
constexpr const char* kRoleNames[kGemmRoles] = {"fprop", "dgrad", "wgrad"};

QuantSpec bf16_spec() {
  QuantSpec s;
  s.element = ElementFormat::bf16;
  return s;
}

// Where one operand's values come from: `src` stored [rows, cols], or [cols, rows] if `transposed`.
struct OperandSource {
  const float* src;
  bool transposed;
  int64_t rows, cols;
};

// Operands along the tokens (X, dY and their transposes; not W) are a data-parallel rank's slice.
bool token_operand(int role, int operand) { return role == kWgrad || operand == kOperandA; }

QuantRandom random_of(const LinearQuant& q, int role, int operand) {
  QuantRandom r{q.seed, kGemmRoles * kGemmOperands * q.stream + uint64_t(kGemmOperands * role + operand), q.step};
  if (q.global_tokens > 0 && token_operand(role, operand)) {
    if (role == kWgrad) r.col_offset = q.token_offset, r.global_cols = q.global_tokens;  // [*, tokens]
    else r.row_offset = q.token_offset;                                                  // [tokens, *]
  }
  return r;
}

bool injected(const LinearQuant& q, int role, int operand) {
  return q.inject && q.inject->role == role && q.inject->operand == operand;
}

// The operand as its GEMM reads it, with the testing injection applied: `src` itself when it can be
// read as is, else written into `buf` [rows, cols].
const float* prepare(float* buf, const OperandSource& o, const LinearQuant& q, int role, int operand) {
  const bool poison = injected(q, role, operand);
  if (!o.transposed && !poison) return o.src;
  if (o.transposed) transpose(buf, o.src, o.cols, o.rows);
  else std::copy(o.src, o.src + o.rows * o.cols, buf);
  if (poison) {
    if (q.inject->index < 0 || q.inject->index >= o.rows * o.cols)
      throw std::invalid_argument(std::string(kOperandNames[role][operand]) + ": injection index out of range");
    buf[q.inject->index] = std::numeric_limits<float>::quiet_NaN();
  }
  return buf;
}

constexpr int64_t kParallelScan = int64_t(1) << 16;  // elements below which a scan stays on one thread

// Exponent field all ones: Inf or NaN. Integer tests only, so the loop vectorises without reassociating.
bool all_finite(const float* x, int64_t n) {
  const OpScope op_scope(OpGroup::norm_elementwise);
  unsigned bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (n >= kParallelScan)
  for (int64_t i = 0; i < n; ++i) bad |= (std::bit_cast<uint32_t>(x[i]) & 0x7F800000u) == 0x7F800000u;
  return bad == 0;
}

int64_t first_nonfinite(const std::vector<float>& x) {
  for (size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i])) return int64_t(i);
  return -1;
}

int64_t block_of(int64_t index, int64_t cols, const QuantSpec& spec) {
  if (index < 0 || spec.block <= 0 || spec.scale == ScaleFormat::none) return -1;
  return (index / cols) * (cols / spec.block) + (index % cols) / spec.block;
}

// The finding of a quantized operand whose quantizer raised the sentinel: the first NaN/Inf of its
// input, else of its copy, else of the transformed input (RHT overflow).
NonfiniteFinding quantized_operand_finding(const OperandCopy& copy, const OperandSource& o, const LinearQuant& q,
                                           int role, int operand) {
  NonfiniteFinding f;
  f.role = role;
  f.operand = operand;
  f.rows = o.rows;
  f.cols = o.cols;
  f.spec = copy.spec;
  f.input.resize(size_t(o.rows * o.cols));
  const float* in = prepare(f.input.data(), o, q, role, operand);
  if (in != f.input.data()) std::copy(in, in + o.rows * o.cols, f.input.begin());
  if (copy.has_values) {
    f.dequant.assign(copy.values.begin(), copy.values.end());
  } else {  // quantized straight into FP4 blocks: dequantize again
    f.dequant.resize(f.input.size());
    quantize(f.input.data(), f.dequant.data(), o.rows, o.cols, copy.spec, random_of(q, role, operand));
  }
  if ((f.index = first_nonfinite(f.input)) >= 0) {
    f.where = "input";
  } else if ((f.index = first_nonfinite(f.dequant)) >= 0) {
    f.where = "dequant";
  } else {
    QuantStats stats;
    std::vector<float> scratch(f.input.size());
    quantize(f.input.data(), scratch.data(), o.rows, o.cols, copy.spec, random_of(q, role, operand),
             QuantOutputs{nullptr, nullptr, nullptr, &stats});
    f.index = stats.first_nonfinite;
    f.where = "transformed";
  }
  f.block = block_of(f.index, o.cols, f.spec);
  return f;
}

bool same_transform(const QuantSpec& a, const QuantSpec& b) {
  if (a.rht != b.rht) return false;
  return !a.rht || (a.rht_size == b.rht_size && a.rht_sign_seed == b.rht_sign_seed);
}

// Q(Wᵀ) equals Q(W)ᵀ bit for bit: same spec, 16×16 tiles, deterministic rounding, no transform.
bool transpose_of_fprop_w(const LinearRecipe& r) {
  return r.dgrad_w == r.fprop_w && r.dgrad_w.tile == Tile::d2 && r.dgrad_w.rounding == Rounding::rne && !r.dgrad_w.rht;
}

// Whether a forward copy's dequantized values are read again: by a backward copy made from it
// (source: fprop), or as Q(Wᵀ)ᵀ by a dgrad GEMM that is not block_exact. Every other copy of a
// block_exact GEMM is only read as FP4 blocks.
bool values_needed(const LinearRecipe& r, int role, int operand) {
  if (role != kFprop) return false;
  if (operand == kOperandA) return r.wgrad_x.source == CopySource::fprop;
  return r.dgrad_w.source == CopySource::fprop ||
         (transpose_of_fprop_w(r) && !uses_block_exact(r.numerics, r.dgrad_dy, r.dgrad_w));
}

// Whether a copy made earlier (by a linear sharing the input) serves as this linear's copy.
bool reusable(const OperandCopy& copy, const QuantSpec& spec, bool exact, bool values) {
  return copy.valid && copy.spec == spec && (!exact || copy.fp4.valid) && (!values || copy.has_values);
}

// copy = Q(operand) as a [rows, cols] matrix, a delayed-scaling operand with the scale of `ds`;
// with want_fp4 also as FP4 blocks (copy.fp4), straight from the input when nothing reads the
// dequantized values (then the return value is null). Throws NonfiniteError when the sentinel fires.
const float* fill(OperandCopy& copy, const OperandSource& o, const QuantSpec& spec, const LinearQuant& q,
                  int role, int operand, const DelayedScaling& ds, bool want_fp4 = false) {
  const int64_t rows = o.rows, cols = o.cols;
  copy.values.resize(size_t(rows * cols));
  const bool direct =
      want_fp4 && !q.collect_stats && !values_needed(*q.recipe, role, operand) && fp4_direct_supported(spec);
  // a direct quantizer reads a transposed source as stored
  const bool transposed_in = direct && o.transposed && !injected(q, role, operand);
  const float* in = transposed_in ? o.src : prepare(copy.values.data(), o, q, role, operand);
  copy.stats = QuantStats{};
  bool nonfinite = false;
  QuantOutputs extra;
  extra.nonfinite = &nonfinite;
  if (token_operand(role, operand)) extra.reduce_amax = q.reduce_amax;
  if (spec.scaling == Scaling::delayed) extra.global_amax = &copy.amax;
  float tensor_amax = 0.0f;
  if (want_fp4 && !direct) {
    extra.codes = &copy.codes;
    extra.scales = &copy.scale_bytes;
    extra.global_amax = &tensor_amax;
    extra.row_amax = &copy.row_amax;
  }
  std::vector<float> x;  // telemetry only: [rows, cols] what the quantizer rounds (`in`, or in·H)
  try {
    if (q.collect_stats) {  // before `in` may be overwritten in place
      extra.stats = &copy.stats;
      x.resize(size_t(rows * cols));
      for (int f = 0; f < kWhatIfFormats; ++f) {
        QuantSpec whatif;
        named_format(kWhatIfFormatNames[f], whatif);
        QuantStats st;
        copy.whatif_sqnr_db[f] = std::numeric_limits<float>::quiet_NaN();
        if (!validate(whatif, rows, cols).empty()) continue;
        quantize(in, x.data(), rows, cols, whatif, {}, QuantOutputs{nullptr, nullptr, nullptr, &st});  // scratch
        copy.whatif_sqnr_db[f] = float(st.sqnr_db());
      }
      quantizer_domain(x.data(), in, rows, cols, spec);
    }
    if (direct)
      quantize_fp4_operand(in, copy.values.data(), rows, cols, spec, random_of(q, role, operand), extra, copy.fp4,
                           transposed_in);
    else quantize(in, copy.values.data(), rows, cols, spec, random_of(q, role, operand), extra, ds.scale);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(kOperandNames[role][operand]) + " [" +
                                std::to_string(rows) + ", " + std::to_string(cols) +
                                "]: " + e.what());
  }
  copy.spec = spec;
  copy.valid = true;
  copy.has_values = !direct;
  copy.fp4.valid = direct;
  if (nonfinite) throw NonfiniteError(quantized_operand_finding(copy, o, q, role, operand));
  if (direct) return nullptr;
  if (want_fp4) fp4_operand_from_codes(copy.fp4, spec, rows, cols, copy.codes, copy.scale_bytes, tensor_amax, copy.row_amax);
  if (q.collect_stats) {
    copy.bias = quant_bias(x.data(), copy.values.data(), rows, cols);
    copy.sr_rms.fill(std::numeric_limits<float>::quiet_NaN());
    if (spec.rounding == Rounding::sr) copy.sr_rms = sr_concentration(x.data(), rows, cols, spec, random_of(q, role, operand));
  }
  return copy.values.data();
}

// A training pass records the amax of a delayed-scaling operand's copy (made here or reused).
void note_amax(LinearState& st, const LinearQuant& q, int role, int operand, const OperandCopy& copy) {
  if (copy.spec.scaling != Scaling::delayed || !q.record_amax) return;
  static const DelayedScalingConfig kDefault;
  st.delayed[role][operand].record(copy.amax, element_info(copy.spec.element).max,
                                   (q.delayed ? *q.delayed : kDefault).history_len);
}

// Whether this linear's forward pass makes the early wgrad copy of its input (EarlyWgradCopy): a
// training pass that keeps one, a block_exact wgrad whose X copy the direct quantizer makes, no
// telemetry or testing injection (the backward fill collects and checks those), and one rank (a
// data-parallel run reduces each token operand's amax across ranks in the same order on every
// rank, and rank 0 alone collects telemetry).
bool early_wgrad_wanted(const LinearInput& x, const LinearQuant& q) {
  const LinearRecipe& r = *q.recipe;
  return x.early && !q.collect_stats && !q.reduce_amax && !injected(q, kWgrad, kOperandB) && r.wgrad_x.quantized() &&
         r.wgrad_x.source == CopySource::input && uses_block_exact(r.numerics, r.wgrad_dy, r.wgrad_x) &&
         fp4_direct_supported(r.wgrad_x) && validate(r.wgrad_x, x.k, x.m).empty();
}

// Whether the early copy is this linear's wgrad copy of x: the same input, spec and random stream,
// or (`any_consumer`) that of another linear reading x in the same pass (another tensor id).
bool early_wgrad_matches(const LinearInput& x, const LinearQuant& q, bool any_consumer = false) {
  const EarlyWgradCopy& e = *x.early;
  QuantRandom rnd = random_of(q, kWgrad, kOperandB);
  if (any_consumer) rnd.tensor_id = e.random.tensor_id;
  return e.valid && e.x == x.x && e.m == x.m && e.k == x.k && e.spec == q.recipe->wgrad_x && e.random == rnd;
}

// The early wgrad copy of x [M, K] as Q(Xᵀ) [K, M], read as stored, with x.wgrad's buffer as the
// scratch. A copy whose sentinel fires is not kept: backward makes it again and reports it.
void make_early_wgrad(LinearInput& x, const LinearQuant& q) {
  EarlyWgradCopy& e = *x.early;
  e.valid = false;
  x.wgrad.valid = false;
  x.wgrad.values.resize(size_t(x.m * x.k));
  bool nonfinite = false;
  QuantOutputs extra;
  extra.nonfinite = &nonfinite;
  const QuantRandom rnd = random_of(q, kWgrad, kOperandB);
  quantize_fp4_operand(x.x, x.wgrad.values.data(), x.k, x.m, q.recipe->wgrad_x, rnd, extra, e.fp4, true);
  if (nonfinite) return;
  e.spec = q.recipe->wgrad_x;
  e.random = rnd;
  e.x = x.x;
  e.m = x.m;
  e.k = x.k;
  e.valid = true;
}

// x.wgrad = the early copy (its buffers swapped in), which is used up.
void take_early_wgrad(LinearInput& x) {
  EarlyWgradCopy& e = *x.early;
  std::swap(x.wgrad.fp4, e.fp4);
  x.wgrad.spec = e.spec;
  x.wgrad.stats = QuantStats{};
  x.wgrad.valid = true;
  x.wgrad.has_values = false;
  e.valid = false;
}

// A GEMM's output [rows, cols] held a NaN/Inf while its quantized operands were finite: the first
// pass-through operand holding one is the cause (a NaN/Inf operand makes its output row or column
// non-finite), else the product itself overflowed.
[[noreturn]] void throw_output_finding(const float* out, int64_t rows, int64_t cols, const OperandSource (&ops)[2],
                                       const bool (&quantized)[2], int role) {
  for (int op = 0; op < kGemmOperands; ++op) {
    if (quantized[op]) continue;
    NonfiniteFinding f;
    f.role = role;
    f.operand = op;
    f.rows = ops[op].rows;
    f.cols = ops[op].cols;
    f.input.resize(size_t(f.rows * f.cols));
    const float* in = prepare(f.input.data(), ops[op], LinearQuant{}, role, op);
    if (in != f.input.data()) std::copy(in, in + f.rows * f.cols, f.input.begin());
    if ((f.index = first_nonfinite(f.input)) < 0) continue;
    f.where = "input";
    throw NonfiniteError(std::move(f));
  }
  NonfiniteFinding f;
  f.role = role;
  f.operand = kGemmOutput;
  f.where = "output";
  f.rows = rows;
  f.cols = cols;
  f.input.assign(out, out + rows * cols);
  f.index = first_nonfinite(f.input);
  throw NonfiniteError(std::move(f));
}

// A GEMM's product into c [m, n], overwritten or (accumulate) added: an fp32 matmul of the
// (dequantized) operands, or a block-scaled FP4 product.
struct Product {
  const float* a = nullptr;
  Trans ta = Trans::n;
  const float* b = nullptr;
  Trans tb = Trans::n;
  int64_t k = 0;
  Fp4View fa, fb;  // block_exact when set
  void operator()(float* c, int64_t m, int64_t n, bool accumulate) const {  // the fp32 matmul
    matmul(c, a, ta, b, tb, m, n, k, accumulate);
  }
};

// out [m, n] += the product, rounded to bf16 first when the recipe says so. Returns whether `out`
// is finite afterwards. A block-scaled FP4 product rounds and adds in its own epilogue.
bool accumulate_product(float* out, const Product& product, int64_t m, int64_t n, bool bf16_output,
                        std::vector<float>& tmp) {
  if (product.fa.op) return fp4_matmul(out, product.fa, product.fb, true, bf16_output);
  if (!bf16_output) {
    product(out, m, n, true);
    return all_finite(out, m * n);
  }
  tmp.resize(size_t(m * n));
  product(tmp.data(), m, n, false);
  quantize(tmp.data(), tmp.data(), m, n, bf16_spec());
  const OpScope op_scope(OpGroup::norm_elementwise);  // the accumulation below
  const int64_t total = m * n;
  unsigned bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
  for (int64_t i = 0; i < total; ++i) {
    out[i] += tmp[size_t(i)];
    bad |= (std::bit_cast<uint32_t>(out[i]) & 0x7F800000u) == 0x7F800000u;
  }
  return bad == 0;
}

// Columns [c0, c0 + width) of a row-major [rows, cols] matrix, copied into buf [rows, width].
const float* column_slice(std::vector<float>& buf, const float* src, int64_t rows, int64_t cols, int64_t c0,
                          int64_t width) {
  buf.resize(size_t(rows * width));
  for (int64_t r = 0; r < rows; ++r) std::copy(src + r * cols + c0, src + r * cols + c0 + width, buf.data() + r * width);
  return buf.data();
}

bool dgrad_reuses_fprop_w(const LinearRecipe& r, const LinearState& st) {
  return transpose_of_fprop_w(r) && st.w_fprop.valid && st.w_fprop.spec == r.dgrad_w;
}

}  // namespace

bool uses_block_exact(GemmNumerics numerics, const QuantSpec& a, const QuantSpec& b) {
  return numerics == GemmNumerics::block_exact && fp4_blockable(a) && fp4_blockable(b) && a.block == b.block;
}

bool LinearRecipe::any_quantized() const {
  return fprop_x.quantized() || fprop_w.quantized() || dgrad_dy.quantized() ||
         dgrad_w.quantized() || wgrad_dy.quantized() || wgrad_x.quantized();
}

void DelayedScaling::record(float amax, float element_max, int history_len) {
  if (history.empty()) history.assign(size_t(std::max(history_len, 1)), 0.0f);
  fp8_max = element_max;
  history[0] = std::fmax(history[0], amax);
}

void DelayedScaling::update(const DelayedScalingConfig& cfg) {
  if (history.empty()) return;
  const size_t n = history.size();
  float amax = 0.0f;
  for (float a : history) amax = std::fmax(amax, a);  // fmaxf: NaN entries ignored, as TE
  if (cfg.algo == AmaxAlgo::most_recent) amax = history[0];
  const float newest = history[0];
  for (size_t i = 1; i + 1 < n; ++i) history[i] = history[i + 1];
  if (n > 1) history[n - 1] = newest;
  history[0] = 0.0f;
  const float scaled_max = fp8_max * std::pow(2.0f, -float(cfg.margin));
  if (std::isfinite(amax) && amax > 0.0f) scale = scaled_max / amax;
}

std::string validate(const LinearRecipe& r) {
  for (const QuantSpec* s : {&r.fprop_x, &r.fprop_w, &r.dgrad_dy, &r.wgrad_dy})
    if (s->source != CopySource::input) return "only dgrad_w and wgrad_x can be built from the forward copy (source fprop)";
  if (!same_transform(r.fprop_x, r.fprop_w)) return "fprop: x and w must use the same RHT";
  if (!same_transform(r.dgrad_dy, r.dgrad_w)) return "dgrad: dy and w must use the same RHT";
  if (!same_transform(r.wgrad_dy, r.wgrad_x)) return "wgrad: dy and x must use the same RHT";
  return "";
}

void LinearInput::bind(const float* x_new, int64_t m_new, int64_t k_new, EarlyWgradCopy* early_copy) {
  x = x_new;
  m = m_new;
  k = k_new;
  fprop.valid = false;
  wgrad.valid = false;
  early = early_copy;
}

void linear_forward(float* y, LinearInput& x, const float* w, int64_t n, const LinearQuant& q,
                    LinearState& st) {
  const LinearRecipe& r = *q.recipe;
  const int64_t m = x.m, k = x.k;
  st.used[kFprop][kOperandA] = st.used[kFprop][kOperandB] = nullptr;

  const OperandSource ops[2] = {{x.x, false, m, k}, {w, false, n, k}};  // X [M, K], W [N, K]
  const bool quantized[2] = {r.fprop_x.quantized(), r.fprop_w.quantized()};
  const bool exact = uses_block_exact(r.numerics, r.fprop_x, r.fprop_w);
  st.numerics[kFprop] = exact ? GemmNumerics::block_exact : GemmNumerics::dequant_fp32;
  const float* xa = x.x;  // [M, K]
  if (quantized[kOperandA]) {
    if (!reusable(x.fprop, r.fprop_x, exact, values_needed(r, kFprop, kOperandA)))
      fill(x.fprop, ops[kOperandA], r.fprop_x, q, kFprop, kOperandA, st.delayed[kFprop][kOperandA], exact);
    note_amax(st, q, kFprop, kOperandA, x.fprop);
    xa = x.fprop.values.data();
    st.used[kFprop][kOperandA] = &x.fprop;
  }
  if (early_wgrad_wanted(x, q) && !early_wgrad_matches(x, q, true)) make_early_wgrad(x, q);
  const float* wb = w;  // [N, K]
  st.w_fprop.valid = false;
  if (quantized[kOperandB]) {
    // a block_exact dgrad that reuses this copy transposes its codes (dgrad_reuses_fprop_w)
    const bool fp4 = exact || (transpose_of_fprop_w(r) && uses_block_exact(r.numerics, r.dgrad_dy, r.dgrad_w));
    wb = fill(st.w_fprop, ops[kOperandB], r.fprop_w, q, kFprop, kOperandB, st.delayed[kFprop][kOperandB], fp4);
    note_amax(st, q, kFprop, kOperandB, st.w_fprop);
    st.used[kFprop][kOperandB] = &st.w_fprop;
  }
  bool nonfinite = false;
  if (exact) {  // [M, N], rounded to bf16 in the kernel's epilogue
    nonfinite = !fp4_matmul(y, whole(x.fprop.fp4), whole(st.w_fprop.fp4), false, r.bf16_output);
  } else {
    matmul(y, xa, Trans::n, wb, Trans::t, m, n, k, false);
    if (r.bf16_output) quantize(y, y, m, n, bf16_spec(), {}, QuantOutputs{.nonfinite = &nonfinite});
    else nonfinite = !all_finite(y, m * n);
  }
  if (nonfinite) throw_output_finding(y, m, n, ops, quantized, kFprop);
}

void linear_backward(float* dx, float* dw, const float* dy, LinearInput& x, const float* w,
                     int64_t n, const LinearQuant& q, LinearState& st, LinearScratch& sc) {
  linear_backward(dx, &dw, 1, dy, x, w, n, q, st, sc);
}

void linear_backward(float* dx, float* const* dw, int shards, const float* dy, LinearInput& x, const float* w,
                     int64_t n, const LinearQuant& q, LinearState& st, LinearScratch& sc) {
  const LinearRecipe& r = *q.recipe;
  const int64_t m = x.m, k = x.k;
  for (int role : {kDgrad, kWgrad}) st.used[role][kOperandA] = st.used[role][kOperandB] = nullptr;

  // dgrad: dX [M, K] += Q(dY) [M, N] · Q(Wᵀ)ᵀ; Wᵀ [K, N] from W, or from the forward copy Q(W)
  const bool w_from_fprop = r.dgrad_w.source == CopySource::fprop && r.fprop_w.quantized();
  if (w_from_fprop && !(st.w_fprop.valid && st.w_fprop.spec == r.fprop_w))
    throw std::logic_error("dgrad w from the forward copy: the forward pass has not run on this weight");
  const OperandSource dgrad_ops[2] = {{dy, false, m, n}, {w_from_fprop ? st.w_fprop.values.data() : w, true, k, n}};
  const bool dgrad_quantized[2] = {r.dgrad_dy.quantized(), r.dgrad_w.quantized()};
  const bool dgrad_exact = uses_block_exact(r.numerics, r.dgrad_dy, r.dgrad_w);
  st.numerics[kDgrad] = dgrad_exact ? GemmNumerics::block_exact : GemmNumerics::dequant_fp32;
  Product dgrad_product;
  const float* dya = dy;  // [M, N]
  if (dgrad_quantized[kOperandA]) {
    dya = fill(sc.dy_dgrad, dgrad_ops[kOperandA], r.dgrad_dy, q, kDgrad, kOperandA, st.delayed[kDgrad][kOperandA],
               dgrad_exact);
    note_amax(st, q, kDgrad, kOperandA, sc.dy_dgrad);
    st.used[kDgrad][kOperandA] = &sc.dy_dgrad;
  }
  const float* wb = w;  // [N, K] as stored, or Q(Wᵀ) [K, N]
  Trans wt = Trans::n;
  if (dgrad_quantized[kOperandB]) {
    if (dgrad_reuses_fprop_w(r, st)) {
      wb = st.w_fprop.values.data();  // Q(W) [N, K] = Q(Wᵀ)ᵀ
      st.used[kDgrad][kOperandB] = &st.w_fprop;
      if (dgrad_exact) {
        fp4_transpose_tiles(sc.w_dgrad_fp4, st.w_fprop.fp4);
        dgrad_product.fb = whole(sc.w_dgrad_fp4);
      }
    } else {
      wb = fill(sc.w_dgrad, dgrad_ops[kOperandB], r.dgrad_w, q, kDgrad, kOperandB, st.delayed[kDgrad][kOperandB],
                dgrad_exact);
      note_amax(st, q, kDgrad, kOperandB, sc.w_dgrad);
      wt = Trans::t;
      st.used[kDgrad][kOperandB] = &sc.w_dgrad;
      if (dgrad_exact) dgrad_product.fb = whole(sc.w_dgrad.fp4);
    }
  }
  if (dgrad_exact) dgrad_product.fa = whole(sc.dy_dgrad.fp4);
  else dgrad_product = Product{dya, Trans::n, wb, wt, n, {}, {}};
  if (!accumulate_product(dx, dgrad_product, m, k, r.bf16_output, sc.out))
    throw_output_finding(dx, m, k, dgrad_ops, dgrad_quantized, kDgrad);

  // wgrad: dW [N, K] += Q(dYᵀ) [N, M] · Q(Xᵀ)ᵀ, both copies along the tokens M; Xᵀ from X or from
  // the forward copy Q(X) (remade when the input was rebound since: same spec, scale and stream)
  const bool x_from_fprop = r.wgrad_x.source == CopySource::fprop && r.fprop_x.quantized();
  if (x_from_fprop && !reusable(x.fprop, r.fprop_x, false, true))
    fill(x.fprop, OperandSource{x.x, false, m, k}, r.fprop_x, q, kFprop, kOperandA, st.delayed[kFprop][kOperandA],
         uses_block_exact(r.numerics, r.fprop_x, r.fprop_w));
  if (shards < 1 || m % shards != 0)
    throw std::invalid_argument("wgrad: " + std::to_string(shards) + " shards do not divide " + std::to_string(m) + " tokens");
  const int64_t ms = m / shards;
  const bool wgrad_exact = uses_block_exact(r.numerics, r.wgrad_dy, r.wgrad_x) && ms % r.wgrad_dy.block == 0;
  st.numerics[kWgrad] = wgrad_exact ? GemmNumerics::block_exact : GemmNumerics::dequant_fp32;
  const OperandSource wgrad_ops[2] = {{dy, true, n, m},
                                      {x_from_fprop ? x.fprop.values.data() : x.x, true, k, m}};  // dYᵀ, Xᵀ
  const bool wgrad_quantized[2] = {r.wgrad_dy.quantized(), r.wgrad_x.quantized()};
  const float* dyw = dy;  // dY [M, N] used transposed, or Q(dYᵀ) [N, M]
  Trans dyt = Trans::t;
  if (wgrad_quantized[kOperandA]) {
    dyw = fill(sc.dy_wgrad, wgrad_ops[kOperandA], r.wgrad_dy, q, kWgrad, kOperandA, st.delayed[kWgrad][kOperandA],
               wgrad_exact);
    note_amax(st, q, kWgrad, kOperandA, sc.dy_wgrad);
    dyt = Trans::n;
    st.used[kWgrad][kOperandA] = &sc.dy_wgrad;
  }
  const float* xw = x.x;  // X [M, K] as stored, or Q(Xᵀ) [K, M] used transposed
  Trans xt = Trans::n;
  if (wgrad_quantized[kOperandB] && !reusable(x.wgrad, r.wgrad_x, wgrad_exact, false)) {
    if (wgrad_exact && early_wgrad_wanted(x, q) && early_wgrad_matches(x, q)) take_early_wgrad(x);
    else fill(x.wgrad, wgrad_ops[kOperandB], r.wgrad_x, q, kWgrad, kOperandB, st.delayed[kWgrad][kOperandB], wgrad_exact);
  }
  if (wgrad_quantized[kOperandB]) {
    note_amax(st, q, kWgrad, kOperandB, x.wgrad);
    xw = x.wgrad.values.data();
    xt = Trans::t;
    st.used[kWgrad][kOperandB] = &x.wgrad;
  }
  // One product per shard of the tokens, each into its own gradient: a copy along the tokens
  // ([*, M], used as is) gives a column slice, a tensor read transposed ([M, *]) a row slice.
  for (int s = 0; s < shards; ++s) {
    if (wgrad_exact) {
      const Product product{.fa = {&sc.dy_wgrad.fp4, s * ms, ms}, .fb = {&x.wgrad.fp4, s * ms, ms}};
      if (!accumulate_product(dw[s], product, n, k, r.bf16_output, sc.out))
        throw_output_finding(dw[s], n, k, wgrad_ops, wgrad_quantized, kWgrad);
      continue;
    }
    const float* a = dyw;
    const float* b = xw;
    if (shards > 1) {
      if (dyt == Trans::n) a = column_slice(sc.shard_dy, dyw, n, m, s * ms, ms);
      else a = dyw + s * ms * n;
      if (xt == Trans::t) b = column_slice(sc.shard_x, xw, k, m, s * ms, ms);
      else b = xw + s * ms * k;
    }
    if (!accumulate_product(dw[s], Product{a, dyt, b, xt, ms, {}, {}}, n, k, r.bf16_output, sc.out))
      throw_output_finding(dw[s], n, k, wgrad_ops, wgrad_quantized, kWgrad);
  }
}

void linear_wgrad_reference(float* dw, const float* dy, const LinearInput& x, int64_t n, int shards) {
  const int64_t ms = x.m / shards;
  matmul(dw, dy, Trans::t, x.x, Trans::n, n, x.k, ms, false);  // dYᵀ [N, M_s] · X [M_s, K], shard 0
  std::vector<float> part(size_t(n * x.k));
  for (int s = 1; s < shards; ++s) {
    matmul(part.data(), dy + s * ms * n, Trans::t, x.x + s * ms * x.k, Trans::n, n, x.k, ms, false);
    for (int64_t i = 0; i < n * x.k; ++i) dw[i] += part[size_t(i)];
  }
}

SrSplit linear_sr_split(int role, const float* dy, const LinearInput& x, const float* w, int64_t n, const LinearQuant& q,
                        const LinearState& st, int draws) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  const LinearRecipe& r = *q.recipe;
  const int64_t m = x.m, k = x.k;
  const QuantSpec* specs[kGemmRoles][kGemmOperands] = {
      {&r.fprop_x, &r.fprop_w}, {&r.dgrad_dy, &r.dgrad_w}, {&r.wgrad_dy, &r.wgrad_x}};
  const QuantSpec* spec[2] = {specs[role][kOperandA], specs[role][kOperandB]};
  const auto sr = [](const QuantSpec* s) { return s->quantized() && s->rounding == Rounding::sr; };
  if (draws < 2 || !(sr(spec[kOperandA]) || sr(spec[kOperandB]))) return {kNaN, kNaN};

  // Each operand as its GEMM reads it ([rows, contraction]): what training quantized, and the
  // unquantized input the reference multiplies (they differ for a `source: fprop` operand).
  const bool w_from_fprop = role == kDgrad && r.dgrad_w.source == CopySource::fprop && r.fprop_w.quantized();
  const bool x_from_fprop = role == kWgrad && r.wgrad_x.source == CopySource::fprop && r.fprop_x.quantized();
  OperandSource input[2], raw[2];
  if (role == kFprop) {
    raw[kOperandA] = input[kOperandA] = {x.x, false, m, k};  // X [M, K]
    raw[kOperandB] = input[kOperandB] = {w, false, n, k};    // W [N, K]
  } else if (role == kDgrad) {
    raw[kOperandA] = input[kOperandA] = {dy, false, m, n};  // dY [M, N]
    raw[kOperandB] = {w, true, k, n};                       // Wᵀ [K, N]
    input[kOperandB] = {w_from_fprop ? st.w_fprop.values.data() : w, true, k, n};
  } else {
    raw[kOperandA] = input[kOperandA] = {dy, true, n, m};  // dYᵀ [N, M]
    raw[kOperandB] = {x.x, true, k, m};                    // Xᵀ [K, M]
    input[kOperandB] = {x_from_fprop ? x.fprop.values.data() : x.x, true, k, m};
  }
  const int64_t rows = input[kOperandA].rows, cols = input[kOperandB].rows, depth = input[kOperandA].cols;
  std::vector<float> in[2], raw_buf[2], copy[2];
  const float* in_ptr[2];
  const float* raw_ptr[2];
  for (int op = 0; op < kGemmOperands; ++op) {
    in[op].resize(size_t(input[op].rows * depth));
    raw_buf[op].resize(in[op].size());
    in_ptr[op] = prepare(in[op].data(), input[op], LinearQuant{}, role, op);
    raw_ptr[op] = prepare(raw_buf[op].data(), raw[op], LinearQuant{}, role, op);
  }
  std::vector<float> local(size_t(rows * cols));  // g_local = A·Bᵀ of the unquantized inputs
  matmul(local.data(), raw_ptr[kOperandA], Trans::n, raw_ptr[kOperandB], Trans::t, rows, cols, depth, false);

  std::vector<float> products(size_t(draws) * local.size());  // draw d: [rows, cols] at d·rows·cols
  const float* operand[2] = {in_ptr[kOperandA], in_ptr[kOperandB]};
  for (int d = 0; d < draws; ++d) {
    for (int op = 0; op < kGemmOperands; ++op) {
      if (!spec[op]->quantized() || (d > 0 && !sr(spec[op]))) continue;  // as is, or quantized once
      QuantRandom rnd = random_of(q, role, op);
      if (sr(spec[op])) rnd.tensor_id += uint64_t(2 + d) << 32;
      copy[op].resize(in[op].size());
      quantize(in_ptr[op], copy[op].data(), input[op].rows, depth, *spec[op], rnd, {}, st.delayed[role][op].scale);
      operand[op] = copy[op].data();
    }
    float* g = products.data() + int64_t(d) * rows * cols;
    matmul(g, operand[kOperandA], Trans::n, operand[kOperandB], Trans::t, rows, cols, depth, false);
    if (r.bf16_output) quantize(g, g, rows, cols, bf16_spec());
  }

  const int64_t size = rows * cols;
  double ref_sq = 0, bias_sq = 0, spread_sq = 0;
  for (int64_t i = 0; i < size; ++i) {
    double mean = 0;
    for (int d = 0; d < draws; ++d) mean += products[size_t(d * size + i)];
    mean /= draws;
    for (int d = 0; d < draws; ++d) {
      const double e = products[size_t(d * size + i)] - mean;
      spread_sq += e * e;
    }
    ref_sq += double(local[size_t(i)]) * local[size_t(i)];
    bias_sq += (mean - local[size_t(i)]) * (mean - local[size_t(i)]);
  }
  if (ref_sq == 0) return {kNaN, kNaN};
  return {float(std::sqrt(bias_sq / ref_sq)), float(std::sqrt(spread_sq / (draws - 1) / ref_sq))};
}

std::string NonfiniteFinding::describe() const {
  std::string what = (layer.empty() ? "" : layer + " ") + kRoleNames[role] + " ";
  if (operand == kGemmOutput) what += "output";
  else what += std::string(kOperandNames[role][operand]).substr(6) + " " + where;  // "x input"
  if (block >= 0) what += ", block " + std::to_string(block);
  what += " (index " + std::to_string(index) + " of [" + std::to_string(rows) + ", " + std::to_string(cols) + "])";
  return step >= 0 ? what + " at step " + std::to_string(step) : what;
}

NonfiniteError::NonfiniteError(NonfiniteFinding f)
    : std::runtime_error("non-finite value in " + f.describe()), finding(std::move(f)) {}


}  // namespace fp4lab
