#include "report/sweep_summary.hpp"

#include "core/printf_text.hpp"
#include "report/sweep_report.hpp"
#include "results/repeats.hpp"
#include "results/point_notes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace ncclsweep {
namespace {

class SweepSummary final : public ResultSink {
 public:
  SweepSummary(std::ostream& out, std::string baseline) : out_(out), baseline_(std::move(baseline)) {}
  void row(std::span<const MeasurementRecord>) override {}
  void finish(const RunDocument& run) override {
    // The ranking by time per iteration closes it, also for a run of one point.
    const std::string text = sweep_summary_text(run, baseline_) + iteration_summary_text(run, baseline_);
    out_ << text;
    out_.flush();
  }

 private:
  std::ostream& out_;
  std::string baseline_;
};

}  // namespace

std::unique_ptr<ResultSink> make_sweep_summary(std::ostream& out, std::string baseline_point) {
  return std::make_unique<SweepSummary>(out, std::move(baseline_point));
}

std::string sweep_summary_text(const RunDocument& run, const std::string& baseline_point) {
  if (run.points.size() < 2) return {};
  std::vector<std::string> labels;
  for (const auto& p : run.points) labels.push_back(p.label);
  const auto baseline_at = std::find(labels.begin(), labels.end(), baseline_point);
  const std::size_t baseline = baseline_at == labels.end() ? 0 : static_cast<std::size_t>(baseline_at - labels.begin());

  const std::vector<RepeatedMeasurement> measurements = aggregate_repeats(run.records);
  const auto blocks = busbw_by_series(measurements, Placement::out_of_place);
  const bool repeated =
      std::any_of(measurements.begin(), measurements.end(), [](const auto& m) { return m.busbw_gbps.count > 1; });
  std::string out = "#\n# sweep summary: busbw (GB/s, out-of-place) per point; (+x%) against the baseline P" +
                    std::to_string(baseline) + "\n";
  if (repeated) {
    out += "# with repeats: the median; '~' marks a change within the repeats' spread ((max - min) / median) of "
           "either point\n";
  }
  for (std::size_t i = 0; i < run.points.size(); ++i) {
    const PointOutcome& p = run.points[i];
    std::string verdict(name_of(p.status));
    for (const auto& s : p.settings) {
      if (s.status == SettingStatus::not_read) verdict += ", " + s.name + " NOT READ by NCCL";
    }
    verdict += unexpected_environment_note(p);
    out += "#  P" + std::to_string(i) + " = " + p.label + "  [" + verdict + "]\n";
  }
  for (const auto& [series, sizes] : blocks) {
    out += "#\n# " + series_title(series) + "\n#";
    out += printf_text("%12s", "size");
    for (std::size_t i = 0; i < labels.size(); ++i) out += printf_text(" %16s", ("P" + std::to_string(i)).c_str());
    out += "\n";
    for (const auto& [size, by_point] : sizes) {
      out += printf_text(" %12llu", static_cast<unsigned long long>(size.first));
      const auto base = by_point.find(labels[baseline]);
      for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto it = by_point.find(labels[i]);
        if (it == by_point.end()) {
          out += printf_text(" %16s", "-");
          continue;
        }
        const double value = it->second.median;
        if (i == baseline || base == by_point.end() || base->second.median <= 0) {
          out += printf_text(" %16.1f", value);
        } else {
          const double change = value / base->second.median - 1;
          const double noise = std::max(it->second.spread, base->second.spread);
          if (std::abs(change) <= noise) {
            out += printf_text(" %7.1f (%+4.0f%%~)", value, change * 100);
          } else {
            out += printf_text(" %7.1f (%+5.0f%%)", value, change * 100);
          }
        }
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace ncclsweep
