#include "report/prometheus_text.hpp"

#include <algorithm>
#include <cmath>

#include "core/printf_text.hpp"
#include "results/repeats.hpp"

namespace ncclsweep {
namespace {

std::string prometheus_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return printf_text("%.9g", value);
}

}  // namespace

std::string prom_label_value(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

void PrometheusText::gauge(const std::string& name, const std::string& help, const PromLabels& labels, double value) {
  auto family = std::find_if(families_.begin(), families_.end(), [&](const Family& f) { return f.name == name; });
  if (family == families_.end()) {
    families_.push_back({name, help, {}});
    family = families_.end() - 1;
  }
  std::string sample = name;
  if (!labels.empty()) {
    sample += "{";
    for (std::size_t i = 0; i < labels.size(); ++i) {
      sample += (i ? "," : "") + labels[i].first + "=\"" + prom_label_value(labels[i].second) + "\"";
    }
    sample += "}";
  }
  family->samples.push_back(sample + " " + prometheus_number(value));
}

std::string PrometheusText::text() const {
  std::string out;
  for (const Family& f : families_) {
    out += "# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " gauge\n";
    for (const std::string& sample : f.samples) out += sample + "\n";
  }
  return out;
}

void print_run_prometheus(const RunDocument& run, std::ostream& out) {
  PrometheusText prom;
  for (const RepeatedMeasurement& m : aggregate_repeats(run.records)) {
    const PromLabels labels{{"collective", std::string(m.key.collective->name)},
                            {"size", std::to_string(m.key.size_bytes)},
                            {"dtype", std::string(m.key.dtype->name)},
                            {"placement", std::string(name_of(m.key.placement))},
                            {"communicator", std::string(name_of(m.key.communicator.kind))},
                            {"ranks", std::to_string(m.first.ranks)},
                            {"point", m.key.point}};
    prom.gauge("ncclsweep_busbw_gbps", "Bus bandwidth in GB/s (nccl-tests convention), median of repeats", labels,
               m.busbw_gbps.median);
    prom.gauge("ncclsweep_algbw_gbps", "Algorithm bandwidth in GB/s, median of repeats", labels, m.algbw_gbps.median);
    prom.gauge("ncclsweep_time_seconds", "Time per call, slowest rank, median of repeats", labels,
               m.time_us.median / 1e6);
  }
  out << prom.text();
}

}  // namespace ncclsweep
