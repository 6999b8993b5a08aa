// Number formatting shared by the Markdown writers.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace fp4lab::analysis {

// x with `digits` decimals ("%.*f", or "%+.*f" with `sign`); "—" for NaN or an infinity.
inline std::string fixed(double x, int digits, bool sign = false) {
  if (!std::isfinite(x)) return "—";
  char buf[64];
  std::snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", digits, x);
  return buf;
}

}  // namespace fp4lab::analysis
