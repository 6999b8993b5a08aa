// RMSNorm without bias (Llama): out = x / sqrt(mean(x²) + eps) · w, row by row.
// Forward overwrites its outputs; backward accumulates (+=) into dx and dw, as every *_backward does.
// Templated on the scalar: float for the model, double for the gradient checks. No quantization.
#pragma once
#include <cstdint>

namespace fp4lab {

// out [rows, cols], rstd [rows] (saved for backward), x [rows, cols], w [cols]
template <class T>
void rmsnorm_forward(T* out, T* rstd, const T* x, const T* w, int64_t rows, int64_t cols,
                     double eps);

// dx [rows, cols] +=, dw [cols] +=; dout [rows, cols], x [rows, cols], w [cols], rstd [rows]
template <class T>
void rmsnorm_backward(T* dx, T* dw, const T* dout, const T* x, const T* w, const T* rstd,
                      int64_t rows, int64_t cols);

}  // namespace fp4lab
