#include "results/record_json.hpp"

#include "core/checked_number.hpp"
#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "core/units.hpp"

#include <limits>
#include <utility>

namespace ncclsweep {

using nlohmann::json;

namespace {

// The ranges a field read back may hold, as its flag or the run allows: a count past
// 2^62, a negative warm-up or repeat comes from a damaged or edited file.
constexpr std::int64_t kMaxRanks = 1 << 24;
constexpr std::int64_t kMaxBytes = static_cast<std::int64_t>(kLargestSize);
constexpr std::int64_t kMaxCount = std::numeric_limits<int>::max();

// The integer field `key` of a record, checked; `fallback` when absent (older files).
template <typename T>
void record_integer(const json& j, const char* key, T& field, std::int64_t lo, std::int64_t hi) {
  get_checked(j.at(key), field, lo, hi, std::string("a record's ") + key);
}
template <typename T>
T optional_record_integer(const json& j, const char* key, T fallback, std::int64_t lo, std::int64_t hi) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  T field{};
  get_checked(*it, field, lo, hi, std::string("a record's ") + key);
  return field;
}

// A measured figure read back is finite and not negative, and so is a record's rank
// count (0 is what a record built without a launch carries): a damaged or hand-edited
// file must not be judged (a NaN busbw compares as neither slower nor faster).
void check_figures(const MeasurementRecord& r) {
  constexpr double kMax = 1e15;  // no time in us or bandwidth in GB/s comes near it
  for (const auto& [name, value] : {std::pair{"time_us.min", r.time_us.min}, {"time_us.avg", r.time_us.avg},
                                    {"time_us.max", r.time_us.max}, {"algbw_gbps", r.algbw_gbps},
                                    {"busbw_gbps", r.busbw_gbps}}) {
    checked_value(value, 0, kMax, std::string("a record's ") + name);
  }
  checked_value(r.ranks, 0, 1 << 24, "a record's ranks");
}

}  // namespace

void to_json(json& j, PointStatus s) { j = name_of(s); }

void from_json(const json& j, PointStatus& s) {
  const std::string name = j.get<std::string>();
  s = name.empty() ? PointStatus::ok : kPointStatusNames.parse(name);
}

void to_json(json& j, const SettingOutcome& s) {
  j = json{{"name", s.name}, {"value", s.value}, {"kind", name_of(s.kind)}, {"status", name_of(s.status)}};
}

void from_json(const json& j, SettingOutcome& s) {
  s.name = j.at("name").get<std::string>();
  s.value = j.at("value").get<std::string>();
  s.kind = setting_kind_named(j.at("kind").get<std::string>());
  s.status = setting_status_named(j.value("status", std::string()));
}

void to_json(json& j, const SubCommunicatorTime& t) {
  j = json{{"colour", t.colour}, {"time_us", t.time_us}, {"busbw_gbps", t.busbw_gbps}};
}

void from_json(const json& j, SubCommunicatorTime& t) {
  (j.contains("colour") ? j.at("colour") : j.at("group")).get_to(t.colour);
  j.at("time_us").get_to(t.time_us);
  j.at("busbw_gbps").get_to(t.busbw_gbps);
}

void to_json(json& j, const WorkloadCall& c) {
  j = json{{"collective", c.collective->name}, {"bytes", c.bytes}, {"dtype", c.dtype->name},
           {"communicator", name_of(c.communicator)}, {"communicator_ranks", c.communicator_ranks},
           {"calls", c.calls},               {"origin", c.origin}};
}

void from_json(const json& j, WorkloadCall& c) {
  c.collective = &collective(j.at("collective").get<std::string>());
  get_checked(j.at("bytes"), c.bytes, 0, kMaxBytes, "a workload call's bytes");
  c.dtype = &data_type(j.at("dtype").get<std::string>());
  c.communicator = kCommunicatorKindNames.parse(
      (j.contains("communicator") ? j.at("communicator") : j.at("group")).get<std::string>());
  (j.contains("communicator_ranks") ? j.at("communicator_ranks") : j.at("group_size")).get_to(c.communicator_ranks);
  j.at("calls").get_to(c.calls);
  j.at("origin").get_to(c.origin);
}

void to_json(json& j, const PointIterationTime& t) {
  j = json{{"point", t.point}, {"ms", t.ms}, {"measured", t.measured}, {"interpolated", t.interpolated}, {"missing", t.missing}};
  if (t.under_compute_ms) j["under_compute_ms"] = *t.under_compute_ms;
}

