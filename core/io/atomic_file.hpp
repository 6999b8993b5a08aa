// Writing a file atomically: the content goes to a temporary file in the same directory
// (DIR/.NAME.tmp.PID, hidden and unique to the process), which is renamed over the final path
// when complete, so a reader never sees a half-written file and a failed writer leaves nothing
// behind. The one primitive for text files (reports, manifests, grid files) and, through
// h5::write_file_atomically, HDF5 files.
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace fp4lab::io {

// The temporary path write_atomically goes through for `path`: DIR/.NAME.tmp.PID.
std::string temporary_path(const std::string& path);

// Lets `write` create the file at the temporary path it is given, then renames that file to
// `path`. On any error (from `write` or the rename) the temporary file is removed and the error
// rethrown (std::runtime_error for a failed rename).
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp)>& write);

// Writes `content` to `path` atomically (bytes as given, no newline translation).
// Throws std::runtime_error.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace fp4lab::io
