// Tokenizers and what rides on them: data.tokenizer's forms, BPE round trips and determinism
// (across runs and thread counts), the cached model and token stream, bad model files as config
// errors at build (= plan) time, document corpora held out by document, bytes per token, and the
// budget keys that follow the model (train.tokens_per_param, train.val_count).
#include <gtest/gtest.h>
#include <omp.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/config.hpp"
#include "core/io/corpus.hpp"
#include "core/io/tokenizer.hpp"
#include "core/train/data.hpp"
#include "tests/scratch_dir.hpp"

namespace fp4lab {
namespace {

namespace fs = std::filesystem;

// About 300 KB of the fortunes corpus: enough English for a 512-piece BPE in well under a second.
const std::string& sample_text() {
  static const std::string text = [] {
    const auto bytes = read_corpus(find_corpus("fortunes"));
    return std::string(bytes.begin(), bytes.begin() + std::min<size_t>(bytes.size(), 300000));
  }();
  return text;
}

const std::string& sample_model() {
  static const std::string model = Tokenizer::train_bpe(sample_text(), 512);
  return model;
}

void write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

TEST(TokenizerSpec, ParsesTheThreeFormsAndRejectsTheRest) {
  EXPECT_EQ(parse_tokenizer("bytes").kind, TokenizerSpec::Kind::bytes);
  const TokenizerSpec bpe = parse_tokenizer("bpe:4096");
  EXPECT_EQ(bpe.kind, TokenizerSpec::Kind::bpe);
  EXPECT_EQ(bpe.vocab, 4096);
  const TokenizerSpec file = parse_tokenizer("models/x.model");
  EXPECT_EQ(file.kind, TokenizerSpec::Kind::file);
  EXPECT_EQ(file.path, "models/x.model");
  for (const char* bad : {"bpe:", "bpe:100", "bpe:4k", "bpe:-5", ""}) EXPECT_THROW(parse_tokenizer(bad), TokenizerError) << bad;
}

TEST(Tokenizer, BytesAreOneTokenPerByte) {
  const Tokenizer t = Tokenizer::bytes();
  const std::string s = "h\xc3\xa9llo\n";
  const auto ids = t.encode(s);
  ASSERT_EQ(ids.size(), s.size());
  EXPECT_EQ(ids[1], 0xc3);
  EXPECT_EQ(t.decode(ids), s);
  EXPECT_EQ(t.vocab(), 256);
  EXPECT_TRUE(t.hash().empty());
}

TEST(Tokenizer, BpeRoundTripsAnyTextAndCountsItsBytes) {
  const Tokenizer t = Tokenizer::from_serialized(sample_model(), "bpe:512");
  EXPECT_EQ(t.vocab(), 512);
  const std::string unseen = "Tabs\tand  double  spaces,\n\nnew lines, digits 31415, \xc3\xa9t\xc3\xa9 \xe2\x82\xac 5 \xf0\x9f\x99\x82 and \x01 control.\n";
  for (const std::string& s : {sample_text(), unseen}) {
    const auto ids = t.encode(s);
    EXPECT_LT(ids.size(), s.size());
    EXPECT_EQ(t.decode(ids), s);
    int64_t bytes = 0;
    for (int32_t id : ids) bytes += t.token_bytes()[size_t(id)];
    EXPECT_EQ(bytes, int64_t(s.size()));
  }
  EXPECT_THROW(t.decode({512}), TokenizerError);
}

TEST(Tokenizer, TrainingAndEncodingAreDeterministicAcrossRunsAndThreadCounts) {
  EXPECT_EQ(Tokenizer::train_bpe(sample_text(), 512), sample_model());
  const Tokenizer t = Tokenizer::from_serialized(sample_model(), "bpe:512");
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = t.encode(sample_text());
  omp_set_num_threads(2);
  const auto two = t.encode(sample_text());
  omp_set_num_threads(threads);
  EXPECT_EQ(one, two);
}

class TokenizerFiles : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    const char* old = std::getenv("FP4LAB_CACHE");
    old_cache_ = old ? old : "";
    had_cache_ = old != nullptr;
    ::setenv("FP4LAB_CACHE", path("cache").c_str(), 1);
  }
  void TearDown() override {
    if (had_cache_)
      ::setenv("FP4LAB_CACHE", old_cache_.c_str(), 1);
    else
      ::unsetenv("FP4LAB_CACHE");
    ScratchDirTest::TearDown();
  }
  Config build(const std::vector<std::string>& sets) {
    ConfigBuilder b;
    for (const auto& s : sets) b.add_override(s, "test");
    return b.build();
  }
  std::string old_cache_;
  bool had_cache_ = false;
};

TEST_F(TokenizerFiles, BadOrMissingModelFilesAreConfigErrorsAtBuildTime) {
  write(path("corrupt.model"), "this is not a protobuf at all");
  write(path("empty.model"), "");
  for (const std::string& f : {path("corrupt.model"), path("empty.model"), path("missing.model")}) {
    try {
      build({"data.source=fortunes", "data.tokenizer=" + f});
      FAIL() << f << " built";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.key, "data.tokenizer") << e.what();
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(build({"data.source=fortunes", "data.tokenizer=bpe:12"}), ConfigError);
  try {
    build({"data.tokenizer=bpe:512"});  // synthetic data has no text
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key, "data.tokenizer");
  }
}

TEST_F(TokenizerFiles, ModelVocabFollowsTheTokenizerUnlessSetOtherwise) {
  write(path("m.model"), sample_model());
  EXPECT_EQ(build({"data.source=fortunes", "data.tokenizer=bpe:2048"}).model.vocab, 2048);
  EXPECT_EQ(build({"data.source=fortunes", "data.tokenizer=" + path("m.model")}).model.vocab, 512);
  try {
    build({"data.source=fortunes", "data.tokenizer=bpe:2048", "model.vocab=256"});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key, "model.vocab");
  }
}

