#pragma once
// Verdicts: which hosts, links and rails are slow, from measurements alone (pure).
//   host: its own numbers (host phase) or most of its pairs sit below threshold x the
//         median of all hosts;
//   link: a pair below the threshold while both its hosts are fine with other partners
//         (a cable, port or switch path rather than a host);
//   rail: as link, for one rail of a pair (--by-rail), or a host's rail slow with most
//         partners (one NIC).
// Noise-aware as `compare`: a figure is below only when its ratio to the reference is
// under the threshold AND its noise band (the repeats' spread, at least 3%) does not
// reach the reference's band.
#include <string>
#include <vector>

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

struct Finding {
  std::string kind;        // "host" | "link" | "rail" | "nic"
  std::vector<int> hosts;  // one host (host, nic) or a pair (link, rail)
  int rail = -1;           // rail and nic
  std::vector<int> ranks;  // the world ranks it concerns
  double ratio = 1;        // the worst figure's share of its reference
  std::vector<std::string> evidence;
};

struct Verdicts {
  std::vector<Finding> findings;  // hosts first, then links, rails
  // Host x host: the diagonal the host's own worst ratio, elsewhere the pair's worst
  // ratio to its reference; negative where nothing was measured.
  std::vector<std::vector<double>> matrix;
  bool anything_slow() const { return !findings.empty(); }
};

Verdicts judge(const HostLayout& layout, const std::vector<Measurement>& measurements, double threshold);

}  // namespace ncclsweep::locate
