#pragma once
// What an MPI rank and its worker processes say to each other (over MessageChannel): one
// typed message per step, each with one JSON form (records and point outcomes in the
// form the results files use), sent as {"type": NAME, ...its fields}.
//
// rank -> worker                          worker -> rank
//   start (WorkerStart)                     device (WorkerReady): the engine is up
//   start_reply (StartReply): go or not     ...
//   measure (MeasureRequest): one point's   step: a cross-rank operation (relay_step.hpp),
//     calls, as often as asked                answered by a step
//                                           fabric (FabricRequest): a collective of the mpi
//                                             engine, run by the rank's MPI, answered by
//                                             fabric_reply (FabricReply)
//                                           poll_stop, before each size: answered by
//                                             poll_answer (the rank's wish to stop, e.g. a
//                                             signal; the workers then agree in a step)
//                                           row (RowMessage): one size's records (rank 0's)
//                                           measured (MeasureEnd): the point is done; the
//                                             ranks then agree in a step that every worker is
//   ... more measure requests ...
//   stop: the worker exits                  error (WorkerError), then the worker exits
// A worker stays between requests for as long as its rank keeps it (processes/worker_pool.hpp).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/repeat_order.hpp"
#include "engine/engine.hpp"
#include "engine/host_fabric.hpp"
#include "plan/measurement_plan.hpp"
#include "results/record.hpp"
#include "results/record_json.hpp"
#include "measure/fault_injection.hpp"
#include "spec/run_spec.hpp"

namespace ncclsweep {

// One sweep point as a worker runs it.
struct PointSpec {
  std::string label;
  std::vector<SettingOutcome> settings;  // what to verify (status left empty)
  std::vector<ConfigSetting> config;     // ncclConfig_t fields for the communicator
  // Variables the worker sets for the point's communicator init, on top of the worker's
  // own environment (and takes back after the point): the re-read ones, and under
  // --isolation reinit the process-cached ones too.
  std::vector<std::pair<std::string, std::string>> env;
};

// Points that share one process-level environment, run by one worker per rank.
struct WorkerGroup {
  int index = 0;
  std::map<std::string, std::string> process_env;  // the process-cached variables, fixed for the group
  std::vector<PointSpec> points;
};

struct WorkerStart {
  static constexpr std::string_view kType = "start";
  int rank = 0;
  int ranks = 1;
  int local_rank = 0;
  int group = 0;
  RunSpec spec;          // how to measure: warm-up, stopping rule, check
  MeasurementPlan plan;  // what to measure, as the launch planned it: the worker does not plan again
  int corrupt_rank = -1;
  std::string nccl_log_path;  // this worker's NCCL_DEBUG_FILE
  std::vector<MeasurementKey> done;  // --resume: measurements recorded earlier, skipped
  FaultInjection fault;              // --inject-fault (a testing aid)
};

struct WorkerReady {
  static constexpr std::string_view kType = "device";
  DeviceDescription device;
  // What this rank's device has free with the worker up (the GPU's memory; host memory
  // for the mpi engine); -1 when unknown. Sizes the warm pool.
  std::int64_t free_memory_bytes = -1;
};

struct StartReply {
  static constexpr std::string_view kType = "start_reply";
  bool go = false;  // false: the ranks decided not to run (the worker exits)
};

// Measure one point: its communicator initialised with its settings, verified, its
// calls measured, torn down.
struct MeasureRequest {
  static constexpr std::string_view kType = "measure";
  PointSpec point;
  std::vector<std::size_t> calls;  // indices into the start's plan, in the order to measure; empty: every call
  int first_repeat = 0;            // the repeat numbers: first_repeat .. first_repeat + repeats - 1
  int repeats = 1;
  RepeatOrder order = RepeatOrder::sequential;  // of the repeats over the calls
  int slow_factor = 1;  // --inject-fault slow=F@POINT: each timed call runs this many times
};

struct StopWorker {
  static constexpr std::string_view kType = "stop";
};

struct RowMessage {
  static constexpr std::string_view kType = "row";
  std::vector<MeasurementRecord> records;
};

struct StopPoll {
  static constexpr std::string_view kType = "poll_stop";
};

struct PollAnswer {
  static constexpr std::string_view kType = "poll_answer";
  bool stop = false;
};

struct MeasureEnd {
  static constexpr std::string_view kType = "measured";
  PointOutcome outcome;  // statuses agreed over ranks; the rest this rank's view (rank 0's is recorded)
  std::int64_t free_memory_bytes = -1;  // as WorkerReady's, after the point
};

struct WorkerError {
  static constexpr std::string_view kType = "error";
  int status = 3;  // the exit status it asks for (2 usage, 3 runtime)
  std::string message;
  // NCCL refused one of the point's values and failed: the point is settled by this
  // outcome (a mismatch), and nothing was left half done.
  std::optional<PointOutcome> outcome;
};

// The mpi engine's collectives in a worker (worker/relayed_fabric.hpp), run by its rank on
// a memory region both map (processes/worker_data_plane.hpp).
enum class FabricOp { collective, barrier, split, free_splits };
struct FabricRequest {
  static constexpr std::string_view kType = "fabric";
  FabricOp op = FabricOp::barrier;
  std::optional<CollectiveCall> call;  // collective
  Bytes send_offset = 0, recv_offset = 0;  // into the region
  Bytes region_bytes = 0;                  // how much of the region the worker uses
  std::vector<int> colors;                 // split
};
struct FabricReply {
  static constexpr std::string_view kType = "fabric_reply";
  std::vector<HostFabric::Place> places;  // after a split: this rank in each sub-communicator
};

// A message: the value's fields and its type.
template <typename Message>
nlohmann::json message(const Message& value) {
  nlohmann::json j = value;
  if (j.is_null()) j = nlohmann::json::object();
  j["type"] = Message::kType;
  return j;
}
// The message's type ("" when it has none).
std::string message_type(const nlohmann::json& j);
// The value of a message of type Message; throws RuntimeFailure for another type.
template <typename Message>
Message expect(const nlohmann::json& j);

void to_json(nlohmann::json& j, const ConfigSetting& s);
void from_json(const nlohmann::json& j, ConfigSetting& s);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PointSpec, label, settings, config, env)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceDescription, gpu_index, gpu_name, pci_bus_id, driver_version,
                                   cuda_runtime_version, nccl_header_version, nccl_library_version, exclusive_process)