void from_json(const json& j, PointIterationTime& t) {
  j.at("point").get_to(t.point);
  j.at("ms").get_to(t.ms);
  j.at("measured").get_to(t.measured);
  j.at("interpolated").get_to(t.interpolated);
  j.at("missing").get_to(t.missing);
  if (const auto it = j.find("under_compute_ms"); it != j.end() && !it->is_null()) t.under_compute_ms = it->get<double>();
}

namespace {

json throttle_json(const std::vector<ThrottleReason>& reasons) {
  json names = json::array();
  for (const ThrottleReason reason : reasons) names.push_back(name_of(reason));
  return names;
}

json clocks_json(const MeasurementClocks& c) {
  return json{{"sm_mhz", {c.sm_mhz_before, c.sm_mhz_after}}, {"mem_mhz", {c.mem_mhz_before, c.mem_mhz_after}},
              {"throttle", throttle_json(c.throttle)}};
}

MeasurementClocks clocks_from(const json& j) {
  MeasurementClocks c;
  const auto sm = j.at("sm_mhz").get<std::vector<int>>(), mem = j.at("mem_mhz").get<std::vector<int>>();
  if (sm.size() != 2 || mem.size() != 2) throw json::other_error::create(501, "clocks need [before, after]", &j);
  c.sm_mhz_before = sm[0];
  c.sm_mhz_after = sm[1];
  c.mem_mhz_before = mem[0];
  c.mem_mhz_after = mem[1];
  for (const std::string& name : j.at("throttle").get<std::vector<std::string>>()) {
    c.throttle.push_back(kThrottleReasonNames.parse(name));
  }
  return c;
}

}  // namespace

void to_json(json& j, const UnderCompute& u) {
  j = json{{"compute", to_text(u.load)},
           {"site", std::string(name_of(u.site))},
           {"rounds", u.rounds},
           {"calls", u.calls},
           {"comm_alone_us", u.comm_alone_us},
           {"comm_under_us", u.comm_under_us},
           {"comm_slowdown", u.comm_slowdown()},
           {"busbw_alone_gbps", u.busbw_alone_gbps},
           {"busbw_under_gbps", u.busbw_under_gbps},
           {"compute_alone_us", u.compute_alone_us},
           {"compute_under_us", u.compute_under_us},
           {"compute_slowdown", u.compute_slowdown()},
           {"tflops_alone", u.tflops_alone},
           {"tflops_under", u.tflops_under},
           {"compute_ops_under", u.compute_ops_under},
           {"overlapped_wall_us", u.overlapped_wall_us},
           {"serial_sum_us", u.serial_sum_us},
           {"exposed_us", u.exposed_us()}};
  if (u.plain_loop_tflops > 0) j["plain_loop_tflops"] = u.plain_loop_tflops;
  if (u.clocks) j["clocks"] = clocks_json(*u.clocks);
}

// The derived figures (slowdowns, exposed time) are written for readers of the file and
// recomputed from the times here, so they cannot disagree with them.
void from_json(const json& j, UnderCompute& u) {
  u.load = parse_compute_load(j.at("compute").get<std::string>(), "run.json under_compute.compute");
  u.site = kComputeSiteNames.parse(j.at("site").get<std::string>());
  j.at("rounds").get_to(u.rounds);
  j.at("calls").get_to(u.calls);
  j.at("comm_alone_us").get_to(u.comm_alone_us);
  j.at("comm_under_us").get_to(u.comm_under_us);
  j.at("busbw_alone_gbps").get_to(u.busbw_alone_gbps);
  j.at("busbw_under_gbps").get_to(u.busbw_under_gbps);
  j.at("compute_alone_us").get_to(u.compute_alone_us);
  j.at("compute_under_us").get_to(u.compute_under_us);
  j.at("tflops_alone").get_to(u.tflops_alone);
  j.at("tflops_under").get_to(u.tflops_under);
  j.at("compute_ops_under").get_to(u.compute_ops_under);
  j.at("overlapped_wall_us").get_to(u.overlapped_wall_us);
  j.at("serial_sum_us").get_to(u.serial_sum_us);
  u.plain_loop_tflops = j.value("plain_loop_tflops", 0.0);
  if (const auto it = j.find("clocks"); it != j.end() && !it->is_null()) u.clocks = clocks_from(*it);
}

