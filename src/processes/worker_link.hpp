#pragma once
// A started worker as its MPI rank holds it: the channel to it and its life. A real
// launch starts processes (processes/worker_process.hpp); the unit tests run the worker's
// own loop on a thread (tests/unit/thread_workers.hpp), so the pool, the schedule and a
// search's rounds are judged without mpirun. Destroying a link ends a worker still running.
#include <chrono>
#include <optional>
#include <string>

#include "processes/message_channel.hpp"

namespace ncclsweep {

// How a reaped worker ended: its exit code or the signal that ended it, and whether it
// was killed for outliving its limit.
struct WorkerExit {
  enum class Way { exited, signalled, unknown };
  Way way = Way::unknown;
  int number = 0;                        // the exit code, or the signal
  std::optional<long long> killed_after_ms;  // wait_for's limit, where it killed the worker
  bool clean() const { return way == Way::exited && number == 0 && !killed_after_ms; }
  // "exit 0", "signal 9 (Killed)", "signal 9 (Killed), killed after 300 ms"
  std::string text() const;
};

class WorkerLink {
 public:
  virtual ~WorkerLink() = default;
  virtual MessageChannel& channel() = 0;
  // Ends a worker that missed its deadline; wait() then reaps it.
  virtual void kill_now() = 0;
  // Waits for the worker to end; how it did.
  virtual WorkerExit wait() = 0;
  // wait(), but for at most `limit`; past it the worker is killed and the answer says so.
  virtual WorkerExit wait_for(std::chrono::milliseconds limit) = 0;
};

}  // namespace ncclsweep
