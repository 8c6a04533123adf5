#pragma once
// The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile
// collector reads it: per metric family one # HELP and one # TYPE line, then its samples
// `name{label="value",...} number`. Everything ncclsweep exports is a gauge.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // Adds one sample of family `name` (created with `help` on first use; families keep
  // the order they were first added in, samples theirs).
  void gauge(const std::string& name, const std::string& help, const PromLabels& labels, double value);
  std::string text() const;

 private:
  struct Family {
    std::string name, help;
    std::vector<std::string> samples;
  };
  std::vector<Family> families_;
};

// A label value with \, " and newlines escaped.
std::string prom_label_value(const std::string& value);

// `report --format prom` for a run's results directory: per measurement (repeats
// folded) ncclsweep_busbw_gbps, ncclsweep_algbw_gbps and ncclsweep_time_seconds.
void print_run_prometheus(const RunDocument& run, std::ostream& out);

}  // namespace ncclsweep
