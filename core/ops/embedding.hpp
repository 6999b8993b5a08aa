// Token embedding lookup: out[i] = table[tokens[i]]. Backward scatters (+=) into the table rows.
// Token ids must lie in [0, vocab); the caller checks them (the model does, once per batch).
#pragma once
#include <cstdint>

namespace fp4lab {

// out [n, dim]; tokens [n]; table [vocab, dim]
template <class T>
void embedding_forward(T* out, const int32_t* tokens, const T* table, int64_t n, int64_t dim);

// dtable [vocab, dim] +=; dout [n, dim]; tokens [n]. Rows are added in token order.
template <class T>
void embedding_backward(T* dtable, const T* dout, const int32_t* tokens, int64_t n, int64_t dim);

}  // namespace fp4lab
