// Tests for the HDF5 wrapper (core/io/h5): whole datasets of every supported type and shape,
// extendible series (append / truncate / length), attributes, error messages, and a reader in a
// second process opening a file that a writer still holds open and flushes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/io/atomic_file.hpp"
#include "core/io/h5.hpp"
#include "tests/scratch_dir.hpp"

namespace fp4lab {
namespace {

namespace fs = std::filesystem;

class H5Test : public ScratchDirTest {
 protected:
  // The names in the scratch directory (an atomic write leaves no temporary file behind).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <class T>
void expect_round_trip(h5::File& f, const std::string& name, const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<T> data(n);
  for (uint64_t i = 0; i < n; ++i) data[i] = static_cast<T>((i * 37 + 5) % 251);
  f.write(name, data, shape);
  std::vector<uint64_t> got_shape;
  const std::vector<T> got = f.read<T>(name, &got_shape);
  EXPECT_EQ(got_shape, shape) << name;
  ASSERT_EQ(got.size(), data.size()) << name;
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], data[i]) << name << " at flat index " << i;
  EXPECT_EQ(f.shape(name), shape) << name;
}

TEST_F(H5Test, AtomicWritesReplaceTheFileOrLeaveNothing) {
  const std::string text = path("a.txt");
  EXPECT_EQ(io::temporary_path(text), path(".a.txt.tmp." + std::to_string(::getpid())));
  io::write_file_atomically(text, "first\n");
  io::write_file_atomically(text, std::string("second\0line\n", 12));
  EXPECT_EQ(read_text(text), std::string("second\0line\n", 12));
  EXPECT_THROW(io::write_file_atomically(path("missing/a.txt"), "x"), std::runtime_error);
  // A failing writer: the temporary file it made is removed and the error passes through.
  EXPECT_THROW(io::write_atomically(path("b.txt"),
                                    [](const std::string& tmp) {
                                      std::ofstream(tmp) << "partial";
                                      throw std::runtime_error("writer failed");
                                    }),
               std::runtime_error);
  h5::write_file_atomically(path("c.h5"), [](h5::File& f) { f.set_attr("/", "x", int64_t(1)); });
  EXPECT_EQ(h5::File::open_ro(path("c.h5")).attr_int("/", "x"), 1);
  EXPECT_THROW(h5::write_file_atomically(path("d.h5"), [](h5::File&) { throw std::runtime_error("fill failed"); }),
               std::runtime_error);
  EXPECT_EQ(names(), (std::vector<std::string>{"a.txt", "c.h5"}));
}

TEST_F(H5Test, WholeDatasetsRoundTripEveryTypeAndShape) {
  {
    auto f = h5::File::create(path("a.h5"));
    expect_round_trip<float>(f, "w/float_2d", {5, 7});
    expect_round_trip<double>(f, "double_1d", {13});
    expect_round_trip<int64_t>(f, "deep/er/int64_3d", {2, 3, 11});
    expect_round_trip<int32_t>(f, "int32", {1, 16});
    expect_round_trip<uint8_t>(f, "codes", {3, 5, 7});
    expect_round_trip<double>(f, "scalar", {});
    expect_round_trip<float>(f, "empty", {0, 4});
    // Overwriting replaces shape and type.
    expect_round_trip<uint8_t>(f, "w/float_2d", {4});
    EXPECT_TRUE(f.has("deep/er"));
    EXPECT_TRUE(f.has("/deep/er/int64_3d"));
    EXPECT_FALSE(f.has("deep/nope"));
    EXPECT_FALSE(f.has("nope/deeper"));
  }
  // Reopened read-only, values are still there; reads convert between numeric types.
  auto f = h5::File::open_ro(path("a.h5"));
  const auto as_double = f.read<double>("codes");
  EXPECT_EQ(as_double.size(), 105u);
  EXPECT_EQ(as_double[1], 42.0);
}

TEST_F(H5Test, SeriesAppendTruncateLength) {
  auto f = h5::File::create(path("s.h5"));
  std::vector<double> v(10000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i);
  f.append("steps/loss", v.data(), 0);  // creates an empty series
  EXPECT_TRUE(f.has("steps/loss"));
  EXPECT_EQ(f.length("steps/loss"), 0u);
  f.append("steps/loss", v.data(), 3);
  f.append("steps/loss", v.data() + 3, v.size() - 3);  // crosses several chunks
  EXPECT_EQ(f.length("steps/loss"), v.size());
  EXPECT_EQ(f.read<double>("steps/loss"), v);

  // Rows of a 2-D series.
  std::vector<int32_t> rows = {1, 2, 3, 4, 5, 6};
  f.append("table", rows.data(), 2, 3);
  f.append("table", rows.data(), 1, 3);
  std::vector<uint64_t> shape;
  const auto t = f.read<int32_t>("table", &shape);
  EXPECT_EQ(shape, (std::vector<uint64_t>{3, 3}));
  EXPECT_EQ(t, (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 1, 2, 3}));
  EXPECT_THROW(f.append("table", rows.data(), 1, 2), std::runtime_error);  // row size mismatch
  EXPECT_THROW(f.append("steps/loss", v.data(), 1, 2), std::runtime_error);

