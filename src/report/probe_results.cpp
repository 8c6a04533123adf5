#include "report/probe_results.hpp"

namespace ncclsweep {

void print_probe_results(const probe::ProbeDocument& document, const std::string& directory, std::ostream& out) {
  out << probe::probe_report(document) << "# probe results in " << directory << "\n" << std::flush;
}

}  // namespace ncclsweep
