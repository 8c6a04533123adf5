#pragma once
// Verdicts: which hosts, GPUs and links are slow, from measurements alone (pure).
//   host:     below the threshold in its own numbers (host phase, against the other hosts'
//             median), or with (nearly) all of its partners (pairs phase);
//   link:     a pair below the threshold beyond what its slow hosts explain (a cable, port
//             or switch path rather than a host): a pair runs at its slower host's pace;
//   nic/rail: as host/link, for one rail (--by-rail);
//   gpu/gpu-link: as host/link, for the GPUs of one host and their neighbour pairs.
// Each share is judged against noise (noise.hpp, pair_graph.hpp): the peers' own spread,
// the repeats' error and the reference's band. A subject below the threshold beyond
// noise is slow; below it but within noise, it is unresolved (never "nothing slow"), and
// the phase's resolution says how far below its reference this run can tell a subject
// from noise, and how much longer repeats would tell the threshold.
#include <map>
#include <string>
#include <vector>

#include "locate/host_layout.hpp"
#include "locate/locate_kinds.hpp"
#include "locate/locate_record.hpp"

namespace ncclsweep::locate {

inline constexpr double kLocateNoiseBand = 0.03;  // the least band of a reference figure, as compare's

// A reference figure in busbw (a --reference directory's, or this run's own for a later one).
struct Figure {
  double median = 0;
  double band = 0;  // absolute half-width, same unit as median
};
// The median of the repeats and half their range, at least 3%; from five repeats on, the
// lowest and highest are left out of the range.
Figure figure_of(std::vector<double> repeats);

// What figures are judged against, per phase and test ("all_gather 256 MiB"): without
// one, each test's reference comes from this run (the other hosts' median; for pairs,
// the healthy pairs' level).
struct ReferenceFigures {
  std::string source;  // where it came from, for the evidence
  std::map<LocatePhase, std::map<std::string, Figure>> by_phase;
  const Figure* find(LocatePhase phase, const std::string& test) const;
};

// The references a run's own measurements give: what a later run takes from this one's
// records as its --reference.
ReferenceFigures own_references(const HostLayout& layout, const std::vector<MeasurementRecord>& measurements);

struct Finding {
  FindingKind kind = FindingKind::host;
  std::vector<int> hosts;  // one host (host, nic, gpu, gpu-link) or a pair (link, rail)
  int rail = -1;           // rail and nic
  std::vector<int> local;  // gpu: its local index; gpu-link: the pair's two
  std::vector<int> ranks;  // the world ranks it concerns
  double ratio = 1;        // its share of the reference (the lowest of the phases that judged it)
  std::vector<std::string> evidence;
};

// How finely one phase's figures tell a subject from noise.
struct Resolution {
  LocatePhase phase = LocatePhase::host;
  FindingKind subject = FindingKind::host;
  double noise = 0;   // one subject's noise width (log; 0.05 is about 5%)
  double widths = 3;  // how many widths below its reference a subject must sit
  double seconds_per_call = 0;  // the phase's median per-call time
  // The widths a longer run would face: once repeats are long enough, the peers' spread
  // (estimated from few peers, so more widths) is what is left; never fewer than `widths`.
  double longer_widths = 0;
  // The share below which a subject is told from noise: exp(-widths x noise).
  double tells_below() const;
  bool resolves(double threshold) const { return tells_below() >= threshold; }
  // How many times longer each repeat would tell `threshold`, if the noise falls as the
  // square root of the time measured: twice (widths x noise / -ln threshold)^2, as the
  // noise is itself estimated; 1 when it tells it already; infinite when even the least
  // noise width (kLeastNoiseWidth) could not.
  double longer_for(double threshold) const;
};

struct Verdicts {
  double threshold = 0.9;
  std::vector<Finding> findings;    // slow: hosts first, then nics, links, rails, gpus, gpu links
  std::vector<Finding> unresolved;  // below the threshold but within noise, same order
  std::vector<Resolution> resolution;  // per phase and subject kind judged
  // Host x host: the diagonal the host's own share, elsewhere the pair's share of its
  // reference (over its tests); negative where nothing was measured.
  std::vector<std::vector<double>> matrix;
  // Per host, GPU x GPU (local indices): each measured neighbour pair's share of the
  // host's GPU pairs' level; negative where not measured. Empty for a host of one GPU.
  std::vector<std::vector<std::vector<double>>> gpu_matrix;
  bool anything_slow() const { return !findings.empty(); }
  // Nothing below the threshold at all: no finding and nothing unresolved.
  bool all_clear() const { return findings.empty() && unresolved.empty(); }
};

// `reference`: judge against these figures instead of this run's own (--reference); it
// must hold every host, pairs and rails test of `measurements` (load_reference checks).
Verdicts judge(const HostLayout& layout, const std::vector<MeasurementRecord>& measurements, double threshold,
               const ReferenceFigures* reference = nullptr);

}  // namespace ncclsweep::locate