  f.truncate("steps/loss", 4097);
  EXPECT_EQ(f.length("steps/loss"), 4097u);
  f.truncate("steps/loss", 5000);  // never grows
  EXPECT_EQ(f.length("steps/loss"), 4097u);
  const double tail[2] = {-1, -2};
  f.append("steps/loss", tail, 2);
  const auto after = f.read<double>("steps/loss");
  ASSERT_EQ(after.size(), 4099u);
  EXPECT_EQ(after[4096], v[4096]);
  EXPECT_EQ(after[4097], -1);
  EXPECT_EQ(after[4098], -2);
  f.truncate("table", 0);
  EXPECT_EQ(f.length("table"), 0u);

  // Every element type can be a series.
  const uint8_t b[3] = {1, 2, 255};
  const int64_t l[2] = {-5, 1LL << 40};
  const float x[1] = {1.5f};
  f.append("u8", b, 3);
  f.append("i64", l, 2);
  f.append("f32", x, 1);
  EXPECT_EQ(f.read<uint8_t>("u8"), (std::vector<uint8_t>{1, 2, 255}));
  EXPECT_EQ(f.read<int64_t>("i64"), (std::vector<int64_t>{-5, 1LL << 40}));
  EXPECT_EQ(f.read<float>("f32"), (std::vector<float>{1.5f}));
}

TEST_F(H5Test, AttributesOnRootGroupsAndDatasets) {
  auto f = h5::File::create(path("attr.h5"));
  f.create_group("g/h");
  f.append("g/h/d", std::vector<double>{1.0}.data(), 1);
  std::string big(100000, 'x');  // beyond the 64 KiB compact-attribute limit
  big += "\nend: ünïcødé";
  f.set_attr("/", "config", big);
  f.set_attr("/", "n", int64_t{1234567890123});
  f.set_attr("/", "x", 0.125);
  f.set_attr("g/h", "s", std::string(""));
  f.set_attr("g/h/d", "units", std::string("nats/token"));
  EXPECT_EQ(f.attr_string("/", "config"), big);
  EXPECT_EQ(f.attr_int("/", "n"), 1234567890123);
  EXPECT_EQ(f.attr_double("/", "x"), 0.125);
  EXPECT_EQ(f.attr_double("/", "n"), 1234567890123.0);  // integers read as double
  EXPECT_EQ(f.attr_string("g/h", "s"), "");
  EXPECT_EQ(f.attr_string("g/h/d", "units"), "nats/token");
  EXPECT_TRUE(f.has_attr("/", "x"));
  EXPECT_FALSE(f.has_attr("/", "y"));
  EXPECT_FALSE(f.has_attr("missing/object", "y"));
  // Overwrite with another type.
  f.set_attr("/", "x", std::string("now a string"));
  EXPECT_EQ(f.attr_string("/", "x"), "now a string");
  EXPECT_THROW(f.attr_double("/", "x"), std::runtime_error);
  EXPECT_THROW(f.attr_string("/", "n"), std::runtime_error);
  EXPECT_THROW(f.attr_int("/", "missing"), std::runtime_error);
}

