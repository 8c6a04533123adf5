#pragma once
// The lines locate prints besides its findings: durations, the --dry-run estimate and
// the progress of a launch.
#include <iosfwd>
#include <string>

#include "core/table_or_json.hpp"
#include "locate/host_layout.hpp"
#include "locate/locate_plan.hpp"
#include "locate/phase_runner.hpp"

namespace ncclsweep::locate {

// "0.25 s", "3.5 min", "2.0 h", "3 days": three significant figures where it matters.
std::string seconds_text(double seconds);

// --dry-run: the steps, rounds and measurements of `hosts` x `ranks_per_host`, and their
// time under the model of docs/scale.md at `busbw_gbps`. Three "# " lines.
std::string estimate_text(int hosts, int ranks_per_host, const LocateOptions& options, double busbw_gbps);

// `locate --dry-run`: the estimate for an allocation on `out` (the lines above, or one JSON
// document), without a launch. Throws UsageError when the allocation is not given (`hosts`
// or `ranks_per_host` below 1).
int run_locate_dry_run(int hosts, int ranks_per_host, const LocateOptions& options, double busbw_gbps,
                       TableOrJson format, std::ostream& out);

// "# step 2/4: pairs round 1: h2,h3 far slower than the typical group in warm-up
// (all_gather 64 MiB: 10.2 s a call against 0.122 s, 1 timed call a repeat; ...)", a line
// per slow group.
std::string slow_warm_up_text(const HostLayout& layout, const Step& step, const std::vector<SlowWarmUp>& slow, int index,
                              int total);

// "# step 3/7: pairs round 2 took 0.5 s", over `passes` passes.
std::string step_text(const StepTime& time, int index, int total, int passes);

}  // namespace ncclsweep::locate
