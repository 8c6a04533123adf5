// An ncclsweep run.json as a Side.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "compare/importers.hpp"
#include "core/iteration_stats.hpp"
#include "results/conditions.hpp"

namespace ncclsweep {
namespace {

// The repeats of one row become one: the median busbw and time, and as the row's
// spread half the repeats' range over the median (so the compare verdicts and their
// noise band follow what the repeats showed).
SideRow merge_repeats(const std::vector<SideRow>& repeats) {
  SideRow row = repeats.front();
  std::vector<double> busbw, algbw, time;
  for (const SideRow& r : repeats) {
    busbw.push_back(r.busbw_gbps);
    algbw.push_back(r.algbw_gbps);
    time.push_back(r.time_us);
    if (r.wrong) row.wrong = row.wrong.value_or(0) + *r.wrong;
  }
  row.busbw_gbps = median_of(busbw);
  row.algbw_gbps = median_of(algbw);
  row.time_us = median_of(time);
  const auto [low, high] = std::minmax_element(busbw.begin(), busbw.end());
  if (row.busbw_gbps > 0) row.measured_spread = (*high - *low) / 2 / row.busbw_gbps;
  row.repeats = static_cast<int>(repeats.size());
  return row;
}

}  // namespace

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
  std::map<RowKey, std::vector<SideRow>> by_key;  // repeats of a row together
  // A run that measured more than one footprint or cache state keeps the others as rows
  // of their own (tagged like a point); a run of one keeps its rows matchable with
  // nccl-tests', and compare judges their footprints (compare/footprint_match.hpp).
  std::set<std::string> footprints;
  for (const auto& r : run.records) footprints.insert(footprint_tag(r));
  for (const auto& r : run.records) {
    SideRow row;
    // A run without a sweep has the one point "default": keep its rows comparable with
    // nccl-tests output, which has no points.
    // Other buffer or launch modes are rows of their own, tagged like a point.
    std::string variant = r.point == "default" ? "" : r.point;
    if (r.buffers != "cuda-malloc" || r.launch != "stream") {
      variant += (variant.empty() ? "" : " ") + ("buffers=" + r.buffers + " launch=" + r.launch);
    }
    if (const std::string tag = footprint_tag(r); footprints.size() > 1 && !tag.empty()) {
      variant += (variant.empty() ? "" : " ") + tag;
    }
    row.key = {r.collective, r.dtype, r.op, r.size_bytes, r.placement, variant};
    row.count = r.count;
    row.root = r.root;
    row.time_us = r.time_us.max;
    row.algbw_gbps = r.algbw_gbps;
    row.busbw_gbps = r.busbw_gbps;
    row.wrong = r.wrong;
    if (!r.buffer_footprint.empty()) {
      row.footprint_bytes = r.footprint_bytes;
      row.footprint_mode = r.buffer_footprint;
    }
    row.cache = r.cache;
    // One record's own noise: twice the relative standard error of its mean (about 95%).
    if (r.spread > 0) row.measured_spread = 2 * r.spread;
    by_key[row.key].push_back(row);
  }
  for (const auto& [key, repeats] : by_key) {
    side.rows.push_back(repeats.size() > 1 ? merge_repeats(repeats) : repeats.front());
  }
  normalise_rows(side);
  return side;
}

}  // namespace ncclsweep
