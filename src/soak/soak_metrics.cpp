#include "soak/soak_metrics.hpp"

#include <algorithm>

#include "report/prometheus_text.hpp"

namespace ncclsweep::soak {

std::string soak_metrics(const std::vector<SoakWindow>& windows, const std::vector<std::string>& hosts,
                         const SoakVerdicts& verdicts) {
  PrometheusText prom;
  const auto host_name = [&](int host) { return host >= 0 && host < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(host)] : "?"; };
  if (!windows.empty()) {
    const SoakWindow& last = windows.back();
    prom.gauge("ncclsweep_soak_window", "Index of the last finished window (from 0, over resumed launches)", {},
               last.index);
    prom.gauge("ncclsweep_soak_elapsed_seconds", "Seconds into the soak's timeline at the end of the last window", {},
               last.end_s);
    prom.gauge("ncclsweep_soak_window_end_timestamp_seconds", "End of the last window, seconds since 1970 (UTC)", {},
               last.end_unix_s);
    for (const MeasurementRecord& f : last.figures) {
      const SoakPlace& place = place_of(f);
      PromLabels labels{{"collective", std::string(f.collective->name)}, {"size", std::to_string(f.size_bytes)},
                        {"scope", std::string(name_of(place.scope))}};
      if (place.scope != SoakScope::world) labels.emplace_back("host", host_name(place.host));
      if (place.scope == SoakScope::pair) labels.emplace_back("peer", host_name(place.peer));
      prom.gauge("ncclsweep_busbw_gbps", "Bus bandwidth in GB/s (nccl-tests convention), the last window's median",
                 labels, f.busbw_gbps);
      prom.gauge("ncclsweep_algbw_gbps", "Algorithm bandwidth in GB/s, the last window's median", labels, f.algbw_gbps);
    }
    for (const RankSignals& s : last.signals) {
      const PromLabels labels{{"host", host_name(s.host)}, {"rank", std::to_string(s.rank)}};
      if (s.gpu.gap == Gap::none) {
        prom.gauge("ncclsweep_gpu_sm_clock_mhz", "GPU SM clock in MHz at the end of the last window", labels, s.gpu.sm_mhz);
        prom.gauge("ncclsweep_gpu_mem_clock_mhz", "GPU memory clock in MHz at the end of the last window", labels,
                   s.gpu.mem_mhz);
        if (s.gpu.power_w) prom.gauge("ncclsweep_gpu_power_watts", "GPU power draw in W", labels, *s.gpu.power_w);
        if (s.gpu.temperature_c) {
          prom.gauge("ncclsweep_gpu_temperature_celsius", "GPU temperature in degrees C", labels, *s.gpu.temperature_c);
        }
        for (const auto& [throttle, name] : kThrottleReasonNames.entries()) {
          PromLabels reason = labels;
          reason.emplace_back("reason", std::string(name));
          prom.gauge("ncclsweep_gpu_throttled", "1 while the GPU had this power or thermal throttle reason on", reason,
                     s.gpu.throttled[static_cast<std::size_t>(throttle)] ? 1 : 0);
        }
      }
      if (s.cpu.gap == Gap::none) {
        prom.gauge("ncclsweep_cpu_busy_core_mhz", "Frequency of a busy core of the rank, MHz", labels, s.cpu.busy_core_mhz);
      }
    }
  }
  std::vector<int> targets{-1};
  for (int h = 0; h < static_cast<int>(hosts.size()); ++h) targets.push_back(h);
  for (const int host : targets) {
    const std::string name = host < 0 ? "world" : host_name(host);
    for (int k = 0; k < kVerdictKinds; ++k) {
      const auto kind = static_cast<VerdictKind>(k);
      prom.gauge("ncclsweep_soak_verdict", "1 when the soak found this kind of problem on the host (world: all ranks)",
                 {{"host", name}, {"kind", std::string(name_of(kind))}}, verdicts.has(host, kind) ? 1 : 0);
    }
    int outliers = 0;
    for (const Verdict& v : verdicts.findings) {
      if (v.host == host && v.kind == VerdictKind::outliers) outliers += v.windows;
    }
    prom.gauge("ncclsweep_soak_outlier_windows", "Windows below the threshold share of their level, over the host's series",
               {{"host", name}}, outliers);
  }
  return prom.text();
}

}  // namespace ncclsweep::soak
