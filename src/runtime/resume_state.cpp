#include "runtime/resume_state.hpp"

#include <algorithm>
#include <filesystem>

#include "core/buffer_footprint.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "results/results_directory.hpp"
#include "runtime/launch.hpp"
#include "transport/rank_group.hpp"

namespace ncclsweep {

EarlierRun read_earlier_run(const std::string& dir) {
  EarlierRun earlier;
  refuse_planted_results_links(dir);
  earlier.document = read_run_document(dir);
  const std::filesystem::path records = std::filesystem::path(dir) / "records.jsonl";
  earlier.recorded = read_recorded_measurements(records);
  if (!earlier.recorded.file_exists && !earlier.document.records.empty()) {
    throw UsageError("cannot resume " + dir + ": its run.json holds " + std::to_string(earlier.document.records.size()) +
                         " records but " + records.string() + " is missing, so resuming would measure them again",
                     "restore records.jsonl, or start a new run without --resume");
  }
  return earlier;
}

std::string done_keys_text(const RecordedMeasurements& recorded) {
  if (recorded.records.empty()) return {};
  return nlohmann::json(measurement_keys(recorded.records)).dump();
}

std::set<MeasurementKey> parse_done_keys(const std::string& text) {
  if (text.empty()) return {};
  return nlohmann::json::parse(text).get<std::set<MeasurementKey>>();
}

std::set<MeasurementKey> share_done_keys(RankGroup& session, const std::string& keys_text) {
  return parse_done_keys(session.broadcast_string(keys_text));
}

std::string foreign_records_refusal(const std::string& dir, const std::vector<MeasurementRecord>& records,
                                    const LaunchRequest& request) {
  std::set<std::string> points;
  for (const WorkerGroup& group : request.groups) {
    for (const PointSpec& point : group.points) points.insert(point.label);
  }
  std::set<std::pair<const CollectiveKind*, Bytes>> calls;  // collective and size, as planned
  for (const PlannedCall& planned : request.plan.calls) calls.emplace(planned.call.kind, planned.total_bytes);
  const int repeats = std::max(request.spec.repeats, 1);
  // An empty list is the default alone; a condition a record leaves out (files from
  // before it existed) is not held against it.
  const auto listed = [](const auto& values, const auto& value) {
    return values.empty() || std::find(values.begin(), values.end(), value) != values.end();
  };
  const auto listed_if_known = [&](const auto& values, const auto& value) { return !value || listed(values, *value); };
  for (std::size_t i = 0; i < records.size(); ++i) {
    const MeasurementRecord& r = records[i];
    std::string why;
    if (!points.count(r.point)) {
      why = "point '" + r.point + "', which this sweep does not have";
    } else if (!calls.count({r.collective, r.size_bytes})) {
      why = std::string(collective_name(r)) + " at " + format_bytes(r.size_bytes) + ", which this sweep does not measure";
    } else if (r.repeat < 0 || r.repeat >= repeats) {
      why = "repeat " + std::to_string(r.repeat) + ", beyond this sweep's " + std::to_string(repeats) + " repeat(s)";
    } else if (!listed(request.spec.buffer_modes, r.buffers) || !listed(request.spec.launch_modes, r.launch) ||
               !listed_if_known(request.spec.cache_states, r.cache) ||
               !listed_if_known(request.spec.footprints, r.buffer_footprint)) {
      why = "call modes (buffers " + std::string(name_of(r.buffers)) + ", launch " + std::string(name_of(r.launch)) +
            ", footprint " + (r.buffer_footprint ? label_of(*r.buffer_footprint) : "-") + ", cache " +
            (r.cache ? std::string(name_of(*r.cache)) : "-") + ") this sweep does not list";
    }
    if (why.empty()) continue;
    return message_with_fix("cannot resume " + dir + ": records.jsonl line " + std::to_string(i + 1) + " is " +
                                std::string(collective_name(r)) + " " + format_bytes(r.size_bytes) + " of " + why +
                                ", so the directory holds another run's records",
                            "resume the sweep that made it, pass --force to keep them beside this sweep's, or start a "
                            "new directory");
  }
  return "";
}

std::vector<std::string> resume_changes(const RunDocument& earlier, const RunSettings& now,
                                        const std::vector<std::string>& rank_hosts) {
  std::vector<std::string> changes;
  const auto differ = [&changes](const std::string& what, const auto& was, const auto& is) {
    if (was != is) changes.push_back(what + " " + was + " -> " + is);
  };
  const auto number = [](auto n) { return std::to_string(n); };
  differ("ranks", number(earlier.ranks.size()), number(rank_hosts.size()));
  std::string was_hosts, now_hosts;
  for (const RankEntry& r : earlier.ranks) was_hosts += (was_hosts.empty() ? "" : ",") + r.host;
  for (const std::string& h : rank_hosts) now_hosts += (now_hosts.empty() ? "" : ",") + h;
  if (earlier.ranks.size() == rank_hosts.size()) differ("rank hosts", was_hosts, now_hosts);
  differ("engine", std::string(engine_text(earlier.settings.engine)), std::string(engine_text(now.engine)));
  differ("warmup", number(earlier.settings.warmup), number(now.warmup));
  differ("iters", number(earlier.settings.iters), number(now.iters));
  differ("check", number(int{earlier.settings.check}), number(int{now.check}));
  return changes;
}

std::string resume_refusal(const std::string& dir, const std::string& earlier_fingerprint,
                           const std::string& fingerprint, bool force, const std::vector<std::string>& changes) {
  if (force || earlier_fingerprint == fingerprint) return "";
  std::string changed;
  for (const std::string& c : changes) changed += (changed.empty() ? "" : ", ") + c;
  if (changed.empty()) changed = "the sizes, collectives, points or their settings (run.json's command_line shows the earlier flags)";
  return message_with_fix("cannot resume " + dir + ": the sweep or the rank layout changed since it was started: " +
                              changed + " (fingerprint " + earlier_fingerprint + ", now " + fingerprint + ")",
                          "resume with the same sweep, flags and ranks, or pass --force to add to it anyway, or start "
                          "a new directory");
}

}  // namespace ncclsweep
