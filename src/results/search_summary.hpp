#pragma once
// search.json beside run.json: how a search run (docs/search.md) ended, written by the
// runtime from the search's outcome. Every point's fate: the rounds it was measured in,
// and per band whether it led, tied, or was dropped after which round, by which leader
// and by how much.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/collective.hpp"
#include "core/search_fate.hpp"
#include "spec/search_spec.hpp"

namespace ncclsweep {

struct SearchPointBand {
  std::string band;     // "all_reduce 1 MiB .. 16 MiB"
  FateState state = FateState::not_measured;
  int round = 0;        // dropped: after this round
  std::string by;       // dropped: the leader's label
  double gain = 0;      // dropped: the leader's busbw / its own - 1
};

struct SearchPointFate {
  std::string point;        // the candidate's label
  std::vector<int> rounds;  // measured in these rounds
  std::vector<SearchPointBand> bands;
};

struct SearchBandSummary {
  std::string band;
  const CollectiveKind* collective = nullptr;
  std::vector<std::uint64_t> sizes;  // the band's measured sizes, bytes
  std::string leader;
  std::vector<std::string> ties;
  bool settled = false;
  std::string winner;  // the leader confirmed by the final A/B, else the baseline; empty: nothing measured
  bool ab_measured = false;
  double ab_gain = 0;
  std::string why;
};

struct SearchSummary {
  SearchMethod method = SearchMethod::racing;
  double confidence = 0;
  double budget_share = 0;
  std::string baseline;
  int rounds = 0;
  long measurements = 0;       // size measurements made
  long grid_measurements = 0;  // the full grid's
  int worker_starts = 0;       // isolation groups' workers started (0: measured in the ranks)
  int isolation_groups = 1;    // the grid's: each starts its workers once
  std::vector<SearchBandSummary> bands;
  std::vector<SearchPointFate> points;
  std::vector<std::string> notes;
};

// Enums and collectives by their names; an unknown name is refused with the valid ones.
void to_json(nlohmann::json& j, FateState state);
void from_json(const nlohmann::json& j, FateState& state);
void to_json(nlohmann::json& j, SearchMethod method);
void from_json(const nlohmann::json& j, SearchMethod& method);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchPointBand, band, state, round, by, gain)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchPointFate, point, rounds, bands)
void to_json(nlohmann::json& j, const SearchBandSummary& b);
void from_json(const nlohmann::json& j, SearchBandSummary& b);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchSummary, method, confidence, budget_share, baseline, rounds,
                                                measurements, grid_measurements, worker_starts, isolation_groups, bands,
                                                points, notes)

// The file's name in a results directory.
inline constexpr const char* kSearchFileName = "search.json";

}  // namespace ncclsweep
