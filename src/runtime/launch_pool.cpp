#include "runtime/launch_pool.hpp"

#include <filesystem>

#include "core/environment.hpp"
#include "runtime/deadline.hpp"
#include "runtime/launch_state.hpp"
#include "runtime/run_start.hpp"

namespace ncclsweep {

std::unique_ptr<WorkerPool> make_launch_pool(LaunchState& state, bool& begun) {
  const LaunchRequest& request = state.request;
  WorkerPoolConfig config;
  config.start.spec = request.spec;
  config.start.plan = request.plan;
  config.start.corrupt_rank = request.corrupt_rank;
  config.start.done = {state.done.begin(), state.done.end()};
  config.start.fault = request.fault;
  config.base_env = environment_map(request.envp);
  config.log_dir = std::filesystem::path(state.results_dir) / "nccl-logs";
  std::filesystem::create_directories(config.log_dir);
  config.deadline_s = progress_deadline_s(request.spec, request.plan);
  config.log_tuning = state.leader;
  config.data_plane = request.spec.engine == EngineKind::mpi;
  PoolCallbacks callbacks;
  // Collective, once all of a group's workers are up: the run starts with the first group.
  callbacks.on_device = [&state, &begun](const DeviceDescription& device) {
    return begun || (begun = begin_run(state, device));
  };
  callbacks.stop_requested = [&state] { return state.signalled(); };
  callbacks.on_note = [&state](const std::string& note) { state.log(LogLevel::note, note); };
  return std::make_unique<WorkerPool>(state.ranks, std::move(config), state.services.workers, std::move(callbacks));
}

}  // namespace ncclsweep
