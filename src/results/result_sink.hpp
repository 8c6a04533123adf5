#pragma once
// Where measurements go as they complete: the terminal table, the results directory,
// and later formats. The measuring code never knows which sinks are on.
#include <memory>
#include <span>
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Once set-up is done: ranks, devices and versions are known; records are empty.
  virtual void begin(const RunDocument& run) { (void)run; }
  // One size of one case: the out-of-place record, then the in-place one if measured.
  virtual void row(std::span<const MeasurementRecord> placements) = 0;
  // The whole run, records included, with its end time and status.
  virtual void finish(const RunDocument& run) { (void)run; }
};

// Fans every event out to several sinks, in order.
class SinkFanout final : public ResultSink {
 public:
  void add(std::unique_ptr<ResultSink> sink) { sinks_.push_back(std::move(sink)); }
  void begin(const RunDocument& run) override {
    for (auto& s : sinks_) s->begin(run);
  }
  void row(std::span<const MeasurementRecord> placements) override {
    for (auto& s : sinks_) s->row(placements);
  }
  void finish(const RunDocument& run) override {
    for (auto& s : sinks_) s->finish(run);
  }

 private:
  std::vector<std::unique_ptr<ResultSink>> sinks_;
};

}  // namespace ncclsweep
