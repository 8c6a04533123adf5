#pragma once
// Reads this rank's GPU clocks and throttle reasons between measurements: NVML when it
// was there at build time (microseconds a read), else nvidia-smi (tens of milliseconds).
#include <memory>
#include <optional>
#include <string>

#include "core/gpu_clocks.hpp"

namespace ncclsweep {

class GpuClockReader {
 public:
  explicit GpuClockReader(std::string pci_bus_id);
  ~GpuClockReader();
  GpuClockReader(const GpuClockReader&) = delete;
  GpuClockReader& operator=(const GpuClockReader&) = delete;

  // Nothing when the clocks cannot be read (no NVML device, no nvidia-smi).
  std::optional<GpuClocks> read();
  std::string_view source() const;  // "nvml" | "nvidia-smi"

 private:
  struct Nvml;  // the NVML session, when built with NVML
  std::string pci_bus_id_;
  std::unique_ptr<Nvml> nvml_;
};

}  // namespace ncclsweep
