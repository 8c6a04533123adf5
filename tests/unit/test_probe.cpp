// ncclsweep probe's pure parts: the metric table, stall counting, the per-host summary,
// which hosts stand out (the cpu-hog and NUMA cases on fabricated records, as a machine
// with two NUMA nodes would write them), its files, and the comparison with a reference.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "catch_compat.hpp"
#include "compare/probe_comparison.hpp"
#include "core/errors.hpp"
#include "probe/cpu_probes.hpp"
#include "probe/hog_placement.hpp"
#include "probe/host_summary.hpp"
#include "probe/probe_run.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
using namespace ncclsweep::probe;

namespace {

ProbeRecord on(const std::string& host, int rank, ProbeMetric metric, double value) {
  ProbeRecord r = measured(metric, value);
  r.host = host;
  r.rank = rank;
  return r;
}

// A stall watcher's record on `host`: the longest stop of each slice, the figure their max.
ProbeRecord stalls(const std::string& host, int rank, const std::vector<double>& slice_max) {
  ProbeRecord r =
      measured_repeats(ProbeMetric::stall_max_ms, *std::max_element(slice_max.begin(), slice_max.end()), slice_max);
  r.host = host;
  r.rank = rank;
  return r;
}

// Four hosts of two ranks, alike but for what `change` does to them.
template <typename F>
std::vector<ProbeRecord> four_hosts(F&& change) {
  std::vector<ProbeRecord> records;
  for (int rank = 0; rank < 8; ++rank) {
    const std::string host = "h" + std::to_string(rank / 2);
    const double jitter = 1 + 0.01 * (rank % 3);
    for (auto [metric, value] : {std::pair{ProbeMetric::busy_clock_ghz, 3.0}, {ProbeMetric::busy_effective_ghz, 2.9},
                                 {ProbeMetric::stall_max_ms, 0.4}, {ProbeMetric::stalls_over_1ms_per_s, 0.0},
                                 {ProbeMetric::numa_local_copy_gbps, 12.0}, {ProbeMetric::numa_remote_copy_gbps, 8.0},
                                 {ProbeMetric::memory_on_local_node, 1.0}}) {
      records.push_back(on(host, rank, metric, value * jitter));
      change(records.back());
    }
  }
  return records;
}

}  // namespace

TEST_CASE("every probe metric has its row and its name", "[probe]") {
  for (const auto& name : kProbeMetricNames.names()) {
    const ProbeMetric metric = kProbeMetricNames.parse(name);
    CHECK(metric_info(metric).metric == metric);
    CHECK_FALSE(metric_info(metric).cause.empty());
  }
  CHECK_THAT(usage_error_text([] { kProbeMetricNames.parse("busy_clock"); }), ContainsSubstring("busy_clock_ghz"));
}

TEST_CASE("stall gaps become the max and the counts per second above 1 and 10 ms, per slice as repeats", "[probe]") {
  StallWatch watch;
  watch.seconds = 2.0;
  watch.slice_reads = {100, 100, 100, 100};  // slices of 0.5 s
  watch.gaps = {{0.1, 60e-6}, {0.7, 2e-3}, {0.8, 15e-3}, {1.9, 0.9e-3}};
  const auto records = stall_records(watch);
  REQUIRE(records.size() == 3);
  CHECK(records[0].value == Approx(15.0));  // ms
  CHECK(records[1].value == Approx(1.0));   // two gaps over 1 ms in 2 s
  CHECK(records[2].value == Approx(0.5));
  // Slice 1 (0.5-1.0 s) holds both long gaps: 4 and 2 a second there, none elsewhere.
  const auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::fabs(got[i] - want[i]) > 1e-9) return false;
    }
    return true;
  };
  CHECK(near(records[0].repeats, {0.06, 15.0, 0.0, 0.9}));
  CHECK(near(records[1].repeats, {0.0, 4.0, 0.0, 0.0}));
  CHECK(near(records[2].repeats, {0.0, 2.0, 0.0, 0.0}));
  for (const auto& r : records) CHECK(r.measured());
  CHECK(stall_slices(1.0) == 5);
  CHECK(stall_slices(10.0) == 10);
  CHECK(stall_slices(0.1) == 1);
}

