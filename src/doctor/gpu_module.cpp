#include "doctor/gpu_module.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>
#include <vector>

namespace ncclsweep::doctor {

#ifdef NCCLSWEEP_GPU_MODULE_FILE
namespace {

// Where the module may be, relative to the running executable: beside it in the build
// tree, in the install's library directory otherwise (cmake/install.cmake keeps the two
// in this relation).
std::vector<std::filesystem::path> module_candidates() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path binary = fs::canonical("/proc/self/exe", error);
  if (error) return {};
  const fs::path here = binary.parent_path();
  return {here / NCCLSWEEP_GPU_MODULE_FILE, (here / NCCLSWEEP_GPU_MODULE_INSTALL_DIR / NCCLSWEEP_GPU_MODULE_FILE).lexically_normal()};
}

}  // namespace

GpuModule::GpuModule() {
  const std::vector<std::filesystem::path> candidates = module_candidates();
  for (const auto& candidate : candidates) {
    std::error_code error;
    if (!std::filesystem::exists(candidate, error)) continue;
    path_ = candidate.string();
    // Never unloaded (RTLD_NODELETE): an engine, a CUDA context or NCCL's threads made by
    // the module may outlive this handle, and CUDA's own libraries do not support unloading.
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle_) {
      const char* why = dlerror();
      unavailable_reason_ = "the GPU module " + path_ + " did not load: " + (why ? why : "dlopen failed") +
                            " (are the CUDA, NCCL and cuBLAS libraries it was built with on this machine?)";
    }
    return;
  }
  unavailable_reason_ = std::string("the GPU module ") + NCCLSWEEP_GPU_MODULE_FILE + " is missing";
  if (!candidates.empty()) {
    unavailable_reason_ += " (looked for " + candidates.front().string() + " and " + candidates.back().string() + ")";
  }
  unavailable_reason_ += "; reinstall ncclsweep (cmake --install puts it in PREFIX/lib/ncclsweep)";
}
#else
GpuModule::GpuModule() : unavailable_reason_("ncclsweep was built without CUDA") {}
#endif

GpuModule::~GpuModule() {
  if (handle_) dlclose(handle_);
}

void* GpuModule::symbol(const char* name) const {
  if (!handle_) throw RuntimeFailure("loading the GPU module", unavailable_reason_);
  void* found = dlsym(handle_, name);
  if (!found) {
    throw RuntimeFailure("dlsym", std::string(name) + " is not in " + path_ +
                                      ": the module belongs to another ncclsweep build; reinstall ncclsweep");
  }
  return found;
}

}  // namespace ncclsweep::doctor
