#include "recommend/verification.hpp"
#include "core/input_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "compare/comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/iteration_stats.hpp"
#include "core/number_format.hpp"
#include "recommend/nccl_choice.hpp"
#include "recommend/tuner_collectives.hpp"
#include "spec/run_spec.hpp"

namespace ncclsweep {
namespace {

namespace fs = std::filesystem;

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The tuner file's collective names -> ncclsweep's.
std::string our_collective(int collective) {
  const CollectiveKind* kind = collective_of_tuner(collective);
  return kind != nullptr ? std::string(kind->name) : std::string(tuner::collective_name(collective));
}

bool looks_like_tuner_rules(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    return tuner::parse_collective(trim(line.substr(0, line.find(',')))).has_value();
  }
  return false;
}

bool valid_variable_name(const std::string& name) {
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name.front())) &&
         std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string unquoted(std::string value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

// KEY=VALUE lines (plain or `export`), or one comma list KEY=VALUE,KEY=VALUE.
std::vector<RecommendedVariable> read_env_lines(const std::string& text, const std::string& path) {
  std::vector<std::pair<std::string, int>> lines;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.rfind("export ", 0) == 0) line = trim(line.substr(7));
    lines.emplace_back(line, number);
  }
  std::vector<std::pair<std::string, int>> items;
  if (lines.size() == 1 && std::count(lines[0].first.begin(), lines[0].first.end(), '=') > 1) {
    std::istringstream list(lines[0].first);
    for (std::string item; std::getline(list, item, ',');) items.emplace_back(trim(item), lines[0].second);
  } else {
    items = lines;
  }
  std::vector<RecommendedVariable> env;
  for (const auto& [item, line] : items) {
    const std::size_t eq = item.find('=');
    const std::string name = eq == std::string::npos ? item : trim(item.substr(0, eq));
    if (eq == std::string::npos || !valid_variable_name(name)) {
      throw UsageError("'" + item + "' is not KEY=VALUE", "give the output of ncclsweep recommend --format env",
                       {path, line, 1});
    }
    env.push_back({name, unquoted(trim(item.substr(eq + 1))), {path, line, 1}});
  }
  return env;
}

}  // namespace

RecommendedSettings read_recommendation(const std::string& path, const std::string& plugin) {
  std::ostringstream text;  // through the one input opener: only a regular file is read
  text << read_input_file(path, kSettingsFileInput);
  RecommendedSettings rec;
  rec.path = path;
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".yaml" || extension == ".yml") {
    rec.kind = RecommendedSettings::Kind::sweep;
    rec.sweep_text = text.str();
    return rec;
  }
  if (looks_like_tuner_rules(text.str())) {
    rec.kind = RecommendedSettings::Kind::tuner;
    tuner::RuleFile file = tuner::parse_tuner_rules(text.str());
    if (!file.problems.empty()) {
      const auto& p = file.problems.front();
      throw UsageError(p.why, "fix or remove the line: the plugin would skip it", {path, p.line, 1});
    }
    rec.rules = std::move(file.rules);
    std::error_code ec;
    if (plugin.empty() || !fs::exists(plugin, ec)) {
      throw UsageError("no tuner plugin at '" + plugin + "'",
                       "build libncclsweep-tuner.so (built when NCCL is found) or pass --tuner-plugin PATH");
    }
    rec.env = {{"NCCL_TUNER_PLUGIN", fs::absolute(plugin).string(), {path, 0, 0}},
               {"NCCL_TUNER_CONFIG_FILE", fs::absolute(path).string(), {path, 0, 0}}};
    return rec;
  }
  rec.kind = RecommendedSettings::Kind::env;
  rec.env = read_env_lines(text.str(), path);
  if (rec.env.empty()) {
    throw UsageError(path + " recommends nothing", "verify a file with at least one KEY=VALUE line or tuner rule");
  }
  return rec;
}