void to_json(json& j, const MeasurementKey& k) {
  j = json{{"collective", k.collective->name},
           {"dtype", k.dtype->name},
           {"op", op_name(k)},
           {"root", k.root},
           {"communicator", name_of(k.communicator.kind)},
           {"communicator_ranks", k.communicator.ranks},
           {"buffers", name_of(k.buffers)},
           {"launch", name_of(k.launch)},
           {"buffer_footprint", label_of(k.footprint)},
           {"cache", name_of(k.cache)},
           {"compute", k.compute ? json(to_text(*k.compute)) : json(nullptr)},
           {"placement", name_of(k.placement)},
           {"point", k.point},
           {"size_bytes", k.size_bytes},
           {"requested_bytes", k.requested_bytes},
           {"repeat", k.repeat}};
}

void from_json(const json& j, MeasurementKey& k) {
  k.collective = &collective(j.at("collective").get<std::string>());
  k.dtype = &data_type(j.at("dtype").get<std::string>());
  k.op = op_from_name(j.at("op").get<std::string>());
  j.at("root").get_to(k.root);
  k.communicator = {kCommunicatorKindNames.parse(j.at("communicator").get<std::string>()),
                    j.at("communicator_ranks").get<int>()};
  k.buffers = kBufferModeNames.parse(j.at("buffers").get<std::string>());
  k.launch = kLaunchModeNames.parse(j.at("launch").get<std::string>());
  k.footprint = parse_footprint(j.at("buffer_footprint").get<std::string>());
  k.cache = kCacheStateNames.parse(j.at("cache").get<std::string>());
  k.compute = j.at("compute").is_null() ? std::nullopt
                                        : std::optional<ComputeLoad>(parse_compute_load(j.at("compute").get<std::string>(), "a resume key"));
  k.placement = kPlacementNames.parse(j.at("placement").get<std::string>());
  j.at("point").get_to(k.point);
  j.at("size_bytes").get_to(k.size_bytes);
  j.at("requested_bytes").get_to(k.requested_bytes);
  j.at("repeat").get_to(k.repeat);
}

void to_json(json& j, const LocatePlace& p) {
  j = {{"phase", name_of(p.phase)}, {"round", p.round}, {"hosts", p.hosts}, {"group", p.group}, {"pass", p.pass}};
  j["rail"] = p.rail >= 0 ? json(p.rail) : json(nullptr);
}

void from_json(const json& j, LocatePlace& p) {
  p.phase = kLocatePhaseNames.parse(j.at("phase").get<std::string>());
  record_integer(j, "round", p.round, 0, kMaxCount);
  j.at("hosts").get_to(p.hosts);
  j.at("group").get_to(p.group);
  record_integer(j, "pass", p.pass, 1, kMaxCount);
  p.rail = j.at("rail").is_null() ? -1 : static_cast<int>(checked_json_integer(j.at("rail"), 0, kMaxRanks, "a record's rail"));
}

void to_json(json& j, const SoakPlace& p) {
  j = {{"scope", name_of(p.scope)}};
  if (p.scope != SoakScope::world) j["host"] = p.host;
  if (p.scope == SoakScope::pair) j["peer"] = p.peer;
}

void from_json(const json& j, SoakPlace& p) {
  p.scope = kSoakScopeNames.parse(j.at("scope").get<std::string>());
  if (p.scope != SoakScope::world) record_integer(j, "host", p.host, 0, kMaxRanks);
  if (p.scope == SoakScope::pair) record_integer(j, "peer", p.peer, 0, kMaxRanks);
}

void to_json(json& j, const MeasurementRecord& r) {
  j = json{{"collective", collective_name(r)},
           {"dtype", dtype_name(r)},
           {"op", op_name(r)},
           {"root", r.root},
           {"size_bytes", r.size_bytes},
           {"requested_bytes", r.requested_bytes},
           {"count", r.count},
           {"placement", name_of(r.placement)},
           {"ranks", r.ranks},
           {"warmup", r.warmup},
           {"iters", r.iters},
           {"time_us", r.time_us},
           {"host_time_us", r.host_time_us},
           {"algbw_gbps", r.algbw_gbps},
           {"busbw_gbps", r.busbw_gbps},
           {"wrong", r.wrong ? json(*r.wrong) : json(nullptr)},
           {"point", r.point},
           {"repeat", r.repeat},
           {"iteration_us", r.iteration_us ? json{{"p50", r.iteration_us->p50},
                                                  {"p90", r.iteration_us->p90},
                                                  {"p99", r.iteration_us->p99},
                                                  {"min", r.iteration_us->min},
                                                  {"max", r.iteration_us->max}}
                                            : json(nullptr)},
           {"slowest_rank", r.slowest_rank},
           {"slowest_rank_iterations", r.slowest_rank_iterations},
           {"spread", r.spread},
           {"stopped_by", r.stopped_by ? name_of(*r.stopped_by) : std::string_view()},
           {"calls_per_sample", r.calls_per_sample},
           {"rank_time_us", r.rank_time_us}};
  // Default modes and absent clocks are left out, so records of plain runs stay as they were.
  if (r.buffers != BufferMode::cuda_malloc) j["buffers"] = name_of(r.buffers);
  if (r.launch != LaunchMode::stream) j["launch"] = name_of(r.launch);
  // Always written (when known): the footprint and cache state change the number.
  if (r.buffer_footprint) {
    j["buffer_footprint"] = label_of(*r.buffer_footprint);
    j["footprint_bytes"] = r.footprint_bytes;
    j["footprint_offsets"] = r.footprint_offsets;
  }
  if (r.cache) j["cache"] = name_of(*r.cache);
  if (r.clocks) j["clocks"] = clocks_json(*r.clocks);
  if (r.under_compute) j["under_compute"] = *r.under_compute;
  if (r.communicator != CommunicatorKind::world) {  // world records stay as they were
    j["communicator"] = name_of(r.communicator);
    j["communicators"] = r.communicators;
    j["per_communicator"] = r.per_communicator;
  }
  if (r.locate) j["locate"] = *r.locate;
  if (r.soak) j["soak"] = *r.soak;
}

