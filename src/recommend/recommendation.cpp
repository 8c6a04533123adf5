#include "recommend/recommendation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <map>
#include <set>
#include <tuple>

#include "compare/comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/iteration_stats.hpp"
#include "recommend/nccl_choice.hpp"
#include "results/repeats.hpp"

namespace ncclsweep {
namespace {

// One way a size was measured: which run, dtype, op and placement. A point is judged
// against its run's baseline within each variant, so runs and dtypes never mix.
struct Variant {
  int run = 0;
  CommunicatorShape communicator;  // the world and each group size are bands of their own
  std::string dtype, op, placement;
  auto operator<=>(const Variant&) const = default;
};

struct Measured {
  SideRow row;      // repeats folded as compare folds them (median busbw, their spread)
  int records = 0;  // the repeats behind it
  std::optional<double> exposed_us;  // under compute: the median exposed time per call
};

using PointRows = std::map<std::string, Measured>;  // point label -> row
using SizeRows = std::map<Variant, PointRows>;
using CollectiveRows = std::map<Bytes, SizeRows>;

// A point against the baseline at one size, over every variant both were measured in.
struct Judgement {
  int rows = 0, faster = 0;
  bool loses = false;  // slower beyond the noise of both somewhere
  std::vector<double> gains;
  int support = 0;
  bool clear() const { return rows > 0 && faster == rows; }
  double median_gain() const { return median_of(gains); }
};

struct SizeOutcome {
  std::map<std::string, Judgement> points;  // eligible non-baseline points
  std::string winner;                       // "" when none is clear
  std::string why;                          // for no winner
};

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
  return text;
}

std::string join(const std::vector<std::string>& items, std::size_t limit = 4) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > limit) s += " and " + std::to_string(items.size() - limit) + " more";
  return s;
}

std::vector<std::string> labels_of(const RunDocument& run) {
  std::vector<std::string> labels;
  for (const auto& p : run.points) labels.push_back(p.label);
  return labels;
}

std::string choose_baseline(const RunInput& input, const RecommendOptions& options, std::string& reason) {
  const RunDocument& run = input.run;
  const auto labels = labels_of(run);
  if (labels.size() < 2) {
    throw UsageError(input.path + " holds " + std::to_string(labels.size()) +
                         " sweep point(s): recommend picks among the points of a sweep",
                     "give the results directory of a sweep run (ncclsweep run SWEEP.yaml, or --env NAME=A,B)");
  }
  const auto has = [&](const std::string& label) { return std::find(labels.begin(), labels.end(), label) != labels.end(); };
  if (!options.baseline.empty()) {
    if (!has(options.baseline)) {
      throw UsageError("--baseline '" + options.baseline + "' names no point of " + input.path,
                       "give one of: " + join(labels, 16));
    }
    reason = "given with --baseline";
    return options.baseline;
  }
  if (!run.baseline.empty() && has(run.baseline)) {
    reason = "the sweep's baseline";
    return run.baseline;
  }
  for (const auto& p : run.points) {
    if (p.settings.empty()) {
      reason = "the point without settings: NCCL's own choices";
      return p.label;
    }
  }
  reason = "the first point: the sweep names no baseline";
  return labels.front();
}

// Why a point may not be recommended ("" when it may): a setting that did not reach
// NCCL on every rank measured something else than its label says.
std::string ineligible_reason(const PointOutcome& p) {
  if (!p.status.empty() && p.status != "ok") return "its status is " + p.status;
  for (const auto& s : p.settings) {
    if (s.status != "applied" && s.status != "by-config") {
      return s.name + "=" + s.value + " was " + s.status + ", not applied on every rank";
    }
  }
  return "";
}

const PointOutcome* find_point(const RunDocument& run, const std::string& label) {
  for (const auto& p : run.points) {
    if (p.label == label) return &p;
  }
  return nullptr;
}

