#pragma once
// JSON form of the result types (run.json, records.jsonl), via nlohmann_json.
#include <nlohmann/json.hpp>

#include "results/measurement_key.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Plain records: every field, by its name; reading a missing key throws.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TimeStatsUs, min, avg, max)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankEntry, rank, host, local_rank, gpu_index, gpu_name, pci_bus_id, environment)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Versions, ncclsweep, git_sha, driver, cuda_runtime, nccl_header, nccl_library, mpi)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Straggler, rank, host, gpu_index, slower_in, measurements, median_excess)
// The engine by its name ("" for none); an unknown name is refused with the valid ones.
void to_json(nlohmann::json& j, const RunSettings& s);
void from_json(const nlohmann::json& j, RunSettings& s);
// kind and status by their names (core/setting_kind.hpp); older run.json spellings still read.
void to_json(nlohmann::json& j, const SettingOutcome& s);
void from_json(const nlohmann::json& j, SettingOutcome& s);
// Written with the names of docs/results.md; files from before the renames
// (group, group_size, comm_group, groups, per_group) still read.
void to_json(nlohmann::json& j, const SubCommunicatorTime& t);
void from_json(const nlohmann::json& j, SubCommunicatorTime& t);
void to_json(nlohmann::json& j, const WorkloadCall& c);
void from_json(const nlohmann::json& j, WorkloadCall& c);
// per_iteration may be absent (run.json before it was written): true, as those runs assumed.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkloadWeights, source, basis, calls, per_iteration)
// under_compute_ms only when measured (docs/overlap.md).
void to_json(nlohmann::json& j, const PointIterationTime& t);
void from_json(const nlohmann::json& j, PointIterationTime& t);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PointPhases, worker_start, connect, verify, measure, disconnect)
// By its name; "" (a point's status before it was typed, in older files) reads as ok.
void to_json(nlohmann::json& j, PointStatus s);
void from_json(const nlohmann::json& j, PointStatus& s);
// With defaults: run.json files from before a field existed still read.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PointOutcome, label, isolation_group, status, error, settings, init_time_us,
                                                coll_channels, transports, algorithms, phase_s, environment,
                                                unexpected_environment)

// Records (an optional wrong count) and the run (a schema version check) by hand.

void to_json(nlohmann::json& j, const UnderCompute& u);
void from_json(const nlohmann::json& j, UnderCompute& u);
// A measurement's identity by names, as --resume hands it to every rank and worker.
void to_json(nlohmann::json& j, const MeasurementKey& k);
void from_json(const nlohmann::json& j, MeasurementKey& k);
void to_json(nlohmann::json& j, const LocatePlace& p);
void from_json(const nlohmann::json& j, LocatePlace& p);
void to_json(nlohmann::json& j, const SoakPlace& p);
void from_json(const nlohmann::json& j, SoakPlace& p);
void to_json(nlohmann::json& j, const MeasurementRecord& r);
void from_json(const nlohmann::json& j, MeasurementRecord& r);
void to_json(nlohmann::json& j, const RunDocument& d);
// Throws UsageError for a document from a newer schema or with missing fields.
void from_json(const nlohmann::json& j, RunDocument& d);

}  // namespace ncclsweep
