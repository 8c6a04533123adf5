// The search's decisions (src/search/), driven by a fake measurement: a 3 x 3 x 3 grid
// whose busbw per band is known (axis factors multiply), so the true winner of each band
// is known, one band's winner differs from the other's, and two points of one band are
// within noise of each other. Over 10 seeds racing and coordinate descent must find the
// true winners with at most a third of the full grid's measurements, and never report a
// winner the final A/B did not confirm.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "search/search.hpp"
#include "search/search_grid.hpp"
#include "spec/sweep.hpp"
#include "core/units.hpp"

using namespace ncclsweep;

namespace {

constexpr Bytes KiB = 1024;

// Factor of each axis value per band: band 0 (small sizes), band 1 (large sizes).
struct FakeGrid {
  std::vector<std::vector<std::vector<double>>> factor;  // [band][axis][value]
  SearchSpace space;
  std::vector<SizeBand> bands;

  double truth(int candidate, int band) const {
    double f = 100;
    const auto& values = space.candidates[static_cast<std::size_t>(candidate)].values;
    for (std::size_t a = 0; a < values.size(); ++a) f *= factor[static_cast<std::size_t>(band)][a][static_cast<std::size_t>(values[a])];
    return f;
  }
};

SearchSpace grid_space(int axes, int values) {
  SearchSpace space;
  for (int a = 0; a < axes; ++a) {
    SearchAxis axis{std::string(1, char('A' + a)), {}};
    for (int v = 0; v < values; ++v) axis.values.push_back(std::to_string(v));
    space.axes.push_back(axis);
  }
  const int count = static_cast<int>(std::pow(values, axes));
  for (int i = 0; i < count; ++i) {
    Candidate c;
    int rest = i;
    for (int a = 0; a < axes; ++a) {
      c.values.insert(c.values.begin(), rest % values);
      rest /= values;
    }
    for (int a = 0; a < axes; ++a) c.label += (a ? " " : "") + space.axes[static_cast<std::size_t>(a)].name + "=" + std::to_string(c.values[static_cast<std::size_t>(a)]);
    space.candidates.push_back(c);
  }
  space.baseline = 0;  // every axis at its first value
  return space;
}

// Small band: A=1 wins, and B=0 / B=2 are within noise (1.0 vs 1.01). Large band: A=2, B=1.
FakeGrid three_axis_grid() {
  FakeGrid g;
  g.factor = {{{1.0, 1.5, 0.8}, {1.0, 0.7, 1.01}, {1.0, 0.85, 0.6}},
              {{1.0, 0.8, 1.4}, {1.0, 1.3, 0.7}, {1.0, 0.85, 0.8}}};
  g.space = grid_space(3, 3);
  g.bands = make_bands({{&collective("all_reduce"), {4 * KiB, 16 * KiB, 64 * KiB, 4 * kMiB, 16 * kMiB, 64 * kMiB}}}, {1 * kMiB});
  return g;
}

// What a rank would measure: the truth with per-occasion drift and per-size noise.
using Measure = std::function<double(int candidate, int band, RoundKind kind)>;

SearchOutcome drive(Search& search, const FakeGrid& grid, std::uint64_t seed, Measure truth = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> occasion_drift(0, 0.01), size_noise(0, 0.015);
  if (!truth) truth = [&](int c, int b, RoundKind) { return grid.truth(c, b); };
  while (const auto round = search.next_round()) {
    for (std::size_t i = 0; i < round->items.size(); ++i) {
      const double drift = std::exp(occasion_drift(rng));
      for (const int band : round->items[i].bands) {
        for (std::size_t s = 0; s < grid.bands[static_cast<std::size_t>(band)].sizes.size(); ++s) {
          const double busbw = truth(round->items[i].candidate, band, round->kind) * drift * std::exp(size_noise(rng));
          search.record(static_cast<int>(i), band, busbw, 1000.0, 0.005);
        }
      }
    }
  }
  return search.outcome();
}

SearchOptions options_for(SearchMethod method, std::uint64_t seed) {
  SearchOptions o;
  o.method = method;
  o.seed = seed;
  o.grid_repeats = 5;
  o.max_occasions = 5;
  o.budget_share = 0.33;
  return o;
}

// The true winner, or a candidate the search reported as tied with it while within noise.
bool finds_true_winner(const FakeGrid& grid, const BandResult& band, int b) {
  int best = 0;
  for (int c = 1; c < static_cast<int>(grid.space.candidates.size()); ++c) {
    if (grid.truth(c, b) > grid.truth(best, b)) best = c;
  }
  if (band.winner == best) return true;
  // A tie reported between the winner and the true best, which are within 2% in truth.
  const bool tie_holds_best = std::find(band.ties.begin(), band.ties.end(), best) != band.ties.end();
  return band.winner >= 0 && tie_holds_best && grid.truth(band.winner, b) > 0.98 * grid.truth(best, b);
}

}  // namespace

