// NCCL Inspector plugin output: a sequence of JSON objects, one per collective per
// communicator, each {"header": {"id", "rank", "n_ranks", ...}, "metadata": {"hostname",
// "pid", ...}, "coll_perf": {"coll", "coll_msg_size_bytes", ...}}. The message size is
// per rank (count x element size), so collectives split across ranks are scaled by n_ranks.
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "core/collective.hpp"
#include "core/errors.hpp"
#include "importers/import_counter.hpp"
#include "importers/importers.hpp"
#include "importers/input_files.hpp"

namespace ncclsweep {
namespace {

using nlohmann::json;

std::int64_t field(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    throw UsageError(std::string("Inspector record without an integer '") + key + "'",
                     "pass the plugin's JSON output (not the Prometheus mode)", {where});
  }
  return it->get<std::int64_t>();
}

}  // namespace

CommProfile import_inspector(const std::string& pattern, int iterations) {
  const auto files = expand_pattern(pattern, "NCCL Inspector output");
  ImportCounter counter;
  std::map<std::string, long> skipped;
  for (const auto& file : files) {
    TextInputBuffer input(file, kJobLogInput);  // streamed: one record in memory at a time
    std::istream text(&input);
    int record = 0;
    while (text >> std::ws && text.peek() != std::char_traits<char>::eof()) {
      ++record;
      const std::string where = file + " (record " + std::to_string(record) + ")";
      json object;
      try {
        text >> object;
      } catch (const json::parse_error& e) {
        throw UsageError(std::string("not JSON (truncated?): ") + e.what(), "pass the Inspector's .log/.jsonl files", {where});
      }
      if (!object.is_object() || !object.contains("coll_perf") || !object.contains("header")) {
        throw UsageError("JSON object without 'header' and 'coll_perf'", "pass NCCL Inspector output", {where});
      }
      const auto& header = object["header"];
      const auto& perf = object["coll_perf"];
      const std::string name = perf.value("coll", "");
      const auto* kind = collective_by_nccl_name(name);
      if (kind == nullptr) {
        ++skipped[name];
        continue;
      }
      const auto ranks = static_cast<int>(field(header, "n_ranks", where));
      const auto per_rank = static_cast<Bytes>(field(perf, "coll_msg_size_bytes", where));
      const Bytes total = kind->splits_across_ranks ? per_rank * static_cast<Bytes>(ranks) : per_rank;
      std::string rank = file;
      if (object.contains("metadata") && object["metadata"].is_object()) {
        const auto& meta = object["metadata"];
        rank = meta.value("hostname", file) + ":" + std::to_string(meta.value("pid", 0));
      }
      counter.add(*kind, total, nullptr, std::nullopt, ranks, rank);
    }
  }
  if (counter.empty()) {
    throw UsageError("no Inspector collective records in " + std::to_string(files.size()) + " file(s) matching '" +
                         pattern + "'",
                     "run with NCCL_PROFILER_PLUGIN=.../libnccl-profiler-inspector.so NCCL_INSPECTOR_ENABLE=1",
                     {files.front()});
  }
  auto profile = counter.profile(pattern + " (" + std::to_string(files.size()) + " files)", "Inspector records", iterations);
  for (const auto& [name, n] : skipped) profile.notes.push_back("skipped " + std::to_string(n) + " '" + name + "' records");
  profile.notes.push_back("Inspector records name neither dtype nor operator: both left empty");
  return profile;
}

}  // namespace ncclsweep
