#include "probe/probe_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
#include "core/output_file.hpp"
#include "core/iteration_stats.hpp"
#include "core/printf_text.hpp"
#include "probe/cpu_probes.hpp"
#include "probe/gpu_probes.hpp"

namespace ncclsweep::probe {
namespace fs = std::filesystem;

namespace {

void append(std::vector<ProbeRecord>& to, std::vector<ProbeRecord> from) {
  for (auto& r : from) to.push_back(std::move(r));
}

nlohmann::json options_json(const ProbeOptions& o) {
  return {{"stall_seconds", o.stall_seconds}, {"clock_round_s", o.clock_round_s}, {"clock_rounds", o.clock_rounds},
          {"repeats", o.repeats}, {"gemm_load_s", o.gemm_load_s}, {"gpu", o.gpu}};
}

// The table's columns: the figures a user reads first, one per probe.
constexpr ProbeMetric kColumns[] = {
    ProbeMetric::busy_clock_ghz,        ProbeMetric::busy_effective_ghz, ProbeMetric::stall_max_ms,
    ProbeMetric::stalls_over_1ms_per_s, ProbeMetric::host_mmap_64mib_us, ProbeMetric::numa_local_copy_gbps,
    ProbeMetric::memory_on_local_node,  ProbeMetric::kernel_launch_us,   ProbeMetric::cuda_malloc_free_2mib_us,
    ProbeMetric::gemm_bf16_tflops,      ProbeMetric::gpu_sm_clock_under_load_mhz};
constexpr const char* kHeadings[] = {"clock GHz", "eff GHz", "stall ms", ">1ms /s", "mmap us", "NUMA GB/s",
                                     "mem local", "launch us", "malloc us", "GEMM TF/s", "SM MHz"};

}  // namespace

ProbeRun run_probes(const ProbeOptions& options, int local_rank, const std::function<void()>& barrier,
                    const std::function<void(bool)>& disturb) {
  ProbeRun run;
  // Times one phase, barrier included: the wait for the slowest rank is part of its cost.
  const auto phase = [&](const char* name, auto&& probe) {
    const auto start = std::chrono::steady_clock::now();
    append(run.records, probe());
    run.phase_seconds[name] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  barrier();
  disturb(true);
  phase("core_clock", [&] { return probe_core_clock(options); });
  phase("stalls", [&] {
    barrier();
    return probe_stalls(options);
  });
  disturb(false);
  phase("host_map_unmap", [&] {
    barrier();
    return probe_host_map_unmap(options);
  });
  phase("numa", [&] {
    barrier();
    return probe_numa(options);
  });
  phase("gpu", [&] {
    barrier();
    return probe_gpu(options, local_rank);
  });
  return run;
}

void judge_hosts(ProbeDocument& document) {
  document.hosts.clear();
  for (const auto& r : document.records) {
    if (std::find(document.hosts.begin(), document.hosts.end(), r.host) == document.hosts.end()) {
      document.hosts.push_back(r.host);
    }
  }
  const auto summary = summarise_hosts(document.records);
  const auto outliers = outlier_hosts(summary);
  document.findings = outlier_findings(outliers);
  document.named_hosts = named_hosts(outliers);
  document.notes.clear();
  if (document.cpu_hog_rank < 0) return;
  const auto hogged = std::find_if(document.records.begin(), document.records.end(),
                                   [&](const ProbeRecord& r) { return r.rank == document.cpu_hog_rank; });
  if (hogged == document.records.end()) return;
  const std::string host = hogged->host;
  if (std::find(document.named_hosts.begin(), document.named_hosts.end(), host) != document.named_hosts.end()) return;
  std::vector<double> others;
  double mine = -1;
  for (const HostValue& v : summary) {
    if (v.metric != ProbeMetric::busy_effective_ghz) continue;
    if (v.host == host) {
      mine = v.worst_value;
    } else {
      others.push_back(v.median);
    }
  }
  std::string evidence;
  if (mine >= 0 && !others.empty()) {
    evidence = printf_text(" (its busy core's effective clock %.3g GHz against %.3g GHz on the other hosts)", mine,
                           median_of(others));
  }
  document.notes.push_back("the testing aid --inject-fault " + std::to_string(document.cpu_hog_rank) +
                           ":cpu-hog did not make host " + host + " stand out" + evidence +
                           ": other work on this machine took the other hosts' cores as well, so this probe says "
                           "nothing about the aid's fault; run it on an idle machine, or limit the host from outside "
                           "(a cgroup CPU quota: docs/probe.md)");
}

void write_probe_document(const ProbeDocument& d, const fs::path& directory) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  const auto refuse = [&](const fs::path& file) {
    throw UsageError("cannot write " + file.string(), "give -o a directory you can write");
  };
  if (ec) refuse(directory);
  const nlohmann::json doc{{"schema_version", d.schema_version}, {"kind", "probe"},
                           {"command_line", d.command_line},     {"start_time", d.start_time},
                           {"end_time", d.end_time},             {"probe_seconds", d.probe_seconds},
                           {"phase_seconds", d.phase_seconds},
                           {"hosts", d.hosts},
                           {"ranks", d.ranks},                   {"options", options_json(d.options)},
                           {"records", d.records},               {"findings", d.findings},
                           {"named_hosts", d.named_hosts},
                           {"cpu_hog_rank", d.cpu_hog_rank},
                           {"notes", d.notes}};
  // Through a fresh file renamed into place (core/output_file.hpp); a failed write is exit 3 with its reason.
  const auto write = [](const fs::path& file, const std::string& text) {
    if (const int error = replace_file(file, text); error != 0) {
      throw RuntimeFailure("writing " + file.string(), std::strerror(error));
    }
  };
  write(directory / "probe.json", doc.dump(2) + "\n");
  std::string lines;
  for (const auto& r : d.records) lines += nlohmann::json(r).dump() + "\n";
  write(directory / "records.jsonl", lines);
}

void check_probe_directory(const fs::path& directory) {
  std::error_code ec;
  if (fs::exists(directory, ec) && !fs::is_directory(directory, ec)) {
    throw UsageError(directory.string() + " is not a directory", "give -o a new directory or an earlier probe's");
  }
  if (!is_probe_results(directory) && (fs::exists(directory / "records.jsonl", ec) || fs::exists(directory / "run.json", ec))) {
    throw UsageError(directory.string() + " holds another command's results (records.jsonl or run.json, and no probe.json); "
                         "a probe there would replace its records.jsonl",
                     "give -o a new directory");
  }
  fs::create_directories(directory, ec);
  if (ec) throw UsageError("cannot create " + directory.string() + ": " + ec.message(), "give -o a directory you can write");
  refuse_planted_links(directory, {"probe.json", "records.jsonl"});
  check_output_file(directory / "probe.json", "-o");
}

bool is_probe_results(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::exists(path / "probe.json", ec);
  return path.filename() == "probe.json" && fs::exists(path, ec);
}

ProbeDocument read_probe_document(const fs::path& path) {
  const fs::path file = fs::is_directory(path) ? path / "probe.json" : path;
  if (!input_path_exists(file.string())) {
    throw UsageError("cannot read " + file.string() + ": it does not exist", "give an ncclsweep probe results directory");
  }
  nlohmann::json j;
  try {
    j = parse_json_input(read_input_file(file.string(), kResultsFileInput), {file.string()},
                         max_json_values(kResultsFileInput));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + ": not JSON (" + e.what() + ")", "give the probe.json that ncclsweep probe wrote");
  }
  if (j.value("kind", "") != "probe") {
    throw UsageError(file.string() + " is not a probe document (no \"kind\": \"probe\")", "give ncclsweep probe's output");
  }
  if (j.value("schema_version", 0) > 1) {
    throw UsageError(file.string() + ": schema_version " + std::to_string(j.value("schema_version", 0)) +
                         " is newer than this ncclsweep reads (1)",
                     "use a newer ncclsweep");
  }
  ProbeDocument d;
  try {
    d.command_line = j.value("command_line", std::vector<std::string>{});
    d.start_time = j.value("start_time", "");
    d.end_time = j.value("end_time", "");
    d.probe_seconds = j.value("probe_seconds", 0.0);
    d.phase_seconds = j.value("phase_seconds", std::map<std::string, double>{});
    d.hosts = j.value("hosts", std::vector<std::string>{});
    d.ranks = j.value("ranks", 0);
    d.records = j.at("records").get<std::vector<ProbeRecord>>();
    d.findings = j.value("findings", std::vector<doctor::Finding>{});
    d.named_hosts = j.value("named_hosts", std::vector<std::string>{});
    d.cpu_hog_rank = j.value("cpu_hog_rank", -1);
    d.notes = j.value("notes", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + ": " + e.what(), "give the probe.json that ncclsweep probe wrote");
  }
  return d;
}

