// The stall watch (core/stall_watch.hpp): only time inside a watched call counts, the
// call past its limit is reported once with its name, and a scoped limit is restored.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "catch_compat.hpp"
#include "core/stall_watch.hpp"

using namespace ncclsweep;

namespace {

struct Stalls {
  std::mutex mutex;
  std::string call;
  double waited_s = 0;
  std::atomic<int> count{0};
  StallWatch::OnStall recorder() {
    return [this](const std::string& c, double waited) {
      const std::lock_guard lock(mutex);
      call = c;
      waited_s = waited;
      ++count;
    };
  }
};

bool wait_for(const std::atomic<int>& count, int at_least, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (count.load() < at_least && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return count.load() >= at_least;
}

}  // namespace

TEST_CASE("a call that waits past the limit is reported once, with its name and its wait") {
  Stalls stalls;
  StallWatch watch(0.05, stalls.recorder());
  {
    const StallWatch::Scope scope(&watch, "MPI_Allreduce");
    REQUIRE(wait_for(stalls.count, 1, std::chrono::seconds(10)));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // still inside: not again
  }
  CHECK(stalls.count == 1);
  CHECK(stalls.call == "MPI_Allreduce");
  CHECK(stalls.waited_s >= 0.05);
  // A later call that waits too is reported in its turn.
  {
    const StallWatch::Scope scope(&watch, "MPI_Barrier");
    REQUIRE(wait_for(stalls.count, 2, std::chrono::seconds(10)));
  }
  CHECK(stalls.call == "MPI_Barrier");
}

TEST_CASE("time between watched calls, short calls and an unset limit are not stalls") {
  Stalls stalls;
  StallWatch watch(0.3, stalls.recorder());
  for (int i = 0; i < 20; ++i) {
    const StallWatch::Scope scope(&watch, "MPI_Allreduce");
    const StallWatch::Scope nested(&watch, "inner");  // the outermost call is what is watched
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // computing between calls
  CHECK(stalls.count == 0);
  {
    const StallWatch::Limit off(watch, 0);
    const StallWatch::Scope scope(&watch, "MPI_Allreduce");
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
  }
  CHECK(stalls.count == 0);
  CHECK(watch.limit_s() == 0.3);  // the scoped limit gave the earlier one back
  const StallWatch::Scope null_watch(nullptr, "MPI_Allreduce");  // nothing watched
}
