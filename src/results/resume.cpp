#include "results/resume.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "results/measurement_key.hpp"
#include "results/record_json.hpp"

namespace ncclsweep {

std::set<std::string> measurement_keys(const std::vector<MeasurementRecord>& records) {
  std::set<std::string> keys;
  for (const auto& r : records) keys.insert(key_text(key_of(r)));
  return keys;
}

RecordedMeasurements read_recorded_measurements(const std::filesystem::path& records_file) {
  RecordedMeasurements found;
  std::ifstream in(records_file, std::ios::binary);
  if (!in) return found;  // no measurement finished before the run stopped
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::size_t start = 0;
  int line_number = 0;
  while (start < text.size()) {
    ++line_number;
    const std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos || end + 1 == text.size();
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    try {
      if (end == std::string::npos) throw std::runtime_error("no newline at its end");
      found.records.push_back(nlohmann::json::parse(line).get<MeasurementRecord>());
      found.complete_bytes = end + 1;
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
