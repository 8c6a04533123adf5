#pragma once
// One `ncclsweep doctor`: every rank collects its facts (GPU, environment, launcher), rank
// 0 judges them all and prints the findings as a table or JSON (docs/doctor.md).
#include <iosfwd>

#include "transport/mpi_session.hpp"

namespace ncclsweep {

struct DoctorFlags {
  bool json = false;          // --format json
  bool no_gpu_tools = false;  // --no-gpu-tools: no NVML or nvidia-smi
};

// Returns the exit status on every rank: 1 when a finding is an error.
int run_doctor_launch(MpiSession& session, const DoctorFlags& flags, char** envp, std::ostream& out);

}  // namespace ncclsweep
