#include "results/resume.hpp"

#include <cstdio>
#include <map>
#include <utility>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "results/json_lines.hpp"
#include "results/measurement_key.hpp"
#include "results/record_json.hpp"

namespace ncclsweep {

std::set<MeasurementKey> measurement_keys(const std::vector<MeasurementRecord>& records) {
  std::set<MeasurementKey> keys;
  for (const auto& r : records) keys.insert(key_of(r));
  return keys;
}

RecordedMeasurements read_recorded_measurements(const std::filesystem::path& records_file) {
  RecordedMeasurements found;
  if (!input_path_exists(records_file.string())) return found;  // checked against run.json by the caller
  found.file_exists = true;
  const std::string path = records_file.string();
  const JsonLines read = read_json_lines(read_input_file(path, kResultsFileInput), path, [&](int line, const std::string& why) {
    return UsageError(path + " line " + std::to_string(line) + " is not a measurement record: " + why,
                      "repair or remove that line, or start a new run without --resume");
  });
  std::map<MeasurementKey, int> line_of_key;  // a measurement recorded twice is refused
  for (const JsonLine& line : read.lines) {
    MeasurementRecord record;
    try {
      record = line.value.get<MeasurementRecord>();
    } catch (const UsageError& e) {  // a whole line whose names or numbers this ncclsweep does not take
      throw UsageError(path + " line " + std::to_string(line.number) + ": " + e.what(), e.fix());
    } catch (const nlohmann::json::exception& e) {  // JSON, but not a record: never a cut-off line
      throw UsageError(path + " line " + std::to_string(line.number) + " is not a measurement record: " + e.what(),
                       "repair or remove that line, or start a new run without --resume");
    }
    const auto [seen, fresh] = line_of_key.emplace(key_of(record), line.number);
    if (!fresh) {
      throw UsageError(path + " lines " + std::to_string(seen->second) + " and " + std::to_string(line.number) +
                           " hold the same measurement (" + series_title(seen->first) + ", " +
                           format_bytes(seen->first.size_bytes) + ", " + std::string(name_of(seen->first.placement)) +
                           ", point " + seen->first.point + ", repeat " + std::to_string(seen->first.repeat + 1) +
                           "): the file mixes two runs or was edited",
                       "start a new run without --resume (or remove the line that does not belong)");
    }
    found.records.push_back(std::move(record));
  }
  found.complete_bytes = read.complete_bytes;
  if (read.torn_line > 0) {
    found.dropped_tail =
        path + " line " + std::to_string(read.torn_line) + " was cut off (" + read.torn_why + "); it is measured again";
  }
  return found;
}

std::string digest_hex(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

}  // namespace ncclsweep
