#pragma once
// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04) under one spelling.
#if NCCLSWEEP_CATCH3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
using Catch::Matchers::ContainsSubstring;
#else
#include <catch2/catch.hpp>
inline auto ContainsSubstring(const std::string& s) { return Catch::Matchers::Contains(s); }
#endif

#include <string>

#include "core/errors.hpp"

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
