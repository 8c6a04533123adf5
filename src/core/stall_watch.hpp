#pragma once
// Ends the process when one blocking call waits too long. A rank stopped (SIGSTOP, a
// debugger), a host gone or a link cut leaves every other rank inside an MPI call that
// never returns, where no signal handler of ours runs; the launcher ends the job once one
// rank exits, so the rank that notices ends itself. Only time inside a watched call
// counts: a rank computing for minutes between calls is not waiting; nor is one whose own
// process was stopped (a job suspended and resumed): its call's clock restarts then.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ncclsweep {

class StallWatch {
 public:
  // Called on the watch's thread with the call's name and how long it waited; it must not
  // return (it ends the process).
  using OnStall = std::function<void(const std::string& call, double waited_s)>;

  StallWatch(double limit_s, OnStall on_stall);
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  double limit_s() const;
  void set_limit(double seconds);  // 0: nothing is watched

  // Watches one call from construction to destruction (the outermost of nested ones).
  class Scope {
   public:
    Scope(StallWatch* watch, const char* call);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StallWatch* watch_;
  };

  // set_limit for as long as it lives, then the limit before.
  class Limit {
   public:
    Limit(StallWatch& watch, double seconds);
    ~Limit();
    Limit(const Limit&) = delete;
    Limit& operator=(const Limit&) = delete;

   private:
    StallWatch& watch_;
    double before_;
  };

 private:
  void enter(const char* call);
  void leave();
  void run();

  OnStall on_stall_;
  // Written by the calling thread on every call, read by the watch's thread a few times a
  // second: atomics, so that a call costs two clock reads and no lock or wake-up (the mpi
  // engine makes hundreds of thousands of small calls; a wake-up each disturbed what
  // they measure on shared cores).
  std::atomic<double> limit_s_;
  std::atomic<int> depth_{0};
  std::atomic<const char*> call_{nullptr};
  std::atomic<std::int64_t> since_ns_{0};
  std::atomic<std::uint64_t> calls_{0};  // outermost calls entered so far
  std::mutex mutex_;                     // for stopping_ and the wait between looks
  std::condition_variable changed_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members it reads exist
};

}  // namespace ncclsweep
