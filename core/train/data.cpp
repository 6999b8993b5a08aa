// Token streams: synthetic order-2 Markov corpus with exact entropy, or text tokenized by bytes or
// a subword model (data.hpp).
#include "core/train/data.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/io/atomic_file.hpp"
#include "core/io/corpus.hpp"
#include "core/io/fnv.hpp"
#include "core/io/tokenizer.hpp"
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

std::string cache_dir() { return user_dir("FP4LAB_CACHE", "XDG_CACHE_HOME", ".cache"); }

namespace {

// An exclusive lock on a file, held for the object's life (flock: released if the process dies).
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string s(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(s.data(), std::streamsize(s.size()))) throw std::runtime_error("cannot read " + path);
  return s;
}

struct TextSplit {
  std::string train, val;
  std::string split = "tail";
  int64_t val_documents = 0;
};

// The tail (llround(total · val_fraction) bytes) or, for a document corpus, whole documents in
// the order of FNV-1a of their names (package and file, without a "#N" part number, so the parts
// of one file fall on one side; stable when documents are added) until that many bytes are held
// out; each part keeps the corpus's order.
TextSplit split_text(const Corpus& corpus, std::string text, double val_fraction) {
  TextSplit t;
  const int64_t total = int64_t(text.size()), held = held_out_tokens(total, val_fraction);
  if (corpus.documents.empty()) {
    t.val = text.substr(size_t(total - held));
    text.resize(size_t(total - held));
    t.train = std::move(text);
    return t;
  }
  t.split = "documents";
  const auto& docs = corpus.documents;
  std::vector<std::pair<uint64_t, size_t>> order;
  for (size_t i = 0; i < docs.size(); ++i) {
    const std::string file = docs[i].name.substr(0, docs[i].name.find('#'));  // parts of a file stay together
    Fnv64 f;
    f.add(file.data(), file.size());
    order.push_back({f.h, i});
  }
  std::sort(order.begin(), order.end());
  std::vector<char> is_val(docs.size(), 0);
  int64_t acc = 0;
  for (size_t k = 0; k + 1 < order.size() && (acc < held || (k > 0 && order[k].first == order[k - 1].first)); ++k) {
    is_val[order[k].second] = 1;
    acc += docs[order[k].second].bytes;
    ++t.val_documents;
  }
  for (size_t i = 0; i < docs.size(); ++i)
    (is_val[i] ? t.val : t.train).append(text, size_t(docs[i].offset), size_t(docs[i].bytes));
  return t;
}

// What BPE trains on: the whole training text up to kBpeTrainBytes, else evenly spaced 1 MiB
// stretches of it (cut after newlines) adding up to about that much.
constexpr int64_t kBpeTrainBytes = int64_t(32) << 20;
std::string bpe_training_text(const std::string& train) {
  if (int64_t(train.size()) <= kBpeTrainBytes) return train;
  const size_t piece = size_t(1) << 20;
  const size_t stride = size_t(double(train.size()) / double(kBpeTrainBytes) * double(piece));
  std::string out;
  for (size_t pos = 0; pos < train.size(); pos += stride) {
    size_t begin = pos == 0 ? 0 : train.find('\n', pos);
    if (begin == std::string::npos) break;
    begin += pos == 0 ? 0 : 1;
    size_t end = train.find('\n', std::min(train.size(), begin + piece));
    end = end == std::string::npos ? train.size() : end + 1;
    out.append(train, begin, end - begin);
  }
  return out;
}

// bytes, a model file, or a BPE model trained on `train` (cached under cache_dir()/tokenizers by
// a hash of the text it trains on, the vocabulary and the library's version).
Tokenizer make_tokenizer(const std::string& name, const std::string& train) {
  const TokenizerSpec spec = parse_tokenizer(name);
  if (spec.kind == TokenizerSpec::Kind::bytes) return Tokenizer::bytes();
  if (spec.kind == TokenizerSpec::Kind::file) return Tokenizer::from_file(spec.path);
  const std::string text = bpe_training_text(train);
  Fnv64 key;
  key.add(text.data(), text.size());
  const std::string recipe = "\n" + name + "\nsentencepiece " + sentencepiece_version() + "\n";
  key.add(recipe.data(), recipe.size());
  const std::string dir = cache_dir() + "/tokenizers";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/bpe" + std::to_string(spec.vocab) + "-" + key.hex() + ".model";
  FileLock lock(path + ".lock");  // a concurrent run waits here, then reads the model
  if (!std::filesystem::exists(path)) io::write_file_atomically(path, Tokenizer::train_bpe(text, spec.vocab));
  return Tokenizer::from_serialized(read_whole(path), name);
}

