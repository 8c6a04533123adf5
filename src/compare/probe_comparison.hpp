#pragma once
// A probe run (ncclsweep probe) judged against a reference probe run, with the same
// verdicts, noise model and threshold as a busbw comparison (comparison.hpp): each host
// of NEW, each figure, against the reference's median over its hosts (docs/probe.md).
#include <string>
#include <vector>

#include "compare/comparison.hpp"
#include "core/finding.hpp"
#include "probe/probe_record.hpp"

namespace ncclsweep {

struct ProbeRowComparison {
  std::string host;
  probe::ProbeMetric metric = probe::ProbeMetric::busy_clock_ghz;
  double new_value = 0, reference_value = 0;
  double ratio = 1;  // how NEW does against the reference: > 1 better, whichever way the metric points
  double new_band = 0, reference_band = 0;  // in the metric's unit
  Verdict verdict = Verdict::same;
  bool fails = false;  // worse beyond both bands and below failing_ratio()
  // unresolved: why (a side's figure is an unresolved record, docs/probe.md); its value is
  // then no figure at all, so the row is neither better nor worse.
  std::string unresolved;
};

struct ProbeComparison {
  double threshold = kDefaultThreshold;
  std::vector<ProbeRowComparison> rows;  // NEW's hosts in order, metrics in enum order
  bool passed() const;
  std::string summary() const;  // "40 figures: 38 same, ..., 1 unresolved -> PASS" / "-> FAIL: ... on host h3"
};

// The ratio below which a worse figure fails: `threshold` (compare's --threshold), or the
// metric's own tolerance where that is wider - the one that names a host among hosts
// (probe/probe_metric.hpp). A map/unmap time moves by a fifth between two launches on
// one idle machine; judged at 95% it called a clean host a platform fault.
double failing_ratio(const probe::MetricInfo& info, double threshold);

// A figure's noise half-width: the larger of the noise model's relative part and the
// record's own spread, times the value, plus half the metric's floor (its resolution).
double probe_noise_band(const probe::MetricInfo& info, double value, double spread, const NoiseModel& noise);

// Each host of NEW, each figure measured (or unresolved) there and in the reference. A
// figure unresolved on the host, or on every reference host, is an `unresolved` row.
// Throws UsageError when the two share no figure.
ProbeComparison compare_probe_records(const std::vector<probe::ProbeRecord>& new_records,
                                      const std::vector<probe::ProbeRecord>& reference, const CompareOptions& options);

// Each failing figure as a warning: check "probe.<metric>", its host, both figures and the
// ratio as evidence, the metric's likely cause as the fix (diagnose's platform row, when
// its reference holds probe figures).
std::vector<doctor::Finding> failing_findings(const ProbeComparison& comparison);

// One line per figure (host, metric, both values, ratio, verdict), each failing figure's
// likely cause after the table, and the summary line.
std::string probe_comparison_table(const ProbeComparison& comparison);

}  // namespace ncclsweep
