// The atomic file writer (atomic_file.hpp): temporary file + rename(2).
#include "core/io/atomic_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fp4lab::io {
namespace fs = std::filesystem;

std::string temporary_path(const std::string& path) {
  const fs::path p(path);
  std::string name = ".";
  name += p.filename().string();
  name += ".tmp." + std::to_string(::getpid());
  return (p.parent_path() / name).string();
}

void write_atomically(const std::string& path, const std::function<void(const std::string& tmp)>& write) {
  const std::string tmp = temporary_path(path);
  try {
    write(tmp);
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + ec.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

void write_file_atomically(const std::string& path, std::string_view content) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  });
}

}  // namespace fp4lab::io
