#pragma once
// A worker process: the same binary started as `ncclsweep worker`, with a chosen
// environment passed through execve (never a shell), talking over a socket pair.
// The destructor kills and reaps a worker still running, so nothing outlives its owner.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "processes/message_channel.hpp"
#include "processes/worker_link.hpp"

namespace ncclsweep {

class WorkerProcess final : public WorkerLink {
 public:
  // `environment` is the whole environment the worker gets; `region_fd` (>= 0) reaches it
  // as kWorkerRegionFd (the mpi engine's shared buffers, processes/worker_data_plane.hpp).
  WorkerProcess(const std::string& executable, const std::map<std::string, std::string>& environment,
                int region_fd = -1);
  ~WorkerProcess() override;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  MessageChannel& channel() override { return channel_; }
  pid_t pid() const { return pid_; }
  // Ends a worker that missed its deadline (SIGKILL: a hung NCCL call ignores politer
  // signals); wait() then reaps it.
  void kill_now() override;
  // Waits for the worker to exit; returns how it did.
  WorkerExit wait() override;
  // wait(), but for at most `limit` (its channel closing, then the process exit); past it
  // the worker is killed and the answer says so.
  WorkerExit wait_for(std::chrono::milliseconds limit) override;

 private:
  pid_t pid_ = -1;
  MessageChannel channel_;
};

// The worker's end of the socket pair, as the parent places it.
inline constexpr int kWorkerChannelFd = 3;
// ... and of the region the mpi engine's buffers live in, when it has one.
inline constexpr int kWorkerRegionFd = 4;

// The path of the running executable (/proc/self/exe), for starting workers.
std::string current_executable();

}  // namespace ncclsweep
