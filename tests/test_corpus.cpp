// Text corpora: directory discovery (sorted text files; binary files and symlinks skipped), the
// named `fortunes` corpus, the recorded stream hash, and corpus errors at config-build (= plan) time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/config.hpp"
#include "core/io/corpus.hpp"
#include "core/io/fnv.hpp"
#include "core/train/data.hpp"

namespace fp4lab {
namespace {

namespace fs = std::filesystem;

class CorpusDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fp4lab_corpus_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& bytes) { std::ofstream(dir_ / name, std::ios::binary) << bytes; }
  fs::path dir_;
};

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST_F(CorpusDir, ReadsSortedTextFilesAndSkipsBinaryFilesAndSymlinks) {
  write("b.txt", "bbbb\n");
  write("a.txt", "aa\n");
  write("sub/c.txt", "c\n");
  write("a.dat", std::string("\0\0\0\2index", 9));  // strfile-like binary index
  fs::create_symlink(dir_ / "a.txt", dir_ / "a.u8");  // a link that duplicates a file
  const Corpus& c = find_corpus(dir_.string());
  ASSERT_EQ(c.files.size(), 3u);
  EXPECT_EQ(c.files[0].path, (dir_ / "a.txt").string());
  EXPECT_EQ(c.files[1].path, (dir_ / "b.txt").string());
  EXPECT_EQ(c.files[2].path, (dir_ / "sub" / "c.txt").string());
  EXPECT_EQ(c.bytes, 3 + 5 + 2);
  ASSERT_EQ(c.skipped.size(), 2u);
  EXPECT_EQ(c.skipped[0], (dir_ / "a.dat").string() + " (binary)");
  EXPECT_EQ(c.skipped[1], (dir_ / "a.u8").string() + " (symlink)");
  const auto bytes = read_corpus(c);
  EXPECT_EQ(bytes, "aa\nbbbb\nc\n");
}

TEST_F(CorpusDir, LoadDataRecordsFilesBytesAndTheStreamHash) {
  const std::string a = repeat("the quick brown fox\n", 400), b = repeat("jumps over the lazy dog\n", 400);
  write("a.txt", a);
  write("b.txt", b);
  DataConfig dc;
  dc.source = dir_.string();
  const TokenData d = load_data(dc, 32);
  Fnv64 expect;
  expect.add((a + b).data(), a.size() + b.size());  // one byte per token: FNV-1a of the files concatenated
  EXPECT_EQ(d.hash, expect.hex());
  EXPECT_EQ(d.tokens, int64_t(a.size() + b.size()));
  ASSERT_EQ(d.files.size(), 2u);
  EXPECT_EQ(d.files[0], (dir_ / "a.txt").string() + "\t" + std::to_string(a.size()));
  EXPECT_EQ(d.train.size() + d.val.size(), a.size() + b.size());
  EXPECT_EQ(d.train[0], 't');
}

TEST_F(CorpusDir, MissingOrShortCorporaAreConfigErrorsNamingDataSource) {
  write("short.txt", "too short\n");
  // The config error of data.source = `path` ("" when the config builds), with its key checked.
  auto error_of = [](const fs::path& path) {
    ConfigBuilder b;
    b.add_override("data.source=" + path.string(), "test");
    try {
      b.build();
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.key, "data.source");
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of(dir_ / "short.txt").find("too short for this run"), std::string::npos);
  EXPECT_NE(error_of(dir_ / "nothing_here").find("no such file or directory"), std::string::npos);
  write("sub/only.bin", std::string("\0\1\2", 3));
  EXPECT_NE(error_of(dir_ / "sub").find("no text files"), std::string::npos);
}

// scripts/setup.sh installs Debian's fortunes: 2.5 MB of text in 40-odd files next to their
// binary `.dat` indexes and `.u8` symlinks.
TEST(NamedCorpus, FortunesSkipsIndexesAndLinks) {
  const Corpus& c = find_corpus("fortunes");
  EXPECT_EQ(c.root, "/usr/share/games/fortunes");
  EXPECT_GT(c.bytes, 1000000);
  EXPECT_GT(c.files.size(), 10u);
  for (const auto& f : c.files) {
    EXPECT_NE(fs::path(f.path).extension(), ".dat") << f.path;
    EXPECT_NE(fs::path(f.path).extension(), ".u8") << f.path;
  }
  ConfigBuilder b;
  b.add_override("data.source=fortunes", "test");
  EXPECT_NO_THROW(b.build());
}

}  // namespace
}  // namespace fp4lab
