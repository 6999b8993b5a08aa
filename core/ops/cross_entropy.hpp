// Token cross-entropy with a fused, max-shifted softmax: the mean over all rows (B·T tokens) of
// −log softmax(logits)[target]. The probabilities are kept for backward. Not the LM head (linear).
#pragma once
#include <cstdint>

namespace fp4lab {

// probs [rows, vocab], losses [rows] (per-token loss); logits [rows, vocab], targets [rows].
// Returns the mean loss, summed in double in row order (independent of the thread count).
template <class T>
double cross_entropy_forward(T* probs, T* losses, const T* logits, const int32_t* targets,
                             int64_t rows, int64_t vocab);

// dlogits [rows, vocab] += (probs − onehot(target)) / mean_over, where mean_over is the number of
// tokens the loss is a mean over (0: rows; a data-parallel rank's rows are part of a larger batch).
template <class T>
void cross_entropy_backward(T* dlogits, const T* probs, const int32_t* targets, int64_t rows,
                            int64_t vocab, int64_t mean_over = 0);

}  // namespace fp4lab
