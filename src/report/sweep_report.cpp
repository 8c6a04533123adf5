#include "report/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "core/units.hpp"
#include "results/point_notes.hpp"
#include "results/repeats.hpp"

namespace ncclsweep {
namespace {

std::string fixed(const char* format, double value) { return printf_text(format, value); }

// About 3 significant digits, never an exponent (11580 ms stays 11580).
std::string sig3(double value) { return fixed(std::fabs(value) >= 100 ? "%.0f" : "%.3g", value); }


// A call count: whole numbers as they are, a share of calls (divided by iterations) to 3 digits.
std::string calls_text(double calls) { return fixed(calls == std::floor(calls) ? "%.0f" : "%.3g", calls); }

std::size_t baseline_index(const std::vector<std::string>& labels, const std::string& baseline) {
  const auto it = std::find(labels.begin(), labels.end(), baseline);
  return it == labels.end() ? 0 : static_cast<std::size_t>(it - labels.begin());
}

// Kind of winner at one size: a point index, or one of these.
constexpr int kWithinNoise = -1;
constexpr int kBaselineBest = -2;
constexpr int kNoData = -3;

// The span of sizes [first, last] in words, relative to the whole list.
std::string span_text(const std::vector<Bytes>& sizes, std::size_t first, std::size_t last) {
  const bool from_start = first == 0, to_end = last + 1 == sizes.size();
  if (from_start && to_end) return "at every size";
  if (first == last) return "at " + format_bytes(sizes[first]);
  if (to_end) return "from " + format_bytes(sizes[first]);
  if (from_start) return "up to " + format_bytes(sizes[last]);
  return "from " + format_bytes(sizes[first]) + " to " + format_bytes(sizes[last]);
}

std::string point_status(const PointOutcome& p) {
  std::string status(name_of(p.status));
  for (const auto& s : p.settings) {
    if (s.status == SettingStatus::not_read) status += ", " + s.name + " not read by NCCL";
  }
  return status + unexpected_environment_note(p);
}

// The points in document order, and "default" for a run without a sweep.
std::vector<std::string> labels_of(const RunDocument& run) {
  std::vector<std::string> labels;
  for (const auto& p : run.points) labels.push_back(p.label);
  if (labels.empty()) labels.push_back("default");
  return labels;
}

}  // namespace

bool is_sweep_run(const RunDocument& run) { return run.points.size() >= 2 || run.workload.has_value(); }

std::vector<std::string> size_bands(const std::vector<Bytes>& sizes,
                                    const std::vector<std::vector<std::optional<double>>>& busbw,
                                    const std::vector<std::string>& labels, std::size_t baseline, double noise) {
  std::vector<int> winner(sizes.size(), kNoData);
  std::vector<double> gain(sizes.size(), 0);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const auto& base = busbw[i][baseline];
    if (!base || *base <= 0) continue;
    std::optional<std::size_t> best;
    for (std::size_t p = 0; p < labels.size(); ++p) {
      if (p == baseline || !busbw[i][p]) continue;
      if (!best || *busbw[i][p] > *busbw[i][*best]) best = p;
    }
    if (!best) continue;
    const double change = *busbw[i][*best] / *base - 1;
    gain[i] = change;
    if (change >= noise) {
      winner[i] = static_cast<int>(*best);
    } else if (change <= -noise) {
      winner[i] = kBaselineBest;
    } else {
      winner[i] = kWithinNoise;
    }
  }
  std::vector<std::string> bands;
  for (std::size_t first = 0; first < sizes.size();) {
    std::size_t last = first;
    while (last + 1 < sizes.size() && winner[last + 1] == winner[first]) ++last;
    const std::string where = span_text(sizes, first, last);
    const int w = winner[first];
    if (w >= 0) {
      const auto [lo, hi] = std::minmax_element(gain.begin() + static_cast<std::ptrdiff_t>(first),
                                                gain.begin() + static_cast<std::ptrdiff_t>(last) + 1);
      const std::string change = *lo == *hi ? signed_percent(*hi, 0) : signed_percent(*lo, 0) + ".." + signed_percent(*hi, 0);
      bands.push_back(labels[static_cast<std::size_t>(w)] + " best " + where + ": " + change);
    } else if (w == kBaselineBest) {
      bands.push_back("baseline best " + where);
    } else if (w == kWithinNoise) {
      bands.push_back("within noise " + where + " (under " + fixed("%.0f", noise * 100) + "%)");
    }
    first = last + 1;
  }
  return bands;
}

