#include "report/scale_estimate_report.hpp"

#include <cstdio>

#include "core/printf_text.hpp"
#include "report/sweep_plan_report.hpp"

namespace ncclsweep {

std::string scale_estimate_text(const ScaleEstimate& e, const ScaleModel& m) {
  std::string out;
  out += printf_text("\n# estimated wall time at %d ranks: about %s\n", m.ranks, duration_text(e.total_s()).c_str());
  out += printf_text("#   worker starts       %8.1f s  (per group %.1f s + %.1f ms/rank)\n", e.launch_s,
                     m.launch_base_s, m.launch_per_rank_s * 1e3);
  out += printf_text("#   communicator inits  %8.1f s  (per point %.2f s + %.1f ms/rank)\n", e.init_s, m.init_base_s,
                     m.init_per_rank_s * 1e3);
  std::string bandwidth;
  if (m.reference.empty()) {
    bandwidth = printf_text("busbw %.0f GB/s assumed", m.busbw_bytes_per_s / 1e9);
  } else {
    bandwidth = printf_text("busbw of the reference run for %d of %d calls, else %.0f GB/s",
                            e.sizes_from_reference, e.planned_calls, m.busbw_bytes_per_s / 1e9);
  }
  out += printf_text("#   collectives         %8.1f s  (%s)\n", e.collectives_s, bandwidth.c_str());
  out +=
      printf_text("#   coordination        %8.1f s  (%d measurements x (%.2f + %.2f x log2 ranks) ms)\n",
                  e.coordination_s, e.measurements, m.coordination_base_s * 1e3, m.coordination_per_log2_rank_s * 1e3);
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
