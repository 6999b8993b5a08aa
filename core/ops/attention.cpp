// Attention forward and backward (see attention.hpp): Eigen products per (batch, head) on strided
// views of the [B, seq, heads·hd] buffers, restricted to the causal (lower) triangle of the [seq, seq]
// scores; (batch, head) pairs are independent OpenMP tasks. Quantized products need the whole P (dS)
// tensor's amax, so P·V (dS·k, dSᵀ·q) then run as a second pass over the heads.
#include "core/ops/attention.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/ops/reduce.hpp"
#include "core/ops/vexp.hpp"
#include "core/quant/quantize.hpp"
#include "core/profile/op_timer.hpp"

namespace fp4lab {
namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using HeadView = Eigen::Map<Mat<T>, 0, Eigen::OuterStride<>>;  // [seq, hd] inside [seq, heads·hd]
template <class T>
using ConstHeadView = Eigen::Map<const Mat<T>, 0, Eigen::OuterStride<>>;

}  // namespace

std::string validate(const AttentionQuant& q) {
  for (const auto& [name, spec] : {std::pair<const char*, const QuantSpec&>{"fwd", q.fwd}, {"bwd", q.bwd}}) {
    if (!spec.quantized()) continue;
    if (spec.block != 0 || spec.tile != Tile::d1 || spec.rht || spec.rounding != Rounding::rne ||
        spec.scaling != Scaling::current || spec.row_scaled || spec.four_over_six != FourOverSix::off)
      return std::string(name) + ": attention products take a per-tensor format (fp8_e4m3, fp8_e5m2, bf16; "
             "current scaling, round to nearest), got " + describe(spec);
    const std::string why = validate(spec, 1, 1);
    if (!why.empty()) return std::string(name) + ": " + why;
  }
  return "";
}

namespace {

// The fake-quantized copy of a [rows, cols] tensor in `buf` (the tensor itself when `spec` is none).
template <class T>
const T* quantized_copy(const T* in, int64_t rows, int64_t cols, const QuantSpec& spec, const AmaxReduce* reduce_amax,
                        std::vector<T>& buf) {
  if constexpr (std::is_same_v<T, float>) {
    if (!spec.quantized()) return in;
    buf.resize(size_t(rows * cols));
    QuantOutputs extra;
    extra.reduce_amax = reduce_amax;
    quantize(in, buf.data(), rows, cols, spec, {}, extra);
    return buf.data();
  } else {
    if (spec.quantized()) throw std::invalid_argument("quantized attention products need fp32 tensors");
    return in;
  }
}

}  // namespace

template <class T>
void attention_forward(T* y, T* att, const T* q, const T* k, const T* v, int64_t B, int64_t seq,
                       int64_t heads, int64_t hd, const AttentionQuant* quant, const AmaxReduce* reduce_amax) {
  const OpScope op_scope(OpGroup::attention);
  const int64_t width = heads * hd;
  const T scale = T(1.0 / std::sqrt(double(hd)));
  const QuantSpec none;
  const QuantSpec& fwd = quant ? quant->fwd : none;
  std::vector<T> qb, kb, vb, pb;
  const T* qo = quantized_copy(q, B * seq, width, fwd, reduce_amax, qb);
  const T* ko = quantized_copy(k, B * seq, width, fwd, reduce_amax, kb);
  const T* vo = quantized_copy(v, B * seq, width, fwd, reduce_amax, vb);
  // y = P·v of one (batch, head), P [seq, seq] row-major with zeros above the diagonal.
  auto context = [&](int64_t bh, const T* probs) {
    const int64_t off = (bh / heads) * seq * width + (bh % heads) * hd;
    const Eigen::OuterStride<> stride(width);
    ConstHeadView<T> vh(vo + off, seq, hd, stride);
    HeadView<T> yh(y + off, seq, hd, stride);
    Eigen::Map<const Mat<T>> p(probs + bh * seq * seq, seq, seq);
    yh.noalias() = p.template triangularView<Eigen::Lower>() * vh;
  };
  const bool quantize_p = fwd.quantized();
#pragma omp parallel
  {
    Mat<T> s(seq, seq);  // [seq, seq] raw scores, per thread
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < B * heads; ++bh) {
      const int64_t b = bh / heads, h = bh % heads, off = b * seq * width + h * hd;
      const Eigen::OuterStride<> stride(width);
      ConstHeadView<T> qh(qo + off, seq, hd, stride), kh(ko + off, seq, hd, stride);
      Eigen::Map<Mat<T>> p(att + bh * seq * seq, seq, seq);  // [seq, seq]
      s.template triangularView<Eigen::Lower>() = qh * kh.transpose();  // the causal half only
      for (int64_t t = 0; t < seq; ++t) {
        T mx = s(t, 0) * scale;
        for (int64_t j = 1; j <= t; ++j) mx = std::max(mx, s(t, j) * scale);
        T* e = &p(t, 0);
        for (int64_t j = 0; j <= t; ++j) e[j] = s(t, j) * scale - mx;
        if constexpr (std::is_same_v<T, float>) {
          exp_array(e, e, t + 1);
        } else {
          for (int64_t j = 0; j <= t; ++j) e[j] = std::exp(e[j]);
        }
        const T inv = T(1.0 / sum4(t + 1, [&](int64_t j) { return double(e[j]); }));
        for (int64_t j = 0; j <= t; ++j) p(t, j) *= inv;
        for (int64_t j = t + 1; j < seq; ++j) p(t, j) = T(0);
      }
      if (!quantize_p) context(bh, att);
    }
  }
  if (!quantize_p) return;
  const T* po = quantized_copy(att, B * heads * seq, seq, fwd, reduce_amax, pb);  // the whole P tensor's scale
