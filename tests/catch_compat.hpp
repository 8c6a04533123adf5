#pragma once
// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04) under one spelling.
#if NCCLSWEEP_CATCH3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/interfaces/catch_interfaces_capture.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
using Catch::Matchers::ContainsSubstring;
#else
#include <catch2/catch.hpp>
inline auto ContainsSubstring(const std::string& s) { return Catch::Matchers::Contains(s); }
#endif

#include <iostream>
#include <string>

#include "core/errors.hpp"

namespace ncclsweep::testing {

// Prints "SKIPPED: <reason> (test: <test name>)" as one line (scripts/gpu-check's table
// collects these) and returns the reason for the framework's own report.
inline std::string announce_skip(const std::string& reason) {
  std::cout << "SKIPPED: " << reason << " (test: " << Catch::getResultCapture().getCurrentTestName() << ")" << std::endl;
  return reason;
}

// Catch2 v2 has no skip: NCCLSWEEP_SKIP's warning starts with this, and the listener in
// tests/unit/catch_main.cpp counts such test cases as skipped in the summary and the exit
// status (4 when every test case that ran skipped, as v3 does).
inline constexpr const char* kSkipWarning = "skipped: ";

}  // namespace ncclsweep::testing

// Skips the running test with a reason that names what it needs (e.g. "needs 2 GPUs, 1
// visible"). Call it in the test's own body. Catch2 v3.3+ reports the test as skipped;
// on v2 a warning (always printed) says it, the test returns, and catch_main.cpp reports
// it as skipped.
#if NCCLSWEEP_CATCH3 && defined(SKIP)
#define NCCLSWEEP_SKIP(reason) SKIP(::ncclsweep::testing::announce_skip(reason))
#else
#define NCCLSWEEP_SKIP(reason)                                                                     \
  do {                                                                                             \
    WARN(::ncclsweep::testing::kSkipWarning << ::ncclsweep::testing::announce_skip(reason));       \
    return;                                                                                        \
  } while (false)
#endif

// The full text a user sees for a UsageError (message and fix), or a note that none was thrown.
template <typename Action>
std::string usage_error_text(Action&& action) {
  try {
    action();
  } catch (const ncclsweep::UsageError& e) {
    return e.message();
  }
  return "(no UsageError thrown)";
}
