// A gtest fixture with a fresh scratch directory per test (unique per process, suite and test),
// removed afterwards. Shared by the file-format tests.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace fp4lab {

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("fp4lab_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()) + "_" +
            info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Whether an atomic write left a temporary file (DIR/.NAME.tmp.PID) anywhere in the directory.
  bool temporaries_left() const {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_))
      if (e.path().filename().string().find(".tmp") != std::string::npos) return true;
    return false;
  }
  std::filesystem::path dir_;
};

}  // namespace fp4lab
