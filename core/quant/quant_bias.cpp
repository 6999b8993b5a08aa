// Signed bias and stochastic-rounding concentration (see quant_bias.hpp). Sums are per row in
// double, then over rows in order, so results do not depend on the thread count.
#include "core/quant/quant_bias.hpp"

#include "core/formats/bf16.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/quant/rht.hpp"

namespace fp4lab {
namespace {

// Rows sharing one block scale: a 2D tile's height (or a W x W encode window's), else one.
int64_t band_rows(const QuantSpec& spec) {
  return spec.tile == Tile::d2 ? std::max(spec.block, spec.encode_window) : 1;
}

void check_shape(const QuantSpec& spec, int64_t rows, int64_t cols) {
  const std::string problem = validate(spec, rows, cols);
  if (!problem.empty()) throw std::invalid_argument(problem);
}

}  // namespace

void quantizer_domain(float* x, const float* in, int64_t rows, int64_t cols, const QuantSpec& spec) {
  check_shape(spec, rows, cols);
  std::vector<float> rounded;  // a bf16 operand is rounded to bf16 before anything else
  if (spec.operand_dtype == OperandDtype::bf16 && spec.quantized()) {
    rounded.assign(in, in + rows * cols);
    for (float& v : rounded) v = bf16_round(v);
    in = rounded.data();
  }
  if (!spec.rht) {
    std::copy(in, in + rows * cols, x);
    return;
  }
  const Rht rht = make_rht(spec.rht_size, spec.rht_sign_seed);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) rht_row(rht, in + r * cols, x + r * cols, cols);
}

QuantBias quant_bias(const float* x, const float* q, int64_t rows, int64_t cols) {
  const size_t n_rows = size_t(rows);
  std::vector<double> energy(n_rows), product(n_rows), error(n_rows);  // per row
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    double e = 0, p = 0, d = 0;
    for (int64_t i = r * cols; i < (r + 1) * cols; ++i) {
      e += double(x[i]) * x[i];
      p += double(q[i]) * x[i];
      d += double(q[i]) - x[i];
    }
    energy[size_t(r)] = e, product[size_t(r)] = p, error[size_t(r)] = d;
  }
  double e = 0, p = 0, d = 0;
  for (size_t r = 0; r < n_rows; ++r) e += energy[r], p += product[r], d += error[r];
  const double n = double(rows * cols);
  return QuantBias{float(p / e - 1.0), float((d / n) / std::sqrt(e / n))};  // 0/0: NaN
}

int64_t sr_subset_rows(int64_t rows, int64_t cols, const QuantSpec& spec) {
  const int64_t band = band_rows(spec);
  const int64_t wanted = cols > 0 ? (kSrSubsetElements + cols - 1) / cols : rows;
  return std::min(rows, (wanted + band - 1) / band * band);
}

std::vector<float> leading_rows_standin(const float* x, int64_t rows, int64_t cols, int64_t lead,
                                        const QuantSpec& spec, int copies) {
  const int64_t n = lead * cols;
  std::vector<float> out(size_t(copies * n));
  for (int c = 0; c < copies; ++c) std::copy(x, x + n, out.begin() + c * n);
  if (lead == rows) return out;
  uint32_t amax_bits = 0;  // finite magnitudes order as their bit patterns: an integer max vectorises
  for (int64_t i = 0; i < rows * cols; ++i) amax_bits = std::max(amax_bits, std::bit_cast<uint32_t>(x[i]) & 0x7FFFFFFFu);
  out.resize(out.size() + size_t(band_rows(spec) * cols), 0.0f);
  out[size_t(copies * n)] = std::bit_cast<float>(amax_bits);
  return out;
}

SrConcentration sr_concentration(const float* x, int64_t rows, int64_t cols, const QuantSpec& spec,
                                 const QuantRandom& rnd) {
  check_shape(spec, rows, cols);
  QuantSpec draw_spec = spec;
  draw_spec.rht = false;  // x is already in the quantizer's domain
  constexpr int kDraws = kSrDrawCounts.back();
  const int64_t lead = sr_subset_rows(rows, cols, spec), n = lead * cols;
  const std::vector<float> standin = leading_rows_standin(x, rows, cols, lead, spec, kDraws);
  std::vector<float> draws(standin.size());  // draw d: elements [d·n, (d + 1)·n)
  const int64_t standin_rows = int64_t(standin.size()) / std::max<int64_t>(cols, 1);  // 0 when empty
  quantize(standin.data(), draws.data(), standin_rows, cols, draw_spec,
           QuantRandom{rnd.seed, rnd.tensor_id + (uint64_t(1) << 32), rnd.step});

  double energy = 0;
  for (int64_t i = 0; i < n; ++i) energy += double(x[i]) * x[i];
  std::vector<double> sum(size_t(n), 0.0);  // of the first k draws, per element
  SrConcentration rms;
  size_t next = 0;  // index into kSrDrawCounts
  for (int k = 1; k <= kDraws; ++k) {
    const float* draw = draws.data() + (k - 1) * n;
    for (int64_t i = 0; i < n; ++i) sum[size_t(i)] += draw[i];
    if (k != kSrDrawCounts[next]) continue;
    double err = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double e = sum[size_t(i)] / k - x[i];
      err += e * e;
    }
    rms[next++] = float(std::sqrt(err / energy));  // rms(mean − x) / rms(x); NaN for all-zero rows
  }
  return rms;
}

}  // namespace fp4lab
