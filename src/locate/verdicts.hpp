#pragma once
// Verdicts: which hosts, GPUs and links are slow, from measurements alone (pure).
//   host:     its own numbers (host phase) or most of its pairs sit below threshold x
//             the reference;
//   link:     a pair below the threshold while both its hosts are fine with other
//             partners (a cable, port or switch path rather than a host);
//   nic/rail: as host/link, for one rail (--by-rail);
//   gpu/gpu-link: as host/link, for the GPUs of one host and their neighbour pairs
//             (the gpus steps of the host phase), against the other GPUs of that host.
// Noise-aware as `compare`: per test (collective and size) the repeats make one figure,
// their median with a noise band from their spread; a figure is below only when its
// ratio to the reference is under the threshold AND its band does not reach the
// reference's band. A subject (host, pair, GPU) is named only when it is below in more
// than half of the tests it was measured in, so one test upset by a burst of load
// names nothing.
#include <map>
#include <string>
#include <vector>

#include "locate/locate_kinds.hpp"
#include "locate/host_layout.hpp"
#include "locate/measurement.hpp"

namespace ncclsweep::locate {

inline constexpr double kLocateNoiseBand = 0.03;  // the least relative half-width, as compare's

// The repeats of one figure: their median and the half-width of their noise band.
struct Figure {
  double median = 0;
  double band = 0;  // absolute, same unit as median
};
Figure figure_of(std::vector<double> repeats);

// True when `value` is slower than `reference` beyond noise and below threshold x reference.
bool below(const Figure& value, const Figure& reference, double threshold);

// What figures are judged against, per phase ("host", "pairs", "rails") and test
// ("all_gather 256 MiB"): without one, each test's reference comes from this run (the
// median of the hosts; for pairs, what hosts reach with their better partners).
struct ReferenceFigures {
  std::string source;  // where it came from, for the evidence ("this run" when empty)
  std::map<LocatePhase, std::map<std::string, Figure>> by_phase;
  const Figure* find(LocatePhase phase, const std::string& test) const;
};

// The references a run's own measurements give: what judge() uses without --reference,
// and what a later run takes from this one's records as its --reference.
ReferenceFigures own_references(const HostLayout& layout, const std::vector<Measurement>& measurements);

struct Finding {
  FindingKind kind = FindingKind::host;
  std::vector<int> hosts;  // one host (host, nic, gpu, gpu-link) or a pair (link, rail)
  int rail = -1;           // rail and nic
  std::vector<int> local;  // gpu: its local index; gpu-link: the pair's two
  std::vector<int> ranks;  // the world ranks it concerns
  double ratio = 1;        // its share of the reference: the median over the tests it was slow in
  std::vector<std::string> evidence;
};

struct Verdicts {
  std::vector<Finding> findings;  // hosts first, then nics, links, rails, gpus, gpu links
  // Host x host: the diagonal the host's own ratio, elsewhere the pair's ratio to its
  // reference (each the median over tests); negative where nothing was measured.
  std::vector<std::vector<double>> matrix;
  // Per host, GPU x GPU (local indices): each measured neighbour pair's ratio to the
  // host's reference; negative where not measured. Empty for a host of one GPU.
  std::vector<std::vector<std::vector<double>>> gpu_matrix;
  bool anything_slow() const { return !findings.empty(); }
};

// `reference`: judge against these figures instead of this run's own (--reference); it
// must hold every host, pairs and rails test of `measurements` (load_reference checks).
Verdicts judge(const HostLayout& layout, const std::vector<Measurement>& measurements, double threshold,
               const ReferenceFigures* reference = nullptr);

}  // namespace ncclsweep::locate
