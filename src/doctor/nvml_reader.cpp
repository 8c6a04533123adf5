#include "doctor/nvml_reader.hpp"

#include <dlfcn.h>

#include <array>

#include "core/gpu_clocks.hpp"

namespace ncclsweep::doctor {

// The parts of nvml.h used here, declared by hand: the CI machine has no nvml.h, and the
// ABI of these calls has been stable since NVML 5 (the _v2 names are the current ones).
// The two types are outside the anonymous namespace because NvmlLibrary::Api, a class of
// the header's, holds pointers to functions taking them.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;

namespace {

constexpr nvmlReturn_t kSuccess = 0;
constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
constexpr int kTemperatureGpu = 0;          // nvmlTemperatureSensors_t
constexpr int kEccUncorrected = 1, kEccVolatile = 0;
constexpr unsigned kMaxNvlinks = 18;  // NVML_NVLINK_MAX_LINKS

// Bit i of the clock event reasons mask, as NVML numbers them (stable across the
// "Throttle" -> "Event" renaming of the macros).
constexpr std::array<const char*, 9> kReasonBits = {
    "gpu_idle", "applications_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
    "sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks"};

template <typename F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

}  // namespace

std::vector<std::string> throttle_reason_names(unsigned long long mask) {
  std::vector<std::string> names;
  for (unsigned bit = 0; bit < 64; ++bit) {
    if ((mask >> bit & 1ULL) == 0) continue;
    names.push_back(bit < kReasonBits.size() ? kReasonBits[bit] : "bit_" + std::to_string(bit));
  }
  return names;
}

// The reasons that slow work are the ones records keep (core/gpu_clocks.hpp): one list.
bool throttle_slows_work(const std::string& reason) { return kThrottleReasonNames.find(reason).has_value(); }

struct NvmlLibrary::Api {
  void* handle = nullptr;
  bool initialised = false;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*by_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*power_constraints)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*pcie_gen)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*pcie_gen_max)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*pcie_width)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*pcie_width_max)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*driver)(char*, unsigned) = nullptr;
  nvmlReturn_t (*pstate)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*ecc)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*remapped)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned, int*) = nullptr;

  std::string why(nvmlReturn_t status) const {
    return error_string ? error_string(status) : "NVML error " + std::to_string(status);
  }
};

NvmlLibrary::NvmlLibrary() : api_(std::make_unique<Api>()) {
  Api& a = *api_;
  a.handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a.handle) {
    const char* error = dlerror();
    unavailable_reason_ = std::string("NVML not loaded (no NVIDIA driver here?): ") + (error ? error : "dlopen failed");
    return;
  }
  a.init = symbol<decltype(a.init)>(a.handle, "nvmlInit_v2");
  a.shutdown = symbol<decltype(a.shutdown)>(a.handle, "nvmlShutdown");
  a.error_string = symbol<decltype(a.error_string)>(a.handle, "nvmlErrorString");
  a.by_bus_id = symbol<decltype(a.by_bus_id)>(a.handle, "nvmlDeviceGetHandleByPciBusId_v2");
  a.clock = symbol<decltype(a.clock)>(a.handle, "nvmlDeviceGetClockInfo");
  a.max_clock = symbol<decltype(a.max_clock)>(a.handle, "nvmlDeviceGetMaxClockInfo");
  a.power = symbol<decltype(a.power)>(a.handle, "nvmlDeviceGetPowerUsage");
  a.power_limit = symbol<decltype(a.power_limit)>(a.handle, "nvmlDeviceGetEnforcedPowerLimit");
  a.power_constraints = symbol<decltype(a.power_constraints)>(a.handle, "nvmlDeviceGetPowerManagementLimitConstraints");
  a.temperature = symbol<decltype(a.temperature)>(a.handle, "nvmlDeviceGetTemperature");
  a.reasons = symbol<decltype(a.reasons)>(a.handle, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!a.reasons) a.reasons = symbol<decltype(a.reasons)>(a.handle, "nvmlDeviceGetCurrentClocksThrottleReasons");
  a.pcie_gen = symbol<decltype(a.pcie_gen)>(a.handle, "nvmlDeviceGetCurrPcieLinkGeneration");
  a.pcie_gen_max = symbol<decltype(a.pcie_gen_max)>(a.handle, "nvmlDeviceGetMaxPcieLinkGeneration");
  a.pcie_width = symbol<decltype(a.pcie_width)>(a.handle, "nvmlDeviceGetCurrPcieLinkWidth");
  a.pcie_width_max = symbol<decltype(a.pcie_width_max)>(a.handle, "nvmlDeviceGetMaxPcieLinkWidth");
  a.name = symbol<decltype(a.name)>(a.handle, "nvmlDeviceGetName");
  a.driver = symbol<decltype(a.driver)>(a.handle, "nvmlSystemGetDriverVersion");
  a.pstate = symbol<decltype(a.pstate)>(a.handle, "nvmlDeviceGetPerformanceState");
  a.ecc = symbol<decltype(a.ecc)>(a.handle, "nvmlDeviceGetTotalEccErrors");
  a.remapped = symbol<decltype(a.remapped)>(a.handle, "nvmlDeviceGetRemappedRows");
  a.nvlink_state = symbol<decltype(a.nvlink_state)>(a.handle, "nvmlDeviceGetNvLinkState");
  if (!a.init || !a.shutdown || !a.by_bus_id) {
    unavailable_reason_ = "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2 (driver too old)";
    return;
  }
  // nvmlInit/nvmlShutdown are reference counted, so this session does not disturb others.
  if (const nvmlReturn_t status = a.init(); status != kSuccess) {
    unavailable_reason_ = "nvmlInit_v2 failed: " + a.why(status);
    return;
  }
  a.initialised = true;
}