TEST_CASE("a stall watcher that hardly ran is unresolved, never a quiet core", "[probe]") {
  // Starved: it read the clock at the start and once after the watch, one gap between:
  // counted as it is, that is one stall a second, better than a busy machine's.
  StallWatch watch;
  watch.seconds = 1.0;
  watch.slice_reads = {3, 0, 0, 0, 0};
  watch.gaps = {{1.05, 1.0}};
  const auto records = stall_records(watch);
  REQUIRE(records.size() == 3);
  for (const auto& r : records) {
    CHECK_FALSE(r.measured());
    CHECK(r.skipped.empty());
    CHECK_THAT(r.unresolved, ContainsSubstring("1 of 5 slices"));
  }
  // Unresolved figures neither name nor clear their host, and the report lists them.
  ProbeDocument d;
  d.ranks = 2;
  for (auto r : records) {
    r.host = "h1";
    r.rank = 1;
    d.records.push_back(r);
  }
  for (auto r : stall_records({1.0, {{0.5, 2e-3}}, {9, 9, 9, 9, 9}})) {
    r.host = "h0";
    d.records.push_back(r);
  }
  judge_hosts(d);
  CHECK(d.named_hosts.empty());
  const std::string report = probe_report(d);
  CHECK_THAT(report, ContainsSubstring("# unresolved (the stall watcher read the clock in only 1 of 5 slices"));
  CHECK_THAT(report, ContainsSubstring("stall_max_ms on h1, stalls_over_1ms_per_s on h1"));
}

TEST_CASE("a reading that is not a number is unresolved; repeats and reasons survive JSON", "[probe]") {
  CHECK(checked(measured(ProbeMetric::busy_clock_ghz, std::nan(""))).unresolved == "the probe's reading is not a number");
  CHECK(checked(measured_repeats(ProbeMetric::busy_clock_ghz, 3, {3, INFINITY})).unresolved.size() > 0);
  CHECK(checked(measured(ProbeMetric::busy_clock_ghz, 3)).measured());
  const ProbeRecord r = measured_repeats(ProbeMetric::stall_max_ms, 9, {1, 9, 2});
  CHECK(r.spread == Approx(4.0));  // (9 - 1) / 2
  const auto back = nlohmann::json(r).get<ProbeRecord>();
  CHECK(back.repeats == r.repeats);
  const auto gone = nlohmann::json(unresolved(ProbeMetric::stall_max_ms, "starved")).get<ProbeRecord>();
  CHECK(gone.unresolved == "starved");
  CHECK_FALSE(gone.measured());
  CHECK_FALSE(nlohmann::json(unresolved(ProbeMetric::stall_max_ms, "starved")).contains("value"));
  // A spread of counts whose median is 0 is not 0: the range against the largest.
  CHECK(relative_spread({0, 0, 0, 5}) == Approx(1.0));
}

TEST_CASE("a host's value is the median of its ranks and its worst rank is named", "[probe]") {
  const std::vector<ProbeRecord> records{on("a", 0, ProbeMetric::busy_clock_ghz, 3.0),
                                         on("a", 1, ProbeMetric::busy_clock_ghz, 2.0),
                                         on("a", 2, ProbeMetric::busy_clock_ghz, 3.2),
                                         on("a", 3, ProbeMetric::stall_max_ms, 9.0),
                                         on("a", 4, ProbeMetric::stall_max_ms, 1.0)};
  const auto hosts = summarise_hosts(records);
  REQUIRE(hosts.size() == 2);
  CHECK(hosts[0].median == Approx(3.0));
  CHECK(hosts[0].worst_rank == 1);  // lowest clock
  CHECK(hosts[1].worst_rank == 3);  // longest stall
}

TEST_CASE("alike hosts: nothing is named", "[probe]") {
  CHECK(outlier_hosts(summarise_hosts(four_hosts([](ProbeRecord&) {}))).empty());
}

