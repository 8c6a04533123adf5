#pragma once
// run.json's fingerprint: what --resume compares to know that a directory was started
// by the same sweep on the same rank layout, so skipping its recorded measurements is
// sound.
#include <string>
#include <vector>

#include "spec/run_spec.hpp"
#include "processes/worker_protocol.hpp"

namespace ncclsweep {

// A digest of the expanded measurements (the run name aside), every point of every
// isolation group with its settings, the rank count and each rank's host.
std::string run_fingerprint(const RunSpec& spec, const std::vector<WorkerGroup>& groups,
                            const std::vector<std::string>& rank_hosts);

}  // namespace ncclsweep
