// A fixed-order double reduction for the model's per-row and per-tensor sums: element j goes
// into accumulator j % 4 and the four are combined as (a0 + a1) + (a2 + a3). The order depends on
// n only (never on threads or alignment), and the four independent chains of additions run
// about four times faster than one.
#pragma once
#include <cstdint>

namespace fp4lab {

// Σ term(j) for j in [0, n), term(j) a double.
template <class Term>
double sum4(int64_t n, Term term) {
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    a0 += term(j);
    a1 += term(j + 1);
    a2 += term(j + 2);
    a3 += term(j + 3);
  }
  if (j < n) a0 += term(j);
  if (j + 1 < n) a1 += term(j + 1);
  if (j + 2 < n) a2 += term(j + 2);
  return (a0 + a1) + (a2 + a3);
}

}  // namespace fp4lab
