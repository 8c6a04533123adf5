#include "runtime/search_rounds.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/output_file.hpp"
#include "results/search_summary.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/launch_state.hpp"
#include "runtime/measurement_loop.hpp"
#include "runtime/rank_group.hpp"
#include "search/search.hpp"

namespace ncclsweep {
namespace {

// Rounds travel from rank 0 as text: "candidate:band,band;candidate:band;..." ("" ends).
std::string round_text(const SearchRound& round) {
  std::string text = std::to_string(round.number) + "|";
  for (const RoundItem& item : round.items) {
    text += std::to_string(item.candidate) + ":";
    for (std::size_t b = 0; b < item.bands.size(); ++b) text += (b ? "," : "") + std::to_string(item.bands[b]);
    text += ";";
  }
  return text;
}

SearchRound parse_round(const std::string& text) {
  SearchRound round;
  std::istringstream in(text);
  std::string part;
  std::getline(in, part, '|');
  round.number = std::stoi(part);
  while (std::getline(in, part, ';')) {
    RoundItem item;
    const auto colon = part.find(':');
    item.candidate = std::stoi(part.substr(0, colon));
    std::istringstream bands(part.substr(colon + 1));
    for (std::string b; std::getline(bands, b, ',');) item.bands.push_back(std::stoi(b));
    round.items.push_back(item);
  }
  return round;
}

// Rank 0: each record to the launch (sinks, document) and its figures to the search.
class RowsToSearch final : public ResultSink {
 public:
  RowsToSearch(LaunchState& state, Search& search, const std::vector<SizeBand>& bands, int item)
      : state_(state), search_(search), bands_(bands), item_(item) {}
  void row(std::span<const MeasurementRecord> records) override {
    state_.add_row(records);
    for (const MeasurementRecord& r : records) {
      const int band = band_of(bands_, *r.collective, r.size_bytes);
      if (band >= 0) search_.record(item_, band, r.algbw_gbps, r.time_us.max, r.spread);
    }
  }

 private:
  LaunchState& state_;
  Search& search_;
  const std::vector<SizeBand>& bands_;
  int item_;
};

SearchSummary summarize(const Search& search, const SearchRequest& request) {
  const SearchOutcome& out = search.outcome();
  const auto& candidates = request.grid.space.candidates;
  const auto label = [&](int c) { return c < 0 ? std::string() : candidates[static_cast<std::size_t>(c)].label; };
  SearchSummary s;
  s.method = out.method;
  s.confidence = request.options.stats.confidence;
  s.budget_share = request.options.budget_share;
  s.baseline = label(request.grid.space.baseline);
  s.rounds = out.rounds;
  s.measurements = out.measurements;
  s.grid_measurements = out.grid_measurements;
  s.notes = out.notes;
  for (std::size_t b = 0; b < out.bands.size(); ++b) {
    const BandResult& r = out.bands[b];
    SearchBandSummary band{label_of(request.bands[b]), request.bands[b].collective,
                           {request.bands[b].sizes.begin(), request.bands[b].sizes.end()}, label(r.leader), {}, r.settled,
                           label(r.winner), r.ab_measured, r.ab_gain, r.why};
    for (const int t : r.ties) band.ties.push_back(label(t));
    s.bands.push_back(band);
  }
  for (std::size_t c = 0; c < out.fates.size(); ++c) {
    SearchPointFate fate{candidates[c].label, out.fates[c].rounds, {}};
    for (std::size_t b = 0; b < out.fates[c].bands.size(); ++b) {
      const BandFate& f = out.fates[c].bands[b];
      fate.bands.push_back({label_of(request.bands[b]), f.state, f.round, label(f.by), f.gain});
    }
    s.points.push_back(fate);
  }
  return s;
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", share * 100);
  return text;
}

// The `# ` lines under the table: each band's winner, and what the search cost.
void log_outcome(LaunchState& state, const SearchSummary& s) {
  state.log(LogLevel::info, "search (" + std::string(name_of(s.method)) + "): " + std::to_string(s.measurements) + " size measurements in " +
                                std::to_string(s.rounds) + " rounds, the full grid's " +
                                std::to_string(s.grid_measurements));
  for (const SearchBandSummary& b : s.bands) {
    std::string line = "  " + b.band + ": ";
    line += b.winner.empty() ? "no confirmed winner: the baseline [" + s.baseline + "] stays" : b.winner;
    if (b.ab_measured) line += ", final A/B " + percent(b.ab_gain) + " against the baseline";
    if (!b.ties.empty()) {
      line += "; tied within noise:";
      for (const auto& t : b.ties) line += " [" + t + "]";
    }
    state.log(LogLevel::info, line + " (" + b.why + ")");
  }
  for (const std::string& note : s.notes) state.log(LogLevel::info, "  note: " + note);
}

}  // namespace

bool run_search_rounds(LaunchState& state, Engine& engine) {
  RankGroup& session = state.ranks;
  const LaunchRequest& request = state.request;
  const SearchRequest& search_request = *request.search;
  std::optional<Search> search;
  if (state.leader) search.emplace(search_request.grid.space, search_request.bands, search_request.options);
  std::vector<int> occasions(search_request.grid.space.candidates.size(), 0);  // the repeat numbers so far
  while (true) {
    std::string text;
    if (state.leader) {
      if (const auto round = search->next_round()) text = round_text(*round);
    }
    text = session.broadcast_string(text);
    if (text.empty()) break;
    const SearchRound round = parse_round(text);
    for (std::size_t i = 0; i < round.items.size(); ++i) {
      const RoundItem& item = round.items[i];
      const CandidateCalls& calls = search_request.grid.calls[static_cast<std::size_t>(item.candidate)];
      const std::string& label = search_request.grid.space.candidates[static_cast<std::size_t>(item.candidate)].label;
      MeasurementPlan plan = request.plan;
      plan.calls.clear();
      for (const PlannedCall& planned : request.plan.calls) {
        const int band = band_of(search_request.bands, *planned.call.kind, planned.total_bytes);
        if (calls.measures(planned) && std::find(item.bands.begin(), item.bands.end(), band) != item.bands.end()) {
          plan.calls.push_back(planned);
        }
      }
      LoopOptions options = loop_options(request.spec, request.corrupt_rank, calls.point);
      options.repeats = 1;
      options.first_repeat = occasions[static_cast<std::size_t>(item.candidate)]++;
      options.order = RepeatOrder::sequential;
      options.stop_requested = [&state] { return state.signalled(); };
      engine.slow_down(slow_factor(request.fault, session.rank(), label));
      std::optional<RowsToSearch> sink;
      if (state.leader) sink.emplace(state, *search, search_request.bands, static_cast<int>(i));
      const bool went_on = measure_plan(plan, options, engine, session, sink ? &*sink : nullptr);
      engine.slow_down(1);
      if (!went_on) return false;
    }
  }
  if (state.leader) {
    const SearchSummary summary = summarize(*search, search_request);
    // Through the one whole-file writer: a link planted at search.json is not written through.
    if (replace_file(std::filesystem::path(state.results_dir) / kSearchFileName, nlohmann::json(summary).dump(2) + "\n") != 0) {
      state.log(LogLevel::warning, std::string("could not write ") + kSearchFileName + " in " + state.results_dir);
    }
    log_outcome(state, summary);
  }
  return true;
}

}  // namespace ncclsweep
