#pragma once
// Importers: a real job's files -> the same CommProfile the derivation produces.
// Each takes a glob(3) pattern (all ranks' files) and, when known, the number of
// iterations the files cover (0: unknown; calls are then per rank over the whole input).
// Bad input (no file, no collective in them, not a trace) throws UsageError naming it.
#include <string>

#include "workload/comm_use.hpp"

namespace ncclsweep {

// NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL logs (their lines: docs/workloads.md).
CommProfile import_nccl_log(const std::string& pattern, int iterations);

// torch.profiler (Kineto) chrome traces, plain or gzip; one file per rank. Iterations
// are counted from ProfilerStep#N events when the trace has them.
CommProfile import_torch_trace(const std::string& pattern, int iterations);

// NCCL Inspector plugin output: JSON objects with header and coll_perf.
CommProfile import_inspector(const std::string& pattern, int iterations);

}  // namespace ncclsweep
