// The one file that includes H5Cpp.h: fp4lab::h5::File over the HDF5 1.10 C++ API (plus a few C
// calls the C++ API lacks: file locking, H5Dset_extent, version bounds, and the high-level
// library's dimension scales, H5DS*). Not a general binding: whole datasets (optionally shuffled +
// deflated), extendible series along axis 0, scalar string/double/int64 attributes, and netCDF-4
// style dimension scales, all row-major.
//
// Concurrency: file locking is switched off on every file access property list with
// H5Pset_file_locking(fapl, false, true) (available since 1.10.7; we build against 1.10.8). So a
// reader (open_ro, or h5py) can open a run file while the trainer still has it open for writing;
// the writer calls flush() after each batch of appends so readers see a consistent prefix. The
// file format stays at the library's earliest version bounds (no SWMR), so files carry no
// "open for writing" superblock flag and h5py opens them with plain h5py.File(path, "r"). Only a
// file created with Format::v110 (written once, never live-read: curves packs) uses 1.10's formats.
// All HDF5 calls in the process go through one mutex: the C++ API is not thread-safe.
#include "core/io/h5.hpp"

#include <H5Cpp.h>
#include <H5DSpublic.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "core/io/atomic_file.hpp"

namespace fp4lab::h5 {
namespace {

// Uncompressed chunks of about this many bytes for series (a 1-D double series: 4096 rows).
constexpr uint64_t kChunkBytes = 32 * 1024;
// Compressed whole datasets: chunks of at most this many bytes (one chunk for most datasets).
constexpr uint64_t kDeflateChunkBytes = 1024 * 1024;

std::recursive_mutex& h5_mutex() {
  static std::recursive_mutex m;
  return m;
}

void silence_hdf5_once() {
  static std::once_flag once;
  std::call_once(once, [] { H5::Exception::dontPrint(); });
}

template <class T>
struct TypeOf;
template <>
struct TypeOf<float> {
  static const H5::PredType& mem() { return H5::PredType::NATIVE_FLOAT; }
  static const H5::PredType& file() { return H5::PredType::IEEE_F32LE; }
};
template <>
struct TypeOf<double> {
  static const H5::PredType& mem() { return H5::PredType::NATIVE_DOUBLE; }
  static const H5::PredType& file() { return H5::PredType::IEEE_F64LE; }
};
template <>
struct TypeOf<int64_t> {
  static const H5::PredType& mem() { return H5::PredType::NATIVE_INT64; }
  static const H5::PredType& file() { return H5::PredType::STD_I64LE; }
};
template <>
struct TypeOf<int32_t> {
  static const H5::PredType& mem() { return H5::PredType::NATIVE_INT32; }
  static const H5::PredType& file() { return H5::PredType::STD_I32LE; }
};
template <>
struct TypeOf<uint8_t> {
  static const H5::PredType& mem() { return H5::PredType::NATIVE_UINT8; }
  static const H5::PredType& file() { return H5::PredType::STD_U8LE; }
};

// "a/b/c", "/a/b/c" and "a/b/c/" all name the same object; "" and "/" name the root.
std::string normalize(const std::string& path) {
  std::string out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) {
      if (!out.empty()) out += '/';
      out += path.substr(i, j - i);
    }
    i = j;
  }
  return out;
}

std::vector<std::string> prefixes(const std::string& norm) {  // "a/b/c" -> a, a/b, a/b/c
  std::vector<std::string> out;
  for (size_t j = norm.find('/'); j != std::string::npos; j = norm.find('/', j + 1))
    out.push_back(norm.substr(0, j));
  if (!norm.empty()) out.push_back(norm);
  return out;
}

std::string parent_of(const std::string& norm) {
  const size_t j = norm.rfind('/');
  return j == std::string::npos ? std::string() : norm.substr(0, j);
}