TEST_CASE("a rank whose cores are shared: exactly its host is named, with the sharing cause", "[probe]") {
  const auto records = four_hosts([](ProbeRecord& r) {
    if (r.rank == 5 && r.metric == ProbeMetric::busy_effective_ghz) r.value = 0.4;
    if (r.rank == 5 && r.metric == ProbeMetric::stalls_over_1ms_per_s) r.value = 180;
  });
  const auto outliers = outlier_hosts(summarise_hosts(records));
  CHECK(named_hosts(outliers) == std::vector<std::string>{"h2"});
  const auto findings = outlier_findings(outliers);
  REQUIRE(findings.size() == 2);
  for (const auto& f : findings) {
    CHECK(f.hosts == std::vector<std::string>{"h2"});
    CHECK(f.ranks == std::vector<int>{5});
  }
  CHECK_THAT(findings[0].fix + findings[1].fix, ContainsSubstring("shared") && ContainsSubstring("housekeeping"));
}

TEST_CASE("of two hosts, the one whose core is shared is named: it is judged against the other host alone", "[probe]") {
  // The figures of a CI run with the cpu-hog aid on h1: inside their mean (2.45 GHz, 64/s)
  // the hogged host passed on both counts.
  const std::vector<ProbeRecord> records{on("h0", 0, ProbeMetric::busy_effective_ghz, 3.17),
                                         on("h1", 1, ProbeMetric::busy_effective_ghz, 1.40),
                                         on("h0", 0, ProbeMetric::stalls_over_1ms_per_s, 4),
                                         on("h1", 1, ProbeMetric::stalls_over_1ms_per_s, 124)};
  const auto outliers = outlier_hosts(summarise_hosts(records));
  CHECK(named_hosts(outliers) == std::vector<std::string>{"h1"});
  REQUIRE(outliers.size() == 2);
  for (const auto& o : outliers) CHECK(o.against == "the other host");
  CHECK(outliers[0].baseline == Approx(3.17));
  CHECK(outliers[1].baseline == Approx(4));
  // Each host alone is no outlier of itself: the better of two alike hosts passes.
  const std::vector<ProbeRecord> alike{on("h0", 0, ProbeMetric::busy_effective_ghz, 3.17),
                                       on("h1", 1, ProbeMetric::busy_effective_ghz, 2.90)};
  CHECK(outlier_hosts(summarise_hosts(alike)).empty());
}

TEST_CASE("a rank whose memory lands on the other NUMA node is named (faked two-node topology)", "[probe]") {
  // What probe_numa writes for a rank bound to node 1's memory while its cores are on node 0.
  const auto records = four_hosts([](ProbeRecord& r) {
    if (r.rank == 6 && r.metric == ProbeMetric::memory_on_local_node) {
      r.value = 0;
      r.detail = "lands on node 1";
    }
  });
  const auto outliers = outlier_hosts(summarise_hosts(records));
  CHECK(named_hosts(outliers) == std::vector<std::string>{"h3"});
  const auto findings = outlier_findings(outliers);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].check == "probe.memory_on_local_node");
  CHECK_THAT(findings[0].fix, ContainsSubstring("numactl"));
}

TEST_CASE("a busy core held below the others' clock is named for its clock", "[probe]") {
  const auto records = four_hosts([](ProbeRecord& r) {
    if (r.host == "h1" && r.metric == ProbeMetric::busy_clock_ghz) r.value = 2.4;  // 3.0 GHz elsewhere
  });
  const auto findings = outlier_findings(outlier_hosts(summarise_hosts(records)));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].check == "probe.busy_clock_ghz");
  CHECK_THAT(findings[0].fix, ContainsSubstring("C-states"));
}

TEST_CASE("one stray stall in a quiet watch names nothing; stalls that keep coming back do", "[probe]") {
  // Two clean hosts of a busy machine: h0 had one 25 ms stall in one slice of five.
  CHECK(outlier_hosts(summarise_hosts({stalls("h0", 0, {25, 1, 1.2, 0.9, 1}), stalls("h1", 1, {0.4, 0.3, 0.5, 0.4, 0.3})}))
            .empty());
  // A host held to a CPU quota stops for most of every period: 75 ms in every slice.
  const auto outliers =
      outlier_hosts(summarise_hosts({stalls("h0", 0, {5, 6, 4, 5, 7}), stalls("h1", 1, {75, 76, 74, 75, 77})}));
  REQUIRE(outliers.size() == 1);
  CHECK(outliers[0].host.host == "h1");
  CHECK_THAT(outliers[0].cause, ContainsSubstring("housekeeping"));
}

