#pragma once
// SIGINT and SIGTERM (Slurm sends SIGTERM before its time limit) ask the run to stop
// after the current measurement. The handler only records the signal; the measurement
// loop polls it between measurements and the ranks agree on it collectively, because
// a signal may reach only some ranks.
namespace ncclsweep {

class StopSignals {
 public:
  StopSignals();   // installs the handlers (sigaction)
  ~StopSignals();  // restores the previous ones
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since construction (SIGINT or SIGTERM), or 0.
  int received() const;
};

// The exit status of a run stopped by `signal`: 128 + signal (130, 143).
inline int exit_status_for_signal(int signal) { return 128 + signal; }

// A worker process leaves stopping to its MPI rank: it ignores both signals (a
// terminal's Ctrl-C reaches the whole process group) and is told to stop instead.
void ignore_stop_signals();

}  // namespace ncclsweep