H5::FileAccPropList make_fapl(Format format = Format::earliest) {
  H5::FileAccPropList fapl;
  // No file locking: readers must be able to open a file a trainer is writing (see top).
  if (H5Pset_file_locking(fapl.getId(), false, true) < 0)
    throw std::runtime_error("h5: H5Pset_file_locking failed");
  if (format == Format::v110 && H5Pset_libver_bounds(fapl.getId(), H5F_LIBVER_V110, H5F_LIBVER_V110) < 0)
    throw std::runtime_error("h5: H5Pset_libver_bounds failed");
  return fapl;
}

uint64_t product(const std::vector<uint64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), uint64_t{1}, std::multiplies<>());
}

}  // namespace

struct File::Impl {
  std::string path;
  bool writable = false;
  // Format::v110 files (written once, kept small and reproducible): no object timestamps, and up
  // to kCompactAttributes attributes in a group's object header instead of a separate heap.
  bool compact = false;
  static constexpr unsigned kCompactAttributes = 64;
  H5::H5File file;
  std::map<std::string, H5::DataSet> open_sets;  // series kept open for cheap appends

  [[noreturn]] void fail(const std::string& what, const std::string& obj, const H5::Exception& e) const {
    std::string msg = "h5: " + what;
    if (!obj.empty()) msg += " '" + obj + "'";
    msg += " in " + path;
    const std::string detail = e.getDetailMsg();
    if (!detail.empty()) msg += ": " + detail;
    throw std::runtime_error(msg);
  }
  [[noreturn]] void fail(const std::string& what, const std::string& obj) const {
    throw std::runtime_error("h5: " + what + " '" + obj + "' in " + path);
  }

  bool exists(const std::string& norm) const {
    if (norm.empty()) return true;
    for (const auto& p : prefixes(norm))
      if (H5Lexists(file.getId(), p.c_str(), H5P_DEFAULT) <= 0) return false;
    return true;
  }

