// Text corpora on disk (see corpus.hpp).
#include "core/io/corpus.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace fp4lab {
namespace fs = std::filesystem;

std::string user_dir(const char* own, const char* xdg, const char* home_default) {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
  };
  if (const std::string d = env(own); !d.empty()) return d;
  if (const std::string d = env(xdg); !d.empty()) return d + "/fp4lab";
  return env("HOME") + "/" + home_default + "/fp4lab";
}

std::string data_dir() { return user_dir("FP4LAB_DATA", "XDG_DATA_HOME", ".local/share"); }

const std::vector<NamedCorpus>& named_corpora() {
  static const std::vector<NamedCorpus> table = {
      {"fortunes", "/usr/share/games/fortunes", "apt-get install fortunes"},
      {"prose", data_dir() + "/corpora/prose", "scripts/setup.sh --corpus"},
  };
  return table;
}

namespace {

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw CorpusError("cannot read " + path);
  std::vector<unsigned char> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())) || in.peek() != EOF)
    throw CorpusError("cannot read " + path + " (or it changed while read)");
  return bytes;
}

// DIR/corpus.txt cut by DIR/documents.tsv (header, then offset, bytes, package, path per row,
// tiling the file in order); DIR/sources.tsv optional.
void read_document_corpus(Corpus& c) {
  const fs::path dir(c.root);
  const std::string text_path = (dir / "corpus.txt").string(), index_path = (dir / "documents.tsv").string();
  std::error_code ec;
  const auto size = fs::file_size(text_path, ec);
  if (ec) throw CorpusError(c.root + " has documents.tsv but no readable corpus.txt (rebuild it: scripts/setup.sh --corpus)");
  c.files.push_back({text_path, static_cast<int64_t>(size)});
  const auto index = read_file(index_path);
  std::istringstream in(std::string(index.begin(), index.end()));
  std::string line;
  int64_t expect = 0;
  for (int row = 0; std::getline(in, line); ++row) {
    if (row == 0) continue;  // header
    std::istringstream fields(line);
    CorpusDocument d;
    std::string package, path;
    if (!(fields >> d.offset >> d.bytes) || !fields.ignore(1) || !std::getline(fields, package, '\t') ||
        !std::getline(fields, path) || d.offset != expect || d.bytes <= 0)
      throw CorpusError(index_path + ":" + std::to_string(row + 1) + ": not an offset/bytes/package/document row that continues the previous one (rebuild the corpus)");
    d.name = package + "\t" + path;
    expect = d.offset + d.bytes;
    c.documents.push_back(std::move(d));
  }
  if (c.documents.empty()) throw CorpusError(index_path + " lists no documents");
  if (expect != static_cast<int64_t>(size))
    throw CorpusError(index_path + " covers " + std::to_string(expect) + " bytes but corpus.txt has " + std::to_string(size) +
                      " (rebuild the corpus)");
  if (fs::exists(dir / "sources.tsv")) {
    const auto sources = read_file((dir / "sources.tsv").string());
    c.sources.assign(sources.begin(), sources.end());
  }
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
    if (named) throw CorpusError("corpus '" + source + "' is not installed (" + named->path + " missing; " + named->install + ")");
    std::string names;
    for (const auto& n : named_corpora()) names += (names.empty() ? "" : ", ") + n.name;
    throw CorpusError("no such file or directory: " + source + " (named corpora: " + names + ", or a path)");
  }
  if (fs::is_directory(st) && fs::exists(fs::path(c.root) / "documents.tsv")) {
    read_document_corpus(c);
  } else if (fs::is_regular_file(st)) {
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

std::string read_corpus(const Corpus& corpus) {
  std::string all(static_cast<size_t>(corpus.bytes), '\0');
  size_t at = 0;
  for (const auto& f : corpus.files) {
    std::ifstream in(f.path, std::ios::binary | std::ios::ate);
    if (!in) throw CorpusError("cannot read " + f.path);
    if (static_cast<int64_t>(in.tellg()) != f.bytes)
      throw CorpusError(f.path + " changed size since it was listed (" + std::to_string(f.bytes) + " -> " +
                        std::to_string(static_cast<int64_t>(in.tellg())) + " bytes)");
    in.seekg(0);
    if (!in.read(all.data() + at, std::streamsize(f.bytes))) throw CorpusError("cannot read " + f.path);
    at += size_t(f.bytes);
  }
  return all;
}

}  // namespace fp4lab
