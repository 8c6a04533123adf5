// One main for both Catch2 versions, so that the exit status means one thing: 0 passed,
// 1 something failed, 4 every test case skipped (ctest's SKIP_RETURN_CODE). Catch2's own
// main returns the count of failed assertions, so four failures read as "skipped" and a
// failing file showed as a skip.
//
// v2 has no skip (tests/catch_compat.hpp's NCCLSWEEP_SKIP warns and returns there), so this
// main reports skips the way v3 does: a "skipped N of M test cases" line with their names,
// and exit status 4 when every test case that ran skipped and none failed (ctest's
// SKIP_RETURN_CODE then shows the entry as skipped, never as a green pass).
#if !NCCLSWEEP_CATCH3
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "scratch.hpp"

namespace {

// What the listener saw, read by main once the run is over (Catch2 owns the listener).
struct SkipTally {
  int test_cases = 0;
  std::vector<std::string> skipped;
};

SkipTally& tally() {
  static SkipTally t;
  return t;
}

struct SkipListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  bool skipping = false;

  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    TestEventListenerBase::testCaseStarting(info);
    skipping = false;
  }

  bool assertionEnded(const Catch::AssertionStats& stats) override {
    const Catch::AssertionResult& result = stats.assertionResult;
    if (result.getResultType() == Catch::ResultWas::Warning &&
        result.getMessage().rfind(ncclsweep::testing::kSkipWarning, 0) == 0) {
      skipping = true;
    }
    return true;
  }

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    ++tally().test_cases;
    if (skipping && stats.totals.assertions.failed == 0) tally().skipped.push_back(stats.testInfo.name);
    TestEventListenerBase::testCaseEnded(stats);
  }

  void testRunEnded(const Catch::TestRunStats& stats) override {
    TestEventListenerBase::testRunEnded(stats);
    if (tally().skipped.empty()) return;
    std::cout << "skipped " << tally().skipped.size() << " of " << tally().test_cases << " test cases:\n";
    for (const std::string& name : tally().skipped) std::cout << "  " << name << "\n";
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(SkipListener)

int main(int argc, char* argv[]) {
  const int failed = Catch::Session().run(argc, argv);
  ncclsweep::testing::settle_scratch_root(failed == 0, std::cout);
  if (failed != 0) return 1;
  const SkipTally& t = tally();
  if (t.test_cases > 0 && static_cast<int>(t.skipped.size()) == t.test_cases) return 4;
  return 0;
}
#else
#include <catch2/catch_session.hpp>
#include <catch2/interfaces/catch_interfaces_reporter.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#include <iostream>

#include "scratch.hpp"

namespace {

Catch::Totals& run_totals() {
  static Catch::Totals totals;
  return totals;
}

struct TotalsListener : Catch::EventListenerBase {
  using EventListenerBase::EventListenerBase;
  void testRunEnded(const Catch::TestRunStats& stats) override { run_totals() = stats.totals; }
};

}  // namespace

CATCH_REGISTER_LISTENER(TotalsListener)

int main(int argc, char* argv[]) {
  const int status = Catch::Session().run(argc, argv);  // 4 when every test case skipped, 2 when none ran
  const Catch::Totals& t = run_totals();
  const bool failed = t.assertions.failed > 0 || t.testCases.failed > 0;
  ncclsweep::testing::settle_scratch_root(!failed, std::cout);
  if (failed) return 1;
  return status;
}
#endif
