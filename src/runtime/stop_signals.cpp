#include "runtime/stop_signals.hpp"

#include <csignal>

namespace ncclsweep {
namespace {

// A signal handler can only reach static storage; this flag is the one piece of
// process-wide state, written by the handler and read by StopSignals::received.
volatile std::sig_atomic_t g_received = 0;

struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

extern "C" void record_signal(int signal) { g_received = signal; }

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = &record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // MPI and file calls go on; the loop checks between measurements
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int StopSignals::received() const { return g_received; }

void ignore_stop_signals() {
  struct sigaction action {};
  action.sa_handler = SIG_IGN;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace ncclsweep