  void make_groups(const std::string& norm) {
    for (const auto& p : prefixes(norm)) {
      if (H5Lexists(file.getId(), p.c_str(), H5P_DEFAULT) > 0) {
        if (file.childObjType(p) != H5O_TYPE_GROUP) fail("not a group", p);
        continue;
      }
      if (!compact) {
        file.createGroup(p).close();
        continue;
      }
      const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
      H5Pset_obj_track_times(gcpl, false);
      H5Pset_attr_phase_change(gcpl, kCompactAttributes, kCompactAttributes - 2);
      const hid_t g = H5Gcreate2(file.getId(), p.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
      H5Pclose(gcpl);
      if (g < 0) fail("cannot create group", p);
      H5Gclose(g);
    }
  }

  H5::DataSet& dataset(const std::string& norm) {
    auto it = open_sets.find(norm);
    if (it != open_sets.end()) return it->second;
    if (!exists(norm)) fail("no such dataset", norm);
    return open_sets.emplace(norm, file.openDataSet(norm)).first->second;
  }

  void unlink(const std::string& norm) {
    open_sets.erase(norm);
    file.unlink(norm);
  }

  // The object carrying attributes: root, a group or a dataset (H5Object's destructor is
  // protected, so hold the concrete object and hand out a reference).
  struct Object {
    H5::Group group;
    H5::DataSet dataset;
    bool is_group = true;
    H5::H5Object& get() { return is_group ? static_cast<H5::H5Object&>(group) : dataset; }
    H5::H5Object* operator->() { return &get(); }
  };
  Object object(const std::string& obj) const {
    const std::string norm = normalize(obj);
    Object o;
    if (norm.empty()) {
      o.group = file.openGroup("/");
      return o;
    }
    if (!exists(norm)) fail("no such object", norm);
    switch (file.childObjType(norm)) {
      case H5O_TYPE_GROUP:
        o.group = file.openGroup(norm);
        return o;
      case H5O_TYPE_DATASET:
        o.dataset = file.openDataSet(norm);
        o.is_group = false;
        return o;
      default:
        fail("unsupported object type", norm);
    }
  }

  H5::Attribute attribute(const std::string& obj, const std::string& name) const {
    auto o = object(obj);
    if (!o->attrExists(name)) fail("no such attribute", normalize(obj) + "@" + name);
    return o->openAttribute(name);
  }

  void replace_attribute(H5::H5Object& o, const std::string& name) {
    if (o.attrExists(name)) o.removeAttr(name);
  }
};

File::File(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
File::File(File&&) noexcept = default;
File& File::operator=(File&& other) noexcept {
  std::lock_guard lock(h5_mutex());
  impl_ = std::move(other.impl_);
  return *this;
}
File::~File() {
  std::lock_guard lock(h5_mutex());
  if (!impl_) return;
  try {
    impl_->open_sets.clear();
    if (impl_->writable) impl_->file.flush(H5F_SCOPE_GLOBAL);
    impl_->file.close();
  } catch (...) {
    // A destructor must not throw; a failed close loses at most the unflushed tail.
  }
  impl_.reset();
}

static H5::H5File open_h5(const std::string& path, unsigned flags, Format format = Format::earliest) {
  silence_hdf5_once();
  try {
    H5::FileCreatPropList fcpl;
    if (format == Format::v110) H5Pset_obj_track_times(fcpl.getId(), false);  // the root group's
    return H5::H5File(path, flags, fcpl, make_fapl(format));
  } catch (const H5::Exception& e) {
    const char* what = flags == H5F_ACC_TRUNC ? "cannot create" : "cannot open";
    throw std::runtime_error(std::string("h5: ") + what + " " + path + ": " + e.getDetailMsg());
  }
}

File File::create(const std::string& path, Format format) {
  std::lock_guard lock(h5_mutex());
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->writable = true;
  impl->file = open_h5(path, H5F_ACC_TRUNC, format);
  impl->compact = format == Format::v110;
  return File(std::move(impl));
}

File File::open_rw(const std::string& path) {
  std::lock_guard lock(h5_mutex());
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->writable = true;
  impl->file = open_h5(path, H5F_ACC_RDWR);
  return File(std::move(impl));
}

File File::open_ro(const std::string& path) {
  std::lock_guard lock(h5_mutex());
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->file = open_h5(path, H5F_ACC_RDONLY);
  return File(std::move(impl));
}

bool File::has(const std::string& path) const {
  std::lock_guard lock(h5_mutex());
  try {
    return impl_->exists(normalize(path));
  } catch (const H5::Exception& e) {
    impl_->fail("cannot look up", path, e);
  }
}

void File::create_group(const std::string& path) {
  std::lock_guard lock(h5_mutex());
  try {
    impl_->make_groups(normalize(path));
  } catch (const H5::Exception& e) {
    impl_->fail("cannot create group", path, e);
  }
}

template <class T>
void File::write(const std::string& path, const T* data, const std::vector<uint64_t>& shape, int deflate) {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  if (norm.empty()) throw std::invalid_argument("h5: write needs a dataset name");
  if (deflate < 0 || deflate > 9) throw std::invalid_argument("h5: deflate level must be 0..9");
  try {
    impl_->make_groups(parent_of(norm));
    if (impl_->exists(norm)) impl_->unlink(norm);
    const std::vector<hsize_t> dims(shape.begin(), shape.end());
    H5::DataSpace space = dims.empty() ? H5::DataSpace(H5S_SCALAR)
                                       : H5::DataSpace(static_cast<int>(dims.size()), dims.data());
    H5::DSetCreatPropList dcpl;
    if (impl_->compact) H5Pset_obj_track_times(dcpl.getId(), false);
    if (deflate > 0 && !dims.empty() && product(shape) > 0) {
      std::vector<hsize_t> chunk = dims;  // whole rows of the trailing axes, as many as fit
      uint64_t row_bytes = sizeof(T);
      for (size_t i = 1; i < shape.size(); ++i) row_bytes *= shape[i];
      chunk[0] = std::clamp<hsize_t>(kDeflateChunkBytes / row_bytes, 1, dims[0]);
      dcpl.setChunk(static_cast<int>(chunk.size()), chunk.data());
      dcpl.setShuffle();
      dcpl.setDeflate(static_cast<unsigned>(deflate));
    }
    H5::DataSet ds = impl_->file.createDataSet(norm, TypeOf<T>::file(), space, dcpl);
    if (product(shape) > 0) ds.write(data, TypeOf<T>::mem());
  } catch (const H5::Exception& e) {
    impl_->fail("cannot write dataset", norm, e);
  }
}

template <class T>
std::vector<T> File::read(const std::string& path, std::vector<uint64_t>* shape) const {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (!impl_->exists(norm)) impl_->fail("no such dataset", norm);
    H5::DataSet ds = impl_->file.openDataSet(norm);
    H5::DataSpace space = ds.getSpace();
    std::vector<hsize_t> dims(static_cast<size_t>(space.getSimpleExtentNdims()));
    if (!dims.empty()) space.getSimpleExtentDims(dims.data());
    std::vector<uint64_t> s(dims.begin(), dims.end());
    std::vector<T> out(product(s));
    if (!out.empty()) ds.read(out.data(), TypeOf<T>::mem());
    if (shape) *shape = std::move(s);
    return out;
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read dataset", norm, e);
  }
}

std::vector<uint64_t> File::shape(const std::string& path) const {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (!impl_->exists(norm)) impl_->fail("no such dataset", norm);
    H5::DataSpace space = impl_->file.openDataSet(norm).getSpace();
    std::vector<hsize_t> dims(static_cast<size_t>(space.getSimpleExtentNdims()));
    if (!dims.empty()) space.getSimpleExtentDims(dims.data());
    return std::vector<uint64_t>(dims.begin(), dims.end());
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read shape of", norm, e);
  }
}

