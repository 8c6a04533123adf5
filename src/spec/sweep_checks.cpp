// Checks across keys of a sweep: names, NCCL version, overrides, engine, zip, and the
// settings named by include / exclude / baseline.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>

#include "core/run_options.hpp"
#include "core/list_text.hpp"
#include "core/test_slowdown.hpp"
#include "core/utf8.hpp"
#include "spec/nccl_variables.hpp"
#include "core/suggest.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {
namespace {

bool is_variable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

const SweepAxis* find_axis(const Sweep& sweep, const std::string& name) {
  for (const auto* axes : {&sweep.env, &sweep.config}) {
    for (const auto& axis : *axes) {
      if (axis.name == name) return &axis;
    }
  }
  return nullptr;
}

const SourcePosition& value_position(const SweepAxis& axis, std::size_t i) {
  return i < axis.value_where.size() ? axis.value_where[i] : axis.where;
}

const char* const kUncheckedHint = "; for a newer NCCL, allow_unknown_values: true (or --allow-unknown-values) passes values unchecked";

void check_value_against(std::string_view name, const ValueKind& kind, const std::string& value, const SourcePosition& where) {
  if (auto problem = check_value(name, kind, value)) throw UsageError(problem->what, problem->fix + kUncheckedHint, where);
}

void check_env_axis(const SweepAxis& axis, const Sweep& sweep, const SweepContext& context) {
  if (!is_variable_name(axis.name)) {
    throw UsageError("'" + axis.name + "' is not an environment variable name",
                     "env takes variables like NCCL_PROTO; ncclConfig_t fields go under config", axis.where);
  }
  if (test_slowdown_variable(axis.name)) {
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      try {
        (void)parse_slowdown(axis.name, axis.values[i]);
      } catch (const UsageError& e) {
        throw UsageError(e.what(), e.fix(), value_position(axis, i));
      }
    }
    return;
  }
  const NcclVariable* variable = find_nccl_variable(axis.name);
  if (variable) {
    // Two values NCCL reads alike are one point measured twice, as [LL, LL] would be.
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (nccl_reads_alike(variable->value, axis.values[i], axis.values[j])) {
          throw UsageError(axis.name + " lists '" + axis.values[j] + "' and '" + axis.values[i] +
                               "', which NCCL reads as the same value",
                           "list each value once", value_position(axis, i));
        }
      }
    }
    if (values_unchecked(sweep, context)) return;
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      check_value_against(axis.name, variable->value, axis.values[i], value_position(axis, i));
    }
    return;
  }
  if (sweep.allow_unknown_env) return;
  const bool nccl = axis.name.rfind("NCCL_", 0) == 0;
  throw UsageError(std::string(nccl ? "unknown NCCL variable " : "unknown environment variable ") + axis.name +
                       did_you_mean(axis.name, nccl_variable_names()),
                   "check the name against the NCCL documentation, or set allow_unknown_env: true to pass it "
                   "through (it then runs in its own processes, as a process-cached setting)",
                   axis.where);
}

void check_config_axis(const SweepAxis& axis, const Sweep& sweep, const SweepContext& context) {
  const ConfigField* field = find_config_field(axis.name);
  if (!field) {
    throw UsageError("unknown ncclConfig_t field '" + axis.name + "'" + did_you_mean(axis.name, config_field_names()),
                     "config takes snake_case fields: max_ctas, min_ctas, cga_cluster_size, net_name, ... "
                     "(docs/sweep-files.md); environment variables go under env",
                     axis.where);
  }
  if (!field->not_sweepable.empty()) {
    throw UsageError("config field " + axis.name + " cannot be swept: " + std::string(field->not_sweepable),
                     "sweepable config fields: " + join_text(sweepable_config_field_names()), axis.where);
  }
  if (field->since_version > context.nccl_version_code) {
    throw UsageError("config field " + axis.name + " needs NCCL " + nccl_version_text(field->since_version) +
                         " or newer; this NCCL is " + nccl_version_text(context.nccl_version_code),
                     "remove " + axis.name + ", or build ncclsweep against a newer NCCL", axis.where);
  }
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    // Unchecked, a newer NCCL's range passes; ncclConfig_t still holds an int.
    const ValueKind kind = values_unchecked(sweep, context) && field->value.syntax != ValueSyntax::text
                               ? integer_kind(std::numeric_limits<int>::min(), std::numeric_limits<int>::max())
                               : field->value;
    check_value_against(axis.name, kind, axis.values[i], value_position(axis, i));
  }
}

// Settings named anywhere in the sweep (axes, and those only include adds), with a place.
std::vector<std::pair<std::string, SourcePosition>> named_settings(const Sweep& sweep) {
  std::vector<std::pair<std::string, SourcePosition>> named;
  for (const auto* axes : {&sweep.env, &sweep.config}) {
    for (const auto& axis : *axes) named.emplace_back(axis.name, axis.where);
  }
  for (const auto& point : sweep.include) {
    for (const auto& kv : point.values) named.emplace_back(kv.first, point.where);
  }
  return named;
}

void check_overrides(const Sweep& sweep) {
  const auto named = named_settings(sweep);
  for (const auto& [field_name, field_where] : named) {
    const ConfigField* field = find_config_field(field_name);
    if (!field || field->override_env.empty()) continue;
    for (const auto& [env_name, env_where] : named) {
      if (env_name == field->override_env) {
        throw UsageError(env_name + " overrides config field " + field_name + ", which this sweep varies",
                         "sweep one of them: remove " + env_name + " from env or " + field_name + " from config",
                         env_where);
      }
    }
  }
}