SweepReport build_sweep_report(const RunDocument& run, double noise) {
  SweepReport report;
  report.name = run.name;
  report.labels = labels_of(run);
  report.baseline = baseline_index(report.labels, run.baseline);
  for (const auto& label : report.labels) {
    const auto point = std::find_if(run.points.begin(), run.points.end(), [&](const auto& p) { return p.label == label; });
    report.statuses.push_back(point == run.points.end() ? "ok" : point_status(*point));
    std::uint64_t wrong = 0;
    bool checked = false, any = false;
    for (const auto& r : run.records) {
      if (r.point != label) continue;
      any = true;
      checked = checked || r.wrong.has_value();
      wrong += r.wrong.value_or(0);
    }
    report.verification.push_back(!any       ? "no records"
                                  : wrong > 0 ? std::to_string(wrong) + " wrong"
                                  : checked   ? "ok"
                                              : "unchecked");
  }
  const auto blocks = busbw_by_series(aggregate_repeats(run.records), Placement::out_of_place);
  for (const auto& [series, sizes] : blocks) {
    SweepBlock block;
    block.title = series_title(series);
    for (const auto& [size, by_point] : sizes) {
      block.sizes.push_back(size.first);
      std::vector<std::optional<double>> row;
      for (const auto& label : report.labels) {
        const auto it = by_point.find(label);
        row.push_back(it == by_point.end() ? std::nullopt : std::optional<double>(it->second.median));
      }
      block.busbw.push_back(row);
    }
    if (report.labels.size() > 1) block.bands = size_bands(block.sizes, block.busbw, report.labels, report.baseline, noise);
    report.blocks.push_back(std::move(block));
  }
  report.workload = run.workload;
  report.iteration_times = run.iteration_times;
  return report;
}

namespace {

std::string cell(const SweepReport& report, const std::vector<std::optional<double>>& row, std::size_t p) {
  if (!row[p]) return "-";
  const auto& base = row[report.baseline];
  if (p == report.baseline || !base || *base <= 0) return sig3(*row[p]);
  return sig3(*row[p]) + " (" + signed_percent(*row[p] / *base - 1, 0) + ")";
}

// Points ranked by time per iteration, fastest first, with the change against the baseline.
struct RankedTime {
  std::size_t point;
  const PointIterationTime* time;
  std::optional<double> delta_ms, delta_share;
};

std::vector<RankedTime> ranked(const std::vector<std::string>& labels, std::size_t baseline,
                               const std::vector<PointIterationTime>& times) {
  const PointIterationTime* base = nullptr;
  for (const auto& t : times) if (t.point == labels[baseline]) base = &t;
  std::vector<RankedTime> out;
  for (const auto& t : times) {
    const auto at = std::find(labels.begin(), labels.end(), t.point);
    RankedTime r{static_cast<std::size_t>(at - labels.begin()), &t, {}, {}};
    if (base && base->ms > 0 && at != labels.end() && r.point != baseline) {
      r.delta_ms = t.ms - base->ms;
      r.delta_share = t.ms / base->ms - 1;
    }
    if (at != labels.end()) out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedTime& a, const RankedTime& b) {
    // Incomplete estimates are lower bounds: they rank after complete ones.
    if ((a.time->missing > 0) != (b.time->missing > 0)) return a.time->missing == 0;
    return a.time->ms < b.time->ms;
  });
  return out;
}

std::string marks(const PointIterationTime& t) {
  std::string m;
  if (t.interpolated > 0) m += std::to_string(t.interpolated) + " interpolated";
  if (t.missing > 0) m += (m.empty() ? "" : ", ") + std::to_string(t.missing) + " unmeasured: lower bound";
  return m;
}

std::string change_text(const RankedTime& r) {
  if (!r.delta_ms) return "baseline";
  return fixed("%+.3f ms", *r.delta_ms) + " (" + fixed("%+.1f%%", *r.delta_share * 100) + ")";
}

