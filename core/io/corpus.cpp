// Text corpora on disk (see corpus.hpp).
#include "core/io/corpus.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

namespace fp4lab {
namespace fs = std::filesystem;

const std::vector<NamedCorpus>& named_corpora() {
  static const std::vector<NamedCorpus> table = {
      {"fortunes", "/usr/share/games/fortunes", "fortunes"},
  };
  return table;
}

namespace {

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CorpusError("cannot read " + path);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw CorpusError("cannot read " + path);
  return bytes;
}

Corpus discover(const std::string& source) {
  Corpus c;
  c.source = source;
  c.root = source;
  const NamedCorpus* named = nullptr;
  for (const auto& n : named_corpora())
    if (n.name == source) named = &n;
  if (named) c.root = named->path;
  std::error_code ec;
  const auto st = fs::status(c.root, ec);
  if (ec || !fs::exists(st)) {
    if (named) throw CorpusError("corpus '" + source + "' is not installed (" + named->path + " missing; apt-get install " + named->package + ")");
    std::string names;
    for (const auto& n : named_corpora()) names += (names.empty() ? "" : ", ") + n.name;
    throw CorpusError("no such file or directory: " + source + " (named corpora: " + names + ", or a path)");
  }
  if (fs::is_regular_file(st)) {
    c.files.push_back({c.root, static_cast<int64_t>(fs::file_size(c.root))});
  } else if (fs::is_directory(st)) {
    std::vector<fs::path> entries;
    for (const auto& e : fs::recursive_directory_iterator(c.root, ec)) entries.push_back(e.path());
    if (ec) throw CorpusError("cannot list " + c.root + ": " + ec.message());
    std::sort(entries.begin(), entries.end());
    for (const auto& p : entries) {
      const auto ls = fs::symlink_status(p);
      if (fs::is_directory(ls)) continue;
      if (fs::is_symlink(ls)) {
        c.skipped.push_back(p.string() + " (symlink)");
        continue;
      }
      if (!fs::is_regular_file(ls)) {
        c.skipped.push_back(p.string() + " (not a regular file)");
        continue;
      }
      const auto bytes = read_file(p.string());
      if (std::find(bytes.begin(), bytes.end(), 0) != bytes.end()) {
        c.skipped.push_back(p.string() + " (binary)");
        continue;
      }
      c.files.push_back({p.string(), static_cast<int64_t>(bytes.size())});
    }
    if (c.files.empty()) throw CorpusError("no text files in " + c.root);
  } else {
    throw CorpusError("not a file or directory: " + c.root);
  }
  for (const auto& f : c.files) c.bytes += f.bytes;
  return c;
}

}  // namespace

const Corpus& find_corpus(const std::string& source) {
  static std::mutex mu;
  static std::map<std::string, Corpus> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(source); it != cache.end()) return it->second;
  return cache.emplace(source, discover(source)).first->second;
}

std::vector<unsigned char> read_corpus(const Corpus& corpus) {
  std::vector<unsigned char> all;
  all.reserve(static_cast<size_t>(corpus.bytes));
  for (const auto& f : corpus.files) {
    const auto bytes = read_file(f.path);
    if (static_cast<int64_t>(bytes.size()) != f.bytes)
      throw CorpusError(f.path + " changed size since it was listed (" + std::to_string(f.bytes) + " -> " +
                        std::to_string(bytes.size()) + " bytes)");
    all.insert(all.end(), bytes.begin(), bytes.end());
  }
  return all;
}

}  // namespace fp4lab
