#include "engine/nccl/gpu_clock_reader.hpp"

#include "doctor/nvidia_smi.hpp"

#if NCCLSWEEP_HAVE_NVML
#include <nvml.h>
#endif

namespace ncclsweep {

#if NCCLSWEEP_HAVE_NVML
// nvmlInit/nvmlShutdown are reference counted, so each reader holds its own session.
struct GpuClockReader::Nvml {
  explicit Nvml(const std::string& bus) {
    if (nvmlInit_v2() != NVML_SUCCESS) return;
    initialised = true;
    found = nvmlDeviceGetHandleByPciBusId_v2(bus.c_str(), &device) == NVML_SUCCESS;
  }
  ~Nvml() {
    if (initialised) nvmlShutdown();
  }
  std::optional<GpuClocks> read() const {
    if (!found) return std::nullopt;
    unsigned int sm = 0, mem = 0;
    unsigned long long reasons = 0;
    if (nvmlDeviceGetClockInfo(device, NVML_CLOCK_SM, &sm) != NVML_SUCCESS ||
        nvmlDeviceGetClockInfo(device, NVML_CLOCK_MEM, &mem) != NVML_SUCCESS ||
        nvmlDeviceGetCurrentClocksEventReasons(device, &reasons) != NVML_SUCCESS) {
      return std::nullopt;
    }
    GpuClocks clocks{static_cast<int>(sm), static_cast<int>(mem), {}};
    // NVML's stable bit values (its macro names changed from "Throttle" to "Event" over
    // versions): SwPowerCap, HwSlowdown, SwThermalSlowdown, HwThermalSlowdown, HwPowerBrakeSlowdown.
    constexpr unsigned long long kBits[kThrottleReasons] = {0x4, 0x8, 0x20, 0x40, 0x80};
    for (std::size_t i = 0; i < kThrottleReasons; ++i) clocks.throttled[i] = (reasons & kBits[i]) != 0;
    return clocks;
  }
  bool initialised = false;
  bool found = false;
  nvmlDevice_t device{};
};
#else
struct GpuClockReader::Nvml {};
#endif

GpuClockReader::GpuClockReader(std::string pci_bus_id) : pci_bus_id_(std::move(pci_bus_id)) {
#if NCCLSWEEP_HAVE_NVML
  nvml_ = std::make_unique<Nvml>(pci_bus_id_);
  if (!nvml_->found) nvml_.reset();
#endif
}

GpuClockReader::~GpuClockReader() = default;

std::string_view GpuClockReader::source() const { return nvml_ ? "nvml" : "nvidia-smi"; }

std::optional<GpuClocks> GpuClockReader::read() {
#if NCCLSWEEP_HAVE_NVML
  if (nvml_) return nvml_->read();
#endif
  const auto text = doctor::program_output({"nvidia-smi", "--query-gpu=" + clock_query_fields(),
                                            "--format=csv,noheader,nounits", "-i", pci_bus_id_});
  if (!text) return std::nullopt;
  return parse_clock_query(*text);
}

}  // namespace ncclsweep