void print_table(const SweepReport& report, std::ostream& out, bool markdown) {
  const std::string h = markdown ? "### " : "# ";
  out << h << "sweep report: " << report.name << "\n\n";
  if (markdown) out << "| point | settings | status | verification |\n|---|---|---|---|\n";
  for (std::size_t p = 0; p < report.labels.size(); ++p) {
    const std::string id = "P" + std::to_string(p) + (p == report.baseline ? " (baseline)" : "");
    if (markdown) {
      out << "| " << id << " | " << report.labels[p] << " | " << report.statuses[p] << " | " << report.verification[p]
          << " |\n";
    } else {
      out << "  " << id << " = " << report.labels[p] << "  [" << report.statuses[p] << "; check "
          << report.verification[p] << "]\n";
    }
  }
  for (const SweepBlock& block : report.blocks) {
    out << "\n" << (markdown ? "#### " : "## ") << block.title << ": busbw GB/s (out-of-place)\n\n";
    if (markdown) {
      out << "| size |";
      for (std::size_t p = 0; p < report.labels.size(); ++p) out << " P" << p << " |";
      out << "\n|---:|";
      for (std::size_t p = 0; p < report.labels.size(); ++p) out << "---:|";
      out << "\n";
    } else {
      out << "        size";
      for (std::size_t p = 0; p < report.labels.size(); ++p) {
        out << printf_text(" %18s", ("P" + std::to_string(p)).c_str());
      }
      out << "\n";
    }
    for (std::size_t i = 0; i < block.sizes.size(); ++i) {
      if (markdown) {
        out << "| " << format_bytes(block.sizes[i]) << " |";
        for (std::size_t p = 0; p < report.labels.size(); ++p) out << " " << cell(report, block.busbw[i], p) << " |";
      } else {
        out << printf_text("%12s", format_bytes(block.sizes[i]).c_str());
        for (std::size_t p = 0; p < report.labels.size(); ++p) {
          out << printf_text(" %18s", cell(report, block.busbw[i], p).c_str());
        }
      }
      out << "\n";
    }
    if (!block.bands.empty()) {
      out << "\n" << (markdown ? "" : "  ") << "best: ";
      for (std::size_t b = 0; b < block.bands.size(); ++b) out << (b ? "; " : "") << block.bands[b];
      out << "\n";
    }
  }
  if (report.workload) {
    out << "\n" << (markdown ? "#### " : "## ") << "collective time " << report.workload->span() << " ("
        << report.workload->source << ")\n\n";
    if (markdown) out << "| rank | point | " << report.workload->ms_unit() << " | vs baseline | marks |\n|---:|---|---:|---:|---|\n";
    int place = 0;
    for (const RankedTime& r : ranked(report.labels, report.baseline, report.iteration_times)) {
      const std::string id = "P" + std::to_string(r.point) + " " + report.labels[r.point];
      if (markdown) {
        out << "| " << ++place << " | " << id << " | " << fixed("%.3f", r.time->ms) << " | " << change_text(r) << " | "
            << marks(*r.time) << " |\n";
      } else {
        out << printf_text("  %2d. %-44s %10.3f ms  %-24s %s\n", ++place, id.c_str(), r.time->ms,
                           change_text(r).c_str(), marks(*r.time).c_str());
      }
    }
  }
}

void print_csv(const SweepReport& report, std::ostream& out) {
  out << "block,size_bytes,point,label,busbw_gbps,change_vs_baseline,status,verification,ms_per_iteration\n";
  std::map<std::string, double> ms;
  for (const auto& t : report.iteration_times) ms[t.point] = t.ms;
  const auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
  for (const SweepBlock& block : report.blocks) {
    for (std::size_t i = 0; i < block.sizes.size(); ++i) {
      for (std::size_t p = 0; p < report.labels.size(); ++p) {
        const auto& v = block.busbw[i][p];
        if (!v) continue;
        const auto& base = block.busbw[i][report.baseline];
        out << quoted(block.title) << "," << block.sizes[i] << ",P" << p << "," << quoted(report.labels[p]) << ","
            << fixed("%.4g", *v) << "," << (base && *base > 0 ? fixed("%.4f", *v / *base - 1) : "") << ","
            << quoted(report.statuses[p]) << "," << quoted(report.verification[p]) << ","
            << (ms.count(report.labels[p]) ? fixed("%.6g", ms[report.labels[p]]) : "") << "\n";
      }
    }
  }
}