std::string File::element_type(const std::string& path) const {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (!impl_->exists(norm)) impl_->fail("no such dataset", norm);
    const H5::DataSet ds = impl_->file.openDataSet(norm);
    const size_t bits = 8 * ds.getDataType().getSize();
    switch (ds.getTypeClass()) {
      case H5T_FLOAT: return bits == 32 ? "float32" : bits == 64 ? "float64" : "other";
      case H5T_INTEGER:
        return (ds.getIntType().getSign() == H5T_SGN_NONE ? "uint" : "int") + std::to_string(bits);
      case H5T_STRING: return "string";
      default: return "other";
    }
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read the type of", norm, e);
  }
}

template <class T>
void File::append(const std::string& path, const T* data, uint64_t n_rows, uint64_t row) {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  if (row == 0) throw std::invalid_argument("h5: append to '" + norm + "' with row size 0");
  const int rank = row == 1 ? 1 : 2;
  try {
    if (!impl_->exists(norm)) {
      impl_->make_groups(parent_of(norm));
      const hsize_t dims[2] = {0, row};
      const hsize_t max_dims[2] = {H5S_UNLIMITED, row};
      H5::DataSpace space(rank, dims, max_dims);
      const hsize_t chunk_rows = std::max<hsize_t>(1, kChunkBytes / (row * sizeof(T)));
      const hsize_t chunk[2] = {chunk_rows, row};
      H5::DSetCreatPropList dcpl;
      dcpl.setChunk(rank, chunk);
      impl_->open_sets.emplace(norm, impl_->file.createDataSet(norm, TypeOf<T>::file(), space, dcpl));
    }
    H5::DataSet& ds = impl_->dataset(norm);
    H5::DataSpace space = ds.getSpace();
    if (space.getSimpleExtentNdims() != rank) impl_->fail("append with a different row size to", norm);
    hsize_t dims[2] = {0, 1};
    space.getSimpleExtentDims(dims);
    if (rank == 2 && dims[1] != row) impl_->fail("append with a different row size to", norm);
    if (n_rows == 0) return;
    const hsize_t new_dims[2] = {dims[0] + n_rows, row};
    if (H5Dset_extent(ds.getId(), new_dims) < 0) impl_->fail("cannot extend", norm);
    H5::DataSpace file_space = ds.getSpace();
    const hsize_t start[2] = {dims[0], 0};
    const hsize_t count[2] = {n_rows, row};
    file_space.selectHyperslab(H5S_SELECT_SET, count, start);
    H5::DataSpace mem_space(rank, count);
    ds.write(data, TypeOf<T>::mem(), mem_space, file_space);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot append to", norm, e);
  }
}