TEST_CASE("a host that stalls in every slice is named though its peers' first slices stalled as long", "[probe]") {
  // stall_max_ms slices of a probe --quick on the cluster bed (4 hosts x 1 rank on 2 cores),
  // h2 held to 25% of a CPU by a cgroup quota: its watcher stops 56-63 ms in every slice;
  // the other hosts stopped 27-80 ms once, in their first slice, and 4-13 ms after it.
  const std::vector<ProbeRecord> records{stalls("h1", 0, {80.3, 13.0, 4.0, 6.5, 8.0}),
                                         stalls("h2", 1, {135.4, 63.0, 56.0, 60.0, 59.0}),
                                         stalls("h3", 2, {30.0, 8.0, 5.8, 6.7, 9.1}),
                                         stalls("h4", 3, {27.1, 8.0, 4.0, 9.0, 12.0})};
  const auto hosts = summarise_hosts(records);
  CHECK(hosts[0].typical_repeat == Approx(8.0));
  CHECK(named_hosts(outlier_hosts(hosts)) == std::vector<std::string>{"h2"});
  // The same peers with a host whose one long stall is its only one: nothing named.
  const std::vector<ProbeRecord> stray{stalls("h1", 0, {80.3, 13.0, 4.0, 6.5, 8.0}),
                                       stalls("h2", 1, {135.4, 9.0, 6.0, 10.0, 9.0}),
                                       stalls("h3", 2, {30.0, 8.0, 5.8, 6.7, 9.1}),
                                       stalls("h4", 3, {27.1, 8.0, 4.0, 9.0, 12.0})};
  CHECK(outlier_hosts(summarise_hosts(stray)).empty());
}

TEST_CASE("no host is named on a difference its peers' own spread explains", "[probe]") {
  const auto effective = [](std::vector<std::pair<std::string, double>> hosts) {
    std::vector<ProbeRecord> records;
    int rank = 0;
    for (const auto& [host, value] : hosts) records.push_back(on(host, rank++, ProbeMetric::all_cores_effective_ghz, value));
    return named_hosts(outlier_hosts(summarise_hosts(records)));
  };
  // Four clean fake hosts of a loaded two-core machine (a probe named h1 from these): h1
  // at half the others' median, but the others themselves range from 0.19 to 0.52.
  CHECK(effective({{"h0", 0.187}, {"h1", 0.142}, {"h2", 0.52}, {"h3", 0.284}}).empty());
  // Peers that agree: the same host at a sixth of them is named.
  CHECK(effective({{"h0", 0.95}, {"h1", 0.142}, {"h2", 0.9}, {"h3", 0.92}}) == std::vector<std::string>{"h1"});
  // Among many hosts two bad ones do not hide each other: the peers' spread is robust.
  std::vector<std::pair<std::string, double>> many;
  for (int h = 0; h < 16; ++h) many.push_back({"n" + std::to_string(h), 3.0 + 0.02 * (h % 4)});
  many[3].second = 0.4;
  many[11].second = 0.5;
  CHECK(effective(many) == std::vector<std::string>{"n3", "n11"});
  // Two hosts: the other host's own repeats are its spread. Rounds of 0.5 to 2.5 GHz
  // explain a host at 1.3.
  ProbeRecord noisy = measured_repeats(ProbeMetric::busy_effective_ghz, 1.5, {0.5, 2.5, 1.5, 1.6});
  noisy.host = "h0";
  ProbeRecord low = measured_repeats(ProbeMetric::busy_effective_ghz, 0.7, {0.7, 0.72, 0.68, 0.7});
  low.host = "h1";
  low.rank = 1;
  CHECK(outlier_hosts(summarise_hosts({noisy, low})).empty());
  // Ranges that overlap: a host whose best copy beats the other host's worst is not named,
  // though its best is half the other's best.
  const auto copies = [](const std::string& host, int rank, std::vector<double> gbps) {
    ProbeRecord r = measured_repeats(ProbeMetric::numa_local_copy_gbps, *std::max_element(gbps.begin(), gbps.end()), gbps);
    r.host = host;
    r.rank = rank;
    return r;
  };
  CHECK(outlier_hosts(summarise_hosts({copies("h0", 0, {1.6, 1.67, 1.5}), copies("h1", 1, {3.64, 1.4, 3.0})})).empty());
  CHECK(named_hosts(outlier_hosts(summarise_hosts({copies("h0", 0, {1.6, 1.67, 1.5}), copies("h1", 1, {3.64, 3.5, 3.6})}))) ==
        std::vector<std::string>{"h0"});
}