TEST_CASE("auto bands cut a collective's sizes into three runs of adjacent sizes", "[search]") {
  const auto bands = make_bands({{&collective("all_gather"), {1 * kMiB, 2 * kMiB, 4 * kMiB, 8 * kMiB, 16 * kMiB, 32 * kMiB, 64 * kMiB}}}, {});
  REQUIRE(bands.size() == 3);
  CHECK(bands[0].sizes == std::vector<Bytes>{1 * kMiB, 2 * kMiB});
  CHECK(bands[2].sizes.back() == 64 * kMiB);
  CHECK(label_of(bands[1]) == "all_gather 4 MiB .. 8 MiB");
  const auto edged = make_bands({{&collective("all_gather"), {1 * kMiB, 2 * kMiB, 4 * kMiB}}}, {2 * kMiB});
  REQUIRE(edged.size() == 2);
  CHECK(edged[1].sizes == std::vector<Bytes>{2 * kMiB, 4 * kMiB});
}

TEST_CASE("two scores within the noise are tied only once both were measured often enough", "[search]") {
  SearchStatistics stats;
  BandScore a{2, std::log(100.0), 0.005, 1000, 0.005}, b{2, std::log(99.5), 0.005, 1000, 0.005};
  CHECK_FALSE(stand(a, b, stats).tied);  // two occasions: not yet
  a.occasions = b.occasions = 3;
  CHECK(stand(a, b, stats).tied);
  BandScore slow{1, std::log(70.0), 0, 1000, 0.005};
  const Standing s = stand(a, slow, stats);
  CHECK(s.beaten);
  CHECK(s.gain == Approx(100.0 / 70 - 1).epsilon(1e-9));
}

TEST_CASE("a band wider than the figure itself still lets a large enough gap win", "[search]") {
  // A loaded machine: occasions spread so far that each band passes 100%. A 3x gap is
  // not beaten under such noise; a 100x gap is, though a band taken as lead * (1 - band)
  // would have gone below zero and refused both.
  SearchStatistics stats;
  BandScore wild{3, std::log(100.0), 0.9, 1000, 0.5}, slower{3, std::log(33.0), 0.9, 3000, 0.5};
  REQUIRE(score_band(wild, stats) > 1);
  CHECK_FALSE(stand(wild, slower, stats).beaten);
  BandScore far_slower{3, std::log(1.0), 0.9, 100000, 0.5};
  CHECK(stand(wild, far_slower, stats).beaten);
}

TEST_CASE("racing finds each band's true winner over 10 seeds with a third of the grid", "[search]") {
  const FakeGrid grid = three_axis_grid();
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Search search(grid.space, grid.bands, options_for(SearchMethod::racing, seed));
    const SearchOutcome out = drive(search, grid, seed);
    INFO("seed " << seed << ": " << out.measurements << " of " << out.grid_measurements);
    CHECK(out.measurements * 3 <= out.grid_measurements);
    for (int b = 0; b < 2; ++b) {
      const BandResult& band = out.bands[static_cast<std::size_t>(b)];
      INFO("band " << b << " winner " << band.winner << " leader " << band.leader << ": " << band.why);
      CHECK(finds_true_winner(grid, band, b));
      CHECK((band.winner < 0 || band.winner == grid.space.baseline || (band.ab_measured && band.ab_gain > 0)));
    }
    CHECK(out.bands[0].winner != out.bands[1].winner);
  }
}

TEST_CASE("racing reports the pair within noise as a tie and why each other point dropped", "[search]") {
  const FakeGrid grid = three_axis_grid();
  Search search(grid.space, grid.bands, options_for(SearchMethod::racing, 3));
  const SearchOutcome out = drive(search, grid, 3);
  const auto a1b0c0 = *grid.space.find({1, 0, 0});
  const auto a1b2c0 = *grid.space.find({1, 2, 0});
  const BandResult& small = out.bands[0];
  CHECK(small.settled);
  const int other = small.leader == a1b0c0 ? a1b2c0 : a1b0c0;
  CHECK(std::find(small.ties.begin(), small.ties.end(), other) != small.ties.end());
  // The baseline is far slower in both bands: dropped in round 1 by a leader, with its gap.
  const CandidateFate& base = out.fates[0];
  CHECK(base.bands[0].state == FateState::dropped);
  CHECK(base.bands[0].round == 1);
  CHECK(base.bands[0].gain > 0.3);
  CHECK(base.bands[0].by >= 0);
  // A point dropped in both bands in round 1 is measured in round 1 only (and the A/B).
  const auto slow = *grid.space.find({0, 1, 2});
  CHECK(out.fates[static_cast<std::size_t>(slow)].rounds == std::vector<int>{1});
}