// Token ids of a split, cached under cache_dir()/tokens by the texts' and the model's hashes.
void tokenize(const Tokenizer& tok, const TextSplit& t, TokenData& d) {
  auto assign = [](std::vector<int32_t>& out, const std::string& text) {
    const auto* b = reinterpret_cast<const unsigned char*>(text.data());
    out.assign(b, b + text.size());
  };
  if (tok.hash().empty()) {
    assign(d.train, t.train);
    assign(d.val, t.val);
    return;
  }
  Fnv64 key;
  key.add(t.train.data(), t.train.size());
  key.add("\0", 1);
  key.add(t.val.data(), t.val.size());
  key.add(tok.hash().data(), tok.hash().size());
  const std::string dir = cache_dir() + "/tokens", path = dir + "/" + key.hex() + ".i32";
  std::filesystem::create_directories(dir);
  FileLock lock(path + ".lock");
  if (std::ifstream in{path, std::ios::binary | std::ios::ate}) {  // two counts, then the ids
    const int64_t size = in.tellg();
    int64_t n[2] = {-1, -1};
    in.seekg(0);
    if (in.read(reinterpret_cast<char*>(n), sizeof n) && n[0] >= 0 && n[1] >= 0 &&
        size == int64_t(sizeof n) + (n[0] + n[1]) * 4) {
      d.train.resize(size_t(n[0]));
      d.val.resize(size_t(n[1]));
      if (in.read(reinterpret_cast<char*>(d.train.data()), std::streamsize(d.train.size() * 4)) &&
          in.read(reinterpret_cast<char*>(d.val.data()), std::streamsize(d.val.size() * 4)))
        return;
    }
  }
  d.train = tok.encode(t.train);
  d.val = tok.encode(t.val);
  const int64_t n[2] = {int64_t(d.train.size()), int64_t(d.val.size())};
  std::string raw(sizeof n + (d.train.size() + d.val.size()) * 4, '\0');
  std::memcpy(raw.data(), n, sizeof n);
  std::memcpy(raw.data() + sizeof n, d.train.data(), d.train.size() * 4);
  std::memcpy(raw.data() + sizeof n + d.train.size() * 4, d.val.data(), d.val.size() * 4);
  io::write_file_atomically(path, raw);
}

}  // namespace

