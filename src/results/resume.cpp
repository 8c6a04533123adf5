#include "results/resume.hpp"

#include <cstdio>
#include <map>
#include <utility>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
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
  const std::string text = read_input_file(records_file.string(), kResultsFileInput);
  std::size_t start = 0;
  int line_number = 0;
  std::map<MeasurementKey, int> line_of_key;  // a measurement recorded twice is refused
  while (start < text.size()) {
    ++line_number;
    const std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos || end + 1 == text.size();
    const std::string_view line =
        std::string_view(text).substr(start, end == std::string::npos ? std::string::npos : end - start);
    const SourcePosition where{records_file.string(), line_number, 0};
    try {
      if (end == std::string::npos) throw std::runtime_error("no newline at its end");
      // Past a limit (a line longer than any record, JSON nested deeper than one) is
      // refused wherever the line is: no write of ncclsweep's, cut short, makes one.
      const nlohmann::json parsed = parse_json_line(line, where);
      MeasurementRecord record;
      try {
        record = parsed.get<MeasurementRecord>();
      } catch (const UsageError& e) {  // a whole line whose names or numbers this ncclsweep does not take
        throw UsageError(records_file.string() + " line " + std::to_string(line_number) + ": " + e.what(), e.fix());
      } catch (const nlohmann::json::exception& e) {  // JSON, but not a record: never a cut-off line
        throw UsageError(records_file.string() + " line " + std::to_string(line_number) +
                             " is not a measurement record: " + e.what(),
                         "repair or remove that line, or start a new run without --resume");
      }
      const auto [seen, fresh] = line_of_key.emplace(key_of(record), line_number);
      if (!fresh) {
        throw UsageError(records_file.string() + " lines " + std::to_string(seen->second) + " and " +
                             std::to_string(line_number) + " hold the same measurement (" + series_title(seen->first) + ", " +
                             format_bytes(seen->first.size_bytes) + ", " + std::string(name_of(seen->first.placement)) +
                             ", point " + seen->first.point + ", repeat " + std::to_string(seen->first.repeat + 1) +
                             "): the file mixes two runs or was edited",
                         "start a new run without --resume (or remove the line that does not belong)");
      }
      found.records.push_back(std::move(record));
      found.complete_bytes = end + 1;
    } catch (const UsageError&) {
      throw;
    } catch (const std::exception& e) {
      const std::string where = records_file.string() + " line " + std::to_string(line_number);
      if (!last) {
        throw UsageError(where + " is not a measurement record: " + e.what(),
                         "repair or remove that line, or start a new run without --resume");
      }
      found.dropped_tail = where + " was cut off (" + e.what() + "); it is measured again";
      break;
    }
    if (end == std::string::npos) break;
    start = end + 1;
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
