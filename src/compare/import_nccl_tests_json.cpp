// nccl-tests' -J output (schema version 3, written by src/util.cu in nccl-tests 2.17+):
//   {"version": 3, "args": [argv...], "env": [...], "nccl_version": 22803,
//    "config": {"nthreads", "ngpus", ..., "devices": [{"rank", "hostname", "device_info"...}]},
//    "results": [{"size", "count", "type", "redop", "root": "    -1",
//                 "out_of_place": {"time", "alg_bw", "bus_bw", "nwrong"} | null,
//                 "out_of_place_per_iter": {"p50_us", "p99_us", ...}, "in_place": ..., ...}],
//    ...}
// The collective is only in argv[0] (all_gather_perf). With MPI, "devices" holds the
// first rank of each process, so ranks = devices x nthreads x ngpus.
#include <nlohmann/json.hpp>
#include <set>

#include "compare/side_readers.hpp"
#include "core/checked_number.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"

namespace ncclsweep {
namespace {

using nlohmann::json;

inline constexpr int kNcclTestsJsonVersion = 3;

std::optional<double> json_number(const json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_number()) return std::nullopt;  // null, or "nan"
  return j.at(key).get<double>();
}

// A figure of a result: absent or null is nothing measured; a negative one no nccl-tests prints.
std::optional<double> json_figure(const json& j, const char* key, const std::string& path, std::size_t result) {
  const auto value = json_number(j, key);
  if (value) checked_value(*value, 0, 1e15, path + ": results[" + std::to_string(result) + "]." + key);
  return value;
}

// The spread of one placement's per-iteration times (-I): (p95 - p50) / p50, which is
// also the relative spread of busbw to first order.
std::optional<double> per_iteration_spread(const json& result, const std::string& key) {
  if (!result.contains(key) || !result.at(key).is_object()) return std::nullopt;
  const auto p50 = json_number(result.at(key), "p50_us");
  const auto p95 = json_number(result.at(key), "p95_us");
  if (!p50 || !p95 || *p50 <= 0) return std::nullopt;
  return (*p95 - *p50) / *p50;
}

Side import(const json& doc, const std::string& path) {
  const int version = doc.at("version").get<int>();
  if (version != kNcclTestsJsonVersion) {
    throw UsageError(path + ": nccl-tests JSON schema version " + std::to_string(version) + " is not supported (this ncclsweep reads version " +
                         std::to_string(kNcclTestsJsonVersion) + ")",
                     "use nccl-tests 2.17 or later with -J, or give its text output instead");
  }
  Side side;
  SideIdentity& id = side.identity;
  id.source = SideSource::nccl_tests_json;
  id.path = path;
  const auto& args = doc.at("args");
  id.name = args.empty() ? "" : args.at(0).get<std::string>();
  const std::string collective = collective_from_program(id.name);
  if (doc.contains("nccl_version")) id.nccl_version = nccl_version_string(std::to_string(doc.at("nccl_version").get<int>()));
  // nccl-tests allocates once at maxBytes (config.maximum_bytes, else -e in argv).
  std::optional<Bytes> max_bytes;
  for (std::size_t i = 1; i + 1 < args.size(); ++i) {
    const std::string flag = args.at(i).get<std::string>();
    if (flag != "-e" && flag != "--maxbytes") continue;
    try {
      max_bytes = parse_size(args.at(i + 1).get<std::string>());
    } catch (const UsageError&) {
      // a form nccl-tests reads and we do not: the footprint stays unknown
    }
  }
  if (doc.contains("config")) {
    const json& config = doc.at("config");
    if (config.contains("maximum_bytes") && config.at("maximum_bytes").is_number()) {
      max_bytes = config.at("maximum_bytes").get<Bytes>();
    }
    const int per_process = config.value("nthreads", 1) * config.value("ngpus", 1);
    std::set<std::string> hosts, gpus;
    const json devices = config.value("devices", json::array());
    for (const json& d : devices) {
      hosts.insert(d.value("hostname", ""));
      gpus.insert(d.value("device_info", ""));
    }
    id.ranks = static_cast<int>(std::max<std::size_t>(devices.size(), 1)) * per_process;
    id.hosts = static_cast<int>(hosts.size());
    for (const auto& g : gpus) id.gpu += (id.gpu.empty() ? "" : ", ") + g;
    if (gpus.size() > 1) id.gpu = "mixed: " + id.gpu;
  }
  std::size_t index = 0;
  for (const json& r : doc.at("results")) {
    const std::size_t i = index++;
    for (const Placement place : {Placement::out_of_place, Placement::in_place}) {
      const std::string placement(name_of(place));
      if (!r.contains(placement) || !r.at(placement).is_object()) continue;  // null: not measured
      const json& p = r.at(placement);
      const auto busbw = json_figure(p, "bus_bw", path, i);
      if (!busbw) {
        side.notes.push_back("results[" + std::to_string(i) + "]." + placement + " has no bus_bw (not measured): skipped");
        continue;
      }
      std::string skipped;
      const auto key = nccl_tests_key(collective, r.at("type").get<std::string>(), r.at("redop").get<std::string>(),
                                      r.at("size").get<Bytes>(), place, skipped);
      if (!key) {
        note_skipped_row(side, skipped);
        continue;
      }
      SideRow row;
      row.key = *key;
      row.count = r.at("count").get<std::uint64_t>();
      const json& root = r.at("root");
      if (root.is_string()) {
        std::string text = root.get<std::string>();
        text.erase(0, text.find_first_not_of(' '));  // nccl-tests pads it: "    -1"
        row.root = static_cast<int>(checked_integer(text, -1, 1 << 24, path + ": results[" + std::to_string(i) + "].root"));
      } else {
        row.root = root.get<int>();
      }
      row.time_us = json_figure(p, "time", path, i).value_or(json_figure(p, "cpu_time", path, i).value_or(0));
      row.algbw_gbps = json_figure(p, "alg_bw", path, i).value_or(0);
      row.busbw_gbps = *busbw;
      if (const auto wrong = json_number(p, "nwrong")) row.wrong = static_cast<std::uint64_t>(*wrong);
      row.measured_spread = per_iteration_spread(r, placement + "_per_iter");
      if (max_bytes) {
        row.footprint_bytes = max_bytes;
        row.footprint = BufferFootprint{FootprintMode::largest, 0};
      }
      row.cache = CacheState::warm;  // nccl-tests never flushes a cache
      side.rows.push_back(row);
    }
  }
  if (side.rows.empty()) {
    throw UsageError(path + " holds no nccl-tests results", "give the -J file of a run that measured at least one size");
  }
  normalise_rows(side);
  return side;
}

}  // namespace

Side side_from_nccl_tests_json(const std::string& text, const std::string& path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw UsageError(path + " is not valid JSON (truncated?): " + e.what(), "give a complete nccl-tests -J file");
  }
  try {
    return import(doc, path);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {  // a missing key, a wrong type, a root that is no number
    throw UsageError(path + " is not nccl-tests -J output: " + e.what(), "give a complete nccl-tests -J file (schema version 3)");
  }
}

}  // namespace ncclsweep
