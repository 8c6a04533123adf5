#include "locate/locate_text.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <ostream>
#include <vector>

#include "core/errors.hpp"
#include "core/list_text.hpp"
#include "core/printf_text.hpp"

namespace ncclsweep::locate {

std::string seconds_text(double s) {
  if (s < 120) return printf_text("%.3g s", s);
  if (s < 2 * 3600) return printf_text("%.1f min", s / 60);
  if (s < 2 * 86400) return printf_text("%.1f h", s / 3600);
  return printf_text("%.3g days", s / 86400);
}

std::string estimate_text(int hosts, int ranks_per_host, const LocateOptions& options, double busbw_gbps) {
  // Counted, not built: the largest allocation the options allow stays a few MiB.
  const LocateEstimate e = estimate_locate(std::vector<int>(static_cast<std::size_t>(hosts), ranks_per_host), options,
                                           busbw_gbps * 1e9);
  return printf_text("# locate estimate: %d host(s) x %d rank(s): %d split(s), %d pairs round(s), %lld measurement(s)\n",
                     hosts, ranks_per_host, e.steps, e.rounds, e.measurements) +
         "#   launch " + seconds_text(e.launch_s) + ", splits " + seconds_text(e.splits_s) + ", collectives " +
         seconds_text(e.collectives_s) + ", coordination " + seconds_text(e.coordination_s) + "; per pairs round " +
         seconds_text(e.per_round_s) + " (split at most " + seconds_text(e.per_split_s) + "); total " +
         seconds_text(e.total_s()) + "\n" +
         printf_text("#   (model: %.0f GB/s bus bandwidth and the per-rank costs of docs/scale.md)\n", busbw_gbps);
}

int run_locate_dry_run(int hosts, int ranks_per_host, const LocateOptions& options, double busbw_gbps,
                       TableOrJson format, std::ostream& out) {
  if (hosts < 1 || ranks_per_host < 1) {
    throw UsageError("locate --dry-run needs the allocation: --hosts N and --ranks-per-host G",
                     "e.g. ncclsweep locate --dry-run --hosts 64 --ranks-per-host 8");
  }
  if (format == TableOrJson::table) {
    out << estimate_text(hosts, ranks_per_host, options, busbw_gbps);
    return kExitOk;
  }
  const LocateEstimate e = estimate_locate(std::vector<int>(static_cast<std::size_t>(hosts), ranks_per_host), options,
                                           busbw_gbps * 1e9);
  const nlohmann::ordered_json j{{"hosts", hosts},
                                 {"ranks_per_host", ranks_per_host},
                                 {"busbw_gbps", busbw_gbps},
                                 {"splits", e.steps},
                                 {"pairs_rounds", e.rounds},
                                 {"measurements", e.measurements},
                                 {"seconds", {{"launch", e.launch_s},
                                              {"splits", e.splits_s},
                                              {"collectives", e.collectives_s},
                                              {"coordination", e.coordination_s},
                                              {"per_pairs_round", e.per_round_s},
                                              {"costliest_split", e.per_split_s},
                                              {"total", e.total_s()}}}};
  out << j.dump(2) << "\n";
  return kExitOk;
}

std::string slow_warm_up_text(const HostLayout& layout, const Step& step, const std::vector<SlowWarmUp>& slow, int index,
                              int total) {
  std::map<std::vector<int>, std::vector<std::string>> by_group;
  for (const SlowWarmUp& s : slow) {
    by_group[s.hosts].push_back(s.test + ": " + seconds_text(s.call_seconds) + " a call against " +
                                seconds_text(s.typical_seconds) + ", " + std::to_string(s.iters) + " timed call(s) a repeat");
  }
  const std::string round = step.round > 0 ? " round " + std::to_string(step.round) : "";
  std::string out;
  for (const auto& [hosts, tests] : by_group) {
    std::vector<std::string> names;
    for (const int h : hosts) names.push_back(layout.hosts[static_cast<std::size_t>(h)]);
    out += printf_text("# step %d/%d: ", index + 1, total) + std::string(name_of(step.phase)) + round + ": " +
           join_text(names, ",") + " far slower than the typical group in warm-up (" + join_text(tests, "; ") + ")\n";
  }
  return out;
}

std::string step_text(const StepTime& t, int index, int total, int passes) {
  const std::string round = t.round > 0 ? " round " + std::to_string(t.round) : "";
  const std::string pass = passes > 1 ? " (pass " + std::to_string(t.pass) + ")" : "";
  return printf_text("# step %d/%d: ", index + 1, total) + std::string(name_of(t.phase)) + round + pass + " took " +
         seconds_text(t.seconds) + " (split " + seconds_text(t.split_seconds) + ")\n";
}

}  // namespace ncclsweep::locate
