#pragma once
// The one directory a test program writes its files under: <tmp>/ncclsweep-tests-<pid>.
// catch_main.cpp removes it when the run passed and names it when a test failed, so a
// failure's files stay to be read and a passing run leaves nothing behind.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>

namespace ncclsweep::testing {

inline std::filesystem::path scratch_root_path() {
  return std::filesystem::temp_directory_path() / ("ncclsweep-tests-" + std::to_string(::getpid()));
}

// The scratch root, made on first use.
inline std::filesystem::path scratch_root() {
  const auto root = scratch_root_path();
  std::filesystem::create_directories(root);
  return root;
}

// After the run: removes the scratch root when `passed` (unless NCCLSWEEP_TEST_KEEP is
// set, to read a passing run's files), otherwise says where it is.
inline void settle_scratch_root(bool passed, std::ostream& out) {
  const auto root = scratch_root_path();
  std::error_code ec;
  if (!std::filesystem::exists(root, ec)) return;
  if (passed && !std::getenv("NCCLSWEEP_TEST_KEEP")) {
    std::filesystem::remove_all(root, ec);
  } else {
    out << "the tests' files are kept in " << root.string() << "\n";
  }
}

}  // namespace ncclsweep::testing
