// An ncclsweep run.json as a Side.
#include <set>
#include <string>

#include "compare/side_readers.hpp"
#include "results/repeats.hpp"

namespace ncclsweep {

Side side_from_run(const RunDocument& run, const std::string& path) {
  Side side;
  SideIdentity& id = side.identity;
  id.source = SideSource::ncclsweep_run;
  id.path = path;
  id.name = run.name;
  id.ranks = static_cast<int>(run.ranks.size());
  id.hosts = static_cast<int>(run.hosts.size());
  std::set<std::string> gpus;
  for (const auto& r : run.ranks) gpus.insert(r.gpu_name);
  for (const auto& g : gpus) id.gpu += (id.gpu.empty() ? "" : ", ") + g;
  if (gpus.size() > 1) id.gpu = "mixed: " + id.gpu;
  id.nccl_version = run.versions.nccl_library;
  id.cuda_version = run.versions.cuda_runtime;
  id.engine = run.settings.engine;
  side.notes = run.notes;
  side.workload = run.workload;
  if (run.status != RunStatus::complete) {
    side.notes.push_back("run status is '" + std::string(name_of(run.status)) + "': rows may be missing");
  }
  // A run that measured more than one footprint or cache state keeps the others as rows
  // of their own (tagged like a point); a run of one keeps its rows matchable with
  // nccl-tests', and compare judges their footprints (compare/footprint_match.hpp).
  const std::vector<RepeatedMeasurement> measurements = aggregate_repeats(run.records);
  std::set<std::string> footprints;
  for (const RepeatedMeasurement& m : measurements) footprints.insert(footprint_text(m.key));
  // Repeats are folded once (results/repeats.hpp): a row is the median over them.
  for (const RepeatedMeasurement& m : measurements) {
    const MeasurementKey& k = m.key;
    const MeasurementRecord& r = m.first;
    // A run without a sweep has the one point "default": keep its rows comparable with
    // nccl-tests output, which has no points. Sub-communicators, other buffer or launch
    // modes and a compute load make rows of their own.
    RowVariant variant{k.point == "default" ? "" : k.point,
                       k.communicator.is_world() ? std::nullopt : std::optional(k.communicator),
                       k.buffers,
                       k.launch,
                       std::nullopt,
                       k.compute};
    if (footprints.size() > 1 && !footprint_text(k).empty()) variant.conditions = RowVariant::Conditions{k.footprint, k.cache};
    SideRow row;
    row.key = {r.collective, r.dtype, r.op, k.size_bytes, k.placement, variant};
    row.count = r.count;
    row.root = k.root;
    row.time_us = m.time_us.median;
    row.algbw_gbps = m.algbw_gbps.median;
    row.busbw_gbps = m.busbw_gbps.median;
    row.wrong = m.wrong;
    row.repeats = m.busbw_gbps.count;
    if (r.buffer_footprint) {
      row.footprint_bytes = r.footprint_bytes;
      row.footprint = r.buffer_footprint;
    }
    row.cache = r.cache;
    row.measurement = k;
    if (m.busbw_gbps.count > 1) {
      // Half the repeats' range: the compare verdicts and their noise band follow what
      // the repeats showed.
      if (m.busbw_gbps.median > 0) row.measured_spread = m.busbw_gbps.spread / 2;
    } else if (r.spread > 0) {
      // One record's own noise: twice the relative standard error of its mean (about 95%).
      row.measured_spread = 2 * r.spread;
    }
    side.rows.push_back(row);
  }
  normalise_rows(side);
  return side;
}

}  // namespace ncclsweep
