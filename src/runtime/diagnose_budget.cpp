#include "runtime/diagnose_budget.hpp"

#include <cmath>

#include "core/errors.hpp"
#include "core/printf_text.hpp"

namespace ncclsweep {

DiagnoseBudget plan_diagnose_budget(double budget_s, const std::vector<int>& host_sizes,
                                    const locate::LocateOptions& locate, EngineKind engine, long long measurements,
                                    bool settings_search) {
  const DiagnoseBudgetModel& m = kBudgetModel;
  DiagnoseBudget b;
  b.total_s = budget_s;
  double hosts_s = 0;
  if (host_sizes.size() >= 2) {
    const double busbw = engine == EngineKind::mpi ? m.locate_mpi_busbw : m.locate_gpu_busbw;
    hosts_s = m.locate_safety * locate::estimate_locate(host_sizes, locate, busbw).total_s();
  }
  const double fixed = m.preflight_s + m.platform_s + hosts_s;
  const double settings_s = settings_search ? m.settings_share * (budget_s - fixed) : 0;
  const double collectives_s = budget_s - fixed - settings_s;
  const double needed = fixed + static_cast<double>(measurements) * m.min_measurement_s / m.timed_share /
                                    (settings_search ? 1 - m.settings_share : 1);
  if (measurements < 1 || collectives_s <= 0 ||
      collectives_s * m.timed_share / static_cast<double>(measurements) < m.min_measurement_s) {
    throw UsageError(printf_text("--budget %.0fs cannot hold the phases: preflight %.0fs, platform %.0fs, hosts and links "
                                 "%.0fs and %lld measurement(s) of the workload's calls at %.2fs each need %.0fs",
                                 budget_s, m.preflight_s, m.platform_s, hosts_s, measurements,
                                 m.min_measurement_s / m.timed_share, needed),
                     printf_text("give --budget %.0fs or more, or fewer sizes or collectives", std::ceil(needed)));
  }
  b.per_measurement_s = collectives_s * m.timed_share / static_cast<double>(measurements);
  b.phases = {{"preflight", m.preflight_s, {}},
              {"platform", m.platform_s, {}},
              {"hosts and links", hosts_s, {}},
              {"collectives", collectives_s, {}}};
  if (settings_search) b.phases.push_back({"NCCL settings", settings_s, {}});
  return b;
}

locate::LocateOptions diagnose_locate_options(EngineKind engine) {
  locate::LocateOptions o;
  if (engine == EngineKind::mpi) {
    o.sizes = {256 * 1024};
    o.warmup = 5;
    o.iters = 20;
    o.repeats = 1;
    o.passes = 5;
    // A 40-fold slowed rank reads about 0.05; a healthy one, its cores shared with other
    // work, was seen as low as 0.22 with one rank per host.
    o.threshold = 0.15;
  } else {
    o.sizes = {64ull << 20, 256ull << 20};
  }
  return o;
}

}  // namespace ncclsweep
