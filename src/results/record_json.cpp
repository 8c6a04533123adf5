#include "results/record_json.hpp"

#include "core/errors.hpp"

namespace ncclsweep {

using nlohmann::json;

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

void to_json(json& j, const RunDocument& d) {
  j = json{{"schema_version", d.schema_version},
           {"name", d.name},
           {"status", d.status},
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
  if (j.contains("fingerprint")) j.at("fingerprint").get_to(d.fingerprint);  // absent before --resume existed
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
