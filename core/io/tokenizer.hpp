// Text to token ids: `bytes` (one token per byte, vocabulary 256) or a SentencePiece model, either
// a BPE model trained here on a corpus's training text or a `.model` file the user names. The one
// file that includes SentencePiece. Caching trained models and token streams is core/train/data's.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fp4lab {

struct TokenizerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What `data.tokenizer` says: "bytes", "bpe:<vocab>" or a path to a SentencePiece model file.
struct TokenizerSpec {
  enum class Kind { bytes, bpe, file } kind = Kind::bytes;
  int vocab = 256;   // bytes: 256; bpe: the vocabulary asked for; file: 0 until loaded
  std::string path;  // file only
};
// Throws TokenizerError with the accepted forms on anything else ("bpe:" with a vocabulary
// outside [kMinBpeVocab, kMaxBpeVocab], an empty string).
TokenizerSpec parse_tokenizer(const std::string& text);
// A BPE vocabulary holds the 256 byte pieces (byte fallback), <unk> and the merges.
constexpr int kMinBpeVocab = 320, kMaxBpeVocab = 1 << 20;

class Tokenizer {
 public:
  static Tokenizer bytes();
  // A SentencePiece model from a file or from its serialized bytes; `name` is what run files
  // record ("bpe:4096", or the path). Throws TokenizerError naming the file on anything that is
  // not a model.
  static Tokenizer from_file(const std::string& path);
  static Tokenizer from_serialized(const std::string& model, const std::string& name);

  // Trains a BPE model with `vocab` pieces on the lines of `text` and returns it serialized:
  // identity normalization (decode(encode(x)) == x), byte fallback (no <unk> for any input),
  // digits split, no BOS/EOS. Deterministic: the same text and vocabulary give the same model.
  static std::string train_bpe(std::string_view text, int vocab);

  const std::string& name() const;
  int vocab() const;
  // 16 hex digits of FNV-1a over the serialized model ("" for bytes).
  const std::string& hash() const;
  // Token ids of `text`; long texts are encoded in chunks split after newlines (no piece holds
  // one), in parallel, with the same result as one call.
  std::vector<int32_t> encode(std::string_view text) const;
  std::string decode(const std::vector<int32_t>& ids) const;
  // UTF-8 bytes each id stands for when decoded (a byte piece: 1; <unk>: 0).
  const std::vector<uint8_t>& token_bytes() const;

 private:
  struct Impl;
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// The SentencePiece library's version this build links ("0.1.97").
std::string sentencepiece_version();

}  // namespace fp4lab
