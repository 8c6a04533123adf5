#pragma once
// What an MPI rank and its worker process say to each other (over MessageChannel).
//
// parent -> worker: {"type":"start", ...WorkerStart}
// worker -> parent:
//   {"type":"device","device":{...}}  first; answered {"type":"go"} or {"type":"stop"}
//   {"type":"step","step":{...}}      a cross-rank operation; answered {"type":"step","step":{...}}
//   {"type":"row","records":[...]}    one size's records (rank 0's worker only)
//   {"type":"point","outcome":{...}}  one point done (rank 0's worker only)
//   {"type":"poll_stop"}              before each size; answered {"type":"stop","stop":true|false}
//                                     (the MPI rank's wish, e.g. a signal; the workers then agree in a step)
//   {"type":"error","status":2|3,"message":"..."}  then the worker exits; with "after_outcome":true
//                                     the failing point's outcome was sent first (NCCL refused a value)
//   {"type":"done"}                   after the last point's results and the "end" step: every
//                                     result is delivered; the worker then tears down and exits 0
//                                     while its MPI rank may start the next group
// The worker's last step is an "end" step, then it says "done".
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "plan/measurement_plan.hpp"
#include "spec/run_spec.hpp"
#include "results/record.hpp"
#include "results/record_json.hpp"

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
  int rank = 0;
  int ranks = 1;
  int local_rank = 0;
  int group = 0;
  RunSpec spec;          // how to measure: warm-up, stopping rule, repeats, check
  MeasurementPlan plan;  // what to measure, as the launch planned it: the worker does not plan again
  int corrupt_rank = -1;
  std::string nccl_log_path;  // this worker's NCCL_DEBUG_FILE
  std::vector<PointSpec> points;
  std::vector<MeasurementKey> done;  // --resume: measurements recorded earlier, skipped
  std::string fault;              // --inject-fault as text (runtime/fault_injection.hpp); "" for none
};

// A config setting by its field's name and value, parsed again (config_setting) on arrival.
void to_json(nlohmann::json& j, const ConfigSetting& s);
void from_json(const nlohmann::json& j, ConfigSetting& s);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PointSpec, label, settings, config, env)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceDescription, gpu_index, gpu_name, pci_bus_id, driver_version,
                                   cuda_runtime_version, nccl_header_version, nccl_library_version, exclusive_process)
// RunSpec travels by names (its members point into the collective and dtype tables).
void to_json(nlohmann::json& j, const RunSpec& s);
void from_json(const nlohmann::json& j, RunSpec& s);
void to_json(nlohmann::json& j, const MeasurementPlan& plan);
void from_json(const nlohmann::json& j, MeasurementPlan& plan);
void to_json(nlohmann::json& j, const WorkerStart& w);
void from_json(const nlohmann::json& j, WorkerStart& w);

}  // namespace ncclsweep
