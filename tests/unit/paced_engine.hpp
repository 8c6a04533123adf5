#pragma once
// An engine for the in-process launch tests: no buffers, no data, and a time per call
// worked out from the call (a fixed latency plus bytes over a fixed bandwidth, times the
// slow-down factor), so a test can judge the runtime's decisions on exact numbers. With
// jitter, each call's time is scattered by a seeded generator instead, so a test can give
// a run noise that longer repeats average away, and still get the same numbers each time.
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace ncclsweep::testing {

class PacedEngine final : public Engine {
 public:
  static constexpr double kLatencySeconds = 10e-6;
  static constexpr double kBytesPerSecond = 10e9;

  std::string_view name() const override { return "mpi"; }
  DeviceDescription device() const override { return {}; }
  void connect(const std::vector<ConfigSetting>&) override {}
  void disconnect() override {}
  std::string unsupported_reason(const CollectiveCall&) const override { return {}; }
  std::uint64_t run_checked(const CollectiveCall&, bool corrupt) override { return corrupt ? 1 : 0; }
  void split(const std::vector<int>&) override {}  // every sub-communicator times alike
  void slow_down(double factor) override { factor_ = factor; }

  // The seconds one call of `call` takes here.
  double call_seconds(const CollectiveCall& call) const {
    const double bytes = static_cast<double>(call.count * call.dtype->bytes);
    return (kLatencySeconds + bytes / kBytesPerSecond) * factor_;
  }

  // Each call's time times exp(jitter x z), z standard normal: a repeat of N calls then
  // scatters by about jitter / sqrt(N). 0 (the default): exact times.
  void set_jitter(double jitter, unsigned seed) {
    jitter_ = jitter;
    random_.seed(seed);
  }

  TimedIterations run_timed(const CollectiveCall& call, int samples, int calls_per_sample = 1) override {
    TimedIterations t;
    for (int s = 0; s < samples; ++s) {
      double sample = 0;
      if (jitter_ == 0) {
        sample = call_seconds(call) * calls_per_sample;
      } else {
        for (int c = 0; c < calls_per_sample; ++c) sample += call_seconds(call) * std::exp(jitter_ * normal_(random_));
      }
      t.iteration_seconds.push_back(sample);
      t.device_seconds += sample;
    }
    t.host_seconds = t.device_seconds;
    ++timed_batches;
    if (after_timed) after_timed(timed_batches);
    return t;
  }

  int timed_batches = 0;
  std::function<void(int batches)> after_timed;  // called after each run_timed

 private:
  double factor_ = 1;
  double jitter_ = 0;
  std::mt19937 random_{1};
  std::normal_distribution<double> normal_{0.0, 1.0};
};

}  // namespace ncclsweep::testing
