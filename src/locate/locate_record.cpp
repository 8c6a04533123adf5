#include "locate/locate_record.hpp"

#include <nlohmann/json.hpp>

#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "measure/fixed_test.hpp"
#include "results/record_json.hpp"

namespace ncclsweep::locate {
namespace {

// The line form of older locate directories (still read as references): float32 calls,
// their slowest rank's seconds per call, the place at the top level.
MeasurementRecord from_earlier_form(const nlohmann::json& j) {
  const CollectiveKind& kind = ncclsweep::collective(j.at("collective").get<std::string>());
  const std::vector<int> group = j.at("ranks").get<std::vector<int>>();
  MeasurementRecord m = fixed_record({&kind, j.at("bytes").get<Bytes>()}, static_cast<int>(group.size()),
                                    j.at("time_s").get<double>(), 0, 0);
  m.size_bytes = j.at("bytes").get<Bytes>();  // as measured then, whatever the rounding now
  m.algbw_gbps = algbw_of(m.size_bytes, m.call_seconds());
  m.busbw_gbps = j.at("busbw_gbps").get<double>();
  m.repeat = j.at("repeat").get<int>();
  LocatePlace& place = m.locate.emplace();
  place.phase = kLocatePhaseNames.parse(j.at("phase").get<std::string>());
  place.round = j.at("round").get<int>();
  place.hosts = j.at("hosts").get<std::vector<int>>();
  place.group = group;
  place.rail = j.at("rail").is_null() ? -1 : j.at("rail").get<int>();
  place.pass = j.value("pass", 1);
  return m;
}

}  // namespace

const LocatePlace& place_of(const MeasurementRecord& m) { return *m.locate; }

std::string test_of(const MeasurementRecord& m) { return test_name(*m.collective, m.size_bytes); }

MeasurementRecord read_locate_record(const nlohmann::json& j) {
  if (j.contains("phase") && j.contains("time_s")) return from_earlier_form(j);
  MeasurementRecord m = j.get<MeasurementRecord>();
  if (!m.locate) throw UsageError("a record without \"locate\": not a locate measurement", "give a directory written by ncclsweep locate");
  return m;
}

}  // namespace ncclsweep::locate
