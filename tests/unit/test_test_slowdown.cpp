// The testing aid NCCLSWEEP_TEST_SLOWDOWN (core/test_slowdown.hpp): its values, and the mpi
// engine reading its variables as NCCL reads its own - the once-per-process family when the
// engine is made (a later setenv or point environment does not reach it), the per-init
// family at every init - counted on a fabric that only counts the collectives it is given.
#include <cstdlib>
#include <vector>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/test_slowdown.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "plan/measurement_plan.hpp"

using namespace ncclsweep;

namespace {

// One rank; each collective counted, nothing moved.
class CountingFabric final : public HostFabric {
 public:
  explicit CountingFabric(int& collectives) : collectives_(collectives) {}
  Place place(int) const override { return {0, 1}; }
  void split(const std::vector<int>&) override {}
  void free_splits() override {}
  void barrier() override {}
  void collective(const CollectiveCall&, std::byte*, std::byte*) override { ++collectives_; }
  HostBuffers buffers(std::size_t send, std::size_t recv) override {
    if (send) send_.resize(send);
    if (recv) recv_.resize(recv);
    return {send_.data(), recv_.data()};
  }

 private:
  int& collectives_;
  std::vector<std::byte> send_, recv_;
};

CollectiveCall all_reduce_of(Bytes bytes) {
  RunSpec spec;
  spec.collectives = {&collective("all_reduce")};
  spec.dtypes = {&data_type("float32")};
  spec.ops = {ReduceOp::sum};
  spec.sizes = {bytes};
  return plan_measurements(spec, 1).calls.front().call;
}

// Collectives one timed call of `bytes` runs on `engine`.
int runs_per_call(Engine& engine, int& counted, Bytes bytes) {
  counted = 0;
  engine.run_timed(all_reduce_of(bytes), 4, 1);
  return counted / 4;
}

}  // namespace

TEST_CASE("testing slow-down values: whole factors, optionally per size range, first match wins") {
  const SlowdownSchedule plain = parse_slowdown("NCCLSWEEP_TEST_SLOWDOWN", "3");
  CHECK(plain.factor_at(1) == 3);
  CHECK(plain.factor_at(Bytes{1} << 40) == 3);
  const SlowdownSchedule ranged = parse_slowdown("NCCLSWEEP_TEST_SLOWDOWN_A", "1@-512K,4@1M-2M,2");
  CHECK(ranged.factor_at(512 * kKiB) == 1);
  CHECK(ranged.factor_at(512 * kKiB + 1) == 2);
  CHECK(ranged.factor_at(kMiB) == 4);
  CHECK(ranged.factor_at(2 * kMiB) == 4);
  CHECK(parse_slowdown("X", "5@1M-").factor_at(kMiB - 1) == 1);  // no item holds it
  for (const char* bad : {"", "0", "1001", "2.5", "x", "2@1M", "2@2M-1M", "2@-1Q", "3,"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_slowdown("NCCLSWEEP_TEST_SLOWDOWN", bad), UsageError);
  }
  CHECK_THAT(usage_error_text([] { parse_slowdown("NCCLSWEEP_TEST_SLOWDOWN", "0"); }),
             ContainsSubstring("NCCLSWEEP_TEST_SLOWDOWN='0'"));
  CHECK(test_slowdown_variable("NCCLSWEEP_TEST_SLOWDOWN") == TestVariableRead::once_per_process);
  CHECK(test_slowdown_variable("NCCLSWEEP_TEST_SLOWDOWN_B") == TestVariableRead::once_per_process);
  CHECK(test_slowdown_variable("NCCLSWEEP_TEST_INIT_SLOWDOWN_X") == TestVariableRead::each_init);
  CHECK_FALSE(test_slowdown_variable("NCCLSWEEP_TEST_SLOWDOWNS"));
  CHECK_FALSE(test_slowdown_variable("NCCL_PROTO"));
}

TEST_CASE("the mpi engine reads NCCLSWEEP_TEST_SLOWDOWN once, when made, and the init family at every init") {
  int counted = 0;
  setenv("NCCLSWEEP_TEST_SLOWDOWN", "3", 1);
  const std::unique_ptr<Engine> engine = make_mpi_engine(
      std::make_unique<CountingFabric>(counted),
      {{"NCCLSWEEP_TEST_SLOWDOWN", "3"}, {"NCCLSWEEP_TEST_INIT_SLOWDOWN", "2@1M-"}});
  CHECK(runs_per_call(*engine, counted, 64 * kKiB) == 3);
  CHECK(runs_per_call(*engine, counted, 4 * kMiB) == 6);
  CHECK(engine->setting_in_effect("NCCLSWEEP_TEST_SLOWDOWN") == "3");
  // A later change in the process, or in what an init sees, does not reach the cached one...
  setenv("NCCLSWEEP_TEST_SLOWDOWN", "1", 1);
  engine->init_environment({{"NCCLSWEEP_TEST_SLOWDOWN", "1"}, {"NCCLSWEEP_TEST_INIT_SLOWDOWN", "5"}});
  engine->connect({});
  CHECK(runs_per_call(*engine, counted, 64 * kKiB) == 15);  // 3 (kept) x 5 (read again)
  CHECK(engine->setting_in_effect("NCCLSWEEP_TEST_SLOWDOWN") == "3");  // what a point setting 1 is verified against
  CHECK(engine->setting_in_effect("NCCLSWEEP_TEST_INIT_SLOWDOWN") == "5");
  // ...and an init without the per-init variable runs without it.
  engine->init_environment({});
  CHECK(runs_per_call(*engine, counted, 64 * kKiB) == 3);
  CHECK(engine->setting_in_effect("NCCLSWEEP_TEST_INIT_SLOWDOWN") == "");
  CHECK_FALSE(engine->setting_in_effect("NCCL_PROTO"));  // NCCL's own: its log tells
  // The fault's slow-down multiplies with them.
  engine->slow_down(2);
  CHECK(runs_per_call(*engine, counted, 64 * kKiB) == 6);
  unsetenv("NCCLSWEEP_TEST_SLOWDOWN");
}