void File::truncate(const std::string& path, uint64_t n_rows) {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    H5::DataSet& ds = impl_->dataset(norm);
    H5::DataSpace space = ds.getSpace();
    const int rank = space.getSimpleExtentNdims();
    if (rank < 1) impl_->fail("cannot truncate a scalar", norm);
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    space.getSimpleExtentDims(dims.data());
    if (n_rows >= dims[0]) return;
    dims[0] = n_rows;
    if (H5Dset_extent(ds.getId(), dims.data()) < 0) impl_->fail("cannot truncate", norm);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot truncate", norm, e);
  }
}

uint64_t File::length(const std::string& path) const {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (!impl_->exists(norm)) impl_->fail("no such dataset", norm);
    H5::DataSpace space = impl_->file.openDataSet(norm).getSpace();
    const int rank = space.getSimpleExtentNdims();
    if (rank < 1) return 1;
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    space.getSimpleExtentDims(dims.data());
    return dims[0];
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read length of", norm, e);
  }
}

void File::set_attr(const std::string& obj, const std::string& name, const std::string& value) {
  std::lock_guard lock(h5_mutex());
  try {
    auto o = impl_->object(obj);
    impl_->replace_attribute(o.get(), name);
    // Variable-length UTF-8: no size limit in the object header, and h5py reads it as str.
    H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
    type.setCset(H5T_CSET_UTF8);
    H5::Attribute a = o->createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
    a.write(type, value);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot write attribute", normalize(obj) + "@" + name, e);
  }
}

void File::set_attr(const std::string& obj, const std::string& name, double value) {
  std::lock_guard lock(h5_mutex());
  try {
    auto o = impl_->object(obj);
    impl_->replace_attribute(o.get(), name);
    H5::Attribute a = o->createAttribute(name, H5::PredType::IEEE_F64LE, H5::DataSpace(H5S_SCALAR));
    a.write(H5::PredType::NATIVE_DOUBLE, &value);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot write attribute", normalize(obj) + "@" + name, e);
  }
}

void File::set_attr(const std::string& obj, const std::string& name, int64_t value) {
  std::lock_guard lock(h5_mutex());
  try {
    auto o = impl_->object(obj);
    impl_->replace_attribute(o.get(), name);
    H5::Attribute a = o->createAttribute(name, H5::PredType::STD_I64LE, H5::DataSpace(H5S_SCALAR));
    a.write(H5::PredType::NATIVE_INT64, &value);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot write attribute", normalize(obj) + "@" + name, e);
  }
}

bool File::has_attr(const std::string& obj, const std::string& name) const {
  std::lock_guard lock(h5_mutex());
  try {
    if (!impl_->exists(normalize(obj))) return false;
    return impl_->object(obj)->attrExists(name);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot look up attribute", normalize(obj) + "@" + name, e);
  }
}

std::string File::attr_string(const std::string& obj, const std::string& name) const {
  std::lock_guard lock(h5_mutex());
  try {
    H5::Attribute a = impl_->attribute(obj, name);
    if (a.getTypeClass() != H5T_STRING) impl_->fail("attribute is not a string:", normalize(obj) + "@" + name);
    if (a.getSpace().getSimpleExtentNpoints() != 1)
      impl_->fail("attribute is not a scalar string:", normalize(obj) + "@" + name);
    H5::StrType type = a.getStrType();
    std::string out;
    a.read(type, out);  // handles variable- and fixed-length strings
    // Fixed-length strings may be padded with NULs (h5py's numpy.bytes_ attributes are).
    const size_t end = out.find('\0');
    if (end != std::string::npos) out.resize(end);
    return out;
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read attribute", normalize(obj) + "@" + name, e);
  }
}

