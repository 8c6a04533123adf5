#include "report/scale_estimate_report.hpp"

#include <cstdio>

#include "report/sweep_plan_report.hpp"

namespace ncclsweep {

std::string scale_estimate_text(const ScaleEstimate& e, const ScaleModel& m, int size_count) {
  char line[256];
  std::string out;
  std::snprintf(line, sizeof line, "\n# estimated wall time at %d ranks: about %s\n", m.ranks,
                duration_text(e.total_s()).c_str());
  out += line;
  std::snprintf(line, sizeof line, "#   worker starts       %8.1f s  (per group %.1f s + %.1f ms/rank)\n", e.launch_s,
                m.launch_base_s, m.launch_per_rank_s * 1e3);
  out += line;
  std::snprintf(line, sizeof line, "#   communicator inits  %8.1f s  (per point %.2f s + %.1f ms/rank)\n", e.init_s,
                m.init_base_s, m.init_per_rank_s * 1e3);
  out += line;
  std::string bandwidth;
  if (m.reference.empty()) {
    std::snprintf(line, sizeof line, "busbw %.0f GB/s assumed", m.busbw_bytes_per_s / 1e9);
    bandwidth = line;
  } else {
    std::snprintf(line, sizeof line, "busbw of the reference run for %d of %d collective sizes, else %.0f GB/s",
                  e.sizes_from_reference, size_count, m.busbw_bytes_per_s / 1e9);
    bandwidth = line;
  }
  std::snprintf(line, sizeof line, "#   collectives         %8.1f s  (%s)\n", e.collectives_s, bandwidth.c_str());
  out += line;
  std::snprintf(line, sizeof line, "#   coordination        %8.1f s  (%d measurements x (%.2f + %.2f x log2 ranks) ms)\n",
                e.coordination_s, e.measurements, m.coordination_base_s * 1e3, m.coordination_per_log2_rank_s * 1e3);
  out += line;
  return out;
}

nlohmann::json scale_estimate_json(const ScaleEstimate& e, const ScaleModel& m) {
  return {{"ranks", m.ranks},
          {"total_seconds", e.total_s()},
          {"launch_seconds", e.launch_s},
          {"init_seconds", e.init_s},
          {"collectives_seconds", e.collectives_s},
          {"coordination_seconds", e.coordination_s},
          {"measurements", e.measurements},
          {"sizes_from_reference", e.sizes_from_reference}};
}

}  // namespace ncclsweep
