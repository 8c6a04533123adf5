#include "recommend/recommendation.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <map>
#include <set>
#include <tuple>

#include "compare/comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/iteration_stats.hpp"
#include "core/list_text.hpp"
#include "core/printf_text.hpp"
#include "recommend/nccl_choice.hpp"
#include "results/repeats.hpp"

namespace ncclsweep {
namespace {

// One way a size was measured: which run, dtype, op and placement. A point is judged
// against its run's baseline within each variant, so runs and dtypes never mix.
struct Variant {
  int run = 0;
  CommunicatorShape communicator;  // the world and each group size are bands of their own
  const DataType* dtype = nullptr;
  std::optional<ReduceOp> op;
  Placement placement = Placement::out_of_place;
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
  std::string cheaper;                      // "chosen over X, which tied within noise: ..."
};

// How one point stands against another (per variant) at one size, over every variant
// the other was measured in, with compare's verdicts.
struct Standing {
  bool measured = true;  // the point has a row wherever the other has one
  bool slower = false, faster = false;  // beyond the noise of both, in some row
  bool holds() const { return measured && !slower; }
  bool ties() const { return measured && !slower && !faster; }
};

template <typename ReferenceOf>
Standing standing(const SizeRows& variants, const std::string& label, ReferenceOf reference_of, const NoiseModel& noise) {
  Standing s;
  for (const auto& [variant, points] : variants) {
    const std::string reference = reference_of(variant);
    const auto ref = points.find(reference);
    if (ref == points.end() || reference == label) continue;
    const auto it = points.find(label);
    if (it == points.end()) {
      s.measured = false;
      continue;
    }
    const SideRow& a = it->second.row;
    const SideRow& b = ref->second.row;
    const Verdict v = judge(a.busbw_gbps, noise_band_gbps(a, noise), b.busbw_gbps, noise_band_gbps(b, noise));
    s.slower = s.slower || v == Verdict::slower;
    s.faster = s.faster || v == Verdict::faster;
  }
  return s;
}

// What a point costs the job beyond its busbw: the channels (CTAs) NCCL runs it with,
// each an SM the job's compute no longer has, then how many settings it changes from the
// baseline (NCCL's default where it ties). Unknown channels give no preference.
struct PointCost {
  int channels = std::numeric_limits<int>::max();
  int changed = 0;
  auto operator<=>(const PointCost&) const = default;
};

bool is_channel_setting(const std::string& name) {
  static const std::set<std::string> names{"NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_CTAS",
                                           "NCCL_MIN_CTAS",      "maxCTAs",            "minCTAs"};
  return names.count(name) > 0;
}

std::string channels_text(const PointCost& cost) {
  return cost.channels == std::numeric_limits<int>::max() ? "unknown" : std::to_string(cost.channels);
}

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
  if (p.status != PointStatus::ok) return "its status is " + std::string(name_of(p.status));
  for (const auto& s : p.settings) {
    if (s.status != SettingStatus::applied && s.status != SettingStatus::by_config) {
      return s.name + "=" + s.value + " was " + std::string(name_of(s.status)) + ", not applied on every rank";
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

PointCost cost_of(const PointOutcome* point, const std::vector<SettingOutcome>& baseline) {
  PointCost cost;
  if (!point) return cost;
  if (point->coll_channels >= 0) cost.channels = point->coll_channels;
  for (const auto& s : point->settings) {
    const SettingOutcome* base = find_setting(baseline, s.name);
    if (!base || base->value != s.value) ++cost.changed;
    if (!is_channel_setting(s.name)) continue;
    char* end = nullptr;
    const long value = std::strtol(s.value.c_str(), &end, 10);
    if (end != s.value.c_str() && *end == '\0' && value > 0) cost.channels = std::min(cost.channels, static_cast<int>(value));
  }
  return cost;
}

const PointOutcome* find_in_runs(const std::vector<RunInput>& runs, const std::string& label) {
  for (const auto& input : runs) {
    if (const PointOutcome* p = find_point(input.run, label)) return p;
  }
  return nullptr;
}

void fill_logged_choice(const PointOutcome& point, Band& band) {
  std::set<std::tuple<std::string, std::string, int>> choices;
  for (Bytes size : band.sizes) {
    if (const auto c = logged_choice(point, *band.collective, size, band.ranks)) {
      choices.insert({c->algorithm, c->protocol, c->channels});
    }
  }
  if (choices.size() != 1) return;  // not logged, or NCCL chose differently across the band
  std::tie(band.logged_algorithm, band.logged_protocol, band.logged_channels) = *choices.begin();
}

// One call the job makes, for the job-wide decision: its collective, size and count.
struct JobCall {
  std::string collective;
  Bytes bytes = 0;
  double calls = 0;
};

// The calls whose sizes matter, and where they come from: --job-sizes (each size once, on
// the collective it names or on every collective measured), else the first run's
// workload. Empty: the job's sizes are unknown, and every measured size matters alike.
std::vector<JobCall> job_calls(const std::map<std::string, CollectiveRows>& table, const std::vector<RunInput>& runs,
                               const RecommendOptions& options, std::string& source) {
  std::vector<JobCall> calls;
  if (!options.job_sizes.empty()) {
    source = "the sizes given with --job-sizes (" + job_sizes_text(options.job_sizes) + "), each one call";
    for (const JobSize& size : options.job_sizes) {
      if (size.collective) {
        calls.push_back({std::string(size.collective->name), size.bytes, 1});
        continue;
      }
      for (const auto& [collective, sizes] : table) calls.push_back({collective, size.bytes, 1});
    }
    return calls;
  }
  for (const auto& input : runs) {
    if (!input.run.workload || input.run.workload->calls.empty()) continue;
    source = "calls per iteration from " + input.run.workload->source;
    for (const auto& call : input.run.workload->calls) {
      calls.push_back({std::string(call.collective->name), call.bytes, call.calls});
    }
    return calls;
  }
  source = "every measured size alike (the runs carry no workload)";
  return calls;
}

std::map<std::pair<std::string, Bytes>, double> size_weights(const std::map<std::string, CollectiveRows>& table,
                                                             const std::vector<JobCall>& calls) {
  std::map<std::pair<std::string, Bytes>, double> weights;
  if (calls.empty()) {
    for (const auto& [collective, sizes] : table) {
      for (const auto& [size, rows] : sizes) weights[{collective, size}] = 1;
    }
    return weights;
  }
  for (const JobCall& call : calls) {
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

// Which single point takes the least collective time over the job's iteration (the
// first run with complete iteration times), in words; "" when no run has them. A point
// with calls at unmeasured sizes has only a lower bound and is left out.
std::string fastest_over_iteration(const std::vector<RunInput>& runs, const std::vector<std::set<std::string>>& eligible,
                                   const std::vector<std::string>& baselines) {
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunDocument& run = runs[r].run;
    if (!run.workload || run.iteration_times.empty()) continue;
    const PointIterationTime* best = nullptr;
    const PointIterationTime* base = nullptr;
    for (const PointIterationTime& t : run.iteration_times) {
      if (t.missing > 0 || !eligible[r].count(t.point)) continue;
      if (t.point == baselines[r]) base = &t;
      if (!best || t.ms < best->ms) best = &t;
    }
    if (!best || !base) continue;
    const auto ms = [&](const PointIterationTime& t) { return printf_text("%.4g ", t.ms) + run.workload->ms_unit(); };
    const std::string over = "over the job's collective time " + run.workload->span() + " (" + run.workload->source + ")";
    if (best == base) return over + ", no point takes less than the baseline '" + base->point + "' (" + ms(*base) + ")";
    return over + ", the one setting with the least is " + best->point + ": " + ms(*best) + " against " + ms(*base) +
           " for the baseline (" + percent((base->ms - best->ms) / base->ms) + " less); it still loses in the bands above";
  }
  return "";
}

// The one point whose settings may go job-wide, or why none may (docs/recommend.md,
// "Job-wide exports"). Candidates are the bands' winners; a candidate holds at a size
// that matters when no row of it is slower beyond noise than that size's winner (or the
// baseline, where no point won) and it was measured wherever they were. Of those that
// hold everywhere the cheapest wins (PointCost), then the larger median gain. A job that
// sends sizes outside the measured range gets no job-wide export at all.
template <typename Table, typename Outcomes, typename Weights>
JobWide decide_job_wide(const Recommendation& rec, const std::vector<RunInput>& runs, const Table& table,
                        const Outcomes& outcomes, const std::vector<JobCall>& calls, const Weights& weights,
                        const std::vector<std::string>& baselines, const NoiseModel& noise) {
  JobWide job;
  std::vector<std::string> ranges;
  std::map<std::string, std::pair<Bytes, Bytes>> measured;
  for (const auto& [collective, sizes] : table) {
    measured[collective] = {sizes.begin()->first, sizes.rbegin()->first};
    ranges.push_back(collective + " " + format_bytes(sizes.begin()->first) +
                     (sizes.size() > 1 ? " .. " + format_bytes(sizes.rbegin()->first) : ""));
  }
  job.coverage = "measured " + join(ranges, 16);
  std::vector<std::string> outside;
  if (!calls.empty()) {
    for (const JobCall& call : calls) {
      const auto range = measured.find(call.collective);
      if (range == measured.end()) {
        outside.push_back(call.collective + " (never measured)");
      } else if (call.bytes < range->second.first || call.bytes > range->second.second) {
        outside.push_back(call.collective + " " + format_bytes(call.bytes));
      }
    }
    std::sort(outside.begin(), outside.end());
    outside.erase(std::unique(outside.begin(), outside.end()), outside.end());
    job.coverage += outside.empty() ? "; the job sends nothing outside it"
                                    : "; the job also sends " + join(outside) + ", outside it";
  } else {
    job.coverage += "; the job's sizes are unknown (no workload): sizes outside this range were not measured";
  }

  std::set<std::string> winners;
  for (const Band& band : rec.bands) {
    if (!band.winner.empty()) winners.insert(band.winner);
  }
  if (winners.empty()) return job;  // nothing beats the baseline: nothing to export, nothing refused
  std::map<std::string, std::vector<std::string>> problems;
  std::map<std::string, std::vector<double>> gains;
  for (const auto& [key, weight] : weights) {
    if (weight <= 0) continue;
    const auto& out = outcomes.at(key.first).at(key.second);
    const auto& variants = table.at(key.first).at(key.second);
    const std::string where = key.first + " " + format_bytes(key.second);
    for (const std::string& candidate : winners) {
      if (const auto j = out.points.find(candidate); j != out.points.end()) {
        gains[candidate].insert(gains[candidate].end(), j->second.gains.begin(), j->second.gains.end());
      }
      if (candidate == out.winner) continue;
      const Standing st = standing(
          variants, candidate,
          [&](const auto& variant) { return out.winner.empty() ? baselines[static_cast<std::size_t>(variant.run)] : out.winner; },
          noise);
      const std::string against = out.winner.empty() ? "the baseline" : out.winner;
      if (!st.measured) problems[candidate].push_back(where + " (not measured)");
      else if (st.slower) problems[candidate].push_back(where + " (slower than " + against + " beyond noise)");
    }
  }
  std::string best;
  PointCost best_cost;
  double best_gain = 0;
  for (const std::string& candidate : winners) {
    if (problems.count(candidate)) {
      job.disagreeing.push_back(candidate + " loses at " + join(problems[candidate]));
      continue;
    }
    const PointCost cost = cost_of(find_in_runs(runs, candidate), rec.baseline_settings);
    // No gains where every size that matters lies outside what was measured.
    const double gain = gains[candidate].empty() ? 0 : median_of(gains[candidate]);
    if (best.empty() || cost < best_cost || (cost == best_cost && gain > best_gain)) {
      best = candidate, best_cost = cost, best_gain = gain;
    }
  }
  if (!outside.empty()) {
    job.refusal = "the job sends sizes the sweep never measured (" + join(outside) + "; " + job.coverage.substr(0, job.coverage.find(';')) +
                  "): a job-wide setting would apply there untested";
    return job;
  }
  if (best.empty()) {
    std::vector<std::string> bands;
    for (const Band& band : rec.bands) {
      bands.push_back(band_label(band) + ": " + (band.winner.empty() ? std::string("default kept") : band.winner));
    }
    std::string text;
    for (const std::string& b : bands) text += b + "; ";
    for (const std::string& d : job.disagreeing) text += d + (&d == &job.disagreeing.back() ? "" : "; ");
    job.refusal = "no one point wins or ties within noise at every size that matters, so no setting holds job-wide; bands: " + text;
    return job;
  }
  job.point = best;
  return job;
}

}  // namespace

std::string band_label(const Band& band) {
  const std::string name(band.collective->name);
  if (band.sizes.empty()) return name;
  if (band.sizes.size() == 1) return name + " " + format_bytes(band.sizes.front());
  return name + " " + format_bytes(band.sizes.front()) + " .. " + format_bytes(band.sizes.back());
}

bool tuner_can_set(const std::string& name) {
  static const std::set<std::string> names = {"NCCL_ALGO", "NCCL_PROTO", "NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS"};
  return names.count(name) > 0;
}

std::vector<JobSize> parse_job_sizes(std::string_view text) {
  std::vector<JobSize> sizes;
  for (const std::string& item : split_list(std::string(text), "--job-sizes item")) {
    // COLLECTIVE:SIZES names its collective; a size or range (1M:4G) starts with a digit.
    const auto colon = item.find(':');
    const bool named = colon != std::string::npos && !std::isdigit(static_cast<unsigned char>(item.front()));
    const CollectiveKind* kind = nullptr;
    std::vector<Bytes> bytes;
    try {
      if (named) kind = &collective(item.substr(0, colon));
      bytes = parse_size_list(named ? item.substr(colon + 1) : item);
    } catch (const UsageError& e) {
      throw UsageError("--job-sizes '" + item + "': " + e.what(),
                       e.fix().empty() ? "write sizes (256M,1G) or COLLECTIVE:SIZES (all_gather:256M:1G)" : e.fix());
    }
    for (Bytes b : bytes) {
      if (b == 0) {
        throw UsageError("--job-sizes '" + item + "': 0 bytes is not a size a job sends",
                         "give sizes of at least 1 byte, e.g. 256M or all_gather:1M");
      }
      sizes.push_back({kind, b});
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string job_sizes_text(const std::vector<JobSize>& sizes) {
  const auto size_text = [](Bytes b) {
    for (const auto& [unit, shift] : {std::pair{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}}) {
      if (b >= (Bytes(1) << shift) && b % (Bytes(1) << shift) == 0) return std::to_string(b >> shift) + unit;
    }
    return std::to_string(b);
  };
  std::string text;
  for (const JobSize& s : sizes) {
    text += (text.empty() ? "" : ",") + (s.collective ? std::string(s.collective->name) + ":" : std::string()) + size_text(s.bytes);
  }
  return text;
}

Recommendation recommend(const std::vector<RunInput>& runs, const RecommendOptions& options) {
  if (runs.empty()) throw UsageError("no results to recommend from", "give one or more results directories of sweep runs");
  // One run given twice (or copied) would count its figures as independent support.
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (std::size_t earlier = 0; earlier < r; ++earlier) {
      const RunDocument& a = runs[earlier].run;
      const RunDocument& b = runs[r].run;
      if (a.start_time != b.start_time || a.command_line != b.command_line || a.records.size() != b.records.size()) continue;
      throw UsageError(runs[r].path + " is the same run as " + runs[earlier].path + " (started " + b.start_time +
                           "): its figures would count twice",
                       "give each run once");
    }
  }
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
    if (run.status != RunStatus::complete) {
      rec.notes.push_back(run.name + ": run status is '" + std::string(name_of(run.status)) + "': rows may be missing");
    }
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
      Measured& m = table[collective_name(row.key)][row.key.size_bytes][variant][k.point];
      m.row = row;
      m.records = row.repeats;
      m.exposed_us = cost;
    }
  }
  std::set<std::string> dtypes;
  for (const auto& [collective, sizes] : table) {
    for (const auto& [size, variants] : sizes) {
      for (const auto& [variant, points] : variants) dtypes.insert(std::string(variant.dtype->name));
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
      // Of the clear winners that tie within noise with the best, the cheapest: channels
      // NCCL takes are SMs taken from compute, for nothing the measurement can show.
      if (!out.winner.empty()) {
        const std::string best_label = out.winner;
        PointCost cheapest = cost_of(find_in_runs(runs, best_label), rec.baseline_settings);
        for (const auto& [label, j] : out.points) {
          if (label == best_label || !j.clear()) continue;
          const PointCost cost = cost_of(find_in_runs(runs, label), rec.baseline_settings);
          if (!(cost < cheapest)) continue;
          if (!standing(variants, label, [&](const Variant&) { return best_label; }, options.noise).ties()) continue;
          cheapest = cost;
          out.winner = label;
        }
        if (out.winner != best_label) {
          const PointCost best_cost = cost_of(find_in_runs(runs, best_label), rec.baseline_settings);
          out.cheaper = "chose " + out.winner + " over " + best_label + ", which tied within noise: the cheaper (" +
                        (cheapest.channels != best_cost.channels
                             ? channels_text(cheapest) + " channels against " + channels_text(best_cost)
                             : std::to_string(cheapest.changed) + " setting(s) changed from the baseline against " +
                                   std::to_string(best_cost.changed)) +
                        "; the channels NCCL takes are SMs taken from the job's compute)";
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
    for (const auto& r : input.run.records) ranks_of[std::string(collective_name(r))].insert(r.ranks);
  }
  // Adjacent sizes with the same outcome become one band.
  for (const auto& [collective, sizes] : outcomes) {
    Band* band = nullptr;
    for (const auto& [size, out] : sizes) {
      if (!band || band->winner != out.winner || band->why != out.why) {
        rec.bands.push_back({});
        band = &rec.bands.back();
        band->collective = &ncclsweep::collective(collective);
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
    std::set<std::string> cheaper;
    for (Bytes size : band.sizes) {
      const SizeOutcome& outcome = outcomes[std::string(band.collective->name)][size];
      if (const std::string& c = outcome.cheaper; !c.empty()) cheaper.insert(c);
      const Judgement& j = outcome.points.at(band.winner);
      gains.insert(gains.end(), j.gains.begin(), j.gains.end());
      band.support += j.support;
    }
    for (const std::string& c : cheaper) rec.notes.push_back(band_label(band) + ": " + c);
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

  // Environment settings are job-wide: they apply at every size the job sends. One
  // point's settings are exported only when that point wins or ties within noise at every
  // size that matters and the measured range covers the job's sizes (decide_job_wide).
  const std::vector<JobCall> calls = job_calls(table, runs, options, rec.weights);
  const auto weights = size_weights(table, calls);
  double total = 0;
  for (const auto& [key, w] : weights) total += w;
  rec.job_wide = decide_job_wide(rec, runs, table, outcomes, calls, weights, baselines, options.noise);
  if (rec.job_wide.point.empty() && !rec.job_wide.refusal.empty() && options.job_sizes.empty()) {
    rec.iteration_best = fastest_over_iteration(runs, eligible, baselines);
  }
  const PointOutcome* job_point = rec.job_wide.point.empty() ? nullptr : find_in_runs(runs, rec.job_wide.point);
  std::map<std::pair<std::string, std::string>, std::vector<const Band*>> candidates;
  std::set<std::string> config_notes;
  for (const Band& band : rec.bands) {
    for (const auto& s : band.settings) {
      const SettingOutcome* base = find_setting(rec.baseline_settings, s.name);
      if (base && base->value == s.value) continue;
      if (s.kind != SettingKind::config_field) {
        candidates[{s.name, s.value}].push_back(&band);
      } else {
        config_notes.insert("config field " + s.name + "=" + s.value + " wins at " + band_label(band) +
                            ": set it in the job's ncclConfig_t; it is not an environment variable");
      }
    }
  }
  rec.notes.insert(rec.notes.end(), config_notes.begin(), config_notes.end());
  for (const auto& [setting, bands] : candidates) {
    const auto& [name, value] = setting;
    EnvChoice choice;
    choice.name = name;
    choice.value = value;
    double won = 0;
    std::vector<std::string> wins;
    for (const Band* band : bands) {
      wins.push_back(band_label(*band));
      for (Bytes size : band->sizes) {
        const auto w = weights.find({std::string(band->collective->name), size});
        if (w != weights.end()) won += w->second;
      }
    }
    choice.share = total > 0 ? won / total : 0;
    const SettingOutcome* set = job_point ? find_setting(job_point->settings, name) : nullptr;
    choice.exported = set && set->value == value;
    choice.why = "wins at " + join(wins) + ", " + percent(choice.share) + " of the sizes that matter";
    if (choice.exported) {
      choice.why += "; set by " + rec.job_wide.point + ", which wins or ties within noise at every size that matters";
    } else if (!rec.job_wide.point.empty()) {
      choice.why += "; not a setting of " + rec.job_wide.point + ", the point that holds at every size that matters";
    } else {
      choice.why += "; no one point holds at every size that matters (job-wide export refused)";
    }
    rec.env.push_back(choice);
  }
  return rec;
}

}  // namespace ncclsweep
