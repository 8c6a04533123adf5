#include "search/search_grid.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace ncclsweep {

bool CandidateCalls::measures(const PlannedCall& planned) const {
  const CollectiveCall& call = planned.call;
  return call.buffers == buffers && call.launch == launch && call.cache == cache && planned.footprint == footprint;
}

namespace {

// One axis per setting name the points vary, values in order of first appearance.
std::vector<SearchAxis> setting_axes(const std::vector<SweepPoint>& points) {
  std::vector<SearchAxis> axes;
  for (const SweepPoint& p : points) {
    for (const Setting& s : p.settings) {
      auto axis = std::find_if(axes.begin(), axes.end(), [&](const SearchAxis& a) { return a.name == s.name; });
      if (axis == axes.end()) axis = axes.insert(axes.end(), SearchAxis{s.name, {}});
      if (std::find(axis->values.begin(), axis->values.end(), s.value) == axis->values.end()) axis->values.push_back(s.value);
    }
  }
  // A point that leaves a setting out runs NCCL's own choice: "(default)".
  for (SearchAxis& axis : axes) {
    for (const SweepPoint& p : points) {
      const bool sets = std::any_of(p.settings.begin(), p.settings.end(), [&](const Setting& s) { return s.name == axis.name; });
      if (!sets && std::find(axis.values.begin(), axis.values.end(), "(default)") == axis.values.end()) {
        axis.values.insert(axis.values.begin(), "(default)");
      }
    }
  }
  return axes;
}

int value_index(const SearchAxis& axis, const std::string& value) {
  return static_cast<int>(std::find(axis.values.begin(), axis.values.end(), value) - axis.values.begin());
}

}  // namespace

SearchGrid make_search_grid(const std::vector<SweepPoint>& points, int baseline, const RunSpec& spec) {
  SearchGrid grid;
  std::vector<SearchAxis> axes = setting_axes(points);
  const std::size_t settings = axes.size();
  const auto mode_axis = [&](const std::string& name, const auto& values, auto&& text) {
    if (values.size() < 2) return;
    SearchAxis axis{name, {}};
    for (const auto& v : values) axis.values.push_back(std::string(text(v)));
    axes.push_back(axis);
  };
  mode_axis("buffers", spec.buffer_modes, [](BufferMode m) { return name_of(m); });
  mode_axis("launch", spec.launch_modes, [](LaunchMode m) { return name_of(m); });
  mode_axis("footprint", spec.footprints, [](const BufferFootprint& f) { return label_of(f); });
  mode_axis("cache", spec.cache_states, [](CacheState c) { return name_of(c); });
  grid.space.axes = axes;
  const std::size_t nb = std::max<std::size_t>(spec.buffer_modes.size(), 1), nl = std::max<std::size_t>(spec.launch_modes.size(), 1),
                    nf = std::max<std::size_t>(spec.footprints.size(), 1), nc = std::max<std::size_t>(spec.cache_states.size(), 1);
  for (const SweepPoint& p : points) {
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t l = 0; l < nl; ++l)
        for (std::size_t f = 0; f < nf; ++f)
          for (std::size_t c = 0; c < nc; ++c) {
            CandidateCalls calls;
            calls.point = p.label;
            if (!spec.buffer_modes.empty()) calls.buffers = spec.buffer_modes[b];
            if (!spec.launch_modes.empty()) calls.launch = spec.launch_modes[l];
            if (!spec.footprints.empty()) calls.footprint = spec.footprints[f];
            if (!spec.cache_states.empty()) calls.cache = spec.cache_states[c];
            Candidate candidate;
            for (std::size_t a = 0; a < settings; ++a) {
              const auto s = std::find_if(p.settings.begin(), p.settings.end(), [&](const Setting& x) { return x.name == axes[a].name; });
              candidate.values.push_back(value_index(axes[a], s == p.settings.end() ? "(default)" : s->value));
            }
            std::string label = p.settings.empty() ? "" : p.label;
            const std::size_t picked[] = {b, l, f, c};
            for (std::size_t a = settings, m = 0; a < axes.size(); ++a) {
              // Mode axes appear in the order buffers, launch, footprint, cache, skipping single ones.
              const std::size_t counts[] = {nb, nl, nf, nc};
              while (counts[m] < 2) ++m;
              candidate.values.push_back(static_cast<int>(picked[m]));
              label += (label.empty() ? "" : " ") + axes[a].name + "=" + axes[a].values[picked[m]];
              ++m;
            }
            candidate.label = label.empty() ? p.label : label;
            if (p.index == baseline && b == 0 && l == 0 && f == 0 && c == 0) {
              grid.space.baseline = static_cast<int>(grid.space.candidates.size());
            }
            grid.space.candidates.push_back(candidate);
            grid.calls.push_back(calls);
          }
  }
  return grid;
}

std::vector<SizeBand> search_bands(const MeasurementPlan& plan, const std::vector<Bytes>& edges) {
  std::vector<MeasuredSizes> measured;
  for (const PlannedCall& call : plan.calls) {
    const CollectiveKind* kind = call.call.kind;
    auto m = std::find_if(measured.begin(), measured.end(), [&](const MeasuredSizes& x) { return x.collective == kind; });
    if (m == measured.end()) m = measured.insert(measured.end(), MeasuredSizes{kind, {}});
    m->sizes.push_back(call.total_bytes);
  }
  return make_bands(measured, edges);
}

int band_of(const std::vector<SizeBand>& bands, const CollectiveKind& collective, Bytes size) {
  for (std::size_t b = 0; b < bands.size(); ++b) {
    if (bands[b].holds(collective, size)) return static_cast<int>(b);
  }
  return -1;
}

SearchCost estimate_search_cost(const SearchSpace& space, const std::vector<SizeBand>& bands, const SearchOptions& options) {
  long sizes = 0;
  for (const auto& band : bands) sizes += static_cast<long>(band.sizes.size());
  const long n = static_cast<long>(space.candidates.size());
  SearchCost cost;
  cost.grid = n * sizes * options.grid_repeats;
  const long budget = static_cast<long>(std::floor(options.budget_share * static_cast<double>(cost.grid)));
  const long final_ab = 2L * options.ab_repeats * sizes;
  long expected = 0;
  if (options.method == SearchMethod::coordinate) {
    long per_cycle = 0;
    for (const auto& axis : space.axes) per_cycle += static_cast<long>(axis.values.size());
    expected = 2 * 3 * per_cycle * sizes;
  } else {
    double alive = static_cast<double>(n);
    for (int round = 0; round < options.max_occasions; ++round) {
      expected += static_cast<long>(std::ceil(alive)) * sizes;
      alive = round == 0 ? std::max(1.0, alive / 4) : std::max(1.0, alive / 2);
    }
  }
  cost.worst = budget;
  cost.expected = std::min(budget, expected + final_ab);
  return cost;
}

}  // namespace ncclsweep
