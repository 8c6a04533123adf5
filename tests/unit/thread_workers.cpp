#include "thread_workers.hpp"

#include <sys/socket.h>

#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "core/errors.hpp"
#include "worker/worker_loop.hpp"

namespace ncclsweep::testing {
namespace {

class ThreadWorker final : public WorkerLink {
 public:
  ThreadWorker(const std::map<std::string, std::string>& environment, ThreadEngineFactory make_engine)
      : parent_(-1), worker_(-1) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) throw std::runtime_error("socketpair");
    parent_ = MessageChannel(fds[0]);
    worker_ = MessageChannel(fds[1]);
    std::promise<int> done;
    status_ = done.get_future();
    thread_ = std::thread([this, environment, make_engine = std::move(make_engine), done = std::move(done)]() mutable {
      int status = kExitRuntime;
      try {
        status = serve_worker(worker_, environment,
                              [&](const WorkerStart& start, Coordinator&, MessageChannel&,
                                  const std::map<std::string, std::string>& env) { return make_engine(env, start); });
      } catch (...) {
        // The channel broke (its rank gave up on it): a worker process would exit too.
      }
      worker_.close();  // its rank reads the end of the stream, as after a process exit
      done.set_value(status);
    });
  }
  ~ThreadWorker() override {
    kill_now();
    if (thread_.joinable()) thread_.join();
  }

  MessageChannel& channel() override { return parent_; }
  // A thread cannot be killed: its channel is cut, so its next read or write ends it.
  void kill_now() override {
    if (parent_.fd() >= 0) shutdown(parent_.fd(), SHUT_RDWR);
  }
  WorkerExit wait() override {
    if (thread_.joinable()) thread_.join();
    if (!reaped_) exit_ = {WorkerExit::Way::exited, status_.get(), std::nullopt}, reaped_ = true;
    return exit_;
  }
  WorkerExit wait_for(std::chrono::milliseconds limit) override {
    if (!reaped_ && status_.wait_for(limit) != std::future_status::ready) {
      kill_now();
      WorkerExit exit = wait();
      exit.killed_after_ms = limit.count();
      return exit;
    }
    return wait();
  }

 private:
  MessageChannel parent_, worker_;
  std::thread thread_;
  std::future<int> status_;
  WorkerExit exit_;
  bool reaped_ = false;
};

}  // namespace

WorkerStarter thread_workers(ThreadEngineFactory make_engine, std::atomic<int>* starts) {
  return {
      .start_worker =
          [make_engine, starts](const std::map<std::string, std::string>& environment, int) {
            if (starts) ++*starts;
            return std::unique_ptr<WorkerLink>(std::make_unique<ThreadWorker>(environment, make_engine));
          },
      .make_data_plane = {},
  };
}

}  // namespace ncclsweep::testing
