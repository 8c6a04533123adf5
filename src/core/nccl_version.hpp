#pragma once
// NCCL's (and CUDA's) version, between its integer code (ncclGetVersion, NCCL_VERSION_CODE, nccl-tests'
// JSON) and the "2.28.9" text printed everywhere. The one conversion for every layer.
#include <string>
#include <string_view>

namespace ncclsweep {

// 22809 -> "2.28.9". Codes before 2.9 were MAJOR*1000 + MINOR*100 + PATCH (2803 -> "2.8.3").
std::string nccl_version_text(int code);

// "2.28.9" (or "2.28") -> 22809; 0 when the text is not a version.
int nccl_version_code(std::string_view text);

// CUDA's codes (cudaRuntimeGetVersion, cudaDriverGetVersion: MAJOR*1000 + MINOR*10):
// 13000 -> "13.0", 12040 -> "12.4".
std::string cuda_version_text(int code);

}  // namespace ncclsweep
