#pragma once
// What a soak samples beside the collectives at the end of every window: this rank's
// GPU (SM and memory clocks, power, temperature, throttle reasons) and CPU (the
// frequency of a busy core). Behind an interface so verdicts, records and metrics are
// tested with fakes, and so the readers can change without the window loop knowing.
#include <memory>

#include "engine/engine.hpp"
#include "soak/soak_window.hpp"

namespace ncclsweep::soak {

class WindowSampler {
 public:
  virtual ~WindowSampler() = default;
  // Called on every rank between measurements, never while timing. `rank` and `host`
  // are filled by the caller.
  virtual RankSignals sample() = 0;
};

// The readers this build has, for this rank's engine:
//   GPU: the engine's clock reader (NVML or nvidia-smi) for clocks and throttle reasons;
//        power and temperature from `nvidia-smi --query-gpu` for the engine's GPU.
//   CPU: not built yet (Gap::not_built): the busy-core frequency reader of `probe` plugs
//        in here (make_cpu_reader in window_sampler.cpp).
std::unique_ptr<WindowSampler> make_engine_sampler(Engine& engine);

}  // namespace ncclsweep::soak
