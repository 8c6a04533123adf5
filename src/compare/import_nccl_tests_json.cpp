// nccl-tests' -J output, schema versions 1 to 3 (written by src/util.cu since nccl-tests
// 2.17; 2 added the -I percentiles, 3 their skipped_iterations):
//   {"version": 3, "args": [argv...], "env": [...], "nccl_version": 22803,
//    "config": {"nthreads", "ngpus", ..., "devices": [{"rank", "hostname", "device_info"...}]},
//    "results": [{"size", "count", "type", "redop", "root": "    -1",
//                 "out_of_place": {"time", "alg_bw", "bus_bw", "nwrong"} | null,
//                 "out_of_place_per_iter": {"p50_us", "p99_us", ...}, "in_place": ..., ...}],
//    ...}
// The collective is in argv[0] (all_gather_perf); where that names no nccl-tests program,
// the file name and the results' columns decide as for the text output. With MPI,
// "devices" holds the first rank of each process, so ranks = devices x nthreads x ngpus.
#include <nlohmann/json.hpp>
#include <set>

#include "compare/nccl_tests_collective.hpp"
#include "compare/side_readers.hpp"
#include "core/checked_number.hpp"
#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "core/units.hpp"

namespace ncclsweep {
namespace {

using nlohmann::json;

inline constexpr int kNewestNcclTestsJsonVersion = 3;

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

// nccl-tests writes the root as padded text ("    -1"); a number is read too.
std::int64_t root_of(const json& root, const std::string& path, std::size_t result) {
  if (!root.is_string()) return root.get<int>();
  std::string text = root.get<std::string>();
  text.erase(0, text.find_first_not_of(' '));
  return checked_integer(text, -1, 1 << 24, path + ": results[" + std::to_string(result) + "].root");
}

// A JSON figure as the text nccl-tests' "%lf" stands for: the shortest that reads back.
std::string json_text(double value) {
  std::string text = json(value).dump();
  if (text.find('.') != std::string::npos && text.find('e') == std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

Side import(const json& doc, const std::string& path) {
  const json& version_field = doc.at("version");
  if (!version_field.is_number_integer() || version_field.get<std::int64_t>() < 1) {
    throw UsageError(path + ": 'version' is " + version_field.dump() + ", not an nccl-tests -J schema version (1 to " +
                         std::to_string(kNewestNcclTestsJsonVersion) + ")",
                     "give the file nccl-tests wrote with -J, unmodified");
  }
  const std::int64_t version = version_field.get<std::int64_t>();
  if (version > kNewestNcclTestsJsonVersion) {
    throw UsageError(path + ": nccl-tests JSON schema version " + std::to_string(version) + " is newer than this ncclsweep reads (1 to " +
                         std::to_string(kNewestNcclTestsJsonVersion) + ")",
                     "update ncclsweep, or give the test's text output instead");
  }
  // nccl-tests writes out_of_bounds and the average when the test completes; a run that
  // failed closes the file's open objects without them.
  if (!doc.contains("out_of_bounds") && !doc.contains("average_bus_bandwidth") && !doc.contains("average_bus_bandwidith")) {
    throw UsageError(path + ": the test never finished: no 'out_of_bounds' or 'average_bus_bandwidth' (nccl-tests writes "
                            "them when a test completes)",
                     "give the -J file of a run that completed (rerun the test)");
  }
  Side side;
  SideIdentity& id = side.identity;
  id.source = SideSource::nccl_tests_json;
  id.path = path;
  const auto& args = doc.at("args");
  id.name = args.empty() ? "" : args.at(0).get<std::string>();
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
    std::set<std::int64_t> groups;  // split communicators (NCCL_TESTS_SPLIT): busbw is of one
    const json devices = config.value("devices", json::array());
    for (const json& d : devices) {
      hosts.insert(d.value("hostname", ""));
      gpus.insert(d.value("device_info", ""));
      if (d.contains("group") && d.at("group").is_number_integer()) groups.insert(d.at("group").get<std::int64_t>());
    }
    id.ranks = static_cast<int>(std::max<std::size_t>(devices.size(), 1)) * per_process;
    id.ranks = split_communicator_ranks(side, id.ranks, groups.size(), "the test", SourcePosition{path});
    id.hosts = static_cast<int>(hosts.size());
    for (const auto& g : gpus) id.gpu += (id.gpu.empty() ? "" : ", ") + g;
    if (gpus.size() > 1) id.gpu = "mixed: " + id.gpu;
  }
  // -G (config.graph above 0) and -z 1 (blocking_collectives "true") are ncclsweep's graph
  // and blocking launches.
  LaunchMode launch = LaunchMode::stream;
  if (doc.contains("config")) {
    const json& config = doc.at("config");
    const json blocking = config.value("blocking_collectives", json());
    if (config.contains("graph") && config.at("graph").is_number_integer() && config.at("graph").get<std::int64_t>() > 0) {
      launch = LaunchMode::graph;
    } else if (blocking == json("true") || blocking == json(true)) {
      launch = LaunchMode::blocking;
    }
  }
  // The results' columns, for the collective when argv[0] does not name it.
  TableEvidence evidence;
  std::size_t evidence_index = 0;
  for (const json& r : doc.at("results")) {
    const std::size_t i = evidence_index++;
    const std::string type = r.at("type").get<std::string>();
    const DataType* dtype = nccl_tests_dtype(type);
    // Where both placements were measured, which were checked (nwrong null: not).
    const auto measured = [&](const char* placement) {
      return r.contains(placement) && r.at(placement).is_object() && json_number(r.at(placement), "bus_bw");
    };
    const auto wrong_text = [&](const char* placement) { return json_number(r.at(placement), "nwrong") ? "0" : "N/A"; };
    if (measured("out_of_place") && measured("in_place")) evidence.add_checks(wrong_text("out_of_place"), wrong_text("in_place"));
    for (const char* placement : {"out_of_place", "in_place"}) {
      if (!r.contains(placement) || !r.at(placement).is_object()) continue;
      const auto algbw = json_number(r.at(placement), "alg_bw");
      const auto busbw = json_number(r.at(placement), "bus_bw");
      if (!algbw || !busbw) continue;
      evidence.add_row(r.at("size").get<Bytes>(), r.at("count").get<std::uint64_t>(), dtype ? dtype->bytes : 0,
                       r.at("redop").get<std::string>(), root_of(r.at("root"), path, i), json_text(*algbw), json_text(*busbw));
      break;
    }
  }
  const TestCollective named =
      collective_of_test(id.name.empty() ? std::vector<std::string>{} : programs_named_in(id.name), path, evidence, id.ranks, 0,
                         "its args[0] ('" + id.name + "') names no nccl-tests program");
  if (!named.note.empty()) side.notes.push_back(named.note);
  const std::string& collective = named.collective;
  PrintedAverage average;
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
        average.every_row_kept = false;
        continue;
      }
      SideRow row;
      row.key = *key;
      row.key.variant.launch = launch;
      row.count = r.at("count").get<std::uint64_t>();
      row.root = static_cast<int>(root_of(r.at("root"), path, i));
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
      average.rows.push_back(*key);
    }
  }
  // The test's own average (the key was misspelt "bandwidith" before nccl-tests 2.17.9).
  for (const auto& [object, field] : {std::pair{"average_bus_bandwidth", "bandwidth"}, std::pair{"average_bus_bandwidith", "bandwidith"}}) {
    if (!doc.contains(object) || !doc.at(object).is_object()) continue;
    const auto value = json_number(doc.at(object), field);
    if (!value || average.rows.empty()) continue;
    average.text = json_text(*value);
    std::sort(average.rows.begin(), average.rows.end());
    side.printed_averages.push_back(average);
    break;
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
    doc = parse_json_input(text, {path}, max_json_values(kResultsFileInput));
  } catch (const json::parse_error& e) {
    throw UsageError(path + " is not valid JSON (truncated?): " + e.what(), "give a complete nccl-tests -J file");
  }
  try {
    return import(doc, path);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {  // a missing key, a wrong type, a root that is no number
    throw UsageError(path + " is not nccl-tests -J output: " + e.what(), "give a complete nccl-tests -J file (schema version 1 to 3)");
  }
}

}  // namespace ncclsweep