TEST_CASE("coordinate descent finds each band's true winner over 10 seeds with a third of the grid", "[search]") {
  const FakeGrid grid = three_axis_grid();
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Search search(grid.space, grid.bands, options_for(SearchMethod::coordinate, seed));
    const SearchOutcome out = drive(search, grid, seed);
    INFO("seed " << seed << ": " << out.measurements << " of " << out.grid_measurements);
    CHECK(out.measurements * 3 <= out.grid_measurements);
    for (int b = 0; b < 2; ++b) {
      const BandResult& band = out.bands[static_cast<std::size_t>(b)];
      INFO("band " << b << " winner " << band.winner << " leader " << band.leader << ": " << band.why);
      CHECK(finds_true_winner(grid, band, b));
      CHECK((band.winner < 0 || band.winner == grid.space.baseline || (band.ab_measured && band.ab_gain > 0)));
    }
  }
}

TEST_CASE("coordinate descent: a first axis of two equal values does not spend the budget of the axes after it", "[search]") {
  // The one-GPU call-mode grid's shape: two buffer modes that measure the same, a launch
  // mode that wins 6x, and a footprint that wins 35% in the small band only. Equal values
  // are told tied only after the grid's every repeat; without a share per axis, that
  // first step took the budget and the footprint axis was never reached.
  FakeGrid g;
  g.factor = {{{1.0, 1.0}, {1.0, 6.0, 1.2}, {1.0, 1.0}},
              {{1.0, 1.0}, {1.0, 6.0, 1.2}, {1.0, 1.35}},
              {{1.0, 1.0}, {1.0, 6.0, 1.2}, {1.0, 0.8}}};
  g.space = grid_space(3, 3);
  // Axis A and C have two values here: keep the candidates whose values exist.
  SearchSpace space;
  space.axes = g.space.axes;
  space.axes[0].values.resize(2);
  space.axes[2].values.resize(2);
  for (const Candidate& c : g.space.candidates) {
    if (c.values[0] < 2 && c.values[2] < 2) space.candidates.push_back(c);
  }
  space.baseline = 0;
  g.space = space;
  g.bands = make_bands({{&collective("all_reduce"), {8 * KiB, 64 * KiB, 512 * KiB, 4 * kMiB, 32 * kMiB, 256 * kMiB}}}, {});  // 3 of 2 sizes
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SearchOptions o = options_for(SearchMethod::coordinate, seed);
    o.grid_repeats = o.max_occasions = 8;
    Search search(g.space, g.bands, o);
    // Noisier than drive()'s default, occasion to occasion as on the GPU, with the spread
    // of one measurement as wide: equal values are told tied only after every repeat.
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> occasion_drift(0, 0.10), size_noise(0, 0.03);
    while (const auto round = search.next_round()) {
      for (std::size_t i = 0; i < round->items.size(); ++i) {
        const double drift = std::exp(occasion_drift(rng));
        for (const int band : round->items[i].bands) {
          for (std::size_t s = 0; s < g.bands[static_cast<std::size_t>(band)].sizes.size(); ++s) {
            search.record(static_cast<int>(i), band, g.truth(round->items[i].candidate, band) * drift * std::exp(size_noise(rng)),
                          1000.0, 0.10);
          }
        }
      }
    }
    const SearchOutcome out = search.outcome();
    INFO("seed " << seed << ": " << out.measurements << " of " << out.grid_measurements);
    CHECK(out.measurements * 3 <= out.grid_measurements);
    REQUIRE(out.bands.size() == 3);
    for (int b = 0; b < 3; ++b) {
      double best = 0;
      for (int c = 0; c < static_cast<int>(g.space.candidates.size()); ++c) best = std::max(best, g.truth(c, b));
      const BandResult& band = out.bands[static_cast<std::size_t>(b)];
      INFO("band " << b << " winner " << band.winner << " leader " << band.leader << ": " << band.why);
      REQUIRE(band.winner >= 0);
      CHECK(g.truth(band.winner, b) > 0.98 * best);
    }
  }
}

TEST_CASE("coordinate descent says when two axes interact", "[search]") {
  // Alone, A=1 and B=1 are each slower; together they are 40% faster.
  FakeGrid grid;
  grid.space = grid_space(2, 3);
  grid.bands = make_bands({{&collective("all_reduce"), {1 * kMiB, 4 * kMiB}}}, {});
  grid.bands.resize(1);
  grid.bands[0].sizes = {1 * kMiB, 4 * kMiB};
  const auto together = *grid.space.find({1, 1});
  Search search(grid.space, grid.bands, [] {
    SearchOptions o = options_for(SearchMethod::coordinate, 7);
    o.budget_share = 1.0;
    return o;
  }());
  const Measure truth = [&](int c, int, RoundKind) {
    const auto& v = grid.space.candidates[static_cast<std::size_t>(c)].values;
    if (c == together) return 140.0;
    return 100.0 * (v[0] == 0 ? 1.0 : v[0] == 1 ? 0.9 : 0.8) * (v[1] == 0 ? 1.0 : v[1] == 1 ? 0.9 : 0.8);
  };
  const SearchOutcome out = drive(search, grid, 7, truth);
  CHECK(out.bands[0].winner == together);
  const bool said = std::any_of(out.notes.begin(), out.notes.end(), [](const std::string& n) {
    return n.find("interact") != std::string::npos;
  });
  CHECK(said);
}

