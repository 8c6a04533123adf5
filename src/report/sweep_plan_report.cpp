#include "report/sweep_plan_report.hpp"

#include <cstdio>

#include "core/printf_text.hpp"

namespace ncclsweep {
namespace {

nlohmann::json measurements_json(const RunSpec& m) {
  nlohmann::json j;
  j["name"] = m.name;
  for (const auto* c : m.collectives) j["collectives"].push_back(std::string(c->name));
  j["sizes"] = m.sizes;
  for (const auto* d : m.dtypes) j["dtypes"].push_back(std::string(d->name));
  for (const auto op : m.ops) j["ops"].push_back(std::string(name_of(op)));
  for (const auto b : m.buffer_modes) j["buffers"].push_back(std::string(name_of(b)));
  for (const auto l : m.launch_modes) j["launch"].push_back(std::string(name_of(l)));
  for (const auto& f : m.footprints) j["buffer_footprint"].push_back(label_of(f));
  for (const auto c : m.cache_states) j["cache"].push_back(std::string(name_of(c)));
  j["warmup"] = m.warmup;
  j["iters"] = m.iters;
  j["engine"] = m.engine ? std::string(name_of(*m.engine)) : std::string("default");
  return j;
}

}  // namespace

std::string duration_text(double seconds) {
  if (seconds > 0 && seconds < 1) return printf_text("%.2g s", seconds);  // a cap per measurement, not "0 s"
  if (seconds < 120) return printf_text("%.0f s", seconds);
  if (seconds < 7200) return printf_text("%.0f min", seconds / 60);
  return printf_text("%.1f h", seconds / 3600);
}

nlohmann::json sweep_plan_json(const SweepPlan& plan, const SweepEstimate& estimate) {
  nlohmann::json j;
  j["measurements"] = measurements_json(plan.measurements);
  j["points"] = nlohmann::json::array();
  for (const auto& p : plan.points) {
    nlohmann::json point{{"index", p.index}, {"label", p.label}, {"isolation_group", p.isolation_group},
                         {"baseline", p.index == plan.baseline}, {"expected_mismatch", p.expected_mismatch}};
    point["settings"] = nlohmann::json::array();
    for (const auto& s : p.settings) point["settings"].push_back({{"name", s.name}, {"value", s.value}, {"kind", name_of(s.kind)}});
    j["points"].push_back(point);
  }
  j["isolation_groups"] = nlohmann::json::array();
  for (const auto& g : plan.isolation_groups) j["isolation_groups"].push_back({{"index", g.index}, {"process_env", g.process_env}, {"points", g.points}});
  j["repeats"] = plan.repeats;
  j["order"] = name_of(plan.order);
  j["seed"] = plan.seed;
  j["isolation"] = name_of(plan.isolation);
  j["estimated_seconds"] = estimate.typical_s;
  j["estimate"] = {{"measurements", estimate.measurements}, {"low_seconds", estimate.low_s},
                   {"typical_seconds", estimate.typical_s}, {"high_seconds", estimate.high_s},
                   {"from_reference", estimate.from_reference}, {"basis", estimate.basis}};
  j["notes"] = plan.notes;
  return j;
}

std::string sweep_plan_text(const SweepPlan& plan, const SweepEstimate& estimate) {
  const RunSpec& m = plan.measurements;
  std::string out = "# sweep " + m.name + ": " + std::to_string(plan.points.size()) + " point(s) in " +
                    std::to_string(plan.isolation_groups.size()) + " isolation group(s), repeats " + std::to_string(plan.repeats) +
                    ", order " + std::string(name_of(plan.order)) + ", isolation " + std::string(name_of(plan.isolation)) + "\n";
  const std::string shape = m.calls.empty() ? std::to_string(m.collectives.size()) + " collective(s) x " +
                                                    std::to_string(m.sizes.size()) + " size(s) x " +
                                                    std::to_string(m.dtypes.size()) + " dtype(s)"
                                              : std::to_string(m.calls.size()) + " call(s) from sizes:";
  out += "# per point: " + shape +
         (m.buffer_modes.size() * m.launch_modes.size() > 1
              ? " x " + std::to_string(m.buffer_modes.size() * m.launch_modes.size()) + " buffer/launch mode(s)"
              : std::string()) +
         (m.footprints.size() * m.cache_states.size() > 1
              ? " x " + std::to_string(m.footprints.size() * m.cache_states.size()) + " footprint/cache state(s)"
              : std::string()) +
         ", warmup " + std::to_string(m.warmup) + ", iters " +
         (m.iters > 0 ? std::to_string(m.iters) : std::string("noise-based")) + ", engine " + (m.engine ? std::string(name_of(*m.engine)) : std::string("default")) + "\n";
  for (const auto& g : plan.isolation_groups) {
    std::string env;
    for (const auto& [k, v] : g.process_env) env += " " + k + "=" + v;
    out += "\ngroup " + std::to_string(g.index) + " (fresh processes;" + (env.empty() ? " no process-cached settings" : env) + ")\n";
    for (const int i : g.points) {
      const SweepPoint& p = plan.points[static_cast<std::size_t>(i)];
      out += printf_text("%4d  ", p.index) + p.label;
      if (p.index == plan.baseline) out += "  [baseline]";
      if (p.expected_mismatch) out += "  [expected mismatch: process-cached setting under --isolation reinit]";
      out += "\n";
    }
  }
  out += "\n# measurements: " + std::to_string(estimate.measurements) + " = " + estimate.count_text + "\n";
  out += "# estimated run time: about " + duration_text(estimate.typical_s) + " (between " + duration_text(estimate.low_s) +
         " and " + duration_text(estimate.high_s) + (m.iters > 0 ? "" : ", the noise-based stop's bounds") + "; " +
         estimate.basis + ")\n";
  for (const auto& note : plan.notes) out += "# note: " + note + "\n";
  return out;
}

std::string planned_workload_text(const PlannedWorkload& w) {
  std::string out = "\nsizes from " + w.calls.weights.source + " (" + w.calls.weights.basis + "), as measured on " +
                    std::to_string(w.ranks) + " ranks:\n";
  for (const auto& c : w.calls.calls) {
    out += "  " + std::string(c.kind->name) + " " + std::to_string(c.bytes) + " B (" + format_bytes(c.bytes) + ") " +
           std::string(c.dtype->name) + " on " + c.split.label() + "\n";
  }
  for (const auto& note : w.calls.notes) out += "  note: " + note + "\n";
  return out;
}

nlohmann::json planned_workload_json(const PlannedWorkload& w) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : w.calls.calls) {
    calls.push_back({{"collective", std::string(c.kind->name)}, {"bytes", c.bytes},
                     {"dtype", std::string(c.dtype->name)}, {"communicator", c.split.label()}});
  }
  return calls;
}

}  // namespace ncclsweep
