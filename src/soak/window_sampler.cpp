#include "soak/window_sampler.hpp"

#include <cstdlib>
#include <sstream>
#include <string>

#include "doctor/nvidia_smi.hpp"

namespace ncclsweep::soak {
namespace {

// "412.35, 61" -> power and temperature; either may be "[N/A]".
void read_power_and_temperature(const std::string& bus_id, GpuSignals& gpu) {
  const auto text = doctor::program_output({"nvidia-smi", "--query-gpu=power.draw,temperature.gpu",
                                            "--format=csv,noheader,nounits", "-i", bus_id});
  if (!text) return;
  std::stringstream line(*text);
  std::string power, temperature;
  std::getline(line, power, ',');
  std::getline(line, temperature);
  const auto number = [](const std::string& field) -> std::optional<double> {
    char* end = nullptr;
    const double value = std::strtod(field.c_str(), &end);
    if (end == field.c_str()) return std::nullopt;
    return value;
  };
  gpu.power_w = number(power);
  gpu.temperature_c = number(temperature);
}

class EngineSampler final : public WindowSampler {
 public:
  explicit EngineSampler(Engine& engine) : engine_(engine), bus_id_(engine.device().pci_bus_id) {}

  RankSignals sample() override {
    RankSignals signals;
    if (engine_.device().gpu_index < 0) {
      signals.gpu.gap = Gap::no_gpu;
    } else if (const auto clocks = engine_.read_clocks()) {
      signals.gpu.sm_mhz = clocks->sm_mhz;
      signals.gpu.mem_mhz = clocks->mem_mhz;
      signals.gpu.throttled = clocks->throttled;
      read_power_and_temperature(bus_id_, signals.gpu);
    } else {
      signals.gpu.gap = Gap::unreadable;
    }
    // Adapter point for the busy-core frequency (the probe's add-chain): until it is
    // wired, the CPU signal says it is not built rather than guessing from cpufreq.
    signals.cpu.gap = Gap::not_built;
    return signals;
  }

 private:
  Engine& engine_;
  std::string bus_id_;
};

}  // namespace

std::unique_ptr<WindowSampler> make_engine_sampler(Engine& engine) { return std::make_unique<EngineSampler>(engine); }

}  // namespace ncclsweep::soak
