#pragma once
// SIGINT, SIGTERM (Slurm sends it before its time limit) and SIGUSR1 ask the run to stop
// after the current measurement. SIGUSR1 is the one mpirun passes on to the ranks at once
// (SIGTERM it passes on a second late, a second before its SIGKILL), and the one Slurm's
// --signal=USR1@SECONDS sends ahead of a time limit. The handler only records the signal; the measurement
// loop polls it between measurements and the ranks agree on it collectively, because
// a signal may reach only some ranks.
#include <functional>
#include <thread>

namespace ncclsweep {

class StopSignals {
 public:
  StopSignals();   // installs the handlers (sigaction)
  ~StopSignals();  // restores the previous ones
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since construction (SIGINT, SIGTERM or SIGUSR1), or 0.
  int received() const;
};

// Calls `on_signal` on a thread of its own, once, when the first stop signal arrives
// while it lives (StopSignals records the signal; this acts on it at once). A launcher
// kills what its signal does not stop soon enough (mpirun: SIGKILL a second after the
// SIGTERM it forwards), and the measurement in flight may take longer than that: rank 0
// marks its files interrupted from here, while the measurement goes on.
class SignalWatcher {
 public:
  explicit SignalWatcher(std::function<void(int)> on_signal);
  ~SignalWatcher();  // stops and joins the thread
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  int pipe_[2] = {-1, -1};  // the handler writes the signal's number, the destructor a 0
  std::thread thread_;
};

// The exit status of a run stopped by `signal`: 128 + signal (130, 143, 138).
inline int exit_status_for_signal(int signal) { return 128 + signal; }

// A worker process leaves stopping to its MPI rank: it ignores the three signals (a
// terminal's Ctrl-C reaches the whole process group) and is told to stop instead.
void ignore_stop_signals();

}  // namespace ncclsweep
