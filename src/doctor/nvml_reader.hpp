#pragma once
// GPU facts through NVML, loaded at run time: dlopen("libnvidia-ml.so.1") of the driver's
// library, so a build on a machine without a driver (or without the toolkit's nvml.h)
// still links and runs, and says why there is nothing to read. The few entry points used
// are declared in nvml_reader.cpp. Doctor, probe and soak read GPUs through this one type.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/rank_facts.hpp"

namespace ncclsweep::doctor {

// One reading of one GPU. -1 (or empty) where NVML did not answer that query.
struct NvmlSample {
  std::string bus_id;  // as NVML reports it: "00000000:17:00.0"
  std::string model, driver, performance_state;  // performance_state "P0"
  int sm_clock_mhz = -1, sm_clock_max_mhz = -1, mem_clock_mhz = -1, mem_clock_max_mhz = -1;
  double power_w = -1, power_limit_w = -1, power_limit_max_w = -1;
  int temperature_c = -1;
  std::vector<std::string> throttle_reasons;  // throttle_reason_names(); empty: none
  int pcie_gen = -1, pcie_gen_max = -1, pcie_width = -1, pcie_width_max = -1;
  long long ecc_uncorrectable = -1;  // volatile, since the driver loaded
  bool remapping_pending = false;
  int nvlink_up = -1, nvlink_total = -1;
};

// NVML's clock event (throttle) reason bits as names, lowest bit first:
// gpu_idle, applications_clocks, sw_power_cap, hw_slowdown, sync_boost, sw_thermal,
// hw_thermal, hw_power_brake, display_clocks; an unknown bit as "bit_N".
std::vector<std::string> throttle_reason_names(unsigned long long mask);
// Whether a reason slows work down (gpu_idle, sync_boost and the clock settings do not
// by themselves).
bool throttle_slows_work(const std::string& reason);

// The loaded library. Construction never throws: without a driver, available() is false
// and unavailable_reason() says why ("libnvidia-ml.so.1: cannot open shared object ...").
class NvmlLibrary {
 public:
  NvmlLibrary();
  ~NvmlLibrary();  // nvmlShutdown, dlclose
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  bool available() const;
  const std::string& unavailable_reason() const;

  // One sample of the GPU with this PCI bus id (any form NVML accepts, e.g. CUDA's
  // "0000:17:00.0"). On failure returns false and sets `why`.
  bool sample(const std::string& bus_id, NvmlSample& out, std::string& why) const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  std::string unavailable_reason_;
};

// Copies a sample's facts into doctor's GpuFacts (the fields nvidia-smi -q -x also fills).
void apply_nvml_sample(const NvmlSample& sample, GpuFacts& gpu);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NvmlSample, bus_id, model, driver, performance_state, sm_clock_mhz,
                                                sm_clock_max_mhz, mem_clock_mhz, mem_clock_max_mhz, power_w,
                                                power_limit_w, power_limit_max_w, temperature_c, throttle_reasons,
                                                pcie_gen, pcie_gen_max, pcie_width, pcie_width_max,
                                                ecc_uncorrectable, remapping_pending, nvlink_up, nvlink_total)

}  // namespace ncclsweep::doctor