const SettingOutcome* find_setting(const std::vector<SettingOutcome>& settings, const std::string& name) {
  for (const auto& s : settings) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void fill_logged_choice(const PointOutcome& point, Band& band) {
  std::set<std::tuple<std::string, std::string, int>> choices;
  for (Bytes size : band.sizes) {
    if (const auto c = logged_choice(point, band.collective, size, band.ranks)) {
      choices.insert({c->algorithm, c->protocol, c->channels});
    }
  }
  if (choices.size() != 1) return;  // not logged, or NCCL chose differently across the band
  std::tie(band.logged_algorithm, band.logged_protocol, band.logged_channels) = *choices.begin();
}

std::map<std::pair<std::string, Bytes>, double> size_weights(const std::map<std::string, CollectiveRows>& table,
                                                             const std::vector<RunInput>& runs, std::string& description) {
  std::map<std::pair<std::string, Bytes>, double> weights;
  const RunDocument* with_workload = nullptr;
  for (const auto& input : runs) {
    if (input.run.workload && !input.run.workload->calls.empty()) {
      with_workload = &input.run;
      break;
    }
  }
  if (!with_workload) {
    description = "every measured size alike (the runs carry no workload)";
    for (const auto& [collective, sizes] : table) {
      for (const auto& [size, rows] : sizes) weights[{collective, size}] = 1;
    }
    return weights;
  }
  description = "calls per iteration from " + with_workload->workload->source;
  for (const auto& call : with_workload->workload->calls) {
    const auto sizes = table.find(call.collective);
    if (sizes == table.end() || call.bytes == 0) continue;
    // The nearest measured size on a log scale (runs from a workload measure its sizes exactly).
    Bytes nearest = 0;
    double best = 0;
    for (const auto& [size, rows] : sizes->second) {
      const double distance = std::fabs(std::log(static_cast<double>(size) / static_cast<double>(call.bytes)));
      if (nearest == 0 || distance < best) nearest = size, best = distance;
    }
    weights[{call.collective, nearest}] += call.calls;
  }
  return weights;
}

}  // namespace

std::string band_label(const Band& band) {
  if (band.sizes.empty()) return band.collective;
  if (band.sizes.size() == 1) return band.collective + " " + format_bytes(band.sizes.front());
  return band.collective + " " + format_bytes(band.sizes.front()) + " .. " + format_bytes(band.sizes.back());
}

