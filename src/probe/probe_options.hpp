#pragma once
// How long each probe runs: the defaults keep a rank under 30 s, --quick under 5 s
// (bench/probe-cost.sh measures both; docs/probe.md has the table).
#include <chrono>

namespace ncclsweep::probe {

struct ProbeOptions {
  double stall_seconds = 10;   // --stall-seconds: the stall watcher's run
  double clock_round_s = 0.1;  // one round of the add chain
  int clock_rounds = 10;       // rounds per core: the best for the clock, the median for the effective rate
  int repeats = 20;            // timed repeats of each map/unmap and launch figure
  double gemm_load_s = 3;      // the GEMM that loads the GPU while its clocks are read
  bool gpu = true;             // false: the GPU probes are skipped (--engine mpi)

  static ProbeOptions quick() {
    ProbeOptions o;
    o.stall_seconds = 1;
    o.clock_round_s = 0.05;
    o.clock_rounds = 4;
    o.repeats = 5;
    o.gemm_load_s = 0.5;  // 0.8 s left a --quick launch at 5.1-5.3 s on one H200
    return o;
  }
};

}  // namespace ncclsweep::probe