// RunSpec travels by names (its members point into the collective and dtype tables).
void to_json(nlohmann::json& j, const RunSpec& s);
void from_json(const nlohmann::json& j, RunSpec& s);
// A call by names, in a fixed order (a plan can hold hundreds of thousands).
void to_json(nlohmann::json& j, const CollectiveCall& c);
void from_json(const nlohmann::json& j, CollectiveCall& c);
void to_json(nlohmann::json& j, const MeasurementPlan& plan);
void from_json(const nlohmann::json& j, MeasurementPlan& plan);
void to_json(nlohmann::json& j, const FaultInjection& f);
void from_json(const nlohmann::json& j, FaultInjection& f);
void to_json(nlohmann::json& j, const WorkerStart& w);
void from_json(const nlohmann::json& j, WorkerStart& w);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WorkerReady, device, free_memory_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StartReply, go)
void to_json(nlohmann::json& j, const MeasureRequest& r);
void from_json(const nlohmann::json& j, MeasureRequest& r);
inline void to_json(nlohmann::json& j, const StopWorker&) { j = nlohmann::json::object(); }
inline void from_json(const nlohmann::json&, StopWorker&) {}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RowMessage, records)
inline void to_json(nlohmann::json& j, const StopPoll&) { j = nlohmann::json::object(); }
inline void from_json(const nlohmann::json&, StopPoll&) {}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PollAnswer, stop)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MeasureEnd, outcome, free_memory_bytes)
void to_json(nlohmann::json& j, const WorkerError& e);
void from_json(const nlohmann::json& j, WorkerError& e);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HostFabric::Place, rank, ranks)
void to_json(nlohmann::json& j, const FabricRequest& r);
void from_json(const nlohmann::json& j, FabricRequest& r);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FabricReply, places)

template <typename Message>
Message expect(const nlohmann::json& j) {
  if (message_type(j) != Message::kType) {
    throw RuntimeFailure("worker channel", "a '" + message_type(j) + "' message where '" +
                                               std::string(Message::kType) + "' was due");
  }
  return j.get<Message>();
}

}  // namespace ncclsweep