std::string probe_report(const ProbeDocument& d) {
  const auto hosts = summarise_hosts(d.records);
  std::string text = printf_text("# ncclsweep probe: %d rank(s) on %zu host(s); median over each host's ranks\n",
                                 d.ranks, d.hosts.size());
  text += printf_text("%-20s %5s", "host", "ranks");
  for (const char* heading : kHeadings) text += printf_text(" %10s", heading);
  text += "\n";
  for (const auto& host : d.hosts) {
    std::map<int, bool> seen;
    for (const auto& r : d.records) {
      if (r.host == host) seen[r.rank] = true;
    }
    text += printf_text("%-20s %5zu", host.c_str(), seen.size());
    for (const ProbeMetric metric : kColumns) {
      const auto it = std::find_if(hosts.begin(), hosts.end(),
                                   [&](const HostValue& v) { return v.host == host && v.metric == metric; });
      const bool unresolved = std::any_of(d.records.begin(), d.records.end(), [&](const ProbeRecord& r) {
        return r.host == host && r.metric == metric && !r.unresolved.empty();
      });
      // A host with one unresolved rank shows its other ranks' median; with none, "?".
      text += it != hosts.end() ? printf_text(" %10.3g", it->median) : printf_text(" %10s", unresolved ? "?" : "-");
    }
    text += "\n";
  }
  std::map<std::string, std::vector<std::string>> skipped_by_reason;
  for (const auto& r : d.records) {
    if (r.skipped.empty()) continue;
    auto& names = skipped_by_reason[r.skipped];
    const std::string name(kProbeMetricNames.name(r.metric));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  for (const auto& [reason, names] : skipped_by_reason) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    text += "# skipped (" + reason + "): " + list + "\n";
  }
  for (const auto& u : unresolved_figures(d.records)) {
    std::string list;
    for (const auto& f : u.figures) list += (list.empty() ? "" : ", ") + f;
    text += "# unresolved (" + u.reason + "): " + list + "\n";
  }
  for (const auto& note : d.notes) text += "# note: " + note + "\n";
  if (d.named_hosts.empty()) {
    text += printf_text("# no host stands out among the %zu host(s)\n", d.hosts.size());
  } else {
    std::string list;
    for (const auto& h : d.named_hosts) list += (list.empty() ? "" : " ") + h;
    text += "# named: " + list + "\n";
    text += doctor::findings_table(d.findings);
  }
  return text;
}

}  // namespace ncclsweep::probe