Sweep verification_sweep(const RecommendedSettings& rec, const SweepContext& context) {
  if (rec.kind == RecommendedSettings::Kind::sweep) return load_sweep_text(rec.sweep_text, rec.path, context);
  Sweep sweep;
  sweep.file = rec.path;
  sweep.measurements.name = "verify-recommendation";
  set_default_measurements(sweep.measurements);
  sweep.description = "default against " + rec.path;
  if (!rec.rules.empty()) {
    std::set<std::string> collectives;  // by name, so the order does not follow the rules'
    std::set<Bytes> sizes;
    for (const auto& r : rec.rules) {
      collectives.insert(our_collective(r.collective));
      if (r.min_bytes > 0) sizes.insert(r.min_bytes);  // a range from 0 is measured at its top
      sizes.insert(r.max_bytes);
    }
    sweep.measurements.collectives.clear();
    for (const std::string& name : collectives) sweep.measurements.collectives.push_back(&collective(name));
    sweep.measurements.sizes.assign(sizes.begin(), sizes.end());
    sweep.sizes_where = {rec.path, 0, 0};
  }
  for (const RecommendedVariable& v : rec.env) sweep.env.push_back(SweepAxis{v.name, {v.value}, v.where});
  sweep.allow_unknown_env = true;
  sweep.repeats = 3;
  sweep.order = RepeatOrder::interleaved;
  check_sweep(sweep, context);
  return sweep;
}

SweepPlan with_default_point(SweepPlan plan) {
  for (auto& p : plan.points) ++p.index, ++p.isolation_group;
  for (auto& g : plan.isolation_groups) {
    ++g.index;
    for (int& i : g.points) ++i;
  }
  SweepPoint defaults;
  defaults.label = "default";
  plan.points.insert(plan.points.begin(), defaults);
  IsolationGroup own;
  own.points = {0};
  plan.isolation_groups.insert(plan.isolation_groups.begin(), own);
  plan.baseline = 0;
  return plan;
}

bool VerificationReport::failed() const {
  return std::any_of(bands.begin(), bands.end(), [](const VerifiedBand& b) { return b.slower > 0; });
}

std::string VerificationReport::text() const {
  std::ostringstream out;
  out << "# verify-recommendation against '" << baseline << "'\n";
  for (const auto& b : bands) {
    out << "# " << b.band << ": " << b.verdict;
    if (b.sizes > 0) out << ", busbw " << percent_change(1 + b.median_gain) << " median";
    out << " (" << b.sizes << " sizes: " << b.faster << " faster, " << b.same << " within noise, " << b.slower
        << " slower; " << b.mismatch << " mismatch)\n";
    for (const auto& m : b.mismatches) out << "#   mismatch: " << m << "\n";
  }
  out << "# verify-recommendation: " << (failed() ? "FAIL: a recommended band is slower than the default beyond noise" : "PASS")
      << "\n";
  return out.str();
}

