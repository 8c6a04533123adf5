#pragma once
// An engine for the in-process launch tests: no buffers, no data, and a time per call
// worked out from the call (a fixed latency plus bytes over a fixed bandwidth, times the
// slow-down factor and the testing aid's factors, core/test_slowdown.hpp), so a test can
// judge the runtime's decisions on exact numbers. With jitter, each call's time is
// scattered by a seeded generator instead, so a test can give a run noise that longer
// repeats average away, and still get the same numbers each time. Optionally each sample
// is also off by a seeded random share (noise), and every time it reports is added to a
// clock the test reads (the seconds a real engine would have spent).
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "core/test_slowdown.hpp"
#include "engine/engine.hpp"

namespace ncclsweep::testing {

// Seconds spent, summed over every engine that shares it.
class PacedClock {
 public:
  void add(double seconds) {
    const std::lock_guard lock(mutex_);
    seconds_ += seconds;
  }
  double seconds() {
    const std::lock_guard lock(mutex_);
    return seconds_;
  }

 private:
  std::mutex mutex_;
  double seconds_ = 0;
};

class PacedEngine final : public Engine {
 public:
  static constexpr double kLatencySeconds = 10e-6;
  static constexpr double kBytesPerSecond = 10e9;

  PacedEngine() = default;
  // `environment`: the worker's as it started (the testing aid's variables are read from
  // it once, as the mpi engine reads them). `noise`: each sample's time is off by up to
  // this share, drawn from `seed`.
  explicit PacedEngine(const std::map<std::string, std::string>& environment, double noise = 0, std::uint64_t seed = 0,
                       PacedClock* clock = nullptr)
      : slowdowns_(environment),
        noise_(noise),
        noise_random_(seed),
        clock_(clock) {}

  std::string_view name() const override { return "mpi"; }
  DeviceDescription device() const override { return {}; }
  void connect(const std::vector<ConfigSetting>&) override {}
  void disconnect() override {}
  void init_environment(const std::map<std::string, std::string>& environment) override {
    slowdowns_.init(environment);
  }
  bool reads_process_environment() const override { return false; }
  std::optional<std::string> setting_in_effect(std::string_view variable) const override {
    return slowdowns_.value_of(variable);
  }
  std::string unsupported_reason(const CollectiveCall&) const override { return {}; }
  std::uint64_t run_checked(const CollectiveCall& call, bool corrupt) override {
    if (clock_) clock_->add(call_seconds(call));
    return corrupt ? 1 : 0;
  }
  void split(const std::vector<int>&) override {}  // every sub-communicator times alike
  void slow_down(double factor) override { factor_ = factor; }

  // The seconds one call of `call` takes here, without noise.
  double call_seconds(const CollectiveCall& call) const {
    const double bytes = static_cast<double>(call.count * call.dtype->bytes);
    const auto total = static_cast<Bytes>(bytes);
    return (kLatencySeconds + bytes / kBytesPerSecond) * factor_ * slowdowns_.factor_at(total);
  }

  // Each call's time times exp(jitter x z), z standard normal: a repeat of N calls then
  // scatters by about jitter / sqrt(N). 0 (the default): exact times.
  void set_jitter(double jitter, unsigned seed) {
    jitter_ = jitter;
    random_.seed(seed);
  }

  TimedIterations run_timed(const CollectiveCall& call, int samples, int calls_per_sample = 1) override {
    TimedIterations t;
    std::uniform_real_distribution<double> off(-noise_, noise_);
    for (int s = 0; s < samples; ++s) {
      double sample = 0;
      if (jitter_ == 0) {
        sample = call_seconds(call) * calls_per_sample;
      } else {
        for (int c = 0; c < calls_per_sample; ++c) sample += call_seconds(call) * std::exp(jitter_ * normal_(random_));
      }
      if (noise_ > 0) sample *= 1 + off(noise_random_);
      t.iteration_seconds.push_back(sample);
      t.device_seconds += sample;
    }
    t.host_seconds = t.device_seconds;
    if (clock_) clock_->add(t.device_seconds);
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
  EngineTestSlowdowns slowdowns_;
  double noise_ = 0;
  std::mt19937_64 noise_random_;
  PacedClock* clock_ = nullptr;
};

}  // namespace ncclsweep::testing
