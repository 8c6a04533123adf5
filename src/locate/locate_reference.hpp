#pragma once
// locate --reference DIR: judge against an earlier measurement instead of the median of
// this launch's hosts. DIR is a results directory of
//   - ncclsweep locate: per phase and test, the reference that run's own verdicts used
//     (the median of its hosts; for pairs and rails what hosts reach with their better
//     partners), with its noise band;
//   - ncclsweep run: per test, the busbw of the same collective and size measured on as
//     many ranks as locate's group of that phase (the host's ranks; twice that for a
//     pair of hosts; 2 for a rail), the median of its repeats.
// Either must hold every test this launch judges, on as many ranks per host; otherwise
// a UsageError names the directory, what is missing and what to run instead.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/run_options.hpp"
#include "locate/host_layout.hpp"
#include "locate/locate_plan.hpp"
#include "locate/verdicts.hpp"
#include "results/record.hpp"

namespace ncclsweep::locate {

// The tests this launch will judge against a reference: phase -> test keys.
std::map<LocatePhase, std::vector<std::string>> judged_tests(const HostLayout& layout, const LocateOptions& options);

// Throws UsageError naming `dir` when it is no results directory, when its ranks per
// host or engine differ from this launch's, or when it lacks a test this launch judges.
ReferenceFigures load_reference(const std::filesystem::path& dir, const HostLayout& layout,
                                const LocateOptions& options, EngineKind engine);

// From a `run`'s records (pure): per judged test, the matching records' busbw.
// Throws UsageError as load_reference.
ReferenceFigures reference_from_run(const RunDocument& run, const std::string& source, const HostLayout& layout,
                                    const LocateOptions& options);

// In run.json, so that `report` judges the records against the same figures.
nlohmann::json reference_json(const ReferenceFigures& reference);
ReferenceFigures reference_from_json(const nlohmann::json& j);

}  // namespace ncclsweep::locate
