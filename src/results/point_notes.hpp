#pragma once
// Short notes on a sweep point that every report shows beside its status.
#include <string>

#include "results/record.hpp"

namespace ncclsweep {

// ", unexpected NCCL_ALGO=Ring" when the point's init saw NCCL_ variables it does not
// name and the run did not set (PointOutcome::unexpected_environment); "" otherwise.
std::string unexpected_environment_note(const PointOutcome& point);

}  // namespace ncclsweep
