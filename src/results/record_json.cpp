#include "results/record_json.hpp"

#include "core/errors.hpp"

namespace ncclsweep {

using nlohmann::json;

void to_json(json& j, const TimeStatsUs& t) { j = json{{"min", t.min}, {"avg", t.avg}, {"max", t.max}}; }
void from_json(const json& j, TimeStatsUs& t) {
  j.at("min").get_to(t.min);
  j.at("avg").get_to(t.avg);
  j.at("max").get_to(t.max);
}

void to_json(json& j, const MeasurementRecord& r) {
  j = json{{"collective", r.collective},
           {"dtype", r.dtype},
           {"op", r.op},
           {"root", r.root},
           {"size_bytes", r.size_bytes},
           {"requested_bytes", r.requested_bytes},
           {"count", r.count},
           {"placement", r.placement},
           {"ranks", r.ranks},
           {"warmup", r.warmup},
           {"iters", r.iters},
           {"time_us", r.time_us},
           {"host_time_us", r.host_time_us},
           {"algbw_gbps", r.algbw_gbps},
           {"busbw_gbps", r.busbw_gbps},
           {"wrong", r.wrong ? json(*r.wrong) : json(nullptr)},
           {"point", r.point}};
}

void from_json(const json& j, MeasurementRecord& r) {
  j.at("collective").get_to(r.collective);
  j.at("dtype").get_to(r.dtype);
  j.at("op").get_to(r.op);
  j.at("root").get_to(r.root);
  j.at("size_bytes").get_to(r.size_bytes);
  j.at("requested_bytes").get_to(r.requested_bytes);
  j.at("count").get_to(r.count);
  j.at("placement").get_to(r.placement);
  j.at("ranks").get_to(r.ranks);
  j.at("warmup").get_to(r.warmup);
  j.at("iters").get_to(r.iters);
  j.at("time_us").get_to(r.time_us);
  j.at("host_time_us").get_to(r.host_time_us);
  j.at("algbw_gbps").get_to(r.algbw_gbps);
  j.at("busbw_gbps").get_to(r.busbw_gbps);
  const json& wrong = j.at("wrong");
  r.wrong = wrong.is_null() ? std::nullopt : std::optional<std::uint64_t>(wrong.get<std::uint64_t>());
  j.at("point").get_to(r.point);
}

void to_json(json& j, const RankEntry& r) {
  j = json{{"rank", r.rank},           {"host", r.host},         {"local_rank", r.local_rank},
           {"gpu_index", r.gpu_index}, {"gpu_name", r.gpu_name}, {"pci_bus_id", r.pci_bus_id},
           {"environment", r.environment}};
}
void from_json(const json& j, RankEntry& r) {
  j.at("rank").get_to(r.rank);
  j.at("host").get_to(r.host);
  j.at("local_rank").get_to(r.local_rank);
  j.at("gpu_index").get_to(r.gpu_index);
  j.at("gpu_name").get_to(r.gpu_name);
  j.at("pci_bus_id").get_to(r.pci_bus_id);
  j.at("environment").get_to(r.environment);
}

void to_json(json& j, const Versions& v) {
  j = json{{"ncclsweep", v.ncclsweep},       {"git_sha", v.git_sha},         {"driver", v.driver},
           {"cuda_runtime", v.cuda_runtime}, {"nccl_header", v.nccl_header}, {"nccl_library", v.nccl_library},
           {"mpi", v.mpi}};
}
void from_json(const json& j, Versions& v) {
  j.at("ncclsweep").get_to(v.ncclsweep);
  j.at("git_sha").get_to(v.git_sha);
  j.at("driver").get_to(v.driver);
  j.at("cuda_runtime").get_to(v.cuda_runtime);
  j.at("nccl_header").get_to(v.nccl_header);
  j.at("nccl_library").get_to(v.nccl_library);
  j.at("mpi").get_to(v.mpi);
}

void to_json(json& j, const RunSettings& s) {
  j = json{{"engine", s.engine}, {"warmup", s.warmup}, {"iters", s.iters}, {"check", s.check}};
}
void from_json(const json& j, RunSettings& s) {
  j.at("engine").get_to(s.engine);
  j.at("warmup").get_to(s.warmup);
  j.at("iters").get_to(s.iters);
  j.at("check").get_to(s.check);
}

void to_json(json& j, const SettingOutcome& s) {
  j = json{{"name", s.name}, {"value", s.value}, {"kind", s.kind}, {"status", s.status}};
}
void from_json(const json& j, SettingOutcome& s) {
  j.at("name").get_to(s.name);
  j.at("value").get_to(s.value);
  j.at("kind").get_to(s.kind);
  j.at("status").get_to(s.status);
}

void to_json(json& j, const PointOutcome& p) {
  j = json{{"label", p.label},   {"group", p.group},          {"status", p.status},
           {"error", p.error},   {"settings", p.settings},    {"init_time_us", p.init_time_us},
           {"coll_channels", p.coll_channels}, {"transports", p.transports}};
}
void from_json(const json& j, PointOutcome& p) {
  j.at("label").get_to(p.label);
  j.at("group").get_to(p.group);
  j.at("status").get_to(p.status);
  j.at("error").get_to(p.error);
  j.at("settings").get_to(p.settings);
  j.at("init_time_us").get_to(p.init_time_us);
  j.at("coll_channels").get_to(p.coll_channels);
  j.at("transports").get_to(p.transports);
}

void to_json(json& j, const RunDocument& d) {
  j = json{{"schema_version", d.schema_version},
           {"name", d.name},
           {"status", d.status},
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
           {"records", d.records}};
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
  j.at("status").get_to(d.status);
  j.at("command_line").get_to(d.command_line);
  j.at("start_time").get_to(d.start_time);
  j.at("end_time").get_to(d.end_time);
  j.at("versions").get_to(d.versions);
  j.at("settings").get_to(d.settings);
  j.at("hosts").get_to(d.hosts);
  j.at("ranks").get_to(d.ranks);
  j.at("notes").get_to(d.notes);
  j.at("points").get_to(d.points);
  if (j.contains("preflight")) j.at("preflight").get_to(d.preflight);  // absent before preflight existed
  j.at("records").get_to(d.records);
}

}  // namespace ncclsweep