// netCDF-4 dimension scales: a coordinate variable, a dimension without a variable, attachment
// (idempotent) and the scales read back per axis; a scale keeps working as its series grows.
TEST_F(H5Test, DimensionScales) {
  auto f = h5::File::create(path("dims.h5"));
  const std::vector<int64_t> step = {1, 2, 3};
  const std::vector<double> loss = {3.0, 2.5, 2.25};
  f.append("t/step", step.data(), 3);
  f.append("t/loss", loss.data(), 3);
  f.write("m/grid", std::vector<float>(6, 1.0f), {2, 3});
  EXPECT_FALSE(f.is_dimension_scale("t/step"));
  EXPECT_EQ(f.dimension_scales("t/loss"), std::vector<std::string>{""});
  for (int twice = 0; twice < 2; ++twice) {
    f.make_dimension_scale("t/step");
    f.attach_scale("t/loss", "t/step", 0);
    f.make_dimension("m/row", 2);
    f.make_dimension("m/col", 3);
    f.attach_scale("m/grid", "m/row", 0);
    f.attach_scale("m/grid", "m/col", 1);
  }
  f.append("t/step", step.data(), 3);
  f.append("t/loss", loss.data(), 3);
  EXPECT_TRUE(f.is_dimension_scale("t/step"));
  EXPECT_FALSE(f.is_dimension_scale("t/loss"));
  EXPECT_FALSE(f.is_dimension_scale("t"));
  EXPECT_EQ(f.attr_string("t/step", "NAME"), "step");
  EXPECT_EQ(f.dimension_scales("t/loss"), std::vector<std::string>{"/t/step"});
  EXPECT_EQ(f.dimension_scales("m/grid"), (std::vector<std::string>{"/m/row", "/m/col"}));
  EXPECT_EQ(f.attr_string("m/row", "NAME"), "This is a netCDF dimension but not a netCDF variable.         2");
  EXPECT_EQ(f.shape("m/col"), std::vector<uint64_t>{3});
  EXPECT_THROW(f.make_dimension("m/row", 5), std::runtime_error);       // exists with another length
  EXPECT_THROW(f.make_dimension_scale("m/grid"), std::runtime_error);   // 2-D
  EXPECT_THROW(f.attach_scale("t/loss", "t/loss", 0), std::runtime_error);  // not a scale
  EXPECT_THROW(f.attach_scale("m/grid", "m/row", 2), std::runtime_error);   // no such axis
}

TEST_F(H5Test, ErrorsNameTheFileAndObject) {
  EXPECT_THROW(h5::File::open_ro(path("missing.h5")), std::runtime_error);
  auto f = h5::File::create(path("e.h5"));
  try {
    f.read<double>("no/such");
    FAIL() << "reading a missing dataset must throw";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no/such"), std::string::npos) << msg;
    EXPECT_NE(msg.find("e.h5"), std::string::npos) << msg;
  }
  EXPECT_THROW(f.length("nothing"), std::runtime_error);
  EXPECT_THROW(f.truncate("nothing", 0), std::runtime_error);
  f.write("d", std::vector<double>{1, 2}, {2});
  EXPECT_THROW(f.create_group("d/sub"), std::runtime_error);  // a dataset is not a group
}