void from_json(const json& j, MeasurementRecord& r) {
  // Unknown names are refused here, listing the valid ones: nothing past the file reads a name.
  r.collective = &collective(j.at("collective").get<std::string>());
  r.dtype = &data_type(j.at("dtype").get<std::string>());
  r.op = op_from_name(j.at("op").get<std::string>());
  record_integer(j, "root", r.root, -1, kMaxRanks);
  record_integer(j, "size_bytes", r.size_bytes, 0, kMaxBytes);
  record_integer(j, "requested_bytes", r.requested_bytes, 0, kMaxBytes);
  record_integer(j, "count", r.count, 0, kMaxBytes);
  r.placement = kPlacementNames.parse(j.at("placement").get<std::string>());
  record_integer(j, "ranks", r.ranks, 0, kMaxRanks);
  record_integer(j, "warmup", r.warmup, 0, kMaxCount);
  record_integer(j, "iters", r.iters, 0, kMaxCount);
  j.at("time_us").get_to(r.time_us);
  // Files from before the host clock was recorded: the device time is all there is.
  r.host_time_us = j.contains("host_time_us") ? j.at("host_time_us").get<TimeStatsUs>() : r.time_us;
  j.at("algbw_gbps").get_to(r.algbw_gbps);
  j.at("busbw_gbps").get_to(r.busbw_gbps);
  check_figures(r);
  const json& wrong = j.at("wrong");
  if (!wrong.is_null()) r.wrong = static_cast<std::uint64_t>(checked_json_integer(wrong, 0, kMaxBytes, "a record's wrong"));
  if (j.contains("point")) j.at("point").get_to(r.point);  // absent before sweep points were named
  if (j.contains("communicator")) {
    r.communicator = kCommunicatorKindNames.parse(j.at("communicator").get<std::string>());
    record_integer(j, "communicators", r.communicators, 1, kMaxRanks);
    j.at("per_communicator").get_to(r.per_communicator);
  } else if (j.contains("comm_group")) {  // written before the split was named so
    r.communicator = kCommunicatorKindNames.parse(j.at("comm_group").get<std::string>());
    record_integer(j, "groups", r.communicators, 1, kMaxRanks);
    j.at("per_communicator").get_to(r.per_communicator);
  }
  // Fields added with per-iteration timing: absent in older run.json files.
  r.repeat = optional_record_integer(j, "repeat", 0, 0, kMaxCount);
  if (const auto it = j.find("iteration_us"); it != j.end() && !it->is_null()) {
    IterationPercentilesUs p;
    it->at("p50").get_to(p.p50);
    it->at("p90").get_to(p.p90);
    it->at("p99").get_to(p.p99);
    it->at("min").get_to(p.min);
    it->at("max").get_to(p.max);
    r.iteration_us = p;
  }
  r.slowest_rank = optional_record_integer(j, "slowest_rank", -1, -1, kMaxRanks);
  r.slowest_rank_iterations = optional_record_integer(j, "slowest_rank_iterations", 0, 0, kMaxCount);
  r.spread = j.value("spread", 0.0);
  if (const std::string stopped = j.value("stopped_by", std::string()); !stopped.empty()) {
    r.stopped_by = kStopReasonNames.parse(stopped);
  }
  r.calls_per_sample = optional_record_integer(j, "calls_per_sample", 1, 1, kMaxCount);
  r.rank_time_us = j.value("rank_time_us", std::vector<double>());
  if (const auto it = j.find("buffers"); it != j.end()) r.buffers = kBufferModeNames.parse(it->get<std::string>());
  if (const auto it = j.find("launch"); it != j.end()) r.launch = kLaunchModeNames.parse(it->get<std::string>());
  // Absent in files from before the footprint was recorded: unknown, not a default.
  if (const std::string footprint = j.value("buffer_footprint", std::string()); !footprint.empty()) {
    r.buffer_footprint = parse_footprint(footprint);
  }
  r.footprint_bytes = optional_record_integer(j, "footprint_bytes", Bytes{0}, 0, kMaxBytes);
  r.footprint_offsets = optional_record_integer(j, "footprint_offsets", std::uint64_t{0}, 0, kMaxBytes);
  if (const std::string cache = j.value("cache", std::string()); !cache.empty()) r.cache = kCacheStateNames.parse(cache);
  if (const auto it = j.find("clocks"); it != j.end() && !it->is_null()) r.clocks = clocks_from(*it);
  if (const auto it = j.find("under_compute"); it != j.end() && !it->is_null()) r.under_compute = it->get<UnderCompute>();
  if (const auto it = j.find("locate"); it != j.end()) r.locate = it->get<LocatePlace>();
  if (const auto it = j.find("soak"); it != j.end()) r.soak = it->get<SoakPlace>();
}