double File::attr_double(const std::string& obj, const std::string& name) const {
  std::lock_guard lock(h5_mutex());
  try {
    H5::Attribute a = impl_->attribute(obj, name);
    const H5T_class_t c = a.getTypeClass();
    if (c != H5T_FLOAT && c != H5T_INTEGER) impl_->fail("attribute is not a number:", normalize(obj) + "@" + name);
    if (a.getSpace().getSimpleExtentNpoints() != 1)
      impl_->fail("attribute is not a scalar:", normalize(obj) + "@" + name);
    double v = 0;
    a.read(H5::PredType::NATIVE_DOUBLE, &v);
    return v;
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read attribute", normalize(obj) + "@" + name, e);
  }
}

int64_t File::attr_int(const std::string& obj, const std::string& name) const {
  std::lock_guard lock(h5_mutex());
  try {
    H5::Attribute a = impl_->attribute(obj, name);
    if (a.getTypeClass() != H5T_INTEGER) impl_->fail("attribute is not an integer:", normalize(obj) + "@" + name);
    if (a.getSpace().getSimpleExtentNpoints() != 1)
      impl_->fail("attribute is not a scalar:", normalize(obj) + "@" + name);
    int64_t v = 0;
    a.read(H5::PredType::NATIVE_INT64, &v);
    return v;
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read attribute", normalize(obj) + "@" + name, e);
  }
}

// netCDF-4's marker of a dimension without a coordinate variable (netCDF-C's DIM_WITHOUT_VARIABLE,
// which it follows with the length as "%10d"; h5netcdf looks for the marker).
constexpr char kDimensionWithoutVariable[] = "This is a netCDF dimension but not a netCDF variable.";

void File::make_dimension_scale(const std::string& path) {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (!impl_->exists(norm)) impl_->fail("no such dataset", norm);
    const H5::DataSet ds = impl_->file.openDataSet(norm);
    if (H5DSis_scale(ds.getId()) > 0) return;
    if (ds.getSpace().getSimpleExtentNdims() != 1) impl_->fail("a dimension scale must be 1-D:", norm);
    const std::string name = norm.substr(norm.rfind('/') + 1);
    if (H5DSset_scale(ds.getId(), name.c_str()) < 0) impl_->fail("cannot make a dimension scale of", norm);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot make a dimension scale of", norm, e);
  }
}

void File::make_dimension(const std::string& path, uint64_t size) {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (impl_->exists(norm)) {
      const H5::DataSet ds = impl_->file.openDataSet(norm);
      if (H5DSis_scale(ds.getId()) <= 0 || ds.getSpace().getSimpleExtentNpoints() != hssize_t(size))
        impl_->fail("exists and is not a dimension of that length:", norm);
      return;
    }
    impl_->make_groups(parent_of(norm));
    const hsize_t dims[1] = {size};
    // Never written: HDF5 allocates no storage for it (contiguous layout, late allocation).
    const H5::DataSet ds = impl_->file.createDataSet(norm, H5::PredType::IEEE_F32LE, H5::DataSpace(1, dims));
    char name[sizeof kDimensionWithoutVariable + 16];
    std::snprintf(name, sizeof name, "%s%10llu", kDimensionWithoutVariable, static_cast<unsigned long long>(size));
    if (H5DSset_scale(ds.getId(), name) < 0) impl_->fail("cannot make a dimension of", norm);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot create dimension", norm, e);
  }
}

