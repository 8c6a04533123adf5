#include "recommend/exports.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "core/list_text.hpp"
#include "core/number_format.hpp"
#include "recommend/tuner_collectives.hpp"

namespace ncclsweep {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string gain_text(double gain) { return percent_change(1 + gain); }

// The winner's settings that differ from the baseline's: what choosing it changes.
std::vector<SettingOutcome> changed_settings(const Recommendation& rec, const Band& band) {
  std::vector<SettingOutcome> changed;
  for (const auto& s : band.settings) {
    const SettingOutcome* base = find_setting(rec.baseline_settings, s.name);
    if (!base || base->value != s.value) changed.push_back(s);
  }
  return changed;
}

std::string settings_text(const std::vector<SettingOutcome>& settings) {
  std::string s;
  for (const auto& setting : settings) s += (s.empty() ? "" : " ") + setting.name + "=" + setting.value;
  return s.empty() ? "(the baseline's settings)" : s;
}

// NCCL_ALGO / NCCL_PROTO values and TUNING-log names -> the CSV's names; none for a list
// ("Ring,Tree", "^NVLS"), which no single rule expresses.
std::optional<int> algorithm_of(const std::string& value) {
  std::string name = lower(value);
  if (name == "collnetdirect") name = "collnet_direct";
  if (name == "collnetchain") name = "collnet_chain";
  if (name == "nvlstree") name = "nvls_tree";
  return tuner::parse_algorithm(name);
}

std::optional<int> protocol_of(const std::string& value) { return tuner::parse_protocol(lower(value)); }

// The per-job environment of `point`: the settings it changes, the bands it wins and the
// --job-sizes that name exactly their sizes. Plain sizes when every collective measured
// has the same winning sizes; else each size with its collective, so that no collective
// is judged at a size where the point did not win.
PerJobEnv per_job_env(const Recommendation& rec, const std::string& point) {
  PerJobEnv env;
  env.point = point;
  std::map<std::string_view, std::pair<const CollectiveKind*, std::set<Bytes>>> won;  // by name, as the bands
  std::set<const CollectiveKind*> measured;
  for (const Band& band : rec.bands) {
    measured.insert(band.collective);
    if (band.winner != point) continue;
    env.bands.push_back(band_label(band));
    auto& [kind, sizes] = won[band.collective->name];
    kind = band.collective;
    sizes.insert(band.sizes.begin(), band.sizes.end());
    if (env.settings.empty()) {
      for (const auto& s : changed_settings(rec, band)) {
        if (s.kind != SettingKind::config_field) env.settings.push_back(s.name + "=" + s.value);
      }
    }
  }
  const bool alike = won.size() == measured.size() && std::all_of(won.begin(), won.end(), [&](const auto& w) {
                       return w.second.second == won.begin()->second.second;
                     });
  std::vector<JobSize> sizes;
  for (const auto& [name, collective_sizes] : won) {
    for (Bytes b : collective_sizes.second) sizes.push_back({alike ? nullptr : collective_sizes.first, b});
    if (alike) break;
  }
  env.job_sizes = job_sizes_text(sizes);
  return env;
}

std::string quoted_if_needed(const std::string& value) {
  const bool plain = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_.,:/^=+-").find(c) != std::string_view::npos;
  });
  if (plain) return value;
  std::string q = "'";
  for (char c : value) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string runs_text(const Recommendation& rec) {
  std::string s;
  for (const auto& r : rec.runs) s += (s.empty() ? "" : ", ") + r;
  return s;
}

std::string pad(const std::string& s, std::size_t width) { return s.size() >= width ? s + "  " : s + std::string(width - s.size(), ' '); }

std::string yaml_scalar(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
  return plain ? s : nlohmann::json(s).dump();
}

}  // namespace