Recommendation recommend(const std::vector<RunInput>& runs, const RecommendOptions& options) {
  if (runs.empty()) throw UsageError("no results to recommend from", "give one or more results directories of sweep runs");
  Recommendation rec;
  std::vector<std::string> baselines;
  std::vector<std::set<std::string>> eligible(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunDocument& run = runs[r].run;
    rec.runs.push_back(run.name);
    std::string reason;
    baselines.push_back(choose_baseline(runs[r], options, reason));
    const int ranks = static_cast<int>(run.ranks.size());
    if (r == 0) {
      rec.ranks = ranks;
      rec.nodes = static_cast<int>(run.hosts.size());
      rec.baseline = baselines.back();
      rec.baseline_reason = reason;
      rec.baseline_settings = find_point(run, rec.baseline)->settings;
    } else {
      if (ranks != rec.ranks || static_cast<int>(run.hosts.size()) != rec.nodes) {
        throw UsageError(runs[r].path + " ran on " + std::to_string(ranks) + " ranks and " + std::to_string(run.hosts.size()) +
                             " nodes, " + runs[0].path + " on " + std::to_string(rec.ranks) + " and " + std::to_string(rec.nodes),
                         "recommend from runs at one scale: a choice at one rank count is not evidence for another");
      }
      if (baselines.back() != rec.baseline) {
        rec.notes.push_back(run.name + ": its baseline is '" + baselines.back() + "' (" + reason + ")");
      }
    }
    if (run.status != "complete") rec.notes.push_back(run.name + ": run status is '" + run.status + "': rows may be missing");
    for (const auto& p : run.points) {
      const std::string why = ineligible_reason(p);
      if (why.empty()) {
        eligible[r].insert(p.label);
      } else {
        rec.notes.push_back(run.name + ": never recommended: " + p.label + ": " + why);
      }
    }
    if (!eligible[r].count(baselines.back())) {
      throw UsageError("the baseline '" + baselines.back() + "' of " + runs[r].path + " was not verified: " +
                           ineligible_reason(*find_point(run, baselines.back())),
                       "pass --baseline with a point whose settings were applied");
    }
  }

  // collective -> size -> variant -> point -> row, from compare's reading of each run.
  std::map<std::string, CollectiveRows> table;
  int skipped_modes = 0, skipped_wrong = 0, without_compute = 0;
  const bool under_compute = options.rank_by == RankBy::iteration_time_under_compute;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunDocument& run = runs[r].run;
    const Side side = side_from_run(run, runs[r].path);
    std::map<MeasurementKey, double> exposed;  // without repeat
    for (const RepeatedMeasurement& m : aggregate_repeats(run.records)) {
      if (m.under_compute) exposed[m.key] = m.under_compute->exposed_us.median;
    }
    for (const auto& row : side.rows) {
      // The recommendation is about settings, measured the default way: rows of other
      // buffer or launch modes, footprints or cache states are left out.
      const MeasurementKey& k = *row.measurement;
      if (!conditions_text(k).empty()) {
        ++skipped_modes;
        continue;
      }
      if (row.wrong.value_or(0) > 0) {
        ++skipped_wrong;
        continue;
      }
      const Variant variant{static_cast<int>(r), k.communicator, row.key.dtype, row.key.op, row.key.placement};
      std::optional<double> cost;
      if (const auto e = exposed.find(without_repeat(k)); e != exposed.end()) cost = e->second;
      if (under_compute && !cost) {
        ++without_compute;
        continue;
      }
      Measured& m = table[row.key.collective][row.key.size_bytes][variant][k.point];
      m.row = row;
      m.records = row.repeats;
      m.exposed_us = cost;
    }
  }
  std::set<std::string> dtypes;
  for (const auto& [collective, sizes] : table) {
    for (const auto& [size, variants] : sizes) {
      for (const auto& [variant, points] : variants) dtypes.insert(variant.dtype);
    }
  }
  rec.dtypes.assign(dtypes.begin(), dtypes.end());
  if (skipped_modes) rec.notes.push_back(std::to_string(skipped_modes) + " rows of other buffer or launch modes, footprints or cache states left out");
  if (without_compute) {
    rec.notes.push_back(std::to_string(without_compute) + " rows measured without compute left out (--rank-by " +
                        std::string(kRankByNames.name(options.rank_by)) + ")");
  }
  if (under_compute) rec.notes.push_back("ranked by the time each call exposes under compute (docs/overlap.md); ties go to fewer SMs");
  if (skipped_wrong) rec.notes.push_back(std::to_string(skipped_wrong) + " rows with wrong results left out");
  if (table.empty() && under_compute) {
    throw UsageError("the runs hold no measurements under compute", "run the sweep with --with-compute gemm:MxNxK:DTYPE");
  }
  if (table.empty()) throw UsageError("the runs hold no measurements", "give results directories of completed sweep runs");

  // Judge every eligible point at every size, and name the winner.
  std::map<std::string, std::map<Bytes, SizeOutcome>> outcomes;
  for (const auto& [collective, sizes] : table) {
    for (const auto& [size, variants] : sizes) {
      SizeOutcome& out = outcomes[collective][size];
      bool any_baseline = false;
      for (const auto& [variant, points] : variants) {
        const std::string& base_label = baselines[static_cast<std::size_t>(variant.run)];
        const auto base = points.find(base_label);
        if (base == points.end() || base->second.row.busbw_gbps <= 0) continue;
        if (under_compute && !base->second.exposed_us) continue;
        any_baseline = true;
        const SideRow& b = base->second.row;
        for (const auto& [label, m] : points) {
          if (label == base_label || !eligible[static_cast<std::size_t>(variant.run)].count(label)) continue;
          Judgement& j = out.points[label];
          Verdict v;
          if (under_compute) {
            // Lower exposed time is better: judged as its negative, with the row's own relative noise.
            const double m_rel = noise_band_gbps(m.row, options.noise) / std::max(m.row.busbw_gbps, 1e-12);
            const double b_rel = noise_band_gbps(b, options.noise) / std::max(b.busbw_gbps, 1e-12);
            const double mc = *m.exposed_us, bc = *base->second.exposed_us;
            v = judge(-mc, mc * m_rel, -bc, bc * b_rel);
            j.gains.push_back(bc > 0 ? (bc - mc) / bc : 0);  // the share of the baseline's exposed time saved
          } else {
            v = judge(m.row.busbw_gbps, noise_band_gbps(m.row, options.noise), b.busbw_gbps, noise_band_gbps(b, options.noise));
            j.gains.push_back(m.row.busbw_gbps / b.busbw_gbps - 1);
          }
          ++j.rows;
          if (v == Verdict::faster) ++j.faster;
          if (v == Verdict::slower) j.loses = true;
          j.support += m.records + base->second.records;
        }
      }
      double best = 0;
      for (const auto& [label, j] : out.points) {
        if (j.clear() && (out.winner.empty() || j.median_gain() > best)) out.winner = label, best = j.median_gain();
      }
      if (under_compute && !out.winner.empty()) {
        // Winners within the noise of the best are tied: the one taking fewest SMs wins.
        const auto sms = [&](const std::string& label) {
          for (const auto& input : runs) {
            if (const PointOutcome* p = find_point(input.run, label); p && p->coll_channels >= 0) return p->coll_channels;
          }
          return std::numeric_limits<int>::max();
        };
        for (const auto& [label, j] : out.points) {
          if (j.clear() && best - j.median_gain() <= options.noise.relative && sms(label) < sms(out.winner)) out.winner = label;
        }
      }
      if (!any_baseline) {
        out.why = "the baseline was not measured here";
      } else if (out.winner.empty()) {
        out.why = "no point beats the baseline beyond the noise of both at every measurement";
      }
    }
  }

  std::map<std::string, std::set<int>> ranks_of;  // collective -> communicator sizes measured
  for (const auto& input : runs) {
    for (const auto& r : input.run.records) ranks_of[r.collective].insert(r.ranks);
  }
  // Adjacent sizes with the same outcome become one band.
  for (const auto& [collective, sizes] : outcomes) {
    Band* band = nullptr;
    for (const auto& [size, out] : sizes) {
      if (!band || band->winner != out.winner || band->why != out.why) {
        rec.bands.push_back({});
        band = &rec.bands.back();
        band->collective = collective;
        // A sub-communicator's records carry its own rank count: rules and NCCL's logged
        // sizes are per communicator. Its node count is not recorded: any.
        const auto& communicators = ranks_of[collective];
        band->ranks = communicators.size() == 1 ? *communicators.begin() : rec.ranks;
        band->nodes = band->ranks == rec.ranks ? rec.nodes : -1;
        band->winner = out.winner;
        band->why = out.why;
      }
      band->sizes.push_back(size);
    }
  }
  for (Band& band : rec.bands) {
    if (band.winner.empty()) continue;
    std::vector<double> gains;
    for (Bytes size : band.sizes) {
      const Judgement& j = outcomes[band.collective][size].points.at(band.winner);
      gains.insert(gains.end(), j.gains.begin(), j.gains.end());
      band.support += j.support;
    }
    band.median_gain = median_of(gains);
    band.worst_gain = *std::min_element(gains.begin(), gains.end());
    for (const auto& input : runs) {
      if (const PointOutcome* p = find_point(input.run, band.winner)) {
        band.settings = p->settings;
        fill_logged_choice(*p, band);
        break;
      }
    }
  }

  // Environment settings: exported when the winners use them across the sizes that
  // matter (weighted by the workload's calls) and they never lose beyond noise there.
  const auto weights = size_weights(table, runs, rec.weights);
  double total = 0;
  for (const auto& [key, w] : weights) total += w;
  std::map<std::pair<std::string, std::string>, std::vector<const Band*>> candidates;
  std::set<std::string> config_notes;
  for (const Band& band : rec.bands) {
    for (const auto& s : band.settings) {
      const SettingOutcome* base = find_setting(rec.baseline_settings, s.name);
      if (base && base->value == s.value) continue;
      if (s.kind.rfind("env", 0) == 0) {
        candidates[{s.name, s.value}].push_back(&band);
      } else {
        config_notes.insert("config field " + s.name + "=" + s.value + " wins at " + band_label(band) +
                            ": set it in the job's ncclConfig_t; it is not an environment variable");
      }
    }
  }
  rec.notes.insert(rec.notes.end(), config_notes.begin(), config_notes.end());
  const auto sets = [](const std::vector<SettingOutcome>& settings, const std::string& name, const std::string& value) {
    const SettingOutcome* s = find_setting(settings, name);
    return s && s->value == value;
  };
  for (const auto& [setting, bands] : candidates) {
    const auto& [name, value] = setting;
    EnvChoice choice;
    choice.name = name;
    choice.value = value;
    double won = 0;
    std::vector<std::string> wins, losses;
    for (const Band* band : bands) {
      wins.push_back(band_label(*band));
      for (Bytes size : band->sizes) {
        const auto w = weights.find({band->collective, size});
        if (w != weights.end()) won += w->second;
      }
    }
    for (const auto& [key, w] : weights) {
      if (w <= 0) continue;
      // The best point with this setting at this size: does it lose beyond noise?
      const Judgement* best = nullptr;
      for (const auto& [label, j] : outcomes[key.first][key.second].points) {
        const PointOutcome* p = nullptr;
        for (const auto& input : runs) {
          if ((p = find_point(input.run, label))) break;
        }
        if (p && sets(p->settings, name, value) && (!best || j.median_gain() > best->median_gain())) best = &j;
      }
      if (best && best->loses) losses.push_back(key.first + " " + format_bytes(key.second));
    }
    choice.share = total > 0 ? won / total : 0;
    if (!losses.empty()) {
      choice.why = "wins at " + join(wins) + " but loses beyond noise at " + join(losses);
    } else if (choice.share <= 0.5) {
      choice.why = "wins at " + join(wins) + ", only " + percent(choice.share) + " of the sizes that matter";
    } else {
      choice.exported = true;
      choice.why = "wins at " + join(wins) + ", " + percent(choice.share) + " of the sizes that matter, never loses beyond noise";
    }
    rec.env.push_back(choice);
  }
  return rec;
}

}  // namespace ncclsweep
