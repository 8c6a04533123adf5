#pragma once
// At the end of a sweep, per collective: busbw with one column per point and each
// point's change against the baseline, so the best setting per size shows at a glance.
#include <memory>
#include <ostream>
#include <string>

#include "results/result_sink.hpp"

namespace ncclsweep {

// Prints nothing for a run of one point.
std::unique_ptr<ResultSink> make_sweep_summary(std::ostream& out, std::string baseline_point);

// The table itself (out-of-place busbw), for tests and reports.
std::string sweep_summary_text(const RunDocument& run, const std::string& baseline_point);

}  // namespace ncclsweep
