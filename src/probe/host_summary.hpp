#pragma once
// From every rank's records to what a user reads: per host and metric the median over
// the host's ranks and its worst rank; the hosts that stand out from the allocation's
// other hosts; and findings that name each with its likely cause (docs/probe.md).
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "probe/probe_record.hpp"

namespace ncclsweep::probe {

struct HostValue {
  std::string host;
  ProbeMetric metric = ProbeMetric::busy_clock_ghz;
  int ranks = 0;          // measured ranks behind the median
  double median = 0;
  int worst_rank = -1;    // the rank whose value is worst in the metric's direction
  double worst_value = 0;
  std::vector<double> worst_repeats;  // that rank's repeats (empty: the value alone)
  // A typical repeat of the host: the median over its ranks of each rank's median repeat
  // (its value where it has none). What another host's repeats are held against.
  double typical_repeat = 0;
  double spread = 0;      // the largest record spread among the host's ranks
  bool one_numa_node = false;  // the host's records say its machine has one NUMA node
};

// Hosts in order of first appearance, metrics in enum order; only measured records
// (skipped and unresolved ones are left out).
std::vector<HostValue> summarise_hosts(const std::vector<ProbeRecord>& records);

// How far the other hosts' own figures stray, in the metric's unit: between them (with
// three or more, 3 x 1.4826 x the median absolute deviation of their worst ranks, which
// a few bad hosts among many do not widen; with one or two, the largest distance of a
// worst rank from `baseline`), plus within them (the median over them of half the range
// of their worst rank's repeats). A difference this small is the peers' own noise.
double peer_noise(const std::vector<const HostValue*>& peers, double baseline);

struct Outlier {
  HostValue host;
  double baseline = 0;  // the median over the other hosts, or the reference's value
  double margin = 0;    // how far beyond the baseline it had to be (tolerance, floor or the peers' noise)
  std::string against;  // "the other host", "the other hosts' median", "the reference"
  std::string cause;    // the metric's, or the one that fits this host (no NUMA cause on one NUMA node)
};

// Per metric measured on at least two hosts: each host whose worst rank (one rank on a
// shared core is enough to name its host) is worse than the median of the other hosts'
// medians by more than the margin - the widest of the metric's tolerance, its floor and
// peer_noise - in its value, and in more than half of its repeats (one stray stall in a
// quiet watch names nothing) than the other hosts' typical repeats (their median) by the
// same margin, and whose best repeat is worse than the other hosts' worst ones (their
// median): ranges that overlap are the peers' own spread. Repeats are held against
// repeats: a value that is the largest of a watch's slices carries a peer's one stray
// slice, and would let it hide a host that stalls in every slice. A single host is
// judged only against a reference (compare).
// On a host with one NUMA node the remote and placement figures are not judged.
std::vector<Outlier> outlier_hosts(const std::vector<HostValue>& hosts);

// One warning per outlier: check "probe.<metric>", the host and its worst rank, the
// evidence in numbers and the outlier's cause as the fix; merged like doctor's.
std::vector<doctor::Finding> outlier_findings(const std::vector<Outlier>& outliers);

// The distinct hosts the findings name, in order of first appearance.
std::vector<std::string> named_hosts(const std::vector<Outlier>& outliers);

// Per reason, "metric on host[, ...]" for every unresolved record: what the report and
// probe.json list, since such a figure neither names nor clears its host.
struct UnresolvedFigures {
  std::string reason;
  std::vector<std::string> figures;  // "stall_max_ms on h1"
};
std::vector<UnresolvedFigures> unresolved_figures(const std::vector<ProbeRecord>& records);

}  // namespace ncclsweep::probe
