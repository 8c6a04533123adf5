#include "runtime/stop_signals.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace ncclsweep {
namespace {

// A signal handler can only reach static storage; these are the process-wide state, written
// by StopSignals and SignalWatcher and read by the handler (and g_received by received()).
volatile std::sig_atomic_t g_received = 0;
// The write end of the live SignalWatcher's pipe, or -1.
volatile std::sig_atomic_t g_watcher_fd = -1;

struct sigaction g_previous_int {};
struct sigaction g_previous_term {};
struct sigaction g_previous_usr1 {};

extern "C" void record_signal(int signal) {
  const int saved = errno;  // write(2) may set it under the interrupted code
  g_received = signal;
  if (const int fd = g_watcher_fd; fd >= 0) {
    const unsigned char byte = static_cast<unsigned char>(signal);
    [[maybe_unused]] const ssize_t ignored = ::write(fd, &byte, 1);  // async-signal-safe
  }
  errno = saved;
}

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = &record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // MPI and file calls go on; the loop checks between measurements
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
  sigaction(SIGUSR1, &action, &g_previous_usr1);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  sigaction(SIGUSR1, &g_previous_usr1, nullptr);
}

int StopSignals::received() const { return g_received; }

SignalWatcher::SignalWatcher(std::function<void(int)> on_signal) {
  if (::pipe2(pipe_, O_CLOEXEC) != 0) return;  // no watcher: the run still stops between measurements
  thread_ = std::thread([fd = pipe_[0], on_signal = std::move(on_signal)] {
    for (;;) {
      unsigned char byte = 0;
      const ssize_t got = ::read(fd, &byte, 1);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0 || byte == 0) return;  // the destructor's word
      on_signal(byte);
      return;  // once: later signals change nothing on disk
    }
  });
  g_watcher_fd = pipe_[1];
}

SignalWatcher::~SignalWatcher() {
  g_watcher_fd = -1;
  if (thread_.joinable()) {
    const unsigned char stop = 0;
    [[maybe_unused]] const ssize_t ignored = ::write(pipe_[1], &stop, 1);
    thread_.join();
  }
  for (const int fd : pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

void ignore_stop_signals() {
  struct sigaction action {};
  action.sa_handler = SIG_IGN;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
}

}  // namespace ncclsweep
