#include "plan/sweep_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/run_options.hpp"
#include "spec/config_fields.hpp"
#include "spec/nccl_variables.hpp"
#include "core/suggest.hpp"

namespace ncclsweep {
namespace {

using Values = std::vector<std::pair<std::string, std::string>>;  // setting name -> value, in axis order

const std::string* value_of(const Values& values, const std::string& name) {
  for (const auto& [n, v] : values) {
    if (n == name) return &v;
  }
  return nullptr;
}

bool matches(const Values& point, const PartialPoint& partial) {
  return std::all_of(partial.values.begin(), partial.values.end(), [&](const auto& entry) {
    const std::string* v = value_of(point, entry.first);
    return v && *v == entry.second;
  });
}

// One dimension of the grid: a lone axis, or a zip group whose axes step together.
struct Dimension {
  std::vector<const SweepAxis*> axes;
  std::size_t length() const { return axes.front()->values.size(); }
};

std::vector<Dimension> dimensions_of(const Sweep& sweep) {
  std::vector<const SweepAxis*> axes;
  for (const auto& a : sweep.env) axes.push_back(&a);
  for (const auto& a : sweep.config) axes.push_back(&a);
  std::vector<Dimension> dims;
  std::vector<std::string> placed;
  for (const SweepAxis* axis : axes) {
    if (std::find(placed.begin(), placed.end(), axis->name) != placed.end()) continue;
    Dimension dim{{axis}};
    for (const auto& group : sweep.zip) {
      if (std::find(group.begin(), group.end(), axis->name) == group.end()) continue;
      dim.axes.clear();
      for (const SweepAxis* other : axes) {
        if (std::find(group.begin(), group.end(), other->name) != group.end()) dim.axes.push_back(other);
      }
    }
    for (const SweepAxis* a : dim.axes) placed.push_back(a->name);
    dims.push_back(std::move(dim));
  }
  return dims;
}

// Refuses a grid too large to run before expanding it (10 axes of 10 values is 1e10 points).
void check_grid_size(const std::vector<Dimension>& dims) {
  std::size_t points = 1;
  std::string shape;
  for (const Dimension& dim : dims) {
    shape += (shape.empty() ? "" : " x ") + std::to_string(dim.length());
    points = points > kMaxSweepPoints ? points : points * dim.length();
  }
  if (points > kMaxSweepPoints) {
    throw UsageError("the grid has more than " + std::to_string(kMaxSweepPoints) + " points (" + shape + ")",
                     "zip axes that vary together, exclude combinations, or split the sweep into files",
                     dims.front().axes.front()->where);
  }
}

// The cartesian grid, the first dimension varying slowest.
std::vector<Values> grid_of(const std::vector<Dimension>& dims) {
  std::vector<Values> grid{Values{}};
  for (const Dimension& dim : dims) {
    std::vector<Values> next;
    for (const Values& partial : grid) {
      for (std::size_t i = 0; i < dim.length(); ++i) {
        Values v = partial;
        for (const SweepAxis* axis : dim.axes) v.emplace_back(axis->name, axis->values[i]);
        next.push_back(std::move(v));
      }
    }
    grid = std::move(next);
  }
  return grid;
}

// GitHub Actions matrix rules: an include entry extends every grid point whose swept
// values it matches with its other settings; one that matches none becomes a new point.
void apply_includes(std::vector<Values>& points, const Sweep& sweep, const std::vector<std::string>& axis_names) {
  const std::size_t grid_size = points.size();
  for (const PartialPoint& entry : sweep.include) {
    PartialPoint swept{{}, entry.where};
    Values extra;
    for (const auto& kv : entry.values) {
      const bool is_axis = std::find(axis_names.begin(), axis_names.end(), kv.first) != axis_names.end();
      (is_axis ? swept.values : extra).push_back(kv);
    }
    bool matched = false;
    for (std::size_t i = 0; i < grid_size; ++i) {
      if (!matches(points[i], swept)) continue;
      matched = true;
      for (const auto& kv : extra) {
        auto it = std::find_if(points[i].begin(), points[i].end(), [&](const auto& p) { return p.first == kv.first; });
        if (it == points[i].end()) {
          points[i].push_back(kv);
        } else {
          it->second = kv.second;
        }
      }
    }
    if (!matched) points.push_back(entry.values);
  }
}

std::string label_of(const std::vector<Setting>& settings) {
  std::string label;
  for (const auto& s : settings) label += (label.empty() ? "" : " ") + s.name + "=" + s.value;
  return label.empty() ? "default" : label;
}

std::map<std::string, std::string> process_cached_env(const SweepPoint& point) {
  std::map<std::string, std::string> env;
  for (const auto& s : point.settings) {
    if (s.kind == SettingKind::env_process_cached) env[s.name] = s.value;
  }
  return env;
}

void group_points(SweepPlan& plan, bool reinit) {
  std::map<std::map<std::string, std::string>, int> group_of_env;
  for (auto& point : plan.points) {
    const auto env = process_cached_env(point);
    if (reinit && !plan.isolation_groups.empty()) {
      point.isolation_group = 0;
      point.expected_mismatch = env != plan.isolation_groups[0].process_env;
      plan.isolation_groups[0].points.push_back(point.index);
      continue;
    }
    const auto [it, fresh] = group_of_env.emplace(env, static_cast<int>(plan.isolation_groups.size()));
    if (fresh) plan.isolation_groups.push_back({it->second, env, {}});
    point.isolation_group = it->second;
    plan.isolation_groups[static_cast<std::size_t>(it->second)].points.push_back(point.index);
  }
}

Sweep with_options(const Sweep& sweep, const PlanOptions& options) {
  Sweep merged = sweep;
  if (options.engine) {
    merged.measurements.engine = options.engine;
    merged.engine_where = {"--engine " + std::string(name_of(*options.engine)), 0, 0};
  }
  // A flag's axis replaces the file's of the same name; two flags of one name would
  // leave only the last, so they are refused.
  const auto add_flag_axes = [](std::vector<SweepAxis>& axes, const std::vector<std::string>& texts,
                                const std::string& option) {
    std::map<std::string, std::string> given;
    for (const auto& text : texts) {
      SweepAxis axis = parse_axis_argument(text, option);
      if (const auto [first, fresh] = given.emplace(axis.name, text); !fresh) {
        throw UsageError(axis.name + " is given twice, also as " + option + " " + first->second,
                         "give " + axis.name + " one " + option + " with all its values, e.g. " + option + " " +
                             axis.name + "=v1,v2",
                         axis.where);
      }
      set_axis(axes, std::move(axis));
    }
  };
  add_flag_axes(merged.env, options.env_axes, "--env");
  add_flag_axes(merged.config, options.config_axes, "--config");
  check_sweep(merged, options.context);
  return merged;
}

}  // namespace

SettingKind classify_setting(const std::string& name) {
  if (find_config_field(name)) return SettingKind::config_field;
  return variable_kind(name) == VariableKind::reread_each_init ? SettingKind::env_reread
                                                                : SettingKind::env_process_cached;
}

std::map<std::string, std::string> env_of(const SweepPoint& point) {
  std::map<std::string, std::string> env;
  for (const auto& s : point.settings) {
    if (s.kind != SettingKind::config_field) env[s.name] = s.value;
  }
  return env;
}

std::map<std::string, std::string> config_of(const SweepPoint& point) {
  std::map<std::string, std::string> config;
  for (const auto& s : point.settings) {
    if (s.kind == SettingKind::config_field) config[s.name] = s.value;
  }
  return config;
}

SweepPlan plan_sweep(const Sweep& input, const PlanOptions& options) {
  const Sweep sweep = with_options(input, options);
  const auto dims = dimensions_of(sweep);
  std::vector<std::string> axis_names;
  for (const auto& d : dims) {
    for (const auto* a : d.axes) axis_names.push_back(a->name);
  }

  check_grid_size(dims);
  std::vector<Values> values = grid_of(dims);
  for (const PartialPoint& entry : sweep.exclude) {
    std::erase_if(values, [&](const Values& v) { return matches(v, entry); });
  }
  if (values.empty()) {
    throw UsageError("exclude removes every point of the grid", "exclude fewer combinations",
                     sweep.exclude.empty() ? SourcePosition{sweep.file} : sweep.exclude.back().where);
  }
  apply_includes(values, sweep, axis_names);

  SweepPlan plan;
  plan.measurements = sweep.measurements;
  plan.repeats = sweep.repeats;
  plan.order = sweep.order;
  plan.seed = sweep.seed;
  plan.isolation = options.isolation;
  std::set<std::string> labels;
  for (const Values& v : values) {
    SweepPoint point;
    for (const auto& [name, value] : v) point.settings.push_back({name, value, classify_setting(name)});
    point.label = label_of(point.settings);
    if (!labels.insert(point.label).second) continue;  // include repeated a point
    point.index = static_cast<int>(plan.points.size());
    plan.points.push_back(std::move(point));
  }
  group_points(plan, options.isolation == Isolation::reinit);

  if (sweep.baseline) {
    const auto it = std::find_if(plan.points.begin(), plan.points.end(), [&](const SweepPoint& p) {
      Values v;
      for (const auto& s : p.settings) v.emplace_back(s.name, s.value);
      return matches(v, *sweep.baseline);
    });
    if (it == plan.points.end()) throw UsageError("baseline matches no point of the sweep", "name values that a point has", sweep.baseline->where);
    plan.baseline = it->index;
  }

  const auto mismatches = std::count_if(plan.points.begin(), plan.points.end(), [](const SweepPoint& p) { return p.expected_mismatch; });
  if (mismatches > 0) {
    plan.notes.push_back("--isolation reinit: " + std::to_string(mismatches) +
                         " point(s) change process-cached variables after NCCL's first init; NCCL keeps the first "
                         "value, so they will be reported as mismatches, not results");
  }
  if (values_unchecked(sweep, options.context)) {
    plan.notes.push_back("allow_unknown_values: setting values pass unchecked; NCCL may ignore or replace one it "
                         "does not know, so check each point's verification in the results");
  }
  if (plan.isolation_groups.size() > 1) {
    plan.notes.push_back(std::to_string(plan.isolation_groups.size()) +
                         " isolation groups: process-cached variables differ, so each group runs in fresh processes");
  }
  return plan;
}

}  // namespace ncclsweep
