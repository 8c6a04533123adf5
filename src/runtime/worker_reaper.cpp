#include "runtime/worker_reaper.hpp"

#include <chrono>
#include <cstdint>

namespace ncclsweep {

void WorkerReaper::hold(std::unique_ptr<WorkerProcess> exiting) {
  if (exiting) exiting_ = std::move(exiting);
}

std::string WorkerReaper::reap() {
  if (!exiting_) return "";
  const std::string how =
      exiting_->wait_for(std::chrono::milliseconds(static_cast<std::int64_t>(deadline_s_ * 1000)));
  exiting_.reset();
  return how == "exit 0" ? "" : how;
}

}  // namespace ncclsweep
