#pragma once
// Where measurements and the run's messages go as they happen: the terminal table, the
// results directory, the log on stderr, and later formats. The measuring code never
// knows which sinks are on; it prints nothing itself (as nvbench's printers, each
// format writes to the stream it was given).
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

// How a message reaches the person watching a run. A text format shows `info` among its
// own lines ("# ..." in the table); the log (report/log_lines.hpp) shows the other
// levels, one line each, after "ncclsweep: " and the level's word.
enum class LogLevel {
  info,     // part of the run's text output: preflight findings, where the results went
  outcome,  // what happened to a point or to the run, said without a word for how bad
            // (the exit status says it): "point p2 failed: ...", "stopped by signal 2 ..."
  note,     // worth knowing; changes no result
  warning,  // a result may not mean what it seems
  error,    // the run cannot go on, or a result is wrong; the exit status says so
};

// "info", "note", ...: the word a log line shows ("" for outcome, which shows none).
std::string_view log_word(LogLevel level);

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Once set-up is done: ranks, devices and versions are known; records are empty.
  virtual void begin(const RunDocument& run) { (void)run; }
  // One size of one case: the out-of-place record, then the in-place one if measured.
  virtual void row(std::span<const MeasurementRecord> placements) = 0;
  // The whole run, records included, with its end time and status.
  virtual void finish(const RunDocument& run) { (void)run; }
  // The run as it stands when stop signal `signal` arrives, marked interrupted (from
  // another thread, while a measurement goes on): files are brought up to it at once, in
  // case the launcher kills the process before finish. Never throws; text formats ignore it.
  virtual void checkpoint(const RunDocument& run, int signal) noexcept {
    (void)run;
    (void)signal;
  }
  // A message for the person watching, at any time (also before begin): formats that
  // show text show the levels they are for; files ignore it.
  virtual void log(LogLevel level, std::string_view message) {
    (void)level;
    (void)message;
  }
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
  void checkpoint(const RunDocument& run, int signal) noexcept override {
    for (auto& s : sinks_) s->checkpoint(run, signal);
  }
  void log(LogLevel level, std::string_view message) override {
    for (auto& s : sinks_) s->log(level, message);
  }

 private:
  std::vector<std::unique_ptr<ResultSink>> sinks_;
};

inline std::string_view log_word(LogLevel level) {
  switch (level) {
    case LogLevel::info: return "info";
    case LogLevel::outcome: return "";
    case LogLevel::note: return "note";
    case LogLevel::warning: return "warning";
    case LogLevel::error: return "error";
  }
  return "";
}

}  // namespace ncclsweep
