#pragma once
// The NCCL whose config fields a sweep may use: this build's header, else the newest
// known (and a note saying so).
#include <string>

#include "spec/sweep.hpp"

namespace ncclsweep {

inline SweepContext build_sweep_context(std::string& note) {
#ifdef NCCLSWEEP_NCCL_VERSION_CODE
  note = "config fields checked against NCCL " + nccl_version_text(NCCLSWEEP_NCCL_VERSION_CODE) + " (this build's header)";
  return SweepContext{NCCLSWEEP_NCCL_VERSION_CODE};
#else
  note = "built without NCCL: config fields checked against the newest known, NCCL " +
         nccl_version_text(kNewestKnownNcclVersion);
  return SweepContext{kNewestKnownNcclVersion};
#endif
}

}  // namespace ncclsweep
