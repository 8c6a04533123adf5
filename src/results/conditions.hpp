#pragma once
// The conditions a measurement ran under beyond what it measured (buffer and launch mode,
// buffer footprint, cache state), as one label: reports and tables key by it, so two
// measurements under different conditions are never folded together or overwritten.
#include <string>

#include "results/record.hpp"

namespace ncclsweep {

// "" for nccl-tests' model (largest footprint, warm cache) or when the record predates
// them; else "footprint exact, cache flush" (the parts that differ).
std::string footprint_tag(const MeasurementRecord& record);
// footprint_tag plus the buffer and launch modes when not cuda-malloc and stream.
std::string conditions_tag(const MeasurementRecord& record);

}  // namespace ncclsweep