TEST_F(TokenizerFiles, LoadDataTrainsOnceThenReadsTheCache) {
  fs::create_directories(path("corpus"));
  write(path("corpus/a.txt"), sample_text());
  DataConfig dc;
  dc.source = path("corpus");
  dc.tokenizer = "bpe:512";
  const TokenData first = load_data(dc, 64);
  EXPECT_EQ(first.tokenizer, "bpe:512");
  EXPECT_EQ(first.tokenizer_vocab, 512);
  EXPECT_EQ(first.tokenizer_library.rfind("sentencepiece ", 0), 0u);
  EXPECT_EQ(first.tokenizer_hash.size(), 16u);
  EXPECT_EQ(first.train_text_bytes + first.val_text_bytes, int64_t(sample_text().size()));
  int models = 0, streams = 0;
  for (const auto& e : fs::recursive_directory_iterator(path("cache"))) {
    models += e.path().extension() == ".model";
    streams += e.path().extension() == ".i32";
  }
  EXPECT_EQ(models, 1);
  EXPECT_EQ(streams, 1);
  const TokenData again = load_data(dc, 64);  // from the cache
  EXPECT_EQ(again.train, first.train);
  EXPECT_EQ(again.val, first.val);
  EXPECT_EQ(again.hash, first.hash);
  EXPECT_EQ(again.tokenizer_hash, first.tokenizer_hash);
  const double bpt = val_bytes_per_token(first, 4, 64);
  EXPECT_GT(bpt, 1.5);  // English BPE with 512 pieces (half of them bytes): about 2 bytes per token
  dc.tokenizer = "bytes";
  EXPECT_EQ(val_bytes_per_token(load_data(dc, 64), 4, 64), 1.0);
}

// A document corpus as scripts/build_corpus.py writes it: corpus.txt cut by documents.tsv.
TEST_F(TokenizerFiles, DocumentCorporaHoldOutWholeDocuments) {
  fs::create_directories(path("docs"));
  std::string text, index = "offset\tbytes\tpackage\tdocument\n";
  for (int i = 0; i < 40; ++i) {
    std::string doc;
    for (int k = 0; k < 20 + i; ++k) doc += "Document " + std::to_string(i) + " says line " + std::to_string(k) + ".\n";
    index += std::to_string(text.size()) + "\t" + std::to_string(doc.size()) + "\tpkg\tdoc" + std::to_string(i) + ".html\n";
    text += doc;
  }
  write(path("docs/corpus.txt"), text);
  write(path("docs/documents.tsv"), index);
  write(path("docs/sources.tsv"), "package\tversion\tlicence\tdocuments\tbytes\tduplicates_removed\npkg\t1.0\tGPL-2+\t40\t" +
                                      std::to_string(text.size()) + "\t0\n");
  DataConfig dc;
  dc.source = path("docs");
  dc.val_fraction = 0.1;
  const TokenData d = load_data(dc, 32);
  EXPECT_EQ(d.split, "documents");
  EXPECT_EQ(d.documents, 40);
  EXPECT_GE(d.val_documents, 1);
  EXPECT_LT(d.val_documents, 40);
  EXPECT_NE(d.sources.find("GPL-2+"), std::string::npos);
  EXPECT_EQ(d.train_text_bytes + d.val_text_bytes, int64_t(text.size()));
  EXPECT_GE(d.val_text_bytes, int64_t(0.1 * double(text.size())) - 1);
  // Every held-out line belongs to a held-out document: no document is split.
  const std::string val(d.val.begin(), d.val.end()), train(d.train.begin(), d.train.end());
  for (int i = 0; i < 40; ++i) {
    const std::string head = "Document " + std::to_string(i) + " says line 0.\n";
    EXPECT_NE(val.find(head) == std::string::npos, train.find(head) == std::string::npos) << i;
  }
  // An index that does not tile corpus.txt is an error naming the file.
  fs::create_directories(path("docs2"));
  write(path("docs2/corpus.txt"), text);
  write(path("docs2/documents.tsv"), "offset\tbytes\tpackage\tdocument\n0\t10\tpkg\ta\n20\t5\tpkg\tb\n");
  try {
    build({"data.source=" + path("docs2")});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key, "data.source");
    EXPECT_NE(std::string(e.what()).find("documents.tsv:3"), std::string::npos) << e.what();
  }
}

TEST_F(TokenizerFiles, BudgetsFollowTheModelAndSchedulesFollowTheBudget) {
  const Config c = build({"model=micro", "train.batch_size=8", "model.seq_len=128", "train.tokens_per_param=32",
                          "train.val_count=8", "train.telemetry_count=10"});
  const int64_t per_step = 8 * 128, n = non_embedding_params(c.model);
  EXPECT_EQ(c.train.tokens % per_step, 0);
  EXPECT_LE(std::abs(double(c.train.tokens) - 32.0 * double(n)), per_step / 2.0);
  const int64_t steps = c.train.tokens / per_step;
  EXPECT_EQ(c.train.val_interval_tokens, steps / 8 * per_step);
  EXPECT_EQ(c.train.telemetry_interval, steps / 10);
  // A later train.tokens (e.g. a grid's budget multiple) replaces the ratio.
  const Config later = build({"model=micro", "train.tokens_per_param=32", "train.tokens=65536"});
  EXPECT_EQ(later.train.tokens, 65536);
  EXPECT_EQ(later.train.tokens_per_param, 0);
  EXPECT_THROW(build({"train.tokens_per_param=-1"}), ConfigError);
}

}  // namespace
}  // namespace fp4lab
