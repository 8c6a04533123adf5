#pragma once
// The previous group's worker, still tearing down after it delivered all its results:
// it overlaps the next group's start, and is reaped once the new workers are up, before
// they time anything (or before the new one starts, on a GPU that takes one process).
#include <memory>
#include <string>

#include "runtime/worker_process.hpp"

namespace ncclsweep {

class WorkerReaper {
 public:
  explicit WorkerReaper(double deadline_s) : deadline_s_(deadline_s) {}
  // Takes the worker a group left exiting (may be null).
  void hold(std::unique_ptr<WorkerProcess> exiting);
  // Waits for the held worker, up to the deadline. Returns how it ended when that was
  // not a clean exit ("signal 9 (Killed)"), else "" (also when none was held).
  std::string reap();

 private:
  double deadline_s_;
  std::unique_ptr<WorkerProcess> exiting_;
};

}  // namespace ncclsweep
