// Text corpora on disk: what `data.source` names. A source is a corpus name from a fixed table
// (`fortunes`: Debian's fortunes package) or a path to a file or a directory. A directory
// contributes only its regular, non-symlink text files, in sorted path order: binary files
// (any NUL byte, e.g. fortunes' strfile `*.dat` indexes) and symlinks (fortunes' `*.u8` links
// to the files themselves) are skipped, so each text is read once. No tokenisation here.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fp4lab {

struct NamedCorpus {
  std::string name;     // data.source value, e.g. "fortunes"
  std::string path;     // where the Debian package installs it
  std::string package;  // the Debian package to install
};
const std::vector<NamedCorpus>& named_corpora();

struct CorpusFile {
  std::string path;  // as found (absolute for named corpora)
  int64_t bytes = 0;
};

struct Corpus {
  std::string source;  // data.source as given
  std::string root;    // the file or directory read
  std::vector<CorpusFile> files;  // in read order
  std::vector<std::string> skipped;  // directory entries left out, with the reason: "x.dat (binary)"
  int64_t bytes = 0;   // sum of files' bytes
};

// Unreadable or missing sources, and a directory without text files, throw CorpusError with a
// message for the user (naming the package to install for a named corpus). Results are cached
// per source for the process, so checking every cell of a grid reads a corpus once.
struct CorpusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
const Corpus& find_corpus(const std::string& source);

// The corpus's bytes, files concatenated in order.
std::vector<unsigned char> read_corpus(const Corpus& corpus);

}  // namespace fp4lab
