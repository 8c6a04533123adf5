#pragma once
// One `ncclsweep doctor`: every rank collects its facts (GPU, environment, launcher), rank
// 0 judges them all; the command prints the report (docs/doctor.md).
#include "core/launch_outcome.hpp"
#include "doctor/checks.hpp"
#include "transport/mpi_session.hpp"

namespace ncclsweep {

struct DoctorFlags {
  bool no_gpu_tools = false;  // --no-gpu-tools: no NVML or nvidia-smi
};

// Rank 0's report; the status is the same on every rank: 1 when a finding is an error.
using DoctorOutcome = LaunchOutcome<doctor::DoctorReport>;
DoctorOutcome run_doctor_launch(MpiSession& session, const DoctorFlags& flags, char** envp);

}  // namespace ncclsweep