TEST_F(H5Test, MovedFileStaysUsable) {
  auto a = h5::File::create(path("m.h5"));
  a.set_attr("/", "k", int64_t{7});
  h5::File b = std::move(a);
  EXPECT_EQ(b.attr_int("/", "k"), 7);
  auto c = h5::File::create(path("m2.h5"));
  c = std::move(b);  // closes m2.h5, takes over m.h5
  EXPECT_EQ(c.attr_int("/", "k"), 7);
}

// A child process keeps the file open for writing, appends and flushes in rounds; the parent
// opens it read-only between rounds and must see every flushed row.
TEST_F(H5Test, ReaderInAnotherProcessWhileWriterHoldsFileOpen) {
  const std::string file = path("live.h5");
  int to_child[2], to_parent[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(to_parent), 0);
  constexpr int kRounds = 4;
  constexpr int kRowsPerRound = 1000;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // writer
    ::close(to_child[1]);
    ::close(to_parent[0]);
    int status = 0;
    try {
      auto f = h5::File::create(file);
      f.set_attr("/", "status", std::string("running"));
      std::vector<double> rows(kRowsPerRound);
      for (int r = 0; r < kRounds; ++r) {
        for (int i = 0; i < kRowsPerRound; ++i) rows[i] = r * kRowsPerRound + i;
        f.append("steps/x", rows.data(), rows.size());
        f.set_attr("/", "round", int64_t{r});
        f.flush();
        char c = 'w';
        if (::write(to_parent[1], &c, 1) != 1) status = 3;
        if (::read(to_child[0], &c, 1) != 1) status = 4;
      }
      f.set_attr("/", "status", std::string("done"));
    } catch (...) {
      status = 2;
    }
    ::_exit(status);
  }
  ::close(to_child[0]);
  ::close(to_parent[1]);
  // On an early ASSERT return, close our pipe ends (the writer then sees EOF) and reap it.
  struct Reaper {
    pid_t pid;
    int fds[2];
    ~Reaper() {
      for (int fd : fds) ::close(fd);
      if (pid > 0) ::waitpid(pid, nullptr, 0);
    }
  } reaper{pid, {to_child[1], to_parent[0]}};
  for (int r = 0; r < kRounds; ++r) {
    char c = 0;
    ASSERT_EQ(::read(to_parent[0], &c, 1), 1);
    {
      auto f = h5::File::open_ro(file);
      const auto x = f.read<double>("steps/x");
      ASSERT_EQ(x.size(), static_cast<size_t>((r + 1) * kRowsPerRound)) << "round " << r;
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], static_cast<double>(i)) << "round " << r;
      EXPECT_EQ(f.attr_int("/", "round"), r);
      EXPECT_EQ(f.attr_string("/", "status"), "running");
    }
    ASSERT_EQ(::write(to_child[1], "g", 1), 1);
  }
  int status = -1;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  reaper.pid = 0;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "writer process failed";
  auto f = h5::File::open_ro(file);
  EXPECT_EQ(f.attr_string("/", "status"), "done");
  EXPECT_EQ(f.length("steps/x"), static_cast<uint64_t>(kRounds * kRowsPerRound));
}

// h5py (when present) reads what we write: strings as str, series as arrays.
TEST_F(H5Test, H5pyReadsOurFiles) {
  if (std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no h5py";
  const std::string file = path("py.h5");
  {
    auto f = h5::File::create(file);
    f.set_attr("/", "config", std::string("model:\n  d: 64\n"));
    f.set_attr("/", "n", int64_t{42});
    const double v[3] = {3.0, 2.5, 2.25};
    f.append("steps/train_loss", v, 3);
    f.write("w", std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  }
  const std::string cmd =
      "/usr/bin/python3 -c \"import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
      "a=f.attrs['config']; assert isinstance(a,str) and a.startswith('model:'), repr(a); "
      "assert int(f.attrs['n'])==42; assert list(f['steps/train_loss'][:])==[3.0,2.5,2.25]; "
      "assert f['w'].shape==(2,3) and f['w'][1,2]==6\" " + file;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
}  // namespace fp4lab
