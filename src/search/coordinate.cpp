// Coordinate descent: from the baseline, one axis at a time; in each band the values of
// that axis (the others fixed at the band's current point) race, and the band moves to
// the leader when it beats the current point beyond noise. Cycles over the axes until a
// full cycle moves no band. Then each band's point is probed against the candidates
// that change two axes at once to their runners-up: one faster beyond noise means the
// axes interact, which one axis at a time cannot see.
// Each axis step gets an equal share of the budget left for the axes still to come in the
// cycle: two values that are truly tied can only be told tied after the grid's every
// repeat, and without a share such a step spent the budget before later axes (where the
// gains were) were looked at.
#include <algorithm>

#include "search/exploration.hpp"

namespace ncclsweep {
namespace {

class CoordinateDescent final : public Exploration {
 public:
  std::optional<SearchRound> next(SearchState& state) override {
    if (current_.empty()) start(state);
    while (!finished_) {
      if (!step_) {
        if (!begin_step(state)) continue;  // an axis with one value, or nothing to probe
      }
      step_->evaluate(state);
      if (!step_->done()) {
        std::vector<RoundItem> items = step_->next_items(state);
        for (int tries = 0; items.empty() && tries < state.options.max_occasions; ++tries) {
          ++step_->rounds;
          items = step_->next_items(state);
        }
        if (!items.empty() && over_share(state, items)) {
          state.outcome.notes.push_back(step_name(state) + ": no value separated from the band's point within the step's share of the budget; the point stays");
          items.clear();
        }
        if (!items.empty()) {
          if (state.outcome.measurements + state.cost(items) > state.exploration_budget) {
            state.outcome.notes.push_back("the budget was spent during " + step_name(state) +
                                          ": each band keeps its current point, for the final A/B to judge");
            finished_ = true;
            return std::nullopt;
          }
          ++step_->rounds;
          return state.make_round(probing_ ? RoundKind::interaction_probe : RoundKind::axis_step, step_name(state),
                                  std::move(items));
        }
      }
      end_step(state);
    }
    return std::nullopt;
  }

  long first_round_cost(const SearchState& state) const override {
    // The baseline and the first axis's other values, at every band.
    long sizes = 0;
    for (const auto& band : state.bands) sizes += static_cast<long>(band.sizes.size());
    const std::size_t values = state.space.axes.empty() ? 1 : state.space.axes.front().values.size();
    return sizes * static_cast<long>(values);
  }

  void conclude(SearchState& state) const override {
    for (std::size_t b = 0; b < current_.size(); ++b) {
      BandResult& band = state.outcome.bands[b];
      band.leader = current_[b];
      band.ties = ties_[b];
      band.settled = converged_;
      band.why = converged_ ? "a full cycle over the axes moved nothing" : "stopped before the cycle converged";
      state.outcome.fates[static_cast<std::size_t>(current_[b])].bands[b].state = FateState::leader;
    }
  }

 private:
  void start(SearchState& state) {
    current_.assign(state.bands.size(), state.space.baseline);
    runner_up_.assign(state.bands.size(), std::vector<int>(state.space.axes.size(), -1));
    ties_.assign(state.bands.size(), {});
    if (state.space.axes.empty()) finished_ = converged_ = true;
  }

  std::string step_name(const SearchState& state) const {
    if (probing_) return "interaction probe";
    return "axis " + state.space.axes[static_cast<std::size_t>(axis_)].name + " (cycle " + std::to_string(cycle_ + 1) + ")";
  }

  // The candidates of this band's step: its current point with the axis at each value.
  std::vector<int> axis_candidates(const SearchState& state, std::size_t band) const {
    std::vector<int> out;
    const auto& axis = state.space.axes[static_cast<std::size_t>(axis_)];
    std::vector<int> values = state.space.candidates[static_cast<std::size_t>(current_[band])].values;
    for (std::size_t v = 0; v < axis.values.size(); ++v) {
      values[static_cast<std::size_t>(axis_)] = static_cast<int>(v);
      if (const auto c = state.space.find(values); c && !state.is_failed(*c)) out.push_back(*c);
    }
    return out;
  }

  // Candidates that move two axes of the band's point to their runners-up at once.
  std::vector<int> probe_candidates(const SearchState& state, std::size_t band) const {
    std::vector<int> out{current_[band]};
    const std::vector<int>& at = state.space.candidates[static_cast<std::size_t>(current_[band])].values;
    for (std::size_t i = 0; i < at.size(); ++i) {
      for (std::size_t j = i + 1; j < at.size(); ++j) {
        if (runner_up_[band][i] < 0 || runner_up_[band][j] < 0) continue;
        std::vector<int> values = at;
        values[i] = runner_up_[band][i];
        values[j] = runner_up_[band][j];
        if (const auto c = state.space.find(values);
            c && !state.is_failed(*c) && std::find(out.begin(), out.end(), *c) == out.end()) {
          out.push_back(*c);
        }
      }
    }
    return out.size() > 1 ? out : std::vector<int>{};
  }