TunerExport tuner_export(const Recommendation& rec) {
  TunerExport out;
  std::vector<std::pair<const Band*, std::string>> unruled;  // bands with a winner but no rule, and why
  for (const Band& band : rec.bands) {
    if (band.winner.empty()) continue;
    const std::string where = band_label(band);
    const auto collective = tuner_collective(*band.collective);
    if (!collective) {
      unruled.emplace_back(&band, "NCCL's tuner plugins choose only for broadcast, reduce, all_gather, reduce_scatter and all_reduce");
      continue;
    }
    const auto changed = changed_settings(rec, band);
    std::vector<std::string> other;
    for (const auto& s : changed) {
      if (!tuner_can_set(s.name)) other.push_back(s.name + "=" + s.value);
    }
    if (!other.empty()) {
      unruled.emplace_back(&band, "the winner also needs " + join_text(other, " ") + ", which a tuner cannot set");
      continue;
    }
    const SettingOutcome* algo = find_setting(band.settings, "NCCL_ALGO");
    const SettingOutcome* proto = find_setting(band.settings, "NCCL_PROTO");
    const auto algorithm = algo ? algorithm_of(algo->value) : band.logged_algorithm.empty() ? std::nullopt : algorithm_of(band.logged_algorithm);
    const auto protocol = proto ? protocol_of(proto->value) : band.logged_protocol.empty() ? std::nullopt : protocol_of(band.logged_protocol);
    if (!algorithm || !protocol) {
      unruled.emplace_back(&band, "the winner's " + std::string(!algorithm ? "algorithm" : "protocol") +
                                      " is not known (a tuner rule needs both): sweep NCCL_ALGO and NCCL_PROTO, or run with "
                                      "the TUNING log");
      continue;
    }
    tuner::TunerRule rule;
    rule.collective = *collective;
    rule.min_bytes = band.sizes.front();
    rule.max_bytes = band.sizes.back();
    rule.algorithm = *algorithm;
    rule.protocol = *protocol;
    const bool channels_changed = std::any_of(changed.begin(), changed.end(), [](const SettingOutcome& s) {
      return s.name == "NCCL_MAX_NCHANNELS" || s.name == "NCCL_MIN_NCHANNELS";
    });
    if (channels_changed) {
      // What NCCL ran with when it logged it; else the cap the point set.
      const SettingOutcome* cap = find_setting(band.settings, "NCCL_MAX_NCHANNELS");
      if (!cap) cap = find_setting(band.settings, "NCCL_MIN_NCHANNELS");
      rule.channels = band.logged_channels > 0 ? band.logged_channels : std::atoi(cap->value.c_str());
    }
    rule.nodes = band.nodes;
    rule.ranks = band.ranks;
    out.lines.push_back({rule, where + ": " + settings_text(changed) + ", busbw " + gain_text(band.median_gain) +
                                   " median, " + gain_text(band.worst_gain) + " worst, " + std::to_string(band.support) +
                                   " measurements"});
  }
  // What carries a winner no rule can: the job-wide environment when its point is the one
  // exported, else the environment of a job whose sizes fall in the bands it wins.
  if (rec.job_wide.point.empty()) {
    for (const auto& [band, why] : unruled) {
      const bool listed = std::any_of(out.per_job.begin(), out.per_job.end(),
                                      [&](const PerJobEnv& p) { return p.point == band->winner; });
      if (listed) continue;
      PerJobEnv env = per_job_env(rec, band->winner);
      if (!env.settings.empty()) out.per_job.push_back(std::move(env));
    }
  }
  for (const auto& [band, why] : unruled) {
    std::string carried;
    if (band->winner == rec.job_wide.point) {
      carried = ": --format env exports it for the whole job";
    } else if (!rec.job_wide.point.empty()) {
      carried = ": --format env exports " + rec.job_wide.point + " for the whole job instead, which holds here within noise";
    } else {
      for (const PerJobEnv& p : out.per_job) {
        if (p.point == band->winner) carried = ": for a job whose calls all fall in " + join_text(p.bands, ", ") + ", " + p.command();
      }
    }
    out.notes.push_back(band_label(*band) + ": " + why + carried);
  }
  return out;
}

