#include "results/search_summary.hpp"

namespace ncclsweep {

void to_json(nlohmann::json& j, const SearchPointBand& b) {
  j = {{"band", b.band}, {"state", std::string(name_of(b.state))}, {"round", b.round}, {"by", b.by}, {"gain", b.gain}};
}

void from_json(const nlohmann::json& j, SearchPointBand& b) {
  b.band = j.value("band", "");
  b.state = kFateStateNames.parse(j.value("state", "not-measured"));
  b.round = j.value("round", 0);
  b.by = j.value("by", "");
  b.gain = j.value("gain", 0.0);
}

void to_json(nlohmann::json& j, const SearchBandSummary& b) {
  j = {{"band", b.band},
       {"collective", b.collective != nullptr ? std::string(b.collective->name) : "?"},
       {"sizes", b.sizes},
       {"leader", b.leader},
       {"ties", b.ties},
       {"settled", b.settled},
       {"winner", b.winner},
       {"ab_measured", b.ab_measured},
       {"ab_gain", b.ab_gain},
       {"why", b.why}};
}

void from_json(const nlohmann::json& j, SearchBandSummary& b) {
  b.band = j.value("band", "");
  b.collective = &collective(j.at("collective").get<std::string>());
  b.sizes = j.value("sizes", std::vector<std::uint64_t>{});
  b.leader = j.value("leader", "");
  b.ties = j.value("ties", std::vector<std::string>{});
  b.settled = j.value("settled", false);
  b.winner = j.value("winner", "");
  b.ab_measured = j.value("ab_measured", false);
  b.ab_gain = j.value("ab_gain", 0.0);
  b.why = j.value("why", "");
}

void to_json(nlohmann::json& j, const SearchSummary& s) {
  j = {{"method", std::string(name_of(s.method))},
       {"confidence", s.confidence},
       {"budget_share", s.budget_share},
       {"baseline", s.baseline},
       {"rounds", s.rounds},
       {"measurements", s.measurements},
       {"grid_measurements", s.grid_measurements},
       {"bands", s.bands},
       {"points", s.points},
       {"notes", s.notes}};
}

void from_json(const nlohmann::json& j, SearchSummary& s) {
  s.method = kSearchMethodNames.parse(j.at("method").get<std::string>());
  s.confidence = j.value("confidence", 0.0);
  s.budget_share = j.value("budget_share", 0.0);
  s.baseline = j.value("baseline", "");
  s.rounds = j.value("rounds", 0);
  s.measurements = j.value("measurements", 0L);
  s.grid_measurements = j.value("grid_measurements", 0L);
  s.bands = j.value("bands", std::vector<SearchBandSummary>{});
  s.points = j.value("points", std::vector<SearchPointFate>{});
  s.notes = j.value("notes", std::vector<std::string>{});
}

}  // namespace ncclsweep
