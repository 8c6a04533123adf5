// An ncclsweep run.json as a Side.
#include <set>

#include "compare/importers.hpp"

namespace ncclsweep {

Side side_from_run(const RunDocument& run, const std::string& path) {
  Side side;
  SideIdentity& id = side.identity;
  id.source = "ncclsweep run.json";
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
  if (run.status != "complete") side.notes.push_back("run status is '" + run.status + "': rows may be missing");
  for (const auto& r : run.records) {
    SideRow row;
    // A run without a sweep has the one point "default": keep its rows comparable with
    // nccl-tests output, which has no points.
    row.key = {r.collective, r.dtype, r.op, r.size_bytes, r.placement, r.point == "default" ? "" : r.point};
    row.count = r.count;
    row.root = r.root;
    row.time_us = r.time_us.max;
    row.algbw_gbps = r.algbw_gbps;
    row.busbw_gbps = r.busbw_gbps;
    row.wrong = r.wrong;
    side.rows.push_back(row);
  }
  normalise_rows(side);
  return side;
}

}  // namespace ncclsweep
