#include "soak/soak_window.hpp"

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/name_table.hpp"
#include "measure/fixed_test.hpp"
#include "results/record_json.hpp"

namespace ncclsweep::soak {
namespace {

constexpr NameTable<Gap, 4> kGapNames{
    "signal gap",
    {{{Gap::none, "none"}, {Gap::no_gpu, "no_gpu"}, {Gap::unreadable, "unreadable"}, {Gap::not_built, "not_built"}}}};

// A figure as windows held it before they held records: its test, communicator, median
// time and the algbw of its slowest and fastest round.
MeasurementRecord figure_from_window_form(const nlohmann::json& j, int window) {
  const FixedTest test{&collective(j.at("collective").get<std::string>()), j.at("size_bytes").get<Bytes>()};
  const int ranks = j.at("ranks").get<int>(), rounds = j.at("rounds").get<int>();
  const double seconds = j.at("seconds").get<double>();
  MeasurementRecord f = fixed_record(test, ranks, seconds, 0, rounds);
  f.algbw_gbps = j.at("algbw_gbps").get<double>();
  f.busbw_gbps = j.at("busbw_gbps").get<double>();
  const auto round_us = [&](const char* key) {
    const double gbps = j.value(key, f.algbw_gbps);
    return gbps > 0 ? static_cast<double>(test.bytes) / gbps * 1e-3 : seconds * 1e6;
  };
  f.iteration_us = IterationPercentilesUs{seconds * 1e6, seconds * 1e6, seconds * 1e6, round_us("high_gbps"),
                                          round_us("low_gbps")};
  f.repeat = window;
  f.soak = SoakPlace{kSoakScopeNames.parse(j.at("scope").get<std::string>()), j.value("host", -1), j.value("peer", -1)};
  return f;
}

MeasurementRecord figure_from(const nlohmann::json& j, int window) {
  if (!j.contains("soak")) return figure_from_window_form(j, window);
  MeasurementRecord f = j.get<MeasurementRecord>();
  if (f.repeat != window) {
    throw UsageError("a soak record names window " + std::to_string(f.repeat) + " inside window " +
                     std::to_string(window));
  }
  return f;
}

nlohmann::json signals_json(const RankSignals& s) {
  nlohmann::json gpu{{"gap", name_of(s.gpu.gap)}};
  if (s.gpu.gap == Gap::none) {
    gpu["sm_mhz"] = s.gpu.sm_mhz;
    gpu["mem_mhz"] = s.gpu.mem_mhz;
    gpu["power_w"] = s.gpu.power_w ? nlohmann::json(*s.gpu.power_w) : nlohmann::json(nullptr);
    gpu["temperature_c"] = s.gpu.temperature_c ? nlohmann::json(*s.gpu.temperature_c) : nlohmann::json(nullptr);
    nlohmann::json reasons = nlohmann::json::array();
    for (const ThrottleReason reason : throttle_reasons(s.gpu.throttled)) reasons.push_back(name_of(reason));
    gpu["throttle_reasons"] = reasons;
  }
  nlohmann::json cpu{{"gap", name_of(s.cpu.gap)}};
  if (s.cpu.gap == Gap::none) cpu["busy_core_mhz"] = s.cpu.busy_core_mhz;
  return {{"rank", s.rank}, {"host", s.host}, {"gpu", gpu}, {"cpu", cpu}};
}

RankSignals signals_from(const nlohmann::json& j) {
  RankSignals s;
  s.rank = j.at("rank").get<int>();
  s.host = j.at("host").get<int>();
  const nlohmann::json& gpu = j.at("gpu");
  s.gpu.gap = gap_named(gpu.at("gap").get<std::string>());
  if (s.gpu.gap == Gap::none) {
    s.gpu.sm_mhz = gpu.at("sm_mhz").get<int>();
    s.gpu.mem_mhz = gpu.at("mem_mhz").get<int>();
    if (!gpu.at("power_w").is_null()) s.gpu.power_w = gpu.at("power_w").get<double>();
    if (!gpu.at("temperature_c").is_null()) s.gpu.temperature_c = gpu.at("temperature_c").get<double>();
    for (const std::string& name : gpu.at("throttle_reasons").get<std::vector<std::string>>()) {
      s.gpu.throttled[static_cast<std::size_t>(kThrottleReasonNames.parse(name))] = true;
    }
  }
  const nlohmann::json& cpu = j.at("cpu");
  s.cpu.gap = gap_named(cpu.at("gap").get<std::string>());
  if (s.cpu.gap == Gap::none) s.cpu.busy_core_mhz = cpu.at("busy_core_mhz").get<double>();
  return s;
}

}  // namespace

const SoakPlace& place_of(const MeasurementRecord& figure) {
  if (!figure.soak) throw std::logic_error("a record without a soak place among a window's figures");
  return *figure.soak;
}

std::string_view name_of(Gap gap) { return kGapNames.name(gap); }
Gap gap_named(std::string_view name) { return kGapNames.parse(name); }

void to_json(nlohmann::json& j, const SoakWindow& w) {
  j = {{"window", w.index},         {"launch", w.launch},     {"start_utc", w.start_utc},
       {"end_utc", w.end_utc},      {"start_s", w.start_s},   {"end_s", w.end_s},
       {"monotonic_start_s", w.monotonic_start_s}, {"end_unix_s", w.end_unix_s}};
  j["figures"] = nlohmann::json::array();
  for (const MeasurementRecord& f : w.figures) j["figures"].push_back(f);
  j["signals"] = nlohmann::json::array();
  for (const RankSignals& s : w.signals) j["signals"].push_back(signals_json(s));
  if (!w.slow_factors.empty()) j["testing_aid_slow_factors"] = w.slow_factors;
}

void from_json(const nlohmann::json& j, SoakWindow& w) {
  w.index = j.at("window").get<int>();
  w.launch = j.value("launch", 1);
  w.start_utc = j.at("start_utc").get<std::string>();
  w.end_utc = j.at("end_utc").get<std::string>();
  w.start_s = j.at("start_s").get<double>();
  w.end_s = j.at("end_s").get<double>();
  w.monotonic_start_s = j.value("monotonic_start_s", 0.0);
  w.end_unix_s = j.value("end_unix_s", 0.0);
  w.figures.clear();
  for (const nlohmann::json& f : j.at("figures")) w.figures.push_back(figure_from(f, w.index));
  w.signals.clear();
  for (const nlohmann::json& s : j.at("signals")) w.signals.push_back(signals_from(s));
  w.slow_factors = j.value("testing_aid_slow_factors", std::vector<double>{});
}

}  // namespace ncclsweep::soak
