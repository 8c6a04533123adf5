#include "processes/worker_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <thread>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

int make_socket_pair(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw RuntimeFailure("socketpair", std::strerror(errno));
  }
  return fds[0];
}

// How a reaped worker ended, from waitpid's status.
WorkerExit exit_of(int status) {
  WorkerExit exit;
  if (WIFEXITED(status)) {
    exit.way = WorkerExit::Way::exited;
    exit.number = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    exit.way = WorkerExit::Way::signalled;
    exit.number = WTERMSIG(status);
  }
  return exit;
}

}  // namespace

std::string WorkerExit::text() const {
  std::string text = "unknown status";
  if (way == Way::exited) text = "exit " + std::to_string(number);
  if (way == Way::signalled) text = "signal " + std::to_string(number) + " (" + strsignal(number) + ")";
  if (killed_after_ms) text += ", killed after " + std::to_string(*killed_after_ms) + " ms";
  return text;
}

WorkerProcess::WorkerProcess(const std::string& executable, const std::map<std::string, std::string>& environment,
                             int region_fd)
    : channel_(-1) {
  int fds[2];
  make_socket_pair(fds);
  MessageChannel parent_end(fds[0]);
  MessageChannel child_end(fds[1]);

  std::vector<std::string> env_strings;
  env_strings.reserve(environment.size());
  for (const auto& [name, value] : environment) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string arg0 = "ncclsweep", arg1 = "worker";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copy: only the child's end reaches the worker.
  posix_spawn_file_actions_adddup2(&actions, child_end.fd(), kWorkerChannelFd);
  // A copy above both targets, so the first dup2 cannot overwrite it (close-on-exec: only
  // the dup2'd copy reaches the worker).
  const int region_copy = region_fd >= 0 ? fcntl(region_fd, F_DUPFD_CLOEXEC, kWorkerRegionFd + 1) : -1;
  if (region_fd >= 0 && region_copy < 0) {
    posix_spawn_file_actions_destroy(&actions);
    throw RuntimeFailure("fcntl", std::strerror(errno));
  }
  if (region_copy >= 0) posix_spawn_file_actions_adddup2(&actions, region_copy, kWorkerRegionFd);
  const int status = posix_spawn(&pid_, executable.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (region_copy >= 0) close(region_copy);
  if (status != 0) throw RuntimeFailure("posix_spawn", executable + ": " + std::strerror(status));
  channel_ = std::move(parent_end);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void WorkerProcess::kill_now() {
  if (pid_ > 0) kill(pid_, SIGKILL);
}

WorkerExit WorkerProcess::wait() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return exit_of(status);
}

WorkerExit WorkerProcess::wait_for(std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  // The channel reads as closed once worker_main returns; the process exit (CUDA and
  // NCCL teardown) follows, so the exit itself is polled for within what is left.
  if (pid_ > 0 && channel_.wait_readable(limit)) {
    do {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        pid_ = -1;
        return exit_of(status);
      }
      if (done < 0 && errno != EINTR) return wait();  // not our child any more: let wait() say so
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    } while (std::chrono::steady_clock::now() < until);
  }
  kill_now();
  WorkerExit exit = wait();
  exit.killed_after_ms = limit.count();
  return exit;
}

std::string current_executable() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw RuntimeFailure("readlink", "/proc/self/exe: " + std::string(std::strerror(errno)));
  return std::string(path, static_cast<std::size_t>(n));
}

}  // namespace ncclsweep
