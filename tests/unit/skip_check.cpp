// A program whose one test case skips itself. ctest's catch_skip entry expects exit status
// 4 (every test case skipped) and the skip's reason: on Catch2 v3 its own SKIP does that,
// on v2 tests/unit/catch_main.cpp. Without it, a GPU run that sees no GPU would be green.
#include "catch_compat.hpp"

TEST_CASE("a test that needs what this machine lacks skips itself") {
  NCCLSWEEP_SKIP("needs a device no machine has (the skip check)");
  FAIL("NCCLSWEEP_SKIP did not leave the test");
}
