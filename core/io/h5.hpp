// Thin HDF5 wrapper: the only door to the HDF5 C++ API (core/io/h5.cpp is the one file that
// includes H5Cpp.h). Whole datasets, extendible 1-D series, attributes and dimension scales, all
// row-major.
// Not a general HDF5 binding: only the types and shapes fp4lab's files use.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fp4lab::h5 {

// The HDF5 object formats a new file may use. `earliest`: the library's earliest version bounds,
// readable by every HDF5 1.8+ (run files, which readers open while a trainer writes them).
// `v110`: HDF5 1.10's formats (groups stored in their object header, a single-chunk dataset
// without a chunk index): much smaller files of many little groups and datasets; readable by HDF5
// 1.10 and later (h5py's wheels included).
enum class Format { earliest, v110 };

// Supported element types: float, double, int64_t, int32_t, uint8_t.
class File {
 public:
  static File create(const std::string& path, Format format = Format::earliest);  // create or truncate, read-write
  static File open_rw(const std::string& path);  // existing file, read-write
  static File open_ro(const std::string& path);  // read-only; works while a writer has it open
  File(File&&) noexcept;
  File& operator=(File&&) noexcept;
  ~File();

  bool has(const std::string& path) const;  // group or dataset exists ("a/b/c")
  void create_group(const std::string& path);  // creates parents as needed

  // Whole datasets (written once; parents created as needed; overwrites an existing one).
  // `deflate` 1..9 compresses (byte shuffle, then zlib at that level; chunks of at most 1 MiB);
  // 0 stores the data contiguously, uncompressed. Empty and scalar datasets are never compressed.
  template <class T>
  void write(const std::string& path, const T* data, const std::vector<uint64_t>& shape, int deflate = 0);
  template <class T>
  void write(const std::string& path, const std::vector<T>& data, const std::vector<uint64_t>& shape,
             int deflate = 0) {
    write(path, data.data(), shape, deflate);
  }
  template <class T>
  std::vector<T> read(const std::string& path, std::vector<uint64_t>* shape = nullptr) const;
  std::vector<uint64_t> shape(const std::string& path) const;
  // A dataset's stored element type: "float32", "float64", "int8".."int64", "uint8".."uint64",
  // "string" or "other" (read() converts numeric types silently; callers that need float32 check).
  std::string element_type(const std::string& path) const;

  // Extendible, chunked series along the first axis. `row` is the product of the trailing
  // dimensions (1 for a 1-D series); created on first append.
  template <class T>
  void append(const std::string& path, const T* data, uint64_t n_rows, uint64_t row = 1);
  void truncate(const std::string& path, uint64_t n_rows);  // keep the first n_rows
  uint64_t length(const std::string& path) const;           // rows (first-axis extent)

  // Attributes on an object ("/" for the root).
  void set_attr(const std::string& obj, const std::string& name, const std::string& value);
  void set_attr(const std::string& obj, const std::string& name, double value);
  void set_attr(const std::string& obj, const std::string& name, int64_t value);
  bool has_attr(const std::string& obj, const std::string& name) const;
  std::string attr_string(const std::string& obj, const std::string& name) const;
  double attr_double(const std::string& obj, const std::string& name) const;
  int64_t attr_int(const std::string& obj, const std::string& name) const;

  // Dimension scales in the netCDF-4 convention, which netCDF-4, h5netcdf and xarray read as named
  // dimensions (HDF5 high-level H5DS API). A dimension is named after its scale dataset's basename
  // and belongs to the scale's group. All three are idempotent (a second call changes nothing).
  // make_dimension_scale: the 1-D dataset at `path` becomes the scale of the dimension named after
  // it, i.e. a netCDF coordinate variable (its values index the dimension).
  void make_dimension_scale(const std::string& path);
  // make_dimension: a netCDF "dimension but not a variable" of length `size`: an unwritten (no
  // storage) float32 dataset [size] whose scale NAME is netCDF's "This is a netCDF dimension but
  // not a netCDF variable." followed by the length; readers show the dimension, not a variable.
  void make_dimension(const std::string& path, uint64_t size);
  // attach_scale: the scale dataset `scale` labels axis `axis` of the dataset at `path`.
  void attach_scale(const std::string& path, const std::string& scale, unsigned axis);
  bool is_dimension_scale(const std::string& path) const;
  // Per axis of the dataset at `path`, the absolute path of the scale attached to it
  // ("/steps/step"), or "" where none is.
  std::vector<std::string> dimension_scales(const std::string& path) const;

  void flush();  // push everything written so far to disk

 private:
  struct Impl;
  explicit File(std::unique_ptr<Impl>);
  std::unique_ptr<Impl> impl_;
};

// Creates `path` as a temporary file (io::temporary_path), lets `fill` write it, then renames it to
// `path` (io::write_atomically); on any error the temporary file is removed and the error rethrown,
// so a failed writer leaves no output file.
void write_file_atomically(const std::string& path, const std::function<void(File&)>& fill,
                           Format format = Format::earliest);

}  // namespace fp4lab::h5