TEST_CASE("on a machine with one NUMA node no finding gives a NUMA cause", "[probe]") {
  // What probe_numa writes there: the remote figure and the placement skipped.
  const auto host = [](const std::string& name, int rank, double local_gbps) {
    std::vector<ProbeRecord> records{on(name, rank, ProbeMetric::numa_local_copy_gbps, local_gbps),
                                     skipped(ProbeMetric::numa_remote_copy_gbps, std::string(kOneNumaNode)),
                                     on(name, rank, ProbeMetric::memory_on_local_node, 1)};
    records[1].host = name;
    records[1].rank = rank;
    return records;
  };
  std::vector<ProbeRecord> records = host("h0", 0, 12);
  for (const auto& r : host("h1", 1, 3)) records.push_back(r);
  // An old record's placement at 0 (it cannot be on one node) is not judged either.
  records.back().value = 0;
  const auto findings = outlier_findings(outlier_hosts(summarise_hosts(records)));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].check == "probe.numa_local_copy_gbps");
  CHECK(findings[0].hosts == std::vector<std::string>{"h1"});
  CHECK_THAT(findings[0].fix, ContainsSubstring("memory bandwidth"));
  CHECK_THAT(findings[0].fix, !ContainsSubstring("numactl") && !ContainsSubstring("across NUMA"));
}

TEST_CASE("the cpu-hog aid is refused where it cannot slow its host alone", "[probe]") {
  const auto at = [](int rank, std::string host, std::string machine, std::vector<int> cpus) {
    return RankPlacement{rank, std::move(host), std::move(machine), std::move(cpus)};
  };
  // Two fake hosts of one 2-core machine, unbound: the hogged rank's cores are the other's.
  const auto unbound = cpu_hog_refusal({at(0, "h0", "m", {0, 1}), at(1, "h1", "m", {0, 1})}, 1);
  CHECK(unbound.refused());
  CHECK_THAT(unbound.message, ContainsSubstring("cannot slow host h1 alone") && ContainsSubstring("rank 0 of host h0"));
  CHECK_THAT(unbound.fix, ContainsSubstring("--bind-to core"));
  // Bound to a core each, on other machines, or sharing cores with its own host's ranks: fine.
  CHECK_FALSE(cpu_hog_refusal({at(0, "h0", "m", {0}), at(1, "h1", "m", {1})}, 1).refused());
  CHECK_FALSE(cpu_hog_refusal({at(0, "h0", "m", {0, 1}), at(1, "h1", "n", {0, 1})}, 1).refused());
  CHECK_FALSE(cpu_hog_refusal({at(0, "h0", "m", {0, 1}), at(1, "h0", "m", {0, 1}), at(2, "h1", "m", {2})}, 1).refused());
  CHECK_THAT(cpu_hog_refusal({at(0, "h0", "m", {0})}, 3).message, ContainsSubstring("names rank 3 of a launch of 1"));
}

