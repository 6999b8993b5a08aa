// Canary tensors: Gaussian values with one outlier per row, an all-zero row, values swept across
// binades and a tie-heavy row, 64 x 128 (divides every block size and 16x16 tiles).
#include "core/train/fingerprint.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/io/fnv.hpp"
#include "core/quant/quantize.hpp"
#include "core/train/random.hpp"

namespace fp4lab {

namespace {

constexpr int64_t kRows = 64, kCols = 128;

std::vector<float> canary() {
  std::vector<float> x(kRows * kCols);
  for (int64_t i = 0; i < kRows * kCols; ++i)
    x[i] = static_cast<float>(random_normal(20261122, RandomStream::init, i));
  for (int64_t r = 0; r < kRows; ++r) x[r * kCols + (r * 7) % kCols] *= 40.0f;  // outliers
  for (int64_t c = 0; c < kCols; ++c) {
    x[3 * kCols + c] = 0.0f;                                         // all-zero row
    x[5 * kCols + c] = std::ldexp(1.0f, int(c % 40) - 30);           // binade sweep
    x[7 * kCols + c] = 0.25f * float(c % 25) * (c % 2 ? -1.f : 1.f);  // E2M1 ties
  }
  return x;
}

void hash_spec(Fnv64& fnv, const QuantSpec& spec) {
  static const std::vector<float> x = canary();
  std::vector<float> out(x.size());
  std::vector<uint8_t> codes, scales;
  float amax = 0;
  QuantOutputs extra;
  extra.codes = &codes;
  extra.scales = &scales;
  extra.global_amax = &amax;
  quantize(x.data(), out.data(), kRows, kCols, spec, QuantRandom{1, 2, 3}, extra);
  fnv.add(out.data(), out.size() * sizeof(float));
  fnv.add(codes.data(), codes.size());
  fnv.add(scales.data(), scales.size());
  fnv.add(&amax, sizeof amax);
}

}  // namespace

std::string numerics_fingerprint(const QuantSpec& spec) {
  Fnv64 fnv;
  hash_spec(fnv, spec);
  return fnv.hex();
}

std::string numerics_fingerprint(const RecipeConfig& r) {
  Fnv64 fnv;
  bool delayed = false;
  for (const LinearRecipe* lr : {&r.quantized, &r.high_precision})
    for (const QuantSpec* s : {&lr->fprop_x, &lr->fprop_w, &lr->dgrad_dy, &lr->dgrad_w, &lr->wgrad_dy, &lr->wgrad_x}) {
      QuantSpec resolved = *s;
      if (resolved.operand_dtype == OperandDtype::inherit) resolved.operand_dtype = r.operand_dtype;
      hash_spec(fnv, resolved);
      // What the canary cannot show: where a copy is made from, and (below) the amax history.
      if (s->source != CopySource::input) fnv.add(&s->source, sizeof s->source);
      delayed = delayed || s->scaling == Scaling::delayed;
    }
  if (delayed) {
    const std::string d = std::to_string(r.delayed.history_len) + to_string(r.delayed.algo) + std::to_string(r.delayed.margin);
    fnv.add(d.data(), d.size());
  }
  if (r.coverage != Coverage::all_linear) fnv.add(&r.coverage, sizeof r.coverage);
  for (const QuantSpec* s : {&r.attention.fwd, &r.attention.bwd})  // quantized attention products only
    if (s->quantized()) {
      QuantSpec resolved = *s;
      if (resolved.operand_dtype == OperandDtype::inherit) resolved.operand_dtype = r.operand_dtype;
      hash_spec(fnv, resolved);
    }
  if (r.gemm_numerics != GemmNumerics::dequant_fp32) {  // the canary quantizes; it runs no GEMM
    const std::string n = to_string(r.gemm_numerics);
    fnv.add(n.data(), n.size());
  }
  return fnv.hex();
}

}  // namespace fp4lab
