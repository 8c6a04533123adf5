// The add chain: it does exactly the adds it is asked for, and its clock reading lands
// where a CPU core's clock can be (a gross error in the cycle arithmetic - two adds per
// cycle, a chain the compiler folded away - falls outside).
#include "catch_compat.hpp"
#include "doctor/busy_core_clock.hpp"

using namespace ncclsweep::doctor;
using namespace std::chrono_literals;

TEST_CASE("the add chain performs 64 dependent adds per block", "[core_clock]") {
  if (!add_chain_supported()) NCCLSWEEP_SKIP("no add chain on this architecture");
  CHECK(run_add_chain(0) == 0);
  CHECK(run_add_chain(3) == 192);
  CHECK(run_add_chain(1000) == 64000);
}

TEST_CASE("a busy core's clock reads between 0.5 and 6.5 GHz of its own CPU time", "[core_clock]") {
  if (!add_chain_supported()) NCCLSWEEP_SKIP("no add chain on this architecture");
  const CoreClockReading one = measure_calling_core(20ms, 3);
  CHECK(one.cpu >= 0);
  CHECK(one.cpu_ghz > 0.5);
  CHECK(one.cpu_ghz < 6.5);
  CHECK(one.wall_ghz <= one.cpu_ghz * 1.05);  // wall time is never shorter than CPU time
  CHECK(one.share > 0);
  CHECK(one.share <= 1.05);
  const auto all = measure_cores({0, 0}, 10ms, 2);
  REQUIRE(all.size() == 2);
  for (const auto& reading : all) CHECK(reading.cpu == 0);  // pinned where asked
}
