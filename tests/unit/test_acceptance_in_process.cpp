// The acceptance gate end to end on launches whose times are worked out (paced_engine.hpp):
// a reference run and runs of the same "machine" made slower with the slow-down aid
// (--inject-fault R:slow=F), read back and compared as `ncclsweep compare` does. The aid
// repeats whole calls, so the ratios come from two factors: the reference slowed 45
// times, the others 50, 48, 47 and 45 times (90%, 93.8%, 95.7% and 100% of it).
// tests/integration/test_acceptance_launch.cpp does the same with mpirun and real time.
#include <filesystem>
#include <string>
#include <tuple>

#include "catch_compat.hpp"
#include "compare/comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "in_process_launch.hpp"
#include "measure/fault_injection.hpp"

using namespace ncclsweep;
using namespace ncclsweep::testing;

namespace {

constexpr int kGateRanks = 2;
constexpr int kReferenceSlowdown = 45;

// A paced run on 2 ranks (all_reduce at 16, 32 and 64 KiB, both placements: 6 rows) with
// every call repeated `slowdown` times, each measurement `repeats` times; its results
// directory.
std::filesystem::path slowed_run(const std::string& name, int slowdown, int repeats = 1) {
  const auto dir = fresh_dir("gate-" + name);
  RunSpec spec = paced_spec({16 * kKiB, 32 * kKiB, 64 * kKiB});
  spec.repeats = repeats;
  LaunchRequest request = paced_request(spec, kGateRanks, dir);
  request.fault = parse_fault_injection("1:slow=" + std::to_string(slowdown));
  const InProcessLaunch done = launch_in_process(request, kGateRanks);
  INFO(done.errors);
  REQUIRE(all_equal(done.statuses, kExitOk));
  return dir;
}

Comparison gate_against(const std::filesystem::path& reference, const std::filesystem::path& measured) {
  CompareOptions options;
  options.target = kDefaultTarget;
  return compare_sides(load_side(measured), load_side(reference), options);
}

}  // namespace

TEST_CASE("gate on slowed runs: 90, 94, 96 and 100% of a reference run; an UNRESOLVED one settles with its repeats") {
  const auto reference = slowed_run("reference", kReferenceSlowdown);
  const Comparison at90 = gate_against(reference, slowed_run("90", 50));
  const Comparison at94 = gate_against(reference, slowed_run("94", 48));
  const Comparison at96 = gate_against(reference, slowed_run("96", 47));
  const Comparison at100 = gate_against(reference, slowed_run("100", kReferenceSlowdown));
  for (const Comparison* c : {&at90, &at94, &at96, &at100}) {
    INFO(c->summary());
    REQUIRE(c->acceptance);
    CHECK(c->acceptance->rows == 6);
    if (c->acceptance->verdict == GateVerdict::unresolved) CHECK(c->acceptance->repeats_to_settle);
  }
  CHECK(at90.acceptance->ratio == Approx(0.90).epsilon(0.01));
  CHECK(at90.acceptance->verdict == GateVerdict::fail);
  CHECK(at90.exit_status() == kExitRegression);
  CHECK(at94.acceptance->verdict != GateVerdict::pass);
  CHECK(at96.acceptance->verdict != GateVerdict::fail);
  CHECK(at100.acceptance->verdict == GateVerdict::pass);
  CHECK(at100.exit_status() == kExitOk);

  // Each UNRESOLVED one, measured again with the repeats it named, is decided, the right way.
  for (const auto& [ratio, slowdown, once] : {std::tuple{0.9375, 48, &at94}, std::tuple{0.957, 47, &at96}}) {
    INFO(once->summary() << "\n" << once->acceptance->line());
    if (once->acceptance->verdict != GateVerdict::unresolved) continue;
    CHECK(once->exit_status() == kExitUnresolved);
    const int repeats = *once->acceptance->repeats_to_settle;
    const Comparison again = gate_against(reference, slowed_run("again-" + std::to_string(slowdown), slowdown, repeats));
    INFO(again.acceptance->line());
    CHECK(again.acceptance->new_repeats == repeats);
    CHECK(again.acceptance->verdict == (ratio < kDefaultTarget ? GateVerdict::fail : GateVerdict::pass));
  }
}