void print_json(const SweepReport& report, std::ostream& out) {
  nlohmann::ordered_json j;
  j["name"] = report.name;
  j["baseline"] = report.labels[report.baseline];
  auto& points = j["points"] = nlohmann::ordered_json::array();
  for (std::size_t p = 0; p < report.labels.size(); ++p) {
    points.push_back({{"label", report.labels[p]}, {"status", report.statuses[p]}, {"verification", report.verification[p]}});
  }
  auto& blocks = j["blocks"] = nlohmann::ordered_json::array();
  for (const SweepBlock& block : report.blocks) {
    nlohmann::ordered_json b{{"title", block.title}, {"sizes", block.sizes}, {"bands", block.bands}};
    auto& rows = b["busbw_gbps"] = nlohmann::ordered_json::array();
    for (const auto& row : block.busbw) {
      auto& r = rows.emplace_back(nlohmann::ordered_json::array());
      for (const auto& v : row) r.push_back(v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr));
    }
    blocks.push_back(b);
  }
  if (report.workload) {
    j["workload"] = report.workload->source;
    j["per_iteration"] = report.workload->per_iteration;
    auto& times = j["iteration_times"] = nlohmann::ordered_json::array();
    for (const auto& t : report.iteration_times) {
      times.push_back({{"point", t.point}, {"ms", t.ms}, {"measured", t.measured}, {"interpolated", t.interpolated},
                       {"missing", t.missing}});
    }
  }
  out << j.dump(2) << "\n";
}

}  // namespace

void print_sweep_report(const SweepReport& report, ReportFormat format, std::ostream& out) {
  switch (format) {
    case ReportFormat::table: return print_table(report, out, false);
    case ReportFormat::md: return print_table(report, out, true);
    case ReportFormat::csv: return print_csv(report, out);
    case ReportFormat::json: return print_json(report, out);
    case ReportFormat::svg:
    case ReportFormat::prom: break;
  }
  throw unsupported_format(format, "a sweep report", {ReportFormat::table, ReportFormat::md, ReportFormat::csv, ReportFormat::json});
}

std::string iteration_summary_text(const RunDocument& run, const std::string& baseline_point) {
  if (!run.workload || run.iteration_times.empty()) return {};
  const auto labels = labels_of(run);
  const std::size_t baseline = baseline_index(labels, baseline_point);
  const WorkloadWeights& w = *run.workload;
  std::string out = "#\n# collective time " + w.span() + ", from " + w.source + " (" + calls_text(w.call_count()) +
                    " calls of " + std::to_string(w.calls.size()) + " kinds; " + w.basis + ")\n";
  int place = 0;
  for (const RankedTime& r : ranked(labels, baseline, run.iteration_times)) {
    out += printf_text("#  %2d. P%zu %-40s %10.3f %s  %-24s %s\n", ++place, r.point, labels[r.point].c_str(),
                       r.time->ms, w.ms_unit().c_str(), change_text(r).c_str(), marks(*r.time).c_str());
  }
  return out;
}

std::string iteration_summary_markdown(const RunDocument& run, const std::string& baseline_point) {
  if (!run.workload || run.iteration_times.empty()) return {};
  const auto labels = labels_of(run);
  const std::size_t baseline = baseline_index(labels, baseline_point);
  const WorkloadWeights& w = *run.workload;
  std::string out = "\n#### Collective time " + w.span() + "\n\nFrom " + w.source + " (" + calls_text(w.call_count()) +
                    " calls of " + std::to_string(w.calls.size()) + " kinds; " + w.basis + ").\n\n| rank | point | " +
                    w.ms_unit() + " | vs baseline | marks |\n|---:|---|---:|---:|---|\n";
  int place = 0;
  for (const RankedTime& r : ranked(labels, baseline, run.iteration_times)) {
    // 3 significant digits: summary.md is committed and diffed.
    out += "| " + std::to_string(++place) + " | " + labels[r.point] + " | " + sig3(r.time->ms) + " | " +
           (r.delta_ms ? (*r.delta_ms >= 0 ? "+" : "") + sig3(*r.delta_ms) + " ms (" + fixed("%+.3g%%", *r.delta_share * 100) + ")"
                       : "baseline") +
           " | " + marks(*r.time) + " |\n";
  }
  return out;
}

}  // namespace ncclsweep