std::string format_recommend_table(const Recommendation& rec) {
  std::ostringstream out;
  out << "recommend: " << runs_text(rec) << ", " << rec.ranks << " ranks on " << rec.nodes << " node(s); baseline '"
      << rec.baseline << "' (" << rec.baseline_reason << ")\n";
  out << "weights: " << rec.weights << "\n\n";
  std::size_t where_width = 4, winner_width = 6;
  for (const Band& band : rec.bands) {
    where_width = std::max(where_width, band_label(band).size());
    winner_width = std::max(winner_width, band.winner.size());
  }
  where_width += 2, winner_width += 2;
  out << pad("band", where_width) << pad("winner", winner_width) << pad("gain median", 13) << pad("worst", 9) << "support\n";
  for (const Band& band : rec.bands) {
    out << pad(band_label(band), where_width);
    if (band.winner.empty()) {
      out << "default kept: " << band.why << "\n";
      continue;
    }
    out << pad(band.winner, winner_width) << pad(gain_text(band.median_gain), 13) << pad(gain_text(band.worst_gain), 9)
        << band.support << "\n";
  }
  if (!rec.env.empty()) out << "\nenvironment:\n";
  for (const auto& e : rec.env) {
    out << "  " << e.name << "=" << e.value << ": " << (e.exported ? "exported" : "not exported") << ", " << e.why << "\n";
  }
  out << "\njob-wide (--format env): ";
  const TunerExport tuner = tuner_export(rec);
  if (!rec.job_wide.refusal.empty()) {
    out << "refused: " << rec.job_wide.refusal << "\n";
    for (const PerJobEnv& p : tuner.per_job) {
      out << "  per job: " << join_text(p.settings, " ") << " for a job whose calls all fall in " << join_text(p.bands, ", ")
          << ": " << p.command() << "\n";
    }
    if (!rec.iteration_best.empty()) out << "  " << rec.iteration_best << "\n";
  } else if (rec.job_wide.point.empty()) {
    out << "nothing to export: no point beats the baseline\n";
  } else {
    out << rec.job_wide.point << ", which wins or ties within noise at every size that matters\n";
  }
  out << "  " << rec.job_wide.coverage << "\n";
  if (!tuner.lines.empty()) out << "\ntuner rules (--format nccl-tuner):\n";
  for (const auto& line : tuner.lines) out << "  " << tuner::format_rule(line.rule) << "\n";
  std::vector<std::string> notes = tuner.notes;
  notes.insert(notes.end(), rec.notes.begin(), rec.notes.end());
  if (!notes.empty()) out << "\nnotes:\n";
  for (const auto& n : notes) out << "  " << n << "\n";
  return out.str();
}

// What to use where no one setting holds job-wide: the tuner rules for the bands a tuner
// steers, each per-job environment for the bands only a variable carries, and, with a
// workload, which single point takes the least time over the job's iteration.
std::string per_size_exports(const Recommendation& rec) {
  const TunerExport tuner = tuner_export(rec);
  std::vector<std::string> ways;
  if (!tuner.lines.empty()) {
    ways.push_back("use the per-size export, which applies a rule only inside the band it won: --format nccl-tuner > "
                   "nccl_tuner.conf, then NCCL_TUNER_PLUGIN=libncclsweep-tuner.so NCCL_TUNER_CONFIG_FILE=nccl_tuner.conf "
                   "(or NCCL's example tuner plugin, which reads the same file)");
  }
  for (const PerJobEnv& p : tuner.per_job) {
    ways.push_back("for a job whose calls all fall in " + join_text(p.bands, ", ") + ", " + p.command() + " exports " +
                   join_text(p.settings, " "));
  }
  if (!rec.iteration_best.empty()) ways.push_back(rec.iteration_best);
  ways.push_back("--format table shows each band");
  return join_text(ways, "; ");
}

