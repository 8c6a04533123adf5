#pragma once
// A started worker as its MPI rank holds it: the channel to it and its life. A real
// launch starts processes (runtime/worker_process.hpp); the unit tests run the worker's
// own loop on a thread (tests/unit/thread_workers.hpp), so the pool, the schedule and a
// search's rounds are judged without mpirun. Destroying a link ends a worker still running.
#include <chrono>
#include <string>

#include "runtime/message_channel.hpp"

namespace ncclsweep {

class WorkerLink {
 public:
  virtual ~WorkerLink() = default;
  virtual MessageChannel& channel() = 0;
  // Ends a worker that missed its deadline; wait() then reaps it.
  virtual void kill_now() = 0;
  // Waits for the worker to end; how it did ("exit 0", "signal 9 (Killed)").
  virtual std::string wait() = 0;
  // wait(), but for at most `limit`; past it the worker is killed and the answer says so.
  virtual std::string wait_for(std::chrono::milliseconds limit) = 0;
};

}  // namespace ncclsweep