void File::attach_scale(const std::string& path, const std::string& scale, unsigned axis) {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path), scale_norm = normalize(scale);
  try {
    if (!impl_->exists(norm)) impl_->fail("no such dataset", norm);
    if (!impl_->exists(scale_norm)) impl_->fail("no such dimension scale", scale_norm);
    const H5::DataSet ds = impl_->file.openDataSet(norm), sc = impl_->file.openDataSet(scale_norm);
    if (H5DSis_scale(sc.getId()) <= 0) impl_->fail("not a dimension scale:", scale_norm);
    if (int(axis) >= ds.getSpace().getSimpleExtentNdims()) impl_->fail("no axis " + std::to_string(axis) + " in", norm);
    const htri_t attached = H5DSis_attached(ds.getId(), sc.getId(), axis);
    if (attached < 0) impl_->fail("cannot look up the scales of", norm);
    if (attached == 0 && H5DSattach_scale(ds.getId(), sc.getId(), axis) < 0)
      impl_->fail("cannot attach " + scale_norm + " to", norm);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot attach " + scale_norm + " to", norm, e);
  }
}

bool File::is_dimension_scale(const std::string& path) const {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (norm.empty() || !impl_->exists(norm) || impl_->file.childObjType(norm) != H5O_TYPE_DATASET) return false;
    return H5DSis_scale(impl_->file.openDataSet(norm).getId()) > 0;
  } catch (const H5::Exception& e) {
    impl_->fail("cannot look up", norm, e);
  }
}

std::vector<std::string> File::dimension_scales(const std::string& path) const {
  std::lock_guard lock(h5_mutex());
  const std::string norm = normalize(path);
  try {
    if (!impl_->exists(norm)) impl_->fail("no such dataset", norm);
    const H5::DataSet ds = impl_->file.openDataSet(norm);
    std::vector<std::string> out(size_t(ds.getSpace().getSimpleExtentNdims()));
    for (unsigned axis = 0; axis < out.size(); ++axis) {
      if (H5DSget_num_scales(ds.getId(), axis) <= 0) continue;
      // The first scale attached to the axis (netCDF attaches exactly one).
      const auto first = [](hid_t, unsigned, hid_t scale, void* name) -> herr_t {
        const ssize_t n = H5Iget_name(scale, nullptr, 0);
        if (n < 0) return -1;
        std::string& s = *static_cast<std::string*>(name);
        s.resize(size_t(n) + 1);
        H5Iget_name(scale, s.data(), s.size());
        s.resize(size_t(n));
        return 1;  // stop at the first
      };
      if (H5DSiterate_scales(ds.getId(), axis, nullptr, first, &out[axis]) < 0)
        impl_->fail("cannot read the scales of", norm);
    }
    return out;
  } catch (const H5::Exception& e) {
    impl_->fail("cannot read the scales of", norm, e);
  }
}

void File::flush() {
  std::lock_guard lock(h5_mutex());
  try {
    impl_->file.flush(H5F_SCOPE_GLOBAL);
  } catch (const H5::Exception& e) {
    impl_->fail("cannot flush", "/", e);
  }
}

#define FP4LAB_H5_INSTANTIATE(T)                                                                    \
  template void File::write<T>(const std::string&, const T*, const std::vector<uint64_t>&, int);    \
  template std::vector<T> File::read<T>(const std::string&, std::vector<uint64_t>*) const;          \
  template void File::append<T>(const std::string&, const T*, uint64_t, uint64_t);
FP4LAB_H5_INSTANTIATE(float)
FP4LAB_H5_INSTANTIATE(double)
FP4LAB_H5_INSTANTIATE(int64_t)
FP4LAB_H5_INSTANTIATE(int32_t)
FP4LAB_H5_INSTANTIATE(uint8_t)
#undef FP4LAB_H5_INSTANTIATE

void write_file_atomically(const std::string& path, const std::function<void(File&)>& fill, Format format) {
  io::write_atomically(path, [&](const std::string& tmp) {
    File out = File::create(tmp, format);  // closed when the lambda returns, before the rename
    fill(out);
    out.flush();
  });
}

}  // namespace fp4lab::h5