TokenData load_data(const DataConfig& cfg, int seq_len) {
  TokenData d;
  if (cfg.source == "synthetic") {
    const MarkovChain2 mc = make_markov_chain(cfg.synthetic_vocab, cfg.synthetic_concentration, cfg.synthetic_seed);
    std::vector<int32_t> all = generate(mc, cfg.synthetic_tokens, cfg.synthetic_seed);
    d.entropy_rate = mc.entropy_rate;
    d.description = "synthetic order-2 Markov chain, " + std::to_string(cfg.synthetic_vocab) + " symbols, " +
                    std::to_string(cfg.synthetic_tokens) + " tokens";
    d.tokenizer = "";
    d.tokenizer_vocab = cfg.synthetic_vocab;
    const int64_t n_train = int64_t(all.size()) - held_out_tokens(int64_t(all.size()), cfg.val_fraction);
    d.train.assign(all.begin(), all.begin() + n_train);
    d.val.assign(all.begin() + n_train, all.end());
  } else {
    const std::string key = "data.tokenizer";
    try {
      const Corpus& corpus = find_corpus(cfg.source);
      const TextSplit text = split_text(corpus, read_corpus(corpus), cfg.val_fraction);
      for (const auto& f : corpus.files) d.files.push_back(f.path + "\t" + std::to_string(f.bytes));
      d.split = text.split;
      d.documents = int64_t(corpus.documents.size());
      d.val_documents = text.val_documents;
      d.sources = corpus.sources;
      d.train_text_bytes = int64_t(text.train.size());
      d.val_text_bytes = int64_t(text.val.size());
      const Tokenizer tok = make_tokenizer(cfg.tokenizer, text.train);
      d.tokenizer = tok.name();
      d.tokenizer_hash = tok.hash();
      d.tokenizer_vocab = tok.vocab();
      d.tokenizer_library = tok.hash().empty() ? "" : "sentencepiece " + sentencepiece_version();
      d.token_bytes = tok.token_bytes();
      tokenize(tok, text, d);
      d.description = (corpus.root == cfg.source ? cfg.source : cfg.source + ": " + corpus.root) + " (" +
                      std::to_string(corpus.bytes) + " bytes, " + std::to_string(corpus.files.size()) + " files" +
                      (d.documents ? ", " + std::to_string(d.documents) + " documents" : std::string()) + ")";
      if (!tok.hash().empty()) d.description += "; " + tok.name() + ": " + std::to_string(d.train.size() + d.val.size()) + " tokens";
    } catch (const CorpusError& e) {
      throw ConfigError(SourceLoc{"data.source", 0, 0}, "data.source", e.what());
    } catch (const TokenizerError& e) {
      throw ConfigError(SourceLoc{key, 0, 0}, key, e.what());
    }
  }
  d.tokens = int64_t(d.train.size() + d.val.size());
  if (const std::string why = data_too_short(d.tokens, cfg.val_fraction, seq_len, 1, seq_len); !why.empty())
    throw ConfigError(SourceLoc{"data.source", 0, 0}, "data.source", why);
  if (int64_t(d.val.size()) < seq_len + 1 || int64_t(d.train.size()) < seq_len + 1)
    throw ConfigError(SourceLoc{"data.source", 0, 0}, "data.source",
                      "the " + d.split + " split leaves " + std::to_string(d.train.size()) + " training and " +
                          std::to_string(d.val.size()) + " validation tokens; each needs at least seq_len + 1 = " +
                          std::to_string(seq_len + 1));
  const int width = (cfg.source != "synthetic" && d.tokenizer == "bytes") ? 1 : 4;
  Fnv64 fnv;  // bytes: one byte per token (= FNV-1a of the text, train then validation); else int32 LE
  for (const auto* part : {&d.train, &d.val})
    for (int32_t t : *part) {
      const unsigned char le[4] = {static_cast<unsigned char>(t), static_cast<unsigned char>(t >> 8),
                                   static_cast<unsigned char>(t >> 16), static_cast<unsigned char>(t >> 24)};
      fnv.add(le, size_t(width));
    }
  d.hash = fnv.hex();
  return d;
}

Tokenizer data_tokenizer(const DataConfig& cfg) {
  if (cfg.tokenizer == "bytes" || cfg.source == "synthetic") return Tokenizer::bytes();
  try {
    const Corpus& corpus = find_corpus(cfg.source);
    return make_tokenizer(cfg.tokenizer, split_text(corpus, read_corpus(corpus), cfg.val_fraction).train);
  } catch (const CorpusError& e) {
    throw ConfigError(SourceLoc{"data.source", 0, 0}, "data.source", e.what());
  } catch (const TokenizerError& e) {
    throw ConfigError(SourceLoc{"data.tokenizer", 0, 0}, "data.tokenizer", e.what());
  }
}

double val_bytes_per_token(const TokenData& d, int64_t n_windows, int T) {
  if (d.token_bytes.empty()) return std::nan("");
  int64_t bytes = 0, tokens = 0;
  for (int64_t w = 0; w < n_windows; ++w)
    for (int64_t i = w * (T + 1) + 1; i < (w + 1) * (T + 1) && i < int64_t(d.val.size()); ++i) {
      bytes += d.token_bytes[size_t(d.val[size_t(i)])];
      ++tokens;
    }
  return tokens ? double(bytes) / double(tokens) : std::nan("");
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