#pragma omp parallel for schedule(static)
  for (int64_t bh = 0; bh < B * heads; ++bh) context(bh, po);
}

template <class T>
void attention_backward(T* dq, T* dk, T* dv, const T* dy, const T* q, const T* k, const T* v,
                        const T* att, int64_t B, int64_t seq, int64_t heads, int64_t hd,
                        const AttentionQuant* quant, const AmaxReduce* reduce_amax) {
  const OpScope op_scope(OpGroup::attention);
  const int64_t width = heads * hd;
  const T scale = T(1.0 / std::sqrt(double(hd)));
  const QuantSpec none;
  const QuantSpec &fwd = quant ? quant->fwd : none, &bwd = quant ? quant->bwd : none;
  std::vector<T> qb, kb, vb, pb, dyb, dsb;
  const T* qo = quantized_copy(q, B * seq, width, fwd, reduce_amax, qb);
  const T* ko = quantized_copy(k, B * seq, width, fwd, reduce_amax, kb);
  const T* vo = quantized_copy(v, B * seq, width, fwd, reduce_amax, vb);
  const T* po = quantized_copy(att, B * heads * seq, seq, fwd, reduce_amax, pb);
  const T* dyo = quantized_copy(dy, B * seq, width, bwd, reduce_amax, dyb);
  const bool quantize_ds = bwd.quantized();
  if (quantize_ds) dsb.assign(size_t(B * heads * seq * seq), T(0));  // dS of every head (zeros above the diagonal)
  // dQ += dS·k and dK += dSᵀ·q of one (batch, head); ds_bh its [seq, seq] dS.
  auto input_grads = [&](int64_t bh, const T* ds_bh) {
    const int64_t off = (bh / heads) * seq * width + (bh % heads) * hd;
    const Eigen::OuterStride<> stride(width);
    ConstHeadView<T> qh(qo + off, seq, hd, stride), kh(ko + off, seq, hd, stride);
    HeadView<T> dqh(dq + off, seq, hd, stride), dkh(dk + off, seq, hd, stride);
    Eigen::Map<const Mat<T>> ds(ds_bh, seq, seq);
    dqh.noalias() += ds.template triangularView<Eigen::Lower>() * kh;
    dkh.noalias() += ds.transpose().template triangularView<Eigen::Upper>() * qh;
  };
#pragma omp parallel
  {
    Mat<T> scratch(quantize_ds ? 0 : seq, quantize_ds ? 0 : seq);  // [seq, seq] dP, then scale·dS in place, per thread
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < B * heads; ++bh) {
      const int64_t b = bh / heads, h = bh % heads, off = b * seq * width + h * hd;
      const Eigen::OuterStride<> stride(width);
      ConstHeadView<T> vh(vo + off, seq, hd, stride), dyh(dyo + off, seq, hd, stride);
      HeadView<T> dvh(dv + off, seq, hd, stride);
      Eigen::Map<const Mat<T>> p(att + bh * seq * seq, seq, seq), pq(po + bh * seq * seq, seq, seq);
      Eigen::Map<Mat<T>> ds(quantize_ds ? dsb.data() + bh * seq * seq : scratch.data(), seq, seq);
      dvh.noalias() += pq.transpose().template triangularView<Eigen::Upper>() * dyh;
      ds.template triangularView<Eigen::Lower>() = dyh * vh.transpose();  // dP, causal half
      for (int64_t t = 0; t < seq; ++t) {  // dS·scale = P ⊙ (dP − rowsum(P ⊙ dP))·scale
        const T *pt = p.data() + t * seq, *dst = ds.data() + t * seq;
        const double dot = sum4(t + 1, [&](int64_t j) { return double(pt[j]) * double(dst[j]); });
        for (int64_t j = 0; j <= t; ++j) ds(t, j) = p(t, j) * (ds(t, j) - T(dot)) * scale;
      }
      if (!quantize_ds) input_grads(bh, scratch.data());
    }
  }
  if (!quantize_ds) return;
  const T* dso = quantized_copy(dsb.data(), B * heads * seq, seq, bwd, reduce_amax, dsb);
#pragma omp parallel for schedule(static)
  for (int64_t bh = 0; bh < B * heads; ++bh) input_grads(bh, dso + bh * seq * seq);
}

template void attention_forward<float>(float*, float*, const float*, const float*, const float*, int64_t, int64_t,
                                       int64_t, int64_t, const AttentionQuant*, const AmaxReduce*);
template void attention_forward<double>(double*, double*, const double*, const double*, const double*, int64_t,
                                        int64_t, int64_t, int64_t, const AttentionQuant*, const AmaxReduce*);
template void attention_backward<float>(float*, float*, float*, const float*, const float*, const float*,
                                        const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                        const AttentionQuant*, const AmaxReduce*);
template void attention_backward<double>(double*, double*, double*, const double*, const double*, const double*,
                                         const double*, const double*, int64_t, int64_t, int64_t, int64_t,
                                         const AttentionQuant*, const AmaxReduce*);

}  // namespace fp4lab