  // A step past its share, once it has measured two rounds (fewer cannot drop anything).
  bool over_share(const SearchState& state, const std::vector<RoundItem>& items) const {
    if (probing_ || step_->rounds < 2) return false;
    return state.outcome.measurements - step_start_ + state.cost(items) > step_share_;
  }

  bool begin_step(SearchState& state) {
    step_.emplace(state.bands.size());
    step_start_ = state.outcome.measurements;
    const long axes_left = static_cast<long>(state.space.axes.size()) - axis_;
    step_share_ = (state.exploration_budget - step_start_) / std::max(1L, axes_left);
    bool any = false;
    for (std::size_t b = 0; b < state.bands.size(); ++b) {
      std::vector<int> candidates = probing_ ? probe_candidates(state, b) : axis_candidates(state, b);
      any = any || candidates.size() > 1;
      step_->enter(static_cast<int>(b), candidates.size() > 1 ? candidates : std::vector<int>{});
    }
    if (!any) end_step(state);
    return any;
  }

  void end_step(SearchState& state) {
    if (step_) {
      for (std::size_t b = 0; b < state.bands.size(); ++b) {
        const int leader = step_->leader[b];
        remember_ties(b);
        if (leader < 0 || leader == current_[b]) {
          if (!probing_ && leader >= 0) remember_runner_up(state, b);
          continue;
        }
        const auto& fate = state.outcome.fates[static_cast<std::size_t>(current_[b])].bands[b];
        // A point that failed leaves the band for the step's leader whatever the noise.
        const bool beaten = (fate.state == FateState::dropped && fate.by == leader) || state.is_failed(current_[b]);
        if (!beaten) continue;  // a leader within noise of the current point: stay
        if (probing_) {
          state.outcome.notes.push_back("in " + label_of(state.bands[b]) + ", " +
                                        state.space.candidates[static_cast<std::size_t>(leader)].label + " beats " +
                                        state.space.candidates[static_cast<std::size_t>(current_[b])].label +
                                        ", the point one axis at a time found: its axes interact; a full grid over "
                                        "them would look further (taken as the band's point)");
        }
        current_[b] = leader;
        moved_ = true;
        if (!probing_) remember_runner_up(state, b);
      }
      step_.reset();
    }
    if (probing_) {
      finished_ = true;
      return;
    }
    if (++axis_ < static_cast<int>(state.space.axes.size())) return;
    axis_ = 0;
    ++cycle_;
    if (moved_) {
      for (auto& t : ties_) t.clear();  // the next cycle finds them again around the new point
    }
    if (!moved_) {
      converged_ = true;
      probing_ = true;
    } else if (cycle_ >= state.options.max_cycles) {
      state.outcome.notes.push_back("coordinate descent stopped after " + std::to_string(cycle_) +
                                    " cycles that each moved some band");
      finished_ = true;
    }
    moved_ = false;
  }

  // The candidates this step found tied with the band's point (the point is the leader
  // or one of those tied with it); the last cycle's are the ones reported.
  void remember_ties(std::size_t b) {
    const std::vector<int>& tied = step_->tied[b];
    const int leader = step_->leader[b], at = current_[b];
    const bool at_tied = std::find(tied.begin(), tied.end(), at) != tied.end();
    if (leader < 0 || (leader != at && !at_tied)) return;
    std::vector<int> with = tied;
    with.push_back(leader);
    for (const int c : with) {
      if (c != at && std::find(ties_[b].begin(), ties_[b].end(), c) == ties_[b].end()) ties_[b].push_back(c);
    }
  }

  // The best value of the step's axis other than the band's point's, for the probe.
  void remember_runner_up(const SearchState& state, std::size_t b) {
    const auto band = static_cast<int>(b);
    const int own = state.space.candidates[static_cast<std::size_t>(current_[b])].values[static_cast<std::size_t>(axis_)];
    int best = -1;
    double best_log = 0;
    for (const int c : step_->alive[b].empty() ? std::vector<int>{} : axis_candidates(state, b)) {
      const int value = state.space.candidates[static_cast<std::size_t>(c)].values[static_cast<std::size_t>(axis_)];
      const auto s = state.score(c, band);
      if (value == own || !s) continue;
      if (best < 0 || s->mean_log > best_log) best = value, best_log = s->mean_log;
    }
    runner_up_[b][static_cast<std::size_t>(axis_)] = best;
  }

  std::vector<int> current_;                 // per band
  std::vector<std::vector<int>> runner_up_;  // per band and axis: a value index, -1 none
  std::vector<std::vector<int>> ties_;       // per band: tied with its point in this cycle
  std::optional<Elimination> step_;
  long step_start_ = 0, step_share_ = 0;    // measurements when the step began; its share
  int axis_ = 0, cycle_ = 0;
  bool moved_ = false, probing_ = false, finished_ = false, converged_ = false;
};

}  // namespace

std::unique_ptr<Exploration> make_coordinate_descent() { return std::make_unique<CoordinateDescent>(); }

}  // namespace ncclsweep