void to_json(json& j, const RunSettings& s) {
  j = {{"engine", s.engine ? std::string(name_of(*s.engine)) : std::string()},
       {"warmup", s.warmup},
       {"iters", s.iters},
       {"check", s.check}};
}

void from_json(const json& j, RunSettings& s) {
  const std::string engine = j.at("engine").get<std::string>();
  s.engine = engine.empty() ? std::nullopt : std::optional(kEngineNames.parse(engine));
  get_checked(j.at("warmup"), s.warmup, 0, kMaxCount, "run.json settings.warmup");
  get_checked(j.at("iters"), s.iters, 0, kMaxCount, "run.json settings.iters");
  j.at("check").get_to(s.check);
}

void to_json(json& j, const RunDocument& d) {
  j = json{{"schema_version", d.schema_version},
           {"name", d.name},
           {"status", name_of(d.status)},
           {"fingerprint", d.fingerprint},
           {"command_line", d.command_line},
           {"start_time", d.start_time},
           {"end_time", d.end_time},
           {"versions", d.versions},
           {"settings", d.settings},
           {"hosts", d.hosts},
           {"ranks", d.ranks},
           {"notes", d.notes},
           {"points", d.points},
           {"preflight", d.preflight},
           {"records", d.records},
           {"stragglers", d.stragglers}};
  if (!d.baseline.empty()) j["baseline"] = d.baseline;
  if (d.workload) {
    j["workload"] = *d.workload;
    j["iteration_times"] = d.iteration_times;
  }
}

void from_json(const json& j, RunDocument& d) {
  const int version = j.at("schema_version").get<int>();
  if (version > kResultsSchemaVersion) {
    throw UsageError("results schema version " + std::to_string(version) + " is newer than this ncclsweep reads (" +
                         std::to_string(kResultsSchemaVersion) + ")",
                     "use a newer ncclsweep to read it");
  }
  d.schema_version = version;
  j.at("name").get_to(d.name);
  d.status = kRunStatusNames.parse(j.at("status").get<std::string>());
  if (j.contains("fingerprint")) j.at("fingerprint").get_to(d.fingerprint);  // absent before --resume existed
  j.at("command_line").get_to(d.command_line);
  j.at("start_time").get_to(d.start_time);
  j.at("end_time").get_to(d.end_time);
  j.at("versions").get_to(d.versions);
  j.at("settings").get_to(d.settings);
  j.at("hosts").get_to(d.hosts);
  j.at("ranks").get_to(d.ranks);
  j.at("notes").get_to(d.notes);
  if (j.contains("points")) j.at("points").get_to(d.points);  // absent before sweep points were recorded
  if (j.contains("preflight")) j.at("preflight").get_to(d.preflight);  // absent before preflight existed
  j.at("records").get_to(d.records);
  if (j.contains("baseline")) j.at("baseline").get_to(d.baseline);
  if (j.contains("workload")) {
    d.workload = j.at("workload").get<WorkloadWeights>();
    j.at("iteration_times").get_to(d.iteration_times);
  }
  if (j.contains("stragglers")) j.at("stragglers").get_to(d.stragglers);  // absent in older run.json files
}

}  // namespace ncclsweep