TEST_CASE("a cpu-hog aid that did not make its host stand out says so in a note", "[probe]") {
  ProbeDocument d;
  d.ranks = 8;
  d.records = four_hosts([](ProbeRecord&) {});
  d.cpu_hog_rank = 5;  // on h2
  judge_hosts(d);
  CHECK(d.named_hosts.empty());
  REQUIRE(d.notes.size() == 1);
  CHECK_THAT(d.notes[0], ContainsSubstring("--inject-fault 5:cpu-hog did not make host h2 stand out"));
  CHECK_THAT(probe_report(d), ContainsSubstring("# note: the testing aid"));
  // Where it took, no note.
  d.records = four_hosts([](ProbeRecord& r) {
    if (r.rank == 5 && r.metric == ProbeMetric::busy_effective_ghz) r.value = 0.03;
  });
  judge_hosts(d);
  CHECK(d.named_hosts == std::vector<std::string>{"h2"});
  CHECK(d.notes.empty());
  // Without the aid, none either.
  d.cpu_hog_rank = -1;
  d.records = four_hosts([](ProbeRecord&) {});
  judge_hosts(d);
  CHECK(d.notes.empty());
}

TEST_CASE("a probe document is written and read back; skipped figures keep their reason", "[probe]") {
  ProbeDocument d;
  d.ranks = 2;
  d.records = four_hosts([](ProbeRecord&) {});
  ProbeRecord gpu = skipped(ProbeMetric::gemm_bf16_tflops, "no GPU visible");
  gpu.host = "h0";
  d.records.push_back(gpu);
  judge_hosts(d);
  const auto dir = ncclsweep::testing::scratch_root() / "probe";
  write_probe_document(d, dir);
  CHECK(is_probe_results(dir));
  CHECK_FALSE(is_probe_results(dir / "records.jsonl"));
  const ProbeDocument back = read_probe_document(dir);
  CHECK(back.records.size() == d.records.size());
  CHECK(back.records.back().skipped == "no GPU visible");
  CHECK(back.hosts == std::vector<std::string>{"h0", "h1", "h2", "h3"});
  const std::string report = probe_report(back);
  CHECK_THAT(report, ContainsSubstring("# skipped (no GPU visible): gemm_bf16_tflops"));
  CHECK_THAT(report, ContainsSubstring("no host stands out among the 4 host(s)"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a probe refuses before probing a directory holding another command's results, and re-probes its own",
          "[probe]") {
  namespace fs = std::filesystem;
  const auto root = ncclsweep::testing::scratch_root() / "probe-dir";
  fs::remove_all(root);
  // A run's directory: its records.jsonl would be replaced.
  fs::create_directories(root / "run");
  { std::ofstream(root / "run" / "records.jsonl") << "{\"a\":1}\n"; }
  try {
    check_probe_directory(root / "run");
    FAIL("a run's directory was accepted");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("holds another command's results"));
  }
  CHECK(fs::file_size(root / "run" / "records.jsonl") == 8);
  // A file where the directory should be.
  { std::ofstream(root / "file") << "x"; }
  CHECK_THROWS_AS(check_probe_directory(root / "file"), UsageError);
  // A new directory is created, and nothing is left in it; an earlier probe's is accepted.
  check_probe_directory(root / "new" / "probe");
  CHECK(fs::is_directory(root / "new" / "probe"));
  CHECK(fs::is_empty(root / "new" / "probe"));
  ProbeDocument d;
  d.records = four_hosts([](ProbeRecord&) {});
  judge_hosts(d);
  write_probe_document(d, root / "earlier");
  CHECK_NOTHROW(check_probe_directory(root / "earlier"));
  fs::remove_all(root);
}

TEST_CASE("a probe run compared with itself passes; a degraded host fails, named", "[probe][compare]") {
  const auto reference = four_hosts([](ProbeRecord&) {});
  const ProbeComparison self = compare_probe_records(reference, reference, {});
  CHECK(self.passed());
  CHECK_THAT(self.summary(), ContainsSubstring("-> PASS"));
  const auto degraded = four_hosts([](ProbeRecord& r) {
    if (r.host == "h1" && r.metric == ProbeMetric::numa_remote_copy_gbps) r.value = 4.0;
  });
  const ProbeComparison c = compare_probe_records(degraded, reference, {});
  CHECK_FALSE(c.passed());
  CHECK_THAT(c.summary(), ContainsSubstring("numa_remote_copy_gbps on h1"));
  int failing = 0;
  for (const auto& row : c.rows) failing += row.fails;
  CHECK(failing == 1);
  // Diagnose's platform row reads the failing figure as a warning on its host.
  CHECK(failing_findings(self).empty());
  const auto findings = failing_findings(c);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].check == "probe.numa_remote_copy_gbps");
  CHECK(findings[0].severity == ncclsweep::doctor::Severity::warning);
  CHECK(findings[0].hosts == std::vector<std::string>{"h1"});
  CHECK_THAT(findings[0].evidence, ContainsSubstring("h1 numa_remote_copy_gbps 4 GB/s against the reference's"));
  CHECK(findings[0].fix == std::string(metric_info(ProbeMetric::numa_remote_copy_gbps).cause));
  // Lower is better for stalls: fewer stalls than the reference is better, never a failure.
  const auto calmer = four_hosts([](ProbeRecord& r) {
    if (r.metric == ProbeMetric::stall_max_ms) r.value = 0.1;
  });
  CHECK(compare_probe_records(calmer, reference, {}).passed());
  CHECK_THAT(usage_error_text([&] { compare_probe_records(degraded, {}, {}); }), ContainsSubstring("share no"));
}