std::string format_env(const Recommendation& rec, EnvStyle style) {
  // A job-wide export applies every setting at every size: refused where the data says
  // one setting does not hold at all of them (recommend.cpp, decide_job_wide).
  if (!rec.job_wide.refusal.empty()) {
    throw UsageError("no job-wide export: " + rec.job_wide.refusal, per_size_exports(rec));
  }
  std::vector<const EnvChoice*> exported;
  for (const auto& e : rec.env) {
    if (e.exported) exported.push_back(&e);
  }
  if (style == EnvStyle::container) {
    // One line for a comma list (srun --export=ALL,...): no room for comments.
    std::string line;
    for (const EnvChoice* e : exported) line += (line.empty() ? "" : ",") + e->name + "=" + e->value;
    return line.empty() ? "" : line + "\n";
  }
  std::ostringstream out;
  out << "# ncclsweep recommend: " << runs_text(rec) << ", " << rec.ranks << " ranks on " << rec.nodes
      << " node(s), against '" << rec.baseline << "'\n";
  out << "# sizes weighed: " << rec.weights << "\n";
  out << "# " << rec.job_wide.coverage << "\n";
  if (!rec.job_wide.point.empty()) {
    out << "# job-wide: " << rec.job_wide.point << " wins or ties within noise at every size that matters\n";
  }
  for (const auto& e : rec.env) {
    out << (e.exported ? "# exported: " : "# not exported: ") << e.name << "=" << e.value << ": " << e.why << "\n";
  }
  for (const EnvChoice* e : exported) {
    out << (style == EnvStyle::export_block ? "export " : "") << e->name << "=" << quoted_if_needed(e->value) << "\n";
  }
  return out.str();
}

std::string format_nccl_tuner(const Recommendation& rec) {
  const TunerExport tuner = tuner_export(rec);
  std::ostringstream out;
  out << "# NCCL tuner rules from ncclsweep recommend: " << runs_text(rec) << ", " << rec.ranks << " ranks on "
      << rec.nodes << " node(s), against '" << rec.baseline << "'\n";
  out << "# load with NCCL_TUNER_PLUGIN=libncclsweep-tuner.so NCCL_TUNER_CONFIG_FILE=<this file>\n";
  out << "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n";
  for (const auto& n : tuner.notes) out << "# no rule: " << n << "\n";
  for (const auto& line : tuner.lines) out << "# " << line.comment << "\n" << tuner::format_rule(line.rule) << "\n";
  return out.str();
}

std::string format_recommend_yaml(const Recommendation& rec) {
  // The grid of the winners' values and the baseline's: it holds every winner and the
  // baseline (and their crossings), each measured at the sizes of the bands it won.
  std::map<std::string, std::vector<std::string>> env_axes, config_axes;
  const auto add = [](std::vector<std::string>& values, const std::string& v) {
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  };
  for (const auto& s : rec.baseline_settings) add((s.kind == SettingKind::config_field ? config_axes : env_axes)[s.name], s.value);
  std::set<std::string> collectives;
  std::set<Bytes> sizes;
  std::vector<std::string> skipped;
  for (const Band& band : rec.bands) {
    if (band.winner.empty()) continue;
    bool complete = true;
    for (const auto& s : rec.baseline_settings) complete = complete && find_setting(band.settings, s.name);
    for (const auto& s : band.settings) complete = complete && find_setting(rec.baseline_settings, s.name);
    if (!complete) {
      skipped.push_back(band.winner);
      continue;
    }
    for (const auto& s : band.settings) add((s.kind == SettingKind::config_field ? config_axes : env_axes)[s.name], s.value);
    collectives.insert(std::string(band.collective->name));
    sizes.insert(band.sizes.begin(), band.sizes.end());
  }
  std::ostringstream out;
  out << "# ncclsweep recommend: the winners of " << runs_text(rec) << " against '" << rec.baseline << "'\n";
  out << "# re-measure them anywhere: ncclsweep run THIS-FILE\n";
  for (const auto& s : skipped) out << "# left out: " << s << " does not set the same variables as the baseline\n";
  if (collectives.empty()) {
    out << "# no band has a winner clear of the noise: nothing to re-verify\n";
    return out.str();
  }
  out << "name: recommend-verify\n";
  out << "description: " << yaml_scalar("winners of " + runs_text(rec) + " against " + rec.baseline) << "\n";
  out << "collectives: [";
  std::string sep;
  for (const auto& c : collectives) out << sep << c, sep = ", ";
  out << "]\nsizes: [";
  sep.clear();
  for (Bytes s : sizes) out << sep << s, sep = ", ";
  out << "]\ndtypes: [";
  sep.clear();
  for (const auto& d : rec.dtypes) out << sep << d, sep = ", ";
  out << "]\n";
  for (const auto& [key, axes] : {std::pair{"env", &env_axes}, std::pair{"config", &config_axes}}) {
    if (axes->empty()) continue;
    out << key << ":\n";
    for (const auto& [name, values] : *axes) {
      out << "  " << name << ": [";
      sep.clear();
      for (const auto& v : values) out << sep << yaml_scalar(v), sep = ", ";
      out << "]\n";
    }
  }
  if (!rec.baseline_settings.empty()) {
    out << "baseline: {";
    sep.clear();
    for (const auto& s : rec.baseline_settings) out << sep << s.name << ": " << yaml_scalar(s.value), sep = ", ";
    out << "}\n";
  }
  out << "repeats: 3\norder: interleaved\n";
  return out.str();
}

