// Token streams: synthetic order-2 Markov corpus with exact entropy, or bytes from text files.
#include "core/train/data.hpp"

#include <algorithm>
#include <cmath>

#include "core/io/corpus.hpp"
#include "core/io/fnv.hpp"
#include "core/train/random.hpp"

namespace fp4lab {

MarkovChain2 make_markov_chain(int V, double concentration, uint64_t seed) {
  MarkovChain2 mc;
  mc.vocab = V;
  mc.probs.resize(static_cast<size_t>(V) * V * V);
  // P(c | a,b) proportional to u^(1/concentration): a few likely successors per context.
  for (int64_t ctx = 0; ctx < int64_t(V) * V; ++ctx) {
    double sum = 0;
    for (int c = 0; c < V; ++c) {
      const double u = random_uniform(seed, RandomStream::synthetic_chain, ctx * V + c);
      const double w = std::pow(std::max(u, 1e-12), 1.0 / concentration) + 1e-4;
      mc.probs[ctx * V + c] = w;
      sum += w;
    }
    for (int c = 0; c < V; ++c) mc.probs[ctx * V + c] /= sum;
  }
  // Stationary distribution of the pair chain (a,b) -> (b,c) by power iteration.
  std::vector<double> pi(static_cast<size_t>(V) * V, 1.0 / (double(V) * V)), next(pi.size());
  for (int it = 0; it < 2000; ++it) {
    std::fill(next.begin(), next.end(), 0.0);
    for (int a = 0; a < V; ++a)
      for (int b = 0; b < V; ++b) {
        const double p = pi[a * V + b];
        const double* row = &mc.probs[(size_t(a) * V + b) * V];
        for (int c = 0; c < V; ++c) next[b * V + c] += p * row[c];
      }
    double diff = 0;
    for (size_t i = 0; i < pi.size(); ++i) diff += std::abs(next[i] - pi[i]);
    pi.swap(next);
    if (diff < 1e-15) break;
  }
  double h = 0;
  for (size_t ctx = 0; ctx < pi.size(); ++ctx) {
    double hc = 0;
    for (int c = 0; c < V; ++c) {
      const double p = mc.probs[ctx * V + c];
      if (p > 0) hc -= p * std::log(p);
    }
    h += pi[ctx] * hc;
  }
  mc.entropy_rate = h;
  return mc;
}

static std::vector<int32_t> generate(const MarkovChain2& mc, int64_t n, uint64_t seed) {
  const int V = mc.vocab;
  std::vector<int32_t> out(n);
  int a = 0, b = 1 % V;
  for (int64_t i = 0; i < n; ++i) {
    const double u = random_uniform(seed, RandomStream::synthetic_corpus, i);
    const double* row = &mc.probs[(size_t(a) * V + b) * V];
    int c = 0;
    double acc = row[0];
    while (c < V - 1 && u >= acc) acc += row[++c];
    out[i] = c;
    a = b;
    b = c;
  }
  return out;
}

TokenData load_data(const DataConfig& cfg, int seq_len) {
  TokenData d;
  std::vector<int32_t> all;
  if (cfg.source == "synthetic") {
    const MarkovChain2 mc = make_markov_chain(cfg.synthetic_vocab, cfg.synthetic_concentration, cfg.synthetic_seed);
    all = generate(mc, cfg.synthetic_tokens, cfg.synthetic_seed);
    d.entropy_rate = mc.entropy_rate;
    d.description = "synthetic order-2 Markov chain, " + std::to_string(cfg.synthetic_vocab) + " symbols, " +
                    std::to_string(cfg.synthetic_tokens) + " tokens";
  } else {
    try {
      const Corpus& corpus = find_corpus(cfg.source);
      const std::vector<unsigned char> bytes = read_corpus(corpus);
      all.assign(bytes.begin(), bytes.end());
      for (const auto& f : corpus.files) d.files.push_back(f.path + "\t" + std::to_string(f.bytes));
      d.description = (corpus.root == cfg.source ? cfg.source : cfg.source + ": " + corpus.root) + " (" +
                      std::to_string(corpus.bytes) + " bytes, " + std::to_string(corpus.files.size()) + " files)";
    } catch (const CorpusError& e) {
      throw ConfigError(SourceLoc{"data.source", 0, 0}, "data.source", e.what());
    }
  }
  if (const std::string why = data_too_short(int64_t(all.size()), cfg.val_fraction, seq_len, 1, seq_len); !why.empty())
    throw ConfigError(SourceLoc{"data.source", 0, 0}, "data.source", why);
  Fnv64 fnv;  // text: one byte per token (= FNV-1a of the files concatenated); synthetic: int32 LE
  for (int32_t t : all) {
    const unsigned char le[4] = {static_cast<unsigned char>(t), static_cast<unsigned char>(t >> 8),
                                 static_cast<unsigned char>(t >> 16), static_cast<unsigned char>(t >> 24)};
    fnv.add(le, cfg.source == "synthetic" ? 4 : 1);
  }
  d.hash = fnv.hex();
  d.bytes = static_cast<int64_t>(all.size());
  const int64_t n_train = static_cast<int64_t>(all.size()) - held_out_tokens(int64_t(all.size()), cfg.val_fraction);
  d.train.assign(all.begin(), all.begin() + n_train);
  d.val.assign(all.begin() + n_train, all.end());
  return d;
}

void sample_batch(const std::vector<int32_t>& stream, uint64_t seed, int64_t step, int B, int T, int32_t* tokens) {
  const uint64_t span = stream.size() - (T + 1) + 1;
  for (int b = 0; b < B; ++b) {
    const uint64_t r = random_u64(seed, RandomStream::data_order, static_cast<uint64_t>(step) * 65536u + b);
    const uint64_t off = r % span;
    std::copy_n(stream.begin() + off, T + 1, tokens + int64_t(b) * (T + 1));
  }
}

int64_t val_windows(const std::vector<int32_t>& val, int T) { return static_cast<int64_t>(val.size()) / (T + 1); }

void val_batch(const std::vector<int32_t>& val, int64_t first_window, int B, int T, int32_t* tokens) {
  for (int b = 0; b < B; ++b)
    std::copy_n(val.begin() + (first_window + b) * (T + 1), T + 1, tokens + int64_t(b) * (T + 1));
}

}  // namespace fp4lab
