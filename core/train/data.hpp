// Training data: a token stream (text tokenized by bytes or a subword model, or the built-in
// synthetic corpus) split into train and held-out validation parts, and the counter-based batch
// sampler. The synthetic corpus is an order-2 Markov chain whose entropy rate is computed exactly,
// so the irreducible loss is known.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/io/tokenizer.hpp"

namespace fp4lab {

struct TokenData {
  std::vector<int32_t> train, val;
  double entropy_rate = -1;  // nats/token of the source (synthetic only), else -1
  std::string description;   // "fortunes: /usr/share/games/fortunes (2583424 bytes, 43 files)"
  std::vector<std::string> files;  // "PATH\tBYTES" per file read, in order (empty for synthetic)
  int64_t tokens = 0;              // tokens in the whole stream (train + validation)
  std::string hash;                // FNV-1a 64 of the tokens, train then validation (bytes: one byte per
                                   // token, so the files' hash for a tail split; else int32 LE), hex
  // How the text became tokens (core/io/tokenizer.hpp): "bytes", "bpe:4096" or a model path; the
  // model's hash and vocabulary; "sentencepiece 0.1.97" or "" for bytes and synthetic data.
  std::string tokenizer = "bytes", tokenizer_hash, tokenizer_library;
  int tokenizer_vocab = 256;
  std::vector<uint8_t> token_bytes;  // UTF-8 bytes per token id (empty for synthetic data)
  std::string split = "tail";        // validation held out as the stream's "tail" or whole "documents"
  int64_t train_text_bytes = 0, val_text_bytes = 0;  // text behind each part (0 for synthetic)
  int64_t val_documents = 0, documents = 0;          // a document corpus: held out / all
  std::string sources;  // a document corpus's sources.tsv: package, version, licence per source
};

// Where trained tokenizers and token streams are cached: $FP4LAB_CACHE, else
// $XDG_CACHE_HOME/fp4lab, else ~/.cache/fp4lab.
std::string cache_dir();

// Synthetic corpus or the text of `cfg.source` (a named corpus, a file, or a directory's text
// files; core/io/corpus.hpp) tokenized by `cfg.tokenizer`. Validation is the stream's tail, or for
// a document corpus whole documents (chosen by a hash of their names, about val_fraction of the
// bytes). A BPE model is trained on the training part only and cached by a hash of that text
// (a lock file keeps concurrent runs from training it twice), as is the tokenized stream. Throws
// ConfigError naming data.source or data.tokenizer if the source or model is missing or broken,
// or the data too short (the rule validate_config applies at plan time).
TokenData load_data(const DataConfig& cfg, int seq_len);

// The tokenizer a config's data runs through (a BPE model is trained on, or read from the cache
// for, its corpus's training part, as load_data does). Throws ConfigError like load_data.
Tokenizer data_tokenizer(const DataConfig& cfg);

// Bytes of text per token over the targets of the validation pass: the windows val_batch gives
// for windows [0, n_windows) of T + 1 tokens, each scoring its last T tokens. 1 for bytes; NaN
// for synthetic data.
double val_bytes_per_token(const TokenData& d, int64_t n_windows, int T);

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
