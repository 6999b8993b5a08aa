// Tokenizers (see tokenizer.hpp): bytes, or SentencePiece behind this one file.
#include "core/io/tokenizer.hpp"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "core/io/fnv.hpp"

#ifndef FP4LAB_SENTENCEPIECE_VERSION
#define FP4LAB_SENTENCEPIECE_VERSION "unknown"
#endif

namespace fp4lab {

struct Tokenizer::Impl {
  std::string name, hash, model;  // model: serialized proto ("" for bytes)
  int vocab = 256;
  std::vector<uint8_t> token_bytes;
  sentencepiece::SentencePieceProcessor sp;  // loaded unless bytes
};

std::string sentencepiece_version() { return FP4LAB_SENTENCEPIECE_VERSION; }

TokenizerSpec parse_tokenizer(const std::string& text) {
  TokenizerSpec s;
  if (text == "bytes") return s;
  if (text.rfind("bpe:", 0) == 0) {
    const std::string n = text.substr(4);
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(n, &used);
    } catch (const std::exception&) {
    }
    if (used != n.size() || n.empty() || v < kMinBpeVocab || v > kMaxBpeVocab)
      throw TokenizerError("'" + text + "': bpe:<vocab> takes a vocabulary size from " + std::to_string(kMinBpeVocab) +
                           " to " + std::to_string(kMaxBpeVocab) + " (256 byte pieces, <unk> and the merges)");
    s.kind = TokenizerSpec::Kind::bpe;
    s.vocab = int(v);
    return s;
  }
  if (text.empty()) throw TokenizerError("empty: expected bytes, bpe:<vocab> (e.g. bpe:4096) or a SentencePiece .model file");
  s.kind = TokenizerSpec::Kind::file;
  s.vocab = 0;
  s.path = text;
  return s;
}

Tokenizer Tokenizer::bytes() {
  static const auto impl = [] {
    auto p = std::make_shared<Impl>();
    p->name = "bytes";
    p->token_bytes.assign(256, 1);
    return std::shared_ptr<const Impl>(p);
  }();
  return Tokenizer(impl);
}

Tokenizer Tokenizer::from_serialized(const std::string& model, const std::string& name) {
  auto p = std::make_shared<Impl>();
  if (const auto st = p->sp.LoadFromSerializedProto(model); !st.ok())
    throw TokenizerError(name + " is not a SentencePiece model (" + st.ToString() + ")");
  p->name = name;
  p->model = model;
  p->vocab = p->sp.GetPieceSize();
  if (p->vocab <= 0) throw TokenizerError(name + " is a SentencePiece model without pieces");
  Fnv64 fnv;
  fnv.add(model.data(), model.size());
  p->hash = fnv.hex();
  p->token_bytes.resize(size_t(p->vocab));
  for (int id = 0; id < p->vocab; ++id) {
    if (p->sp.IsByte(id)) {
      p->token_bytes[size_t(id)] = 1;
    } else if (p->sp.IsUnknown(id) || p->sp.IsControl(id)) {
      p->token_bytes[size_t(id)] = 0;
    } else {
      std::string text;
      (void)p->sp.Decode(std::vector<int>{id}, &text);  // "▁" (3 bytes) decodes to one space
      p->token_bytes[size_t(id)] = uint8_t(std::min<size_t>(text.size(), 255));
    }
  }
  return Tokenizer(std::shared_ptr<const Impl>(p));
}

Tokenizer Tokenizer::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TokenizerError("cannot read tokenizer model " + path);
  const std::string model((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw TokenizerError("cannot read tokenizer model " + path);
  if (model.empty()) throw TokenizerError(path + " is empty, not a SentencePiece model");
  return from_serialized(model, path);
}

namespace {

// The training text's non-empty lines, in order.
class LineIterator : public sentencepiece::SentenceIterator {
 public:
  explicit LineIterator(std::string_view text) : text_(text) { Next(); }
  bool done() const override { return done_; }
  void Next() override {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      const std::string_view line = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      if (!line.empty()) {
        line_.assign(line);
        return;
      }
    }
    done_ = true;
  }
  const std::string& value() const override { return line_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string line_;
  bool done_ = false;
};

}  // namespace

std::string Tokenizer::train_bpe(std::string_view text, int vocab) {
  // Every line is read (no sampling, no shuffling), so the model depends on the text alone. One
  // trainer thread: BPE merges are sequential, and the count must not enter the result.
  const std::unordered_map<std::string, std::string> args = {
      {"model_type", "bpe"},
      {"vocab_size", std::to_string(vocab)},
      {"normalization_rule_name", "identity"},
      {"add_dummy_prefix", "false"},
      {"remove_extra_whitespaces", "false"},
      {"byte_fallback", "true"},
      {"split_digits", "true"},
      {"character_coverage", "0.9995"},
      {"max_sentence_length", "16384"},
      {"input_sentence_size", "0"},
      {"shuffle_input_sentence", "false"},
      {"bos_id", "-1"},
      {"eos_id", "-1"},
      {"unk_id", "0"},
      {"num_threads", "1"},
      {"minloglevel", "2"},
      {"model_prefix", ""},
  };
  LineIterator lines(text);
  std::string model;
  if (const auto st = sentencepiece::SentencePieceTrainer::Train(args, &lines, &model); !st.ok())
    throw TokenizerError("training a BPE model with vocabulary " + std::to_string(vocab) + " failed: " + st.ToString());
  return model;
}

const std::string& Tokenizer::name() const { return impl_->name; }
int Tokenizer::vocab() const { return impl_->vocab; }
const std::string& Tokenizer::hash() const { return impl_->hash; }
const std::vector<uint8_t>& Tokenizer::token_bytes() const { return impl_->token_bytes; }

std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
  if (impl_->model.empty()) {
    const auto* b = reinterpret_cast<const unsigned char*>(text.data());
    return std::vector<int32_t>(b, b + text.size());
  }
  // Chunks of ~64 KiB ending after a newline (or at the end).
  std::vector<std::string_view> chunks;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.size(), pos + (size_t(1) << 16));
    if (end < text.size()) {
      const size_t nl = text.find('\n', end);
      end = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    chunks.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  std::vector<std::vector<int>> ids(chunks.size());
  std::vector<std::string> errors(chunks.size());
#pragma omp parallel for schedule(dynamic)
  for (int64_t i = 0; i < int64_t(chunks.size()); ++i)
    if (const auto st = impl_->sp.Encode(chunks[size_t(i)], &ids[size_t(i)]); !st.ok()) errors[size_t(i)] = st.ToString();
  std::vector<int32_t> out;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!errors[i].empty()) throw TokenizerError(impl_->name + ": encoding failed: " + errors[i]);
    out.insert(out.end(), ids[i].begin(), ids[i].end());
  }
  return out;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  if (impl_->model.empty()) {
    std::string out;
    for (int32_t t : ids) {
      if (t < 0 || t > 255) throw TokenizerError("bytes: token id " + std::to_string(t) + " outside [0, 256)");
      out.push_back(char(t));
    }
    return out;
  }
  for (int32_t t : ids)
    if (t < 0 || t >= impl_->vocab)
      throw TokenizerError(impl_->name + ": token id " + std::to_string(t) + " outside [0, " + std::to_string(impl_->vocab) + ")");
  std::string out;
  if (const auto st = impl_->sp.Decode(std::vector<int>(ids.begin(), ids.end()), &out); !st.ok())
    throw TokenizerError(impl_->name + ": decoding failed: " + st.ToString());
  return out;
}

}  // namespace fp4lab
