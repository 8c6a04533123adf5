#pragma once
// The testing aid NCCLSWEEP_TEST_SLOWDOWN (docs/search.md, docs/reliability.md): variables
// that make the mpi engine run each timed call a whole number of times, so a sweep over
// them has a known winner and a CPU machine can drive isolation groups, worker processes
// and a search's rounds end to end. Two families, read as NCCL reads its own variables:
//   NCCLSWEEP_TEST_SLOWDOWN[_NAME]       read once, when the engine is made (a worker's
//                                        start): like NCCL's integer parameters, a later
//                                        change in the same process does not reach it
//   NCCLSWEEP_TEST_INIT_SLOWDOWN[_NAME]  read at every communicator init: like NCCL_PROTO
// A value is a comma list of FACTOR or FACTOR@LOW-HIGH (sizes as --sizes takes them, either
// end may be left open; a call's total size as --sizes names it): the first item whose
// range holds the call gives its factor, none gives 1. "1@-512K,3" runs calls up to 512 KiB
// once and larger ones three times. The factor of a call is the product over every such
// variable the engine runs with.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace ncclsweep {

enum class TestVariableRead { once_per_process, each_init };

// Which family `name` belongs to; nullopt when it is not a testing variable.
std::optional<TestVariableRead> test_slowdown_variable(std::string_view name);

inline constexpr int kMaxTestSlowdown = 1000;

struct SlowdownRange {
  Bytes low = 0;
  Bytes high = kLargestSize;
  int factor = 1;
};

struct SlowdownSchedule {
  std::vector<SlowdownRange> ranges;
  int factor_at(Bytes total_bytes) const;
};

// Throws UsageError naming `name`, the value and the form it takes.
SlowdownSchedule parse_slowdown(std::string_view name, std::string_view value);

// The testing variables one engine runs with: those of one family read from an
// environment, each with its value (for verification) and its schedule.
class TestSlowdowns {
 public:
  TestSlowdowns() = default;
  // Every variable of family `read` in `environment`. Throws UsageError for a bad value.
  TestSlowdowns(const std::map<std::string, std::string>& environment, TestVariableRead read);
  int factor_at(Bytes total_bytes) const;
  // The value it holds for `name` ("" when the environment did not set it); nullopt when
  // `name` is not of its family.
  std::optional<std::string> value_of(std::string_view name) const;

 private:
  TestVariableRead read_ = TestVariableRead::once_per_process;
  std::map<std::string, std::pair<std::string, SlowdownSchedule>, std::less<>> variables_;
};

// Both families as an engine holds them: the once-read variables fixed when the engine is
// made, the per-init ones read again at each communicator init.
class EngineTestSlowdowns {
 public:
  EngineTestSlowdowns() = default;
  explicit EngineTestSlowdowns(const std::map<std::string, std::string>& environment)
      : once_(environment, TestVariableRead::once_per_process), per_init_(environment, TestVariableRead::each_init) {}
  // A communicator init: the per-init family is read from `environment` again.
  void init(const std::map<std::string, std::string>& environment) {
    per_init_ = TestSlowdowns(environment, TestVariableRead::each_init);
  }
  int factor_at(Bytes total_bytes) const { return once_.factor_at(total_bytes) * per_init_.factor_at(total_bytes); }
  // The value in effect for `name`; nullopt when it is no testing variable.
  std::optional<std::string> value_of(std::string_view name) const {
    if (auto value = once_.value_of(name)) return value;
    return per_init_.value_of(name);
  }

 private:
  TestSlowdowns once_;      // NCCLSWEEP_TEST_SLOWDOWN*: read when the engine was made
  TestSlowdowns per_init_;  // NCCLSWEEP_TEST_INIT_SLOWDOWN*: read at each init
};

}  // namespace ncclsweep
