#include "runtime/search_rounds.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/errors.hpp"
#include "core/number_format.hpp"
#include "core/output_file.hpp"
#include "results/search_summary.hpp"
#include "measure/fault_injection.hpp"
#include "runtime/group_failure.hpp"
#include "runtime/launch_pool.hpp"
#include "runtime/launch_state.hpp"
#include "measure/measurement_loop.hpp"
#include "transport/rank_group.hpp"
#include "search/search.hpp"

namespace ncclsweep {

void to_json(nlohmann::json& j, const RoundItem& item) { j = nlohmann::json{{"candidate", item.candidate}, {"bands", item.bands}}; }
void from_json(const nlohmann::json& j, RoundItem& item) {
  j.at("candidate").get_to(item.candidate);
  j.at("bands").get_to(item.bands);
}

namespace {

// A round as it travels from rank 0: its number and items.
nlohmann::json round_json(const SearchRound& round) { return {{"number", round.number}, {"items", round.items}}; }

SearchRound round_from(const nlohmann::json& j) {
  SearchRound round;
  j.at("number").get_to(round.number);
  j.at("items").get_to(round.items);
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

SearchSummary summarize(const Search& search, const SearchRequest& request, int worker_starts, std::size_t groups) {
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
  s.worker_starts = worker_starts;
  s.isolation_groups = static_cast<int>(groups);
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

// The `# ` lines under the table: each band's winner, and what the search cost.
void log_outcome(LaunchState& state, const SearchSummary& s) {
  std::string cost = "search (" + std::string(name_of(s.method)) + "): " + std::to_string(s.measurements) +
                     " size measurements in " + std::to_string(s.rounds) + " rounds, the full grid's " +
                     std::to_string(s.grid_measurements);
  if (s.worker_starts > 0) {
    cost += "; " + std::to_string(s.worker_starts) + " worker start(s) for " + std::to_string(s.isolation_groups) +
            " isolation group(s)";
  }
  state.log(LogLevel::info, cost);
  for (const SearchBandSummary& b : s.bands) {
    std::string line = "  " + b.band + ": ";
    if (b.winner.empty()) {
      line += "nothing measured";
    } else if (b.winner == s.baseline && b.leader != s.baseline) {
      line += "no confirmed winner: the baseline [" + s.baseline + "] stays";
    } else {
      line += b.winner;
    }
    if (b.ab_measured) line += ", final A/B " + signed_percent(b.ab_gain) + " against the baseline";
    if (!b.ties.empty()) {
      line += "; tied within noise:";
      for (const auto& t : b.ties) line += " [" + t + "]";
    }
    state.log(LogLevel::info, line + " (" + b.why + ")");
  }
  for (const std::string& note : s.notes) state.log(LogLevel::info, "  note: " + note);
}

// The mpi engine in the ranks themselves: no points to verify, nothing to start.
class InProcessMeasurer final : public SearchMeasurer {
 public:
  InProcessMeasurer(LaunchState& state, Engine& engine) : state_(state), engine_(engine) {}

  SearchMeasureStatus measure(const WorkerGroup&, const PointSpec& point, const std::vector<std::size_t>& calls,
                              int repeat, int slow_factor, ResultSink* rows, std::string&) override {
    const LaunchRequest& request = state_.request;
    MeasurementPlan plan = request.plan;
    plan.calls.clear();
    for (const std::size_t c : calls) plan.calls.push_back(request.plan.calls[c]);
    LoopOptions options = loop_options(request.spec, request.corrupt_rank, point.label);
    options.repeats = 1;
    options.first_repeat = repeat;
    options.order = RepeatOrder::sequential;
    options.stop_requested = [this] { return state_.signalled(); };
    engine_.slow_down(slow_factor);
    const bool went_on = measure_plan(plan, options, engine_, state_.ranks, rows);
    engine_.slow_down(1);
    return went_on ? SearchMeasureStatus::measured : SearchMeasureStatus::stopped;
  }

 private:
  LaunchState& state_;
  Engine& engine_;
};

// In workers: one pool for the search, each group's workers kept between rounds.
class WorkerMeasurer final : public SearchMeasurer {
 public:
  WorkerMeasurer(LaunchState& state, bool& begun) : state_(state), begun_(begun), pool_(make_launch_pool(state, begun)) {}

  SearchMeasureStatus measure(const WorkerGroup& group, const PointSpec& point, const std::vector<std::size_t>& calls,
                              int repeat, int slow_factor, ResultSink* rows, std::string& why) override {
    const StartResult started = pool_->start(group);
    if (started.refused) {
      worst_ = std::max(worst_, static_cast<int>(kExitUsage));
      return SearchMeasureStatus::refused;
    }
    if (!started.up) return failed(point, started.failure, why, !begun_);
    const MeasureRequest request{point, calls, repeat, 1, RepeatOrder::sequential, slow_factor};
    const MeasureResult measured = pool_->measure(group, request, rows);
    if (!measured.ok) return failed(point, measured.failure, why, false);
    PointOutcome outcome = measured.outcome;
    outcome.isolation_group = group.index;
    if (started.fresh) outcome.phase_s.worker_start = started.startup_s;
    if (outcome.status == PointStatus::interrupted) return SearchMeasureStatus::stopped;
    remember(outcome);
    if (outcome.status != PointStatus::ok) {
      why = outcome.error;
      worst_ = std::max(worst_, static_cast<int>(kExitRuntime));
      return SearchMeasureStatus::failed;
    }
    return SearchMeasureStatus::measured;
  }

  int worker_starts() const override { return pool_->starts(); }
  int exit_status() const override { return worst_; }

 private:
  // Collective: every rank's word on a failure, rank 0's outcome for the point.
  SearchMeasureStatus failed(const PointSpec& point, const WorkerFailure& failure, std::string& why, bool never_up) {
    RankGroup& ranks = state_.ranks;
    const std::vector<std::string> errors =
        ranks.gather(failure.local_error.empty() ? "" : ranks.host() + ": " + failure.local_error);
    worst_ = std::max(worst_, ranks.max_across_ranks(failure.failed ? std::max(failure.local_status, 1) : 0));
    const GroupFailure described = describe_group_failure(failure, errors);
    why = described.reason;
    if (never_up) {
      state_.refuse(why.empty() ? "the workers failed to start" : why);
      worst_ = std::max(worst_, static_cast<int>(kExitRuntime));
      return SearchMeasureStatus::refused;
    }
    PointOutcome outcome = failure.outcome.value_or(PointOutcome{});
    if (!failure.outcome) {
      outcome.label = point.label;
      outcome.settings = point.settings;
      outcome.status = described.timed_out ? PointStatus::timeout : PointStatus::failed;
      outcome.error = why;
    }
    remember(outcome);
    if (state_.leader && state_.started()) state_.log(LogLevel::outcome, "point " + point.label + " " + std::string(name_of(outcome.status)) + ": " + why);
    return SearchMeasureStatus::failed;
  }

  // Rank 0: a point's first outcome goes into run.json.
  void remember(const PointOutcome& outcome) {
    if (!state_.leader || !recorded_.insert(outcome.label).second) return;
    state_.add_points({&outcome, 1});
  }

  LaunchState& state_;
  bool& begun_;
  std::unique_ptr<WorkerPool> pool_;
  std::set<std::string> recorded_;
  int worst_ = kExitOk;
};

}  // namespace

int run_search_in_workers(LaunchState& state) {
  bool begun = false;
  const std::unique_ptr<SearchMeasurer> measurer = worker_measurer(state, begun);
  return run_search_rounds(state, *measurer);
}

std::unique_ptr<SearchMeasurer> in_process_measurer(LaunchState& state, Engine& engine) {
  return std::make_unique<InProcessMeasurer>(state, engine);
}

std::unique_ptr<SearchMeasurer> worker_measurer(LaunchState& state, bool& begun) {
  return std::make_unique<WorkerMeasurer>(state, begun);
}

int run_search_rounds(LaunchState& state, SearchMeasurer& measurer) {
  RankGroup& session = state.ranks;
  const LaunchRequest& request = state.request;
  const SearchRequest& search_request = *request.search;
  const SearchSpace& space = search_request.grid.space;
  std::optional<Search> search;
  if (state.leader) search.emplace(space, search_request.bands, search_request.options);
  // Each candidate's point: its isolation group and place in it.
  std::map<std::string, std::pair<std::size_t, std::size_t>> where;
  for (std::size_t g = 0; g < request.groups.size(); ++g) {
    for (std::size_t p = 0; p < request.groups[g].points.size(); ++p) where[request.groups[g].points[p].label] = {g, p};
  }
  std::vector<int> occasions(space.candidates.size(), 0);  // the repeat numbers so far
  bool any_failed = false;
  for (;;) {
    std::string text;
    if (state.leader) {
      if (const auto round = search->next_round()) text = round_json(*round).dump();
    }
    text = session.broadcast_string(text);
    if (text.empty()) break;
    const SearchRound round = round_from(nlohmann::json::parse(text));
    // Grouped by isolation group (in the order the round first names each), so a group's
    // workers measure its candidates in one go; the round's order within each group.
    std::vector<std::size_t> order(round.items.size());
    std::map<std::size_t, std::size_t> first_seen;
    for (std::size_t i = 0; i < round.items.size(); ++i) {
      order[i] = i;
      const auto& calls = search_request.grid.calls[static_cast<std::size_t>(round.items[i].candidate)];
      first_seen.emplace(where.at(calls.point).first, first_seen.size());
    }
    const auto group_rank = [&](std::size_t i) {
      const auto& calls = search_request.grid.calls[static_cast<std::size_t>(round.items[i].candidate)];
      return first_seen.at(where.at(calls.point).first);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return group_rank(a) < group_rank(b); });
    for (const std::size_t i : order) {
      const RoundItem& item = round.items[i];
      const auto c = static_cast<std::size_t>(item.candidate);
      const CandidateCalls& calls = search_request.grid.calls[c];
      const auto [g, p] = where.at(calls.point);
      std::vector<std::size_t> indices;
      for (std::size_t k = 0; k < request.plan.calls.size(); ++k) {
        const PlannedCall& planned = request.plan.calls[k];
        const int band = band_of(search_request.bands, *planned.call.kind, planned.total_bytes);
        if (calls.measures(planned) && std::find(item.bands.begin(), item.bands.end(), band) != item.bands.end()) {
          indices.push_back(k);
        }
      }
      std::optional<RowsToSearch> sink;
      if (state.leader) sink.emplace(state, *search, search_request.bands, static_cast<int>(i));
      std::string why;
      const SearchMeasureStatus status =
          measurer.measure(request.groups[g], request.groups[g].points[p], indices, occasions[c]++,
                           slow_factor(request.fault, session.rank(), space.candidates[c].label), sink ? &*sink : nullptr,
                           why);
      if (status == SearchMeasureStatus::stopped) {
        state.stopped = true;
        return kExitOk;
      }
      if (status == SearchMeasureStatus::refused) return measurer.exit_status();
      if (status == SearchMeasureStatus::failed) {
        any_failed = true;
        if (state.leader) search->fail(static_cast<int>(i), why);
      }
    }
  }
  if (state.leader) {
    const SearchSummary summary = summarize(*search, search_request, measurer.worker_starts(), request.groups.size());
    // Through the one whole-file writer: a link planted at search.json is not written through.
    if (replace_file(std::filesystem::path(state.results_dir) / kSearchFileName, nlohmann::json(summary).dump(2) + "\n") != 0) {
      state.log(LogLevel::warning, std::string("could not write ") + kSearchFileName + " in " + state.results_dir);
    }
    log_outcome(state, summary);
  }
  return std::max(any_failed ? static_cast<int>(kExitRuntime) : 0, measurer.exit_status());
}

}  // namespace ncclsweep
