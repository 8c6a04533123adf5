#include "runtime/worker_group.hpp"

#include <chrono>
#include <cstdio>

#include "core/errors.hpp"
#include "core/printf_text.hpp"
#include "results/record_json.hpp"
#include "runtime/worker_process.hpp"

namespace ncclsweep {
namespace {

// Marks the group failed when a combined step says so.
void note_step(const RelayStep& combined, GroupResult& result, bool& aborted) {
  if (!combined.failed()) return;
  result.failed = true;
  result.failed_rank = combined.failed_rank;
  aborted = true;
}

}  // namespace

nlohmann::json relay_step_reply(const CombinedStep& combined) {
  nlohmann::json reply{{"type", "step"}, {"step", combined.step}};
  if (!combined.gathered.empty()) reply["gathered"] = combined.gathered;
  return reply;
}

GroupResult run_worker_group(RankGroup& ranks, const WorkerStart& start,
                             const std::map<std::string, std::string>& environment, GroupCallbacks& callbacks,
                             double deadline_s) {
  GroupResult result;
  bool aborted = false;  // a combined step failed: no rank waits for this one any more
  const auto spawned = std::chrono::steady_clock::now();
  auto worker = std::make_unique<WorkerProcess>(current_executable(), environment);
  MessageChannel& channel = worker->channel();
  try {
    channel.send(start);
    const auto limit = std::chrono::milliseconds(static_cast<std::int64_t>(deadline_s * 1000));
    for (;;) {
      if (!channel.wait_readable(limit)) {
        // A hung worker (init or collective): kill it; below it joins the others' step as failed.
        worker->kill_now();
        result.timed_out = true;
        result.local_error = "timeout: the worker made no progress within " + printf_text("%g", deadline_s) + " s";
        break;
      }
      const auto message = channel.receive();
      if (!message) break;
      const std::string type = message->at("type");
      if (type == "done") {
        // All delivered; its teardown overlaps whatever the caller starts next.
        result.exiting = std::move(worker);
        return result;
      }
      if (type == "step") {
        const CombinedStep combined = ranks.combine_relay_steps(message->at("step").get<RelayStep>());
        note_step(combined.step, result, aborted);
        channel.send(relay_step_reply(combined));
      } else if (type == "device") {
        // All workers must be up before the collective on_device: agree first.
        const RelayStep combined = ranks.combine_relay_steps(RelayStep{}).step;
        note_step(combined, result, aborted);
        result.startup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - spawned).count();
        const bool go = !aborted && callbacks.on_device(message->at("device").get<DeviceDescription>());
        result.stopped = !aborted && !go;
        channel.send({{"type", go ? "go" : "stop"}});
      } else if (type == "row") {
        const auto records = message->at("records").get<std::vector<MeasurementRecord>>();
        callbacks.on_row(records);
      } else if (type == "poll_stop") {
        const bool stop = callbacks.stop_requested && callbacks.stop_requested();
        channel.send({{"type", "stop"}, {"stop", stop}});
      } else if (type == "point") {
        callbacks.on_point(message->at("outcome").get<PointOutcome>());
      } else if (type == "error") {
        result.local_error = message->at("message").get<std::string>();
        result.local_status = message->at("status").get<int>();
        result.ended_after_outcome = message->value("after_outcome", false);
      }
    }
  } catch (const RuntimeFailure& e) {
    // A broken channel: the worker is as good as dead.
    if (result.local_error.empty()) result.local_error = e.call() + " failed: " + e.what();
  } catch (const nlohmann::json::exception& e) {
    if (result.local_error.empty()) result.local_error = std::string("malformed worker message: ") + e.what();
  }
  const std::string exit = worker->wait();
  if (exit != "exit 0" && !aborted) {
    // The others are waiting in this worker's next step: join it as failed.
    RelayStep failed;
    failed.failed_rank = start.rank;
    note_step(ranks.combine_relay_steps(failed).step, result, aborted);
    if (result.local_error.empty()) result.local_error = "worker ended with " + exit;
    if (result.local_status == 0) result.local_status = kExitRuntime;
  } else if (exit != "exit 0" && result.local_error.empty() && result.failed_rank == start.rank) {
    result.local_error = "worker ended with " + exit;
  }
  return result;
}

}  // namespace ncclsweep
