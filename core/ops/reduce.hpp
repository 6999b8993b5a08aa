// A fixed-order double reduction for the model's per-row and per-tensor sums: term j goes into
// accumulator j % 4 and the four are combined as (a0 + a1) + (a2 + a3). The order depends on the
// term indices only (never on threads or alignment), and the four independent chains of
// additions run about four times faster than one.
#pragma once
#include <cstdint>

namespace fp4lab {

struct Sum4 {
  double a[4] = {};
  void add(int64_t j, double term) { a[j % 4] += term; }
  double total() const { return (a[0] + a[1]) + (a[2] + a[3]); }
};

// Σ term(j) for j in [0, n), term(j) a double.
template <class Term>
double sum4(int64_t n, Term term) {
  Sum4 s;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {  // unrolled so the four chains stay in registers
    s.a[0] += term(j);
    s.a[1] += term(j + 1);
    s.a[2] += term(j + 2);
    s.a[3] += term(j + 3);
  }
  for (; j < n; ++j) s.add(j, term(j));
  return s.total();
}

}  // namespace fp4lab
