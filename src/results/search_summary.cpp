#include "results/search_summary.hpp"

namespace ncclsweep {

void to_json(nlohmann::json& j, FateState state) { j = std::string(name_of(state)); }
void from_json(const nlohmann::json& j, FateState& state) { state = kFateStateNames.parse(j.get<std::string>()); }
void to_json(nlohmann::json& j, SearchMethod method) { j = std::string(name_of(method)); }
void from_json(const nlohmann::json& j, SearchMethod& method) { method = kSearchMethodNames.parse(j.get<std::string>()); }

// By hand for the collective, a table entry written by its name.
void to_json(nlohmann::json& j, const SearchBandSummary& b) {
  j = {{"band", b.band},           {"collective", std::string(b.collective->name)},
       {"sizes", b.sizes},         {"leader", b.leader},
       {"ties", b.ties},           {"settled", b.settled},
       {"winner", b.winner},       {"ab_measured", b.ab_measured},
       {"ab_gain", b.ab_gain},     {"why", b.why}};
}

void from_json(const nlohmann::json& j, SearchBandSummary& b) {
  b = {};
  b.band = j.value("band", "");
  b.collective = &collective(j.at("collective").get<std::string>());
  b.sizes = j.value("sizes", b.sizes);
  b.leader = j.value("leader", "");
  b.ties = j.value("ties", b.ties);
  b.settled = j.value("settled", false);
  b.winner = j.value("winner", "");
  b.ab_measured = j.value("ab_measured", false);
  b.ab_gain = j.value("ab_gain", 0.0);
  b.why = j.value("why", "");
}

}  // namespace ncclsweep
