// Attention forward and backward (see attention.hpp): Eigen products per (batch, head) on strided
// views of the [B, seq, heads·hd] buffers, restricted to the causal (lower) triangle of the [seq, seq]
// scores; (batch, head) pairs are independent OpenMP tasks.
#include "core/ops/attention.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/ops/reduce.hpp"
#include "core/ops/vexp.hpp"
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

template <class T>
void attention_forward(T* y, T* att, const T* q, const T* k, const T* v, int64_t B, int64_t seq,
                       int64_t heads, int64_t hd) {
  const OpScope op_scope(OpGroup::attention);
  const int64_t width = heads * hd;
  const T scale = T(1.0 / std::sqrt(double(hd)));
#pragma omp parallel
  {
    Mat<T> s(seq, seq);  // [seq, seq] raw scores, per thread
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < B * heads; ++bh) {
      const int64_t b = bh / heads, h = bh % heads, off = b * seq * width + h * hd;
      const Eigen::OuterStride<> stride(width);
      ConstHeadView<T> qh(q + off, seq, hd, stride), kh(k + off, seq, hd, stride),
          vh(v + off, seq, hd, stride);
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
      HeadView<T> yh(y + off, seq, hd, stride);
      yh.noalias() = p.template triangularView<Eigen::Lower>() * vh;
    }
  }
}

template <class T>
void attention_backward(T* dq, T* dk, T* dv, const T* dy, const T* q, const T* k, const T* v,
                        const T* att, int64_t B, int64_t seq, int64_t heads, int64_t hd) {
  const OpScope op_scope(OpGroup::attention);
  const int64_t width = heads * hd;
  const T scale = T(1.0 / std::sqrt(double(hd)));
#pragma omp parallel
  {
    Mat<T> ds(seq, seq);  // [seq, seq] dP, then scale·dS in place, per thread
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < B * heads; ++bh) {
      const int64_t b = bh / heads, h = bh % heads, off = b * seq * width + h * hd;
      const Eigen::OuterStride<> stride(width);
      ConstHeadView<T> qh(q + off, seq, hd, stride), kh(k + off, seq, hd, stride),
          vh(v + off, seq, hd, stride), dyh(dy + off, seq, hd, stride);
      HeadView<T> dqh(dq + off, seq, hd, stride), dkh(dk + off, seq, hd, stride),
          dvh(dv + off, seq, hd, stride);
      Eigen::Map<const Mat<T>> p(att + bh * seq * seq, seq, seq);
      dvh.noalias() += p.transpose().template triangularView<Eigen::Upper>() * dyh;
      ds.template triangularView<Eigen::Lower>() = dyh * vh.transpose();  // dP, causal half
      for (int64_t t = 0; t < seq; ++t) {  // dS·scale = P ⊙ (dP − rowsum(P ⊙ dP))·scale
        const T *pt = p.data() + t * seq, *dst = ds.data() + t * seq;
        const double dot = sum4(t + 1, [&](int64_t j) { return double(pt[j]) * double(dst[j]); });
        for (int64_t j = 0; j <= t; ++j) ds(t, j) = p(t, j) * (ds(t, j) - T(dot)) * scale;
      }
      dqh.noalias() += ds.template triangularView<Eigen::Lower>() * kh;
      dkh.noalias() += ds.transpose().template triangularView<Eigen::Upper>() * qh;
    }
  }
}

template void attention_forward<float>(float*, float*, const float*, const float*, const float*,
                                       int64_t, int64_t, int64_t, int64_t);
template void attention_forward<double>(double*, double*, const double*, const double*,
                                        const double*, int64_t, int64_t, int64_t, int64_t);
template void attention_backward<float>(float*, float*, float*, const float*, const float*,
                                        const float*, const float*, const float*, int64_t, int64_t,
                                        int64_t, int64_t);
template void attention_backward<double>(double*, double*, double*, const double*, const double*,
                                         const double*, const double*, const double*, int64_t,
                                         int64_t, int64_t, int64_t);

}  // namespace fp4lab
