// Training data: a byte-token stream (from text files or the built-in synthetic corpus) split into
// train and held-out validation parts, and the counter-based batch sampler. The synthetic corpus is
// an order-2 Markov chain whose entropy rate is computed exactly, so the irreducible loss is known.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace fp4lab {

struct TokenData {
  std::vector<int32_t> train, val;
  double entropy_rate = -1;  // nats/token of the source (synthetic only), else -1
  std::string description;   // "fortunes: /usr/share/games/fortunes (2583424 bytes, 43 files)"
  std::vector<std::string> files;  // "PATH\tBYTES" per file read, in order (empty for synthetic)
  int64_t bytes = 0;               // tokens in the whole stream (train + validation)
  std::string hash;                // FNV-1a 64 of the whole token stream (one byte per token), hex
};

// Synthetic corpus or the bytes of `cfg.source` (a named corpus, a file, or a directory's text
// files; core/io/corpus.hpp). Throws ConfigError naming data.source if the source is missing or
// too short (the same rule validate_config applies at plan time).
TokenData load_data(const DataConfig& cfg, int seq_len);

// Batch for `step` (1-based): B windows of T+1 tokens at offsets drawn from (seed, step, b).
// tokens: [B, T+1] row-major.
void sample_batch(const std::vector<int32_t>& stream, uint64_t seed, int64_t step, int B, int T,
                  int32_t* tokens);

// Deterministic validation windows: the first n_windows non-overlapping windows of T+1 tokens.
int64_t val_windows(const std::vector<int32_t>& val, int T);
void val_batch(const std::vector<int32_t>& val, int64_t first_window, int B, int T, int32_t* tokens);

// The synthetic chain itself (exposed for tests): probabilities [V*V contexts][V], row-stochastic.
struct MarkovChain2 {
  int vocab = 0;
  std::vector<double> probs;  // probs[(a*V + b)*V + c] = P(c | a, b)
  double entropy_rate = 0;    // sum_ab pi(a,b) H(P(.|a,b)), nats
};
MarkovChain2 make_markov_chain(int vocab, double concentration, uint64_t seed);

}  // namespace fp4lab