TEST_CASE("a leader the final A/B does not confirm is not reported as a winner: the baseline is", "[search]") {
  const FakeGrid grid = three_axis_grid();
  Search search(grid.space, grid.bands, options_for(SearchMethod::racing, 5));
  // In the A/B every candidate measures as the baseline does: the race's gain was not real.
  const Measure truth = [&](int c, int b, RoundKind kind) {
    return kind == RoundKind::final_ab ? grid.truth(0, b) : grid.truth(c, b);
  };
  const SearchOutcome out = drive(search, grid, 5, truth);
  for (const BandResult& band : out.bands) {
    CHECK(band.leader != grid.space.baseline);
    CHECK(band.ab_measured);
    CHECK(band.winner == grid.space.baseline);
    CHECK_THAT(band.why, ContainsSubstring("did not confirm"));
  }
}

TEST_CASE("a budget below one race round and the final A/B is refused with the fix", "[search]") {
  const FakeGrid grid = three_axis_grid();
  SearchOptions o = options_for(SearchMethod::racing, 1);
  o.grid_repeats = 1;  // the grid measures each point once: a race cannot be cheaper
  CHECK_THROWS_WITH(Search(grid.space, grid.bands, o), ContainsSubstring("cannot pay for the search's first round"));
}

TEST_CASE("the full grid in rounds measures every point every round and names the same winners", "[search]") {
  const FakeGrid grid = three_axis_grid();
  SearchOptions o = options_for(SearchMethod::grid, 2);
  Search search(grid.space, grid.bands, o);
  const SearchOutcome out = drive(search, grid, 2);
  CHECK(out.measurements == out.grid_measurements);
  CHECK(out.rounds == o.grid_repeats);
  for (int b = 0; b < 2; ++b) CHECK(finds_true_winner(grid, out.bands[static_cast<std::size_t>(b)], b));
}

TEST_CASE("a sweep's search key is read with its budget, confidence and band edges", "[search]") {
  const Sweep sweep = load_sweep_text("search: {method: coordinate, budget: 20m, confidence: 0.9, bands: [64K, 16M]}\n", "s.yaml");
  CHECK(sweep.search.method == SearchMethod::coordinate);
  CHECK(sweep.search.budget.seconds == Approx(1200));
  CHECK(sweep.search.confidence == Approx(0.9));
  CHECK(sweep.search.band_edges == std::vector<Bytes>{64 * KiB, 16 * kMiB});
  CHECK(load_sweep_text("search: {method: racing}\n", "s.yaml").search.budget.grid_fraction == Approx(0.33));
  try {
    load_sweep_text("repeats: 3\nsearch: {method: racin}\n", "s.yaml");
    FAIL("an unknown search method was accepted");
  } catch (const UsageError& e) {
    CHECK(e.where().line == 2);
    CHECK_THAT(e.what(), ContainsSubstring("did you mean racing"));
  }
  CHECK_THROWS_WITH(load_sweep_text("search: {budget: 1.5}\n", "s.yaml"), ContainsSubstring("more than the whole grid"));
  CHECK_THROWS_WITH(load_sweep_text("search: {budgets: 0.3}\n", "s.yaml"), ContainsSubstring("budget"));
}

TEST_CASE("a grid of call modes becomes candidates labelled by what varies, baseline first", "[search]") {
  RunSpec spec;
  spec.footprints = parse_footprint_list("largest,exact");
  spec.cache_states = parse_cache_state_list("warm,flush");
  spec.buffer_modes = {BufferMode::cuda_malloc};
  spec.launch_modes = {LaunchMode::stream};
  const SearchGrid grid = make_search_grid({SweepPoint{0, "default", {}, 0, false}}, 0, spec);
  REQUIRE(grid.space.candidates.size() == 4);
  CHECK(grid.space.axes.size() == 2);
  CHECK(grid.space.candidates[static_cast<std::size_t>(grid.space.baseline)].label == "footprint=largest cache=warm");
  CHECK(grid.space.candidates[3].label == "footprint=exact cache=flush");
  CHECK(grid.calls[3].cache == CacheState::flush);
  CHECK(grid.calls[3].footprint.mode == FootprintMode::exact);
}