TEST_CASE("a figure worse than the reference fails only beyond its metric's own tolerance", "[probe][compare]") {
  const auto records = [](double mmap_us, double clock_ghz) {
    std::vector<ProbeRecord> out;
    for (int rank = 0; rank < 2; ++rank) {
      out.push_back(on("h" + std::to_string(rank), rank, ProbeMetric::host_mmap_64mib_us, mmap_us));
      out.push_back(on("h" + std::to_string(rank), rank, ProbeMetric::busy_clock_ghz, clock_ghz));
    }
    return out;
  };
  const auto reference = records(31000, 3.0);
  const auto failing = [&](double mmap_us, double clock_ghz) {
    std::vector<std::string> metrics;
    for (const auto& row : compare_probe_records(records(mmap_us, clock_ghz), reference, {}).rows) {
      if (row.fails && row.host == "h0") metrics.emplace_back(kProbeMetricNames.name(row.metric));
    }
    return metrics;
  };
  // A map/unmap 1.3x the reference's (what two launches a minute apart on one idle VM
  // showed) is worse but within its tolerance; 2.5x fails.
  CHECK(failing(40000, 3.0).empty());
  CHECK(failing(77500, 3.0) == std::vector<std::string>{"host_mmap_64mib_us"});
  // A core clock 8% low is within its 15%; 17% low fails, under compare's 95% as before.
  CHECK(failing(31000, 2.75).empty());
  CHECK(failing(31000, 2.5) == std::vector<std::string>{"busy_clock_ghz"});
  CHECK(failing_ratio(metric_info(ProbeMetric::host_mmap_64mib_us), 0.95) == Approx(0.5));
  CHECK(failing_ratio(metric_info(ProbeMetric::busy_clock_ghz), 0.8) == Approx(0.8));  // a stricter --threshold stays
}

TEST_CASE("a reference whose own hosts disagree widely judges nothing inside that spread worse", "[probe][compare]") {
  // One host of a busy machine at 2.0 GHz effective, the others at 2.9: compared with
  // itself, the slower one is the reference's own spread, not a regression.
  const auto uneven = four_hosts([](ProbeRecord& r) {
    if (r.metric == ProbeMetric::busy_effective_ghz && r.host == "h0") r.value = 2.0;
  });
  CHECK(compare_probe_records(uneven, uneven, {}).passed());
  // A host far below even the slowest reference host still fails.
  const auto worse = four_hosts([](ProbeRecord& r) {
    if (r.metric == ProbeMetric::busy_effective_ghz && r.host == "h2") r.value = 0.5;
  });
  CHECK_FALSE(compare_probe_records(worse, uneven, {}).passed());
}

