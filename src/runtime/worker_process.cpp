#include "runtime/worker_process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

int make_socket_pair(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw RuntimeFailure("socketpair", std::strerror(errno));
  }
  return fds[0];
}

}  // namespace

WorkerProcess::WorkerProcess(const std::string& executable, const std::map<std::string, std::string>& environment)
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
  const int status = posix_spawn(&pid_, executable.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
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

std::string WorkerProcess::wait() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  }
  return "unknown status";
}

std::string WorkerProcess::wait_for(std::chrono::milliseconds limit) {
  // The channel reads as closed once the worker has exited (nothing else holds its end).
  if (pid_ > 0 && !channel_.wait_readable(limit)) {
    kill_now();
    return wait() + ", killed after " + std::to_string(limit.count()) + " ms";
  }
  return wait();
}

std::string current_executable() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw RuntimeFailure("readlink", "/proc/self/exe: " + std::string(std::strerror(errno)));
  return std::string(path, static_cast<std::size_t>(n));
}

}  // namespace ncclsweep
