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
#include "runtime/message_channel.hpp"

namespace ncclsweep {

class WorkerProcess {
 public:
  // `environment` is the whole environment the worker gets.
  WorkerProcess(const std::string& executable, const std::map<std::string, std::string>& environment);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  MessageChannel& channel() { return channel_; }
  pid_t pid() const { return pid_; }
  // Ends a worker that missed its deadline (SIGKILL: a hung NCCL call ignores politer
  // signals); wait() then reaps it.
  void kill_now();
  // Waits for the worker to exit; returns a description of how ("exit 0", "signal 9 (Killed)").
  std::string wait();
  // wait(), but for at most `limit` (its channel closing, then the process exit); past it
  // the worker is killed and the answer says so.
  std::string wait_for(std::chrono::milliseconds limit);

 private:
  pid_t pid_ = -1;
  MessageChannel channel_;
};

// The worker's end of the socket pair, as the parent places it.
inline constexpr int kWorkerChannelFd = 3;

// The path of the running executable (/proc/self/exe), for starting workers.
std::string current_executable();

}  // namespace ncclsweep
