// Text corpora on disk: what `data.source` names. A source is a corpus name from a fixed table
// (`fortunes`: Debian's fortunes package) or a path to a file or a directory. A directory
// contributes only its regular, non-symlink text files, in sorted path order: binary files
// (any NUL byte, e.g. fortunes' strfile `*.dat` indexes) and symlinks (fortunes' `*.u8` links
// to the files themselves) are skipped, so each text is read once. A directory holding
// `corpus.txt` and `documents.tsv` (what scripts/build_corpus.py writes) is a document corpus:
// corpus.txt is read, cut into the documents the index lists, and `sources.tsv` (each source
// package, its version and licence) travels with it. No tokenisation here.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fp4lab {

struct NamedCorpus {
  std::string name;     // data.source value, e.g. "fortunes"
  std::string path;     // where it is installed
  std::string install;  // how to install it: "apt-get install fortunes"
};
// fortunes: Debian's fortunes package. prose: the English prose corpus scripts/setup.sh --corpus
// builds from Debian's documentation packages, in data_dir()/corpora/prose.
const std::vector<NamedCorpus>& named_corpora();

struct CorpusFile {
  std::string path;  // as found (absolute for named corpora)
  int64_t bytes = 0;
};

// A per-user folder: $OWN, else $XDG/fp4lab, else ~/HOME_DEFAULT/fp4lab.
std::string user_dir(const char* own, const char* xdg, const char* home_default);
// Where built corpora live: $FP4LAB_DATA, else $XDG_DATA_HOME/fp4lab, else ~/.local/share/fp4lab.
std::string data_dir();

struct CorpusDocument {
  int64_t offset = 0, bytes = 0;  // into the corpus's bytes
  std::string name;               // "package\tpath inside the package"
};

struct Corpus {
  std::string source;  // data.source as given
  std::string root;    // the file or directory read
  std::vector<CorpusFile> files;  // in read order
  std::vector<std::string> skipped;  // directory entries left out, with the reason: "x.dat (binary)"
  int64_t bytes = 0;   // sum of files' bytes
  std::vector<CorpusDocument> documents;  // a document corpus's index (tiles the bytes), else empty
  std::string sources;  // a document corpus's sources.tsv (package, version, licence, ...), else ""
};

// Unreadable or missing sources, and a directory without text files, throw CorpusError with a
// message for the user (naming the package to install for a named corpus). Results are cached
// per source for the process, so checking every cell of a grid reads a corpus once.
struct CorpusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
const Corpus& find_corpus(const std::string& source);

// The corpus's bytes, files concatenated in order.
std::string read_corpus(const Corpus& corpus);

}  // namespace fp4lab