VerificationReport check_verification(const RunDocument& run, const std::vector<tuner::TunerRule>& rules,
                                      const NoiseModel& noise) {
  VerificationReport report;
  report.baseline = run.baseline;
  if (report.baseline.empty()) {
    for (const auto& p : run.points) {
      if (p.settings.empty()) report.baseline = p.label;
    }
  }
  // (collective, size) -> point -> its rows, each under its key without the point (so a
  // point's row meets the baseline's of the same dtype, op, placement and conditions).
  // Collectives in name order, as the bands are printed.
  using CollectiveSize = std::pair<const CollectiveKind*, Bytes>;
  const auto by_name = [](const CollectiveSize& a, const CollectiveSize& b) {
    return std::tie(a.first->name, a.second) < std::tie(b.first->name, b.second);
  };
  std::map<CollectiveSize, std::map<std::string, std::map<RowKey, SideRow>>, decltype(by_name)> rows(by_name);
  for (const auto& row : side_from_run(run, "").rows) {
    RowKey shared = row.key;
    const std::string label = shared.variant.point.empty() ? "default" : shared.variant.point;
    shared.variant.point.clear();
    rows[{row.key.collective, row.key.size_bytes}][label][shared] = row;
  }
  const int ranks = static_cast<int>(run.ranks.size());
  const int nodes = static_cast<int>(run.hosts.size());
  for (const auto& point : run.points) {
    if (point.label == report.baseline) continue;
    // One band per rule, or per collective without rules (then named by it).
    std::vector<std::pair<std::string, const tuner::TunerRule*>> bands;
    if (rules.empty()) {
      std::set<std::string> collectives;
      for (const auto& [key, by_point] : rows) collectives.insert(std::string(key.first->name));
      for (const auto& c : collectives) bands.emplace_back(c, nullptr);
    } else {
      for (const auto& r : rules) {
        bands.emplace_back("rule at line " + std::to_string(r.line) + ": " + our_collective(r.collective) + " " +
                               format_bytes(r.min_bytes) + " .. " + format_bytes(r.max_bytes) + " " +
                               std::string(tuner::algorithm_name(r.algorithm)) + "/" + std::string(tuner::protocol_name(r.protocol)),
                           &r);
      }
    }
    for (const auto& [name, rule] : bands) {
      VerifiedBand band;
      band.band = name;
      band.point = point.label;
      std::vector<double> gains;
      for (const auto& [key, by_point] : rows) {
        const auto& [collective, size] = key;
        if (rule) {
          const auto tuned_collective = tuner_collective(*collective);
          if (!tuned_collective) continue;
          const tuner::CallShape call{*tuned_collective, size, static_cast<std::size_t>(nodes), static_cast<std::size_t>(ranks), 1, 0};
          tuner::TunerRule shape_only = *rule;
          shape_only.pipe_ops = shape_only.reg_buff = tuner::kAny;  // one call at a time: any grouping, any buffers
          if (!tuner::rule_matches(shape_only, call)) continue;
        } else if (collective->name != name) {
          continue;
        }
        const auto base = by_point.find(report.baseline);
        const auto tuned = by_point.find(point.label);
        if (base == by_point.end() || tuned == by_point.end()) continue;
        if (rule) {
          const auto choice = logged_choice(point, *collective, size, ranks);
          const std::string wanted = upper(tuner::algorithm_name(rule->algorithm)) + "/" + upper(tuner::protocol_name(rule->protocol));
          const std::string got = choice ? choice->algorithm + "/" + choice->protocol : "";
          if (got != wanted) {
            ++band.mismatch;
            band.mismatches.push_back(std::string(collective->name) + " " + format_bytes(size) + ": " +
                                      (choice ? "NCCL chose " + got : "no TUNING line for it") + ", the rule asks " + wanted);
            continue;
          }
        }
        bool all_faster = true, any_slower = false;
        for (const auto& [shared, tuned_row] : tuned->second) {
          const auto base_row = base->second.find(shared);
          if (base_row == base->second.end() || base_row->second.busbw_gbps <= 0) continue;
          const Verdict v = judge(tuned_row.busbw_gbps, noise_band_gbps(tuned_row, noise), base_row->second.busbw_gbps,
                                  noise_band_gbps(base_row->second, noise));
          all_faster = all_faster && v == Verdict::faster;
          any_slower = any_slower || v == Verdict::slower;
          gains.push_back(tuned_row.busbw_gbps / base_row->second.busbw_gbps - 1);
        }
        ++band.sizes;
        if (any_slower) {
          ++band.slower;
        } else if (all_faster) {
          ++band.faster;
        } else {
          ++band.same;
        }
      }
      band.median_gain = gains.empty() ? 0 : median_of(gains);
      band.verdict = band.slower        ? "slower"
                     : band.mismatch    ? "mismatch"
                     : band.sizes == 0  ? "not measured"
                     : band.faster == band.sizes ? "faster"
                                                 : "within noise";
      report.bands.push_back(band);
    }
  }
  return report;
}

}  // namespace ncclsweep
