#pragma once
// A probe's results as `ncclsweep probe` and `run --probe` show them: the report of the
// document written into `directory`, and where it is (docs/probe.md).
#include <ostream>
#include <string>

#include "probe/probe_run.hpp"

namespace ncclsweep {

void print_probe_results(const probe::ProbeDocument& document, const std::string& directory, std::ostream& out);

}  // namespace ncclsweep