TEST_CASE("an unresolved figure is compared as unresolved: never better, never a failure", "[probe][compare]") {
  const auto reference = four_hosts([](ProbeRecord&) {});
  // h2's stall watcher starved: its stall figures are unresolved, the rest measured.
  auto starved = four_hosts([](ProbeRecord&) {});
  for (auto& r : starved) {
    if (r.host == "h2" && r.metric == ProbeMetric::stall_max_ms) {
      r = unresolved(ProbeMetric::stall_max_ms, "the stall watcher read the clock in only 1 of 5 slices");
      r.host = "h2";
    }
  }
  const ProbeComparison c = compare_probe_records(starved, reference, {});
  CHECK(c.passed());
  int rows = 0;
  for (const auto& row : c.rows) {
    if (row.metric != ProbeMetric::stall_max_ms || row.host != "h2") continue;
    ++rows;
    CHECK(row.verdict == Verdict::unresolved);
    CHECK_THAT(row.unresolved, ContainsSubstring("new: the stall watcher"));
  }
  CHECK(rows == 1);
  CHECK_THAT(c.summary(), ContainsSubstring("1 unresolved"));
  const std::string table = probe_comparison_table(c);
  CHECK_THAT(table, ContainsSubstring("# h2 stall_max_ms unresolved (new: the stall watcher"));
  // Unresolved in the reference on every host: each NEW host's figure is unresolved.
  auto unresolved_reference = reference;
  for (auto& r : unresolved_reference) {
    if (r.metric == ProbeMetric::stall_max_ms) r.unresolved = "starved";
  }
  int against_unresolved = 0;
  for (const auto& row : compare_probe_records(reference, unresolved_reference, {}).rows) {
    if (row.metric == ProbeMetric::stall_max_ms) against_unresolved += row.verdict == Verdict::unresolved;
  }
  CHECK(against_unresolved == 4);
}

// A real probe of one H200 (tests/data/real/h200-probe: every GPU figure measured; the
// GPU already reports sw_power_cap under the GEMM there). Clocks cannot be capped on
// that machine, so a cap is written into a copy of the record: as one of three hosts it
// is the one named, and against the record as reference it fails on those figures.
TEST_CASE("recorded H200 probe: a copy with its GPU clock capped is named among alike hosts and fails against the record",
          "[probe][recorded]") {
  const ProbeDocument recorded = read_probe_document(NCCLSWEEP_TEST_DATA "/real/h200-probe");
  const auto value_of = [](const std::vector<ProbeRecord>& records, ProbeMetric metric) {
    for (const auto& r : records) {
      if (r.metric == metric && r.skipped.empty()) return r.value;
    }
    return -1.0;
  };
  REQUIRE(value_of(recorded.records, ProbeMetric::gpu_sm_clock_under_load_mhz) > 1000);
  REQUIRE(value_of(recorded.records, ProbeMetric::gemm_bf16_tflops) > 100);
  // The GPU's clock held at 65% under load, and its GEMM with it.
  const auto capped = [&](std::vector<ProbeRecord> records) {
    for (auto& r : records) {
      if (r.metric == ProbeMetric::gpu_sm_clock_under_load_mhz || r.metric == ProbeMetric::gemm_bf16_tflops) r.value *= 0.65;
    }
    return records;
  };
  const auto as_host = [](std::vector<ProbeRecord> records, const std::string& host, int rank) {
    for (auto& r : records) r.host = host, r.rank = rank;
    return records;
  };
  ProbeDocument three;
  for (const auto& part : {as_host(recorded.records, "a", 0), as_host(recorded.records, "b", 1),
                           as_host(capped(recorded.records), "c", 2)}) {
    three.records.insert(three.records.end(), part.begin(), part.end());
  }
  judge_hosts(three);
  CHECK(three.named_hosts == std::vector<std::string>{"c"});
  ProbeDocument alike;
  for (const auto& part : {as_host(recorded.records, "a", 0), as_host(recorded.records, "b", 1)}) {
    alike.records.insert(alike.records.end(), part.begin(), part.end());
  }
  judge_hosts(alike);
  CHECK(alike.named_hosts.empty());

  CHECK(compare_probe_records(recorded.records, recorded.records, {}).passed());
  const ProbeComparison c = compare_probe_records(capped(recorded.records), recorded.records, {});
  CHECK_FALSE(c.passed());
  CHECK_THAT(c.summary(), ContainsSubstring("gpu_sm_clock_under_load_mhz"));
}
