#include "locate/measurement.hpp"

#include <nlohmann/json.hpp>

#include "measure/fixed_test.hpp"

namespace ncclsweep::locate {

std::string Measurement::test() const { return test_name(*collective, bytes); }

void to_json(nlohmann::json& j, const Measurement& m) {
  j = {{"phase", name_of(m.phase)},   {"round", m.round},           {"hosts", m.hosts},   {"ranks", m.ranks},
       {"collective", m.collective->name}, {"bytes", m.bytes}, {"pass", m.pass}, {"repeat", m.repeat}, {"time_s", m.seconds},
       {"busbw_gbps", m.busbw_gbps}};
  j["rail"] = m.rail >= 0 ? nlohmann::json(m.rail) : nlohmann::json(nullptr);
}

void from_json(const nlohmann::json& j, Measurement& m) {
  m.phase = kLocatePhaseNames.parse(j.at("phase").get<std::string>());
  m.round = j.at("round").get<int>();
  m.hosts = j.at("hosts").get<std::vector<int>>();
  m.ranks = j.at("ranks").get<std::vector<int>>();
  m.rail = j.at("rail").is_null() ? -1 : j.at("rail").get<int>();
  m.collective = &ncclsweep::collective(j.at("collective").get<std::string>());
  m.bytes = j.at("bytes").get<Bytes>();
  m.pass = j.value("pass", 1);
  m.repeat = j.at("repeat").get<int>();
  m.seconds = j.at("time_s").get<double>();
  m.busbw_gbps = j.at("busbw_gbps").get<double>();
}

}  // namespace ncclsweep::locate
