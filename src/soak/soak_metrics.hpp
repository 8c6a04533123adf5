#pragma once
// A soak as Prometheus gauges (docs/soak.md, "Metrics"): the last window's busbw per
// test on the world and on each host, every rank's GPU and CPU signals in it, and the
// verdicts so far, one gauge per host and kind. Written after every window with
// --metrics-file (atomically: node_exporter's textfile collector may read it any time)
// and by `report --format prom`.
#include <string>
#include <vector>

#include "soak/soak_verdicts.hpp"
#include "soak/soak_window.hpp"

namespace ncclsweep::soak {

// `hosts`: the layout's host names (host index -> name). Empty `windows` gives the
// verdict gauges only.
std::string soak_metrics(const std::vector<SoakWindow>& windows, const std::vector<std::string>& hosts,
                         const SoakVerdicts& verdicts);

}  // namespace ncclsweep::soak
