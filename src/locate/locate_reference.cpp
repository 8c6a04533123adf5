#include "locate/locate_reference.hpp"

#include <algorithm>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "locate/locate_results.hpp"
#include "results/results_directory.hpp"

namespace ncclsweep::locate {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

[[noreturn]] void refuse(const fs::path& dir, const std::string& why, const std::string& fix) {
  throw UsageError("--reference " + dir.string() + ": " + why, fix);
}

// The ranks every host has; 0 when hosts differ.
int ranks_per_host(const HostLayout& layout) {
  std::set<std::size_t> counts;
  for (const auto& ranks : layout.host_ranks) counts.insert(ranks.size());
  return counts.size() == 1 ? static_cast<int>(*counts.begin()) : 0;
}

// The ranks of the group a phase's tests run on.
int group_ranks(LocatePhase phase, int per_host) { return phase == LocatePhase::host ? per_host : phase == LocatePhase::pairs ? 2 * per_host : 2; }

std::string test_list(const std::map<LocatePhase, std::vector<std::string>>& tests) {
  std::string text;
  for (const auto& [phase, keys] : tests) {
    for (const std::string& key : keys) text += (text.empty() ? "" : ", ") + std::string(name_of(phase)) + " " + key;
  }
  return text;
}

}  // namespace

std::map<LocatePhase, std::vector<std::string>> judged_tests(const HostLayout& layout, const LocateOptions& options) {
  std::map<LocatePhase, std::vector<std::string>> tests;
  const int per_host = ranks_per_host(layout);
  std::vector<LocatePhase> phases;
  if (options.host_phase && per_host >= 2) phases.push_back(LocatePhase::host);
  if (options.pairs_phase && layout.host_count() >= 2) phases.push_back(LocatePhase::pairs);
  if (options.by_rail && layout.host_count() >= 2) phases.push_back(LocatePhase::rails);
  for (const LocatePhase phase : phases) {
    for (const FixedTest& test : tests_for(phase, options.sizes)) {
      tests[phase].push_back(test_name(*test.collective, measured_bytes(test, group_ranks(phase, per_host))));
    }
  }
  return tests;
}

ReferenceFigures reference_from_run(const RunDocument& run, const std::string& source, const HostLayout& layout,
                                    const LocateOptions& options) {
  const fs::path dir(source);
  const int per_host = ranks_per_host(layout);
  if (per_host == 0) {
    refuse(dir, "this launch's hosts have different numbers of ranks, so no one rank count of a run matches them",
           "launch the same number of ranks on every host, or give an earlier locate as the reference");
  }
  // A sweep's records of one point: its baseline, else the default point.
  std::set<std::string> points;
  for (const MeasurementRecord& r : run.records) points.insert(r.point);
  std::string point = !run.baseline.empty() ? run.baseline : "default";
  if (points.count(point) == 0 && points.size() == 1) point = *points.begin();
  ReferenceFigures reference;
  reference.source = source;
  for (const auto& [phase, keys] : judged_tests(layout, options)) {
    const int ranks = group_ranks(phase, per_host);
    for (const std::string& key : keys) {
      std::vector<double> busbw;
      for (const MeasurementRecord& r : run.records) {
        if (r.point == point && r.ranks == ranks && r.dtype == &data_type("float32") && r.placement == Placement::out_of_place &&
            r.communicator == CommunicatorKind::world && test_name(*r.collective, r.size_bytes) == key) {
          busbw.push_back(r.busbw_gbps);
        }
      }
      if (busbw.empty()) {
        refuse(dir,
               "the run has no " + key + " (float32, out of place) on " + std::to_string(ranks) +
                   " ranks, which locate's " + std::string(name_of(phase)) + " phase measures here",
               "measure it with `ncclsweep run` on " + std::to_string(ranks) + " ranks (e.g. --collectives " +
                   key.substr(0, key.find(' ')) + " --sizes " + key.substr(key.find(' ') + 1) +
                   "), or give locate the --sizes and --phases the run has");
      }
      reference.by_phase[phase][key] = figure_of(busbw);
    }
  }
  return reference;
}

ReferenceFigures load_reference(const fs::path& dir, const HostLayout& layout, const LocateOptions& options,
                                EngineKind engine) {
  const std::string engine_name(name_of(engine));
  const std::string fix = "give a results directory written by ncclsweep locate or ncclsweep run (their -o DIR)";
  if (!fs::is_directory(dir)) refuse(dir, "no such directory", fix);
  if (!fs::exists(dir / "run.json")) refuse(dir, "it holds no run.json", fix);
  if (!is_locate_results(dir)) {
    const RunDocument run = read_run_document(dir);
    if (run.settings.engine && *run.settings.engine != engine) {
      refuse(dir,
             "it was measured with the " + std::string(name_of(*run.settings.engine)) + " engine, this launch uses " +
                 engine_name,
             "give a reference measured with the " + engine_name + " engine");
    }
    return reference_from_run(run, dir.string(), layout, options);
  }
  const LocateResults earlier = read_locate_results(dir);
  if (earlier.document.engine != engine) {
    refuse(dir,
           "it was measured with the " + std::string(name_of(earlier.document.engine)) + " engine, this launch uses " +
               engine_name,
           "give a reference measured with the " + engine_name + " engine");
  }
  const HostLayout earlier_layout = layout_from_hosts(earlier.document.rank_hosts);
  const int per_host = ranks_per_host(layout), earlier_per_host = ranks_per_host(earlier_layout);
  if (per_host == 0 || per_host != earlier_per_host) {
    const auto count = [](int n) { return n == 0 ? std::string("uneven numbers of") : std::to_string(n); };
    refuse(dir,
           "it has " + count(earlier_per_host) + " rank(s) per host, this launch " + count(per_host) +
               "; busbw depends on the ranks of a group",
           "give a reference measured with the same number of ranks per host");
  }
  ReferenceFigures reference = own_references(earlier_layout, earlier.measurements);
  reference.source = dir.string();
  std::map<LocatePhase, std::vector<std::string>> missing;
  for (const auto& [phase, keys] : judged_tests(layout, options)) {
    for (const std::string& key : keys) {
      if (reference.find(phase, key) == nullptr) missing[phase].push_back(key);
    }
  }
  if (!missing.empty()) {
    refuse(dir, "it has no figure for " + test_list(missing) + " (it measured " + test_list(judged_tests(earlier_layout, earlier.document.options)) + ")",
           "give locate the --sizes and --phases of the reference, or measure a new reference");
  }
  return reference;
}

json reference_json(const ReferenceFigures& reference) {
  json figures = json::object();
  for (const auto& [phase, tests] : reference.by_phase) {
    for (const auto& [test, figure] : tests) {
      figures[std::string(name_of(phase))][test] = {{"busbw_gbps", figure.median}, {"band_gbps", figure.band}};
    }
  }
  return {{"source", reference.source}, {"figures", figures}};
}

ReferenceFigures reference_from_json(const json& j) {
  ReferenceFigures reference;
  reference.source = j.at("source").get<std::string>();
  for (const auto& [phase, tests] : j.at("figures").items()) {
    for (const auto& [test, figure] : tests.items()) {
      reference.by_phase[kLocatePhaseNames.parse(phase)][test] = {figure.at("busbw_gbps").get<double>(),
                                                                  figure.at("band_gbps").get<double>()};
    }
  }
  return reference;
}

}  // namespace ncclsweep::locate