NvmlLibrary::~NvmlLibrary() {
  if (api_->initialised) api_->shutdown();
  if (api_->handle) dlclose(api_->handle);
}

bool NvmlLibrary::available() const { return api_->initialised; }

const std::string& NvmlLibrary::unavailable_reason() const { return unavailable_reason_; }

bool NvmlLibrary::sample(const std::string& bus_id, NvmlSample& out, std::string& why) const {
  const Api& a = *api_;
  if (!a.initialised) {
    why = unavailable_reason_;
    return false;
  }
  nvmlDevice_t device = nullptr;
  if (const nvmlReturn_t status = a.by_bus_id(bus_id.c_str(), &device); status != kSuccess) {
    why = "NVML has no GPU at " + bus_id + ": " + a.why(status);
    return false;
  }
  NvmlSample s;
  s.bus_id = bus_id;
  const auto read_uint = [](auto fn, auto... args) -> long long {
    unsigned value = 0;
    return fn && fn(args..., &value) == kSuccess ? static_cast<long long>(value) : -1;
  };
  s.sm_clock_mhz = static_cast<int>(read_uint(a.clock, device, kClockSm));
  s.mem_clock_mhz = static_cast<int>(read_uint(a.clock, device, kClockMem));
  s.sm_clock_max_mhz = static_cast<int>(read_uint(a.max_clock, device, kClockSm));
  s.mem_clock_max_mhz = static_cast<int>(read_uint(a.max_clock, device, kClockMem));
  if (const long long mw = read_uint(a.power, device); mw >= 0) s.power_w = static_cast<double>(mw) / 1000.0;
  if (const long long mw = read_uint(a.power_limit, device); mw >= 0) s.power_limit_w = static_cast<double>(mw) / 1000.0;
  unsigned min_mw = 0, max_mw = 0;
  if (a.power_constraints && a.power_constraints(device, &min_mw, &max_mw) == kSuccess) {
    s.power_limit_max_w = static_cast<double>(max_mw) / 1000.0;
  }
  s.temperature_c = static_cast<int>(read_uint(a.temperature, device, kTemperatureGpu));
  unsigned long long mask = 0;
  if (a.reasons && a.reasons(device, &mask) == kSuccess) s.throttle_reasons = throttle_reason_names(mask);
  s.pcie_gen = static_cast<int>(read_uint(a.pcie_gen, device));
  s.pcie_gen_max = static_cast<int>(read_uint(a.pcie_gen_max, device));
  s.pcie_width = static_cast<int>(read_uint(a.pcie_width, device));
  s.pcie_width_max = static_cast<int>(read_uint(a.pcie_width_max, device));
  char text[96] = {};
  if (a.name && a.name(device, text, sizeof text) == kSuccess) s.model = text;
  char version[96] = {};
  if (a.driver && a.driver(version, sizeof version) == kSuccess) s.driver = version;
  int pstate = 32;  // NVML_PSTATE_UNKNOWN
  if (a.pstate && a.pstate(device, &pstate) == kSuccess && pstate >= 0 && pstate < 16) {
    s.performance_state = "P" + std::to_string(pstate);
  }
  unsigned long long ecc = 0;
  if (a.ecc && a.ecc(device, kEccUncorrected, kEccVolatile, &ecc) == kSuccess) s.ecc_uncorrectable = static_cast<long long>(ecc);
  unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
  if (a.remapped && a.remapped(device, &corrected, &uncorrected, &pending, &failed) == kSuccess) {
    s.remapping_pending = pending != 0;
  }
  if (a.nvlink_state) {
    int up = 0, total = 0;
    for (unsigned link = 0; link < kMaxNvlinks; ++link) {
      int active = 0;
      if (a.nvlink_state(device, link, &active) != kSuccess) continue;  // no such link
      ++total;
      if (active) ++up;
    }
    s.nvlink_up = up;
    s.nvlink_total = total;
  }
  out = std::move(s);
  return true;
}

void apply_nvml_sample(const NvmlSample& sample, GpuFacts& gpu) {
  gpu.model = sample.model;
  gpu.driver = sample.driver;
  gpu.performance_state = sample.performance_state;
  gpu.sm_clock_mhz = sample.sm_clock_mhz;
  gpu.sm_clock_max_mhz = sample.sm_clock_max_mhz;
  gpu.mem_clock_mhz = sample.mem_clock_mhz;
  gpu.mem_clock_max_mhz = sample.mem_clock_max_mhz;
  gpu.power_limit_w = sample.power_limit_w;
  gpu.power_limit_max_w = sample.power_limit_max_w;
  gpu.ecc_uncorrectable = sample.ecc_uncorrectable;
  gpu.remapping_pending = sample.remapping_pending;
  gpu.pcie_gen = sample.pcie_gen;
  gpu.pcie_gen_max = sample.pcie_gen_max;
  gpu.pcie_width = sample.pcie_width;
  gpu.pcie_width_max = sample.pcie_width_max;
  gpu.nvlink_up = sample.nvlink_up;
  gpu.nvlink_total = sample.nvlink_total;
}

}  // namespace ncclsweep::doctor
