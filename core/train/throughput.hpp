// Throughput accounting as MaxText reports it: model FLOPs per token (so tokens/s become model
// TFLOP/s) and the machine's measured fp32 GEMM rate for the thread count in use (so achieved /
// peak = MFU). Counted, not timed by a profiler: a quantized GEMM counts as its fp32 product.
#pragma once
#include <cstdint>

#include "core/model/model.hpp"

namespace fp4lab {

// Training FLOPs per token (forward + backward = 3 x forward): 6 · N_linear, N_linear the weights of
// every linear layer (the blocks' q, k, v, o, gate, up, down and the LM head; embeddings and norms
// are not matrix products), plus attention's score and context products, 12 · n_layers · seq_len ·
// d_model (PaLM's MFU appendix; causal masking not discounted).
double model_flops_per_token(const ModelConfig& m);

// The best of a few 512 x 512 x 512 fp32 products through core/ops/matmul with the current OpenMP
// thread count, in GFLOP/s (about 50 ms).
double measure_gemm_peak_gflops();

}  // namespace fp4lab