std::string format_recommend_json(const Recommendation& rec) {
  using nlohmann::json;
  const auto settings_json = [](const std::vector<SettingOutcome>& settings) {
    json list = json::array();
    for (const auto& s : settings) list.push_back({{"name", s.name}, {"value", s.value}, {"kind", name_of(s.kind)}, {"status", name_of(s.status)}});
    return list;
  };
  json doc;
  doc["runs"] = rec.runs;
  doc["ranks"] = rec.ranks;
  doc["nodes"] = rec.nodes;
  doc["baseline"] = {{"point", rec.baseline}, {"why", rec.baseline_reason}, {"settings", settings_json(rec.baseline_settings)}};
  doc["weights"] = rec.weights;
  json bands = json::array();
  for (const Band& band : rec.bands) {
    json b = {{"collective", std::string(band.collective->name)}, {"min_bytes", band.sizes.front()}, {"max_bytes", band.sizes.back()},
              {"sizes", band.sizes}};
    if (band.winner.empty()) {
      b["winner"] = nullptr;
      b["why"] = band.why;
    } else {
      b["winner"] = band.winner;
      b["settings"] = settings_json(band.settings);
      b["support"] = band.support;
      b["median_gain"] = band.median_gain;
      b["worst_gain"] = band.worst_gain;
      b["nccl_choice"] = band.logged_algorithm.empty()
                             ? json(nullptr)
                             : json{{"algorithm", band.logged_algorithm}, {"protocol", band.logged_protocol}, {"channels", band.logged_channels}};
    }
    bands.push_back(b);
  }
  doc["bands"] = bands;
  json env = json::array();
  for (const auto& e : rec.env) env.push_back({{"name", e.name}, {"value", e.value}, {"share", e.share}, {"exported", e.exported}, {"why", e.why}});
  doc["env"] = env;
  doc["job_wide"] = {{"point", rec.job_wide.point.empty() ? json(nullptr) : json(rec.job_wide.point)},
                     {"refusal", rec.job_wide.refusal.empty() ? json(nullptr) : json(rec.job_wide.refusal)},
                     {"disagreeing", rec.job_wide.disagreeing},
                     {"coverage", rec.job_wide.coverage}};
  const TunerExport tuner = tuner_export(rec);
  json rules = json::array();
  for (const auto& line : tuner.lines) rules.push_back({{"rule", tuner::format_rule(line.rule)}, {"band", line.comment}});
  doc["tuner"] = {{"rules", rules}, {"notes", tuner.notes}};
  json per_job = json::array();
  for (const PerJobEnv& p : tuner.per_job) {
    per_job.push_back({{"point", p.point}, {"settings", p.settings}, {"bands", p.bands}, {"job_sizes", p.job_sizes}});
  }
  doc["per_job"] = per_job;
  doc["iteration_best"] = rec.iteration_best.empty() ? json(nullptr) : json(rec.iteration_best);
  doc["notes"] = rec.notes;
  return doc.dump(2) + "\n";
}

}  // namespace ncclsweep