void check_engine(const Sweep& sweep) {
  // The testing aid's variables slow the mpi engine; NCCL would never read them.
  const bool mpi = sweep.measurements.engine == EngineKind::mpi;
  for (const auto& [name, where] : named_settings(sweep)) {
    if (!is_variable_name(name) || (test_slowdown_variable(name).has_value() == mpi)) continue;
    if (mpi) {
      throw UsageError("the mpi engine cannot apply NCCL variables, and this sweep sets " + name,
                       "use engine nccl, or drop env (collectives, sizes, dtypes and ops still sweep with mpi; "
                       "the testing aid's NCCLSWEEP_TEST_SLOWDOWN variables are the env axes it takes)",
                       where);
    }
    if (sweep.measurements.engine == EngineKind::nccl) {
      throw UsageError(name + " is the mpi engine's testing aid (docs/search.md); NCCL never reads it",
                       "use engine: mpi for a test of the search, or drop " + name, where);
    }
  }
  if (!mpi) return;
  if (!sweep.config.empty()) {
    throw UsageError("the mpi engine has no ncclConfig_t, and this sweep sets " + sweep.config.front().name,
                     "use engine nccl, or drop config", sweep.config.front().where);
  }
}

void check_zip(const Sweep& sweep) {
  std::set<std::string> zipped;
  for (const auto& group : sweep.zip) {
    if (group.size() < 2) throw UsageError("a zip group needs at least two axes", "write zip: [[A, B]]", sweep.zip_where);
    const SweepAxis* first = nullptr;
    for (const auto& name : group) {
      const SweepAxis* axis = find_axis(sweep, name);
      if (!axis) throw UsageError("zip names '" + name + "', which is not a swept setting", "zip axes listed under env or config", sweep.zip_where);
      if (!zipped.insert(name).second) throw UsageError("zip names " + name + " twice", "put each axis in one zip group", sweep.zip_where);
      if (first && axis->values.size() != first->values.size()) {
        throw UsageError("zip pairs " + first->name + " (" + std::to_string(first->values.size()) + " values) with " + name +
                             " (" + std::to_string(axis->values.size()) + " values)",
                         "zipped axes vary together, so they need equally long value lists", sweep.zip_where);
      }
      if (!first) first = axis;
    }
  }
}

void check_partial_point(const PartialPoint& point, const Sweep& sweep, const SweepContext& context, bool axes_only,
                         const std::string& key) {
  for (std::size_t i = 0; i < point.values.size(); ++i) {
    const auto& [name, value] = point.values[i];
    const SourcePosition& where = i < point.value_where.size() ? point.value_where[i] : point.where;
    const SweepAxis* axis = find_axis(sweep, name);
    if (axes_only) {
      if (!axis) throw UsageError(key + " names " + name + ", which this sweep does not vary", key + " entries name swept settings only", point.where);
      if (std::find(axis->values.begin(), axis->values.end(), value) == axis->values.end()) {
        throw UsageError(key + " gives " + name + "=" + value + ", which is not among its values" + did_you_mean(value, axis->values),
                         "use one of the values listed for " + name + ", spelt as listed: " + join_text(axis->values), where);
      }
      continue;
    }
    // A setting include or baseline adds (to an axis, or alone): check it like an axis of one value.
    SweepAxis single{name, {value}, axis ? axis->where : point.where, {where}};
    if (is_variable_name(name)) {
      check_env_axis(single, sweep, context);
    } else {
      check_config_axis(single, sweep, context);
    }
  }
}

}  // namespace

void check_sweep(const Sweep& sweep, const SweepContext& context) {
  for (const auto& axis : sweep.env) check_env_axis(axis, sweep, context);
  for (const auto& axis : sweep.config) check_config_axis(axis, sweep, context);
  check_overrides(sweep);
  check_engine(sweep);
  check_zip(sweep);
  for (const auto& point : sweep.include) check_partial_point(point, sweep, context, false, "include");
  for (const auto& point : sweep.exclude) check_partial_point(point, sweep, context, true, "exclude");
  if (sweep.baseline) check_partial_point(*sweep.baseline, sweep, context, false, "baseline");
}

bool values_unchecked(const Sweep& sweep, const SweepContext& context) {
  return sweep.allow_unknown_values || context.allow_unknown_values;
}

SweepAxis parse_axis_argument(const std::string& text, const std::string& option) {
  if (const auto bad = first_invalid_utf8(text)) {
    // The text itself cannot be printed: it would carry the bad bytes into the terminal.
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[*bad]));
    throw UsageError("the value is not valid UTF-8 (byte " + std::string(byte) + " at offset " + std::to_string(*bad) + ")",
                     "NCCL variable names and values are plain ASCII", {option, 0, 0});
  }
  const SourcePosition where{option + " " + text, 0, 0};
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw UsageError("expected NAME=v1,v2", option + " NCCL_PROTO=LL,Simple  or  --config max_ctas=8,32", where);
  }
  SweepAxis axis{text.substr(0, equals), {}, where};
  std::stringstream values(text.substr(equals + 1));
  std::string value;
  while (std::getline(values, value, ',')) {
    if (value.empty()) throw UsageError("empty value in " + text, "separate values with single commas", where);
    if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end()) {
      throw UsageError(axis.name + " lists " + value + " twice", "list each value once", where);
    }
    axis.values.push_back(value);
  }
  return axis;
}

void set_axis(std::vector<SweepAxis>& axes, SweepAxis axis) {
  for (auto& existing : axes) {
    if (existing.name == axis.name) {
      existing = std::move(axis);
      return;
    }
  }
  axes.push_back(std::move(axis));
}

}  // namespace ncclsweep
