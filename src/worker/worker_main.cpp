#include "worker/worker_main.hpp"

#include <unistd.h>  // environ

#include <cstdio>

#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "runtime/stop_signals.hpp"
#include "processes/worker_process.hpp"
#include "worker/relayed_fabric.hpp"
#include "worker/worker_loop.hpp"
#if NCCLSWEEP_HAVE_NCCL
#include "engine/nccl/nccl_engine.hpp"
#endif

namespace ncclsweep {
namespace {

// The nccl engine on this process's GPU, or the mpi engine whose collectives its MPI rank
// runs on the region it handed over (worker/relayed_fabric.hpp).
std::unique_ptr<Engine> make_worker_engine(const WorkerStart& start, Coordinator& ranks, MessageChannel& channel,
                                           const EnvironmentMap& environment) {
  if (start.spec.engine == EngineKind::mpi) {
    return make_mpi_engine(make_relayed_fabric(channel, kWorkerRegionFd, start.rank, start.ranks), environment);
  }
#if NCCLSWEEP_HAVE_NCCL
  return make_nccl_engine(ranks);
#else
  (void)ranks;
  throw UsageError("this ncclsweep was built without CUDA or NCCL, so it has no nccl engine", "use --engine mpi");
#endif
}

}  // namespace

int worker_main() {
  // Every point starts from this: the environment the MPI rank gave the worker.
  const EnvironmentMap environment = environment_map(environ);
  ignore_stop_signals();
  MessageChannel channel(kWorkerChannelFd);
  try {
    return serve_worker(channel, environment, make_worker_engine);
  } catch (...) {
    // The channel itself broke: nobody to tell but stderr.
    const FailureReport failure = describe_failure(std::current_exception());
    std::fprintf(stderr, "ncclsweep worker: %s\n", failure.message.c_str());
    return failure.status;
  }
}

}  // namespace ncclsweep
