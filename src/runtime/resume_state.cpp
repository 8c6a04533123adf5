#include "runtime/resume_state.hpp"

#include <algorithm>
#include <filesystem>

#include "results/results_directory.hpp"
#include "runtime/mpi_session.hpp"

namespace ncclsweep {

EarlierRun read_earlier_run(const std::string& dir) {
  EarlierRun earlier;
  earlier.document = read_run_document(dir);
  earlier.recorded = read_recorded_measurements(std::filesystem::path(dir) / "records.jsonl");
  return earlier;
}

std::string done_keys_text(const RecordedMeasurements& recorded) {
  std::string keys;
  for (const std::string& key : measurement_keys(recorded.records)) keys += key + "\n";
  if (!keys.empty()) keys.pop_back();
  return keys;
}

std::set<std::string> parse_done_keys(const std::string& text) {
  std::set<std::string> keys;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    keys.insert(text.substr(start, end - start));
    start = end + 1;
  }
  return keys;
}

std::set<std::string> share_done_keys(MpiSession& session, const std::string& keys_text) {
  return parse_done_keys(session.broadcast_string(keys_text));
}

std::string resume_refusal(const std::string& dir, const std::string& earlier_fingerprint,
                           const std::string& fingerprint, bool force) {
  if (force || earlier_fingerprint == fingerprint) return "";
  return "cannot resume " + dir + ": the sweep or the rank layout changed since it was started " +
         "(fingerprint " + earlier_fingerprint + ", now " + fingerprint + ")" +
         "\n  fix: resume with the same sweep, flags and ranks, or pass --force to add to it anyway, "
         "or start a new directory";
}

}  // namespace ncclsweep
