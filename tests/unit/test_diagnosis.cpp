// diagnose's attribution (compare/diagnosis.hpp): layer evidence -> one row per layer with
// a verdict and its share of the gap in time per iteration; the communication time of a
// comparison's rows; the budget's plan; the result's formats.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "compare/comparison.hpp"
#include "compare/diagnosis.hpp"
#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "report/diagnosis_report.hpp"
#include "runtime/diagnose_budget.hpp"

using namespace ncclsweep;

namespace {

// A gate over `n` rows all at `ratio`, each a single figure with 2% noise on both sides.
AcceptanceGate gate_over(double ratio, int n = 20) {
  GateRow row;
  row.ratio = ratio;
  row.new_sigma = 0.02;
  row.reference_sigma = 0.02;
  return evaluate_gate(std::vector<GateRow>(static_cast<std::size_t>(n), row), {});
}

// Evidence from a launch on several hosts where every layer was measured and nothing
// stood out, and the calls took `new_ms` here against `reference_ms`.
DiagnoseEvidence measured(double ratio, double new_ms, double reference_ms, int rows = 20) {
  DiagnoseEvidence e;
  e.platform_measured = true;
  e.platform_against = "the other hosts";
  e.hosts_threshold = 0.25;
  e.gate = gate_over(ratio, rows);
  CommunicationTime t;
  t.new_ms = new_ms;
  t.reference_ms = reference_ms;
  t.calls = rows;
  e.time = t;
  return e;
}

const LayerRow& row_of(const Diagnosis& d, DiagnoseLayer layer) {
  for (const LayerRow& r : d.rows) {
    if (r.layer == layer) return r;
  }
  FAIL("no row for " << name_of(layer));
  return d.rows.front();
}

int causes(const Diagnosis& d) {
  int n = 0;
  for (const LayerRow& r : d.rows) n += r.verdict == LayerVerdict::cause;
  return n;
}

doctor::Finding finding(const std::string& check, doctor::Severity severity, const std::string& host) {
  return doctor::Finding{check, severity, {1}, {host}, check + " on " + host, "fix " + check};
}

}  // namespace

TEST_CASE("diagnose: a clean launch at the reference's pace calls nothing a cause and passes") {
  const Diagnosis d = attribute(measured(1.0, 10.0, 10.0));
  REQUIRE(d.rows.size() == 4);
  CHECK(causes(d) == 0);
  for (const LayerRow& r : d.rows) CHECK(r.verdict == LayerVerdict::fine);
  CHECK(d.gate->verdict == GateVerdict::pass);
  CHECK(d.exit_status() == kExitOk);
  CHECK_FALSE(row_of(d, DiagnoseLayer::collectives).share.has_value());  // no gap: nothing to share out
}

TEST_CASE("diagnose: a slow host explains the gap on the hosts layer, naming it") {
  DiagnoseEvidence e = measured(0.5, 20.0, 10.0);
  e.slow = {SlowSubject{"host", {"h2"}, {2}, 0.05}};
  const Diagnosis d = attribute(e);
  const LayerRow& hosts = row_of(d, DiagnoseLayer::hosts);
  CHECK(hosts.verdict == LayerVerdict::cause);
  CHECK(hosts.hosts == std::vector<std::string>{"h2"});
  REQUIRE(hosts.share.has_value());
  CHECK(*hosts.share == Approx(1.0));  // 20 ms x 0.95 is more than the 10 ms gap
  CHECK(*hosts.gap_ms == Approx(10.0));
  CHECK(causes(d) == 1);
  CHECK(row_of(d, DiagnoseLayer::collectives).verdict == LayerVerdict::fine);
  CHECK(d.exit_status() == kExitRegression);
}

TEST_CASE("diagnose: a host below the threshold within noise is unresolved, named; the calls do not claim its gap") {
  // locate on the cluster bed, h3's link limited: h3's pairs at 0.03 of the others', but
  // three healthy pairs 1.0-1.8 apart tell a host from noise only below 0.02.
  DiagnoseEvidence e = measured(0.04, 37.0, 1.5);
  e.unsettled = {SlowSubject{"host", {"h3"}, {2}, 0.03}, SlowSubject{"link", {"h1", "h3"}, {0, 2}, 0.03}};
  e.hosts_settle = "pairs phase: this run tells a host from noise only below 0.02x";
  const Diagnosis d = attribute(e);
  const LayerRow& hosts = row_of(d, DiagnoseLayer::hosts);
  CHECK(hosts.verdict == LayerVerdict::unresolved);
  CHECK(hosts.hosts == std::vector<std::string>{"h3", "h1"});
  CHECK_THAT(hosts.here, ContainsSubstring("within this run's noise") && ContainsSubstring("host h3 at 0.03"));
  CHECK_THAT(hosts.next, ContainsSubstring("only below 0.02x"));
  CHECK_FALSE(hosts.share.has_value());
  const LayerRow& calls = row_of(d, DiagnoseLayer::collectives);
  CHECK(calls.verdict == LayerVerdict::unresolved);
  CHECK_THAT(calls.next, ContainsSubstring("settle that row first"));
  CHECK(causes(d) == 0);
  CHECK(d.exit_status() == kExitRegression);  // the gate answers the acceptance question alone
  // Slow subjects decide: the unsettled ones are then not shown.
  e.slow = {SlowSubject{"host", {"h3"}, {2}, 0.01}};
  const Diagnosis settled = attribute(e);
  CHECK(row_of(settled, DiagnoseLayer::hosts).verdict == LayerVerdict::cause);
  CHECK(row_of(settled, DiagnoseLayer::hosts).hosts == std::vector<std::string>{"h3"});
  // Unsettled hosts that would explain little leave the rest of the gap to the calls.
  DiagnoseEvidence little = measured(0.5, 20.0, 10.0);
  little.unsettled = {SlowSubject{"host", {"h2"}, {2}, 0.9}};  // 20 ms x 0.1 = 2 of the 10 ms gap
  CHECK(row_of(attribute(little), DiagnoseLayer::collectives).verdict == LayerVerdict::cause);
}

TEST_CASE("diagnose: a host slower by a little leaves the rest of the gap to the collectives") {
  DiagnoseEvidence e = measured(0.5, 20.0, 10.0);
  e.slow = {SlowSubject{"link", {"h0", "h1"}, {0, 1}, 0.8}};  // 20 ms x 0.2 = 4 of the 10 ms gap
  const Diagnosis d = attribute(e);
  CHECK(*row_of(d, DiagnoseLayer::hosts).share == Approx(0.4));
  const LayerRow& calls = row_of(d, DiagnoseLayer::collectives);
  CHECK(*calls.share == Approx(0.6));
  CHECK(calls.verdict == LayerVerdict::cause);
  CHECK(row_of(d, DiagnoseLayer::hosts).hosts == std::vector<std::string>{"h0", "h1"});
}

TEST_CASE("diagnose: a platform signal on the slow host is the cause there; the host row is where it shows") {
  DiagnoseEvidence e = measured(0.5, 20.0, 10.0);
  e.slow = {SlowSubject{"host", {"h1"}, {1}, 0.1}};
  e.platform = {finding("probe.busy_clock_ghz", doctor::Severity::warning, "h1")};
  const Diagnosis d = attribute(e);
  const LayerRow& platform = row_of(d, DiagnoseLayer::platform);
  CHECK(platform.verdict == LayerVerdict::cause);
  CHECK(platform.hosts == std::vector<std::string>{"h1"});
  CHECK(*platform.share == Approx(1.0));
  CHECK(row_of(d, DiagnoseLayer::hosts).verdict == LayerVerdict::suspect);
  CHECK_FALSE(row_of(d, DiagnoseLayer::hosts).share.has_value());
  CHECK(causes(d) == 1);
}

TEST_CASE("diagnose: a platform signal that costs nothing measured is a suspect, not a cause") {
  DiagnoseEvidence e = measured(1.0, 10.0, 10.0);
  e.platform = {finding("probe.busy_clock_ghz", doctor::Severity::warning, "h3")};
  const Diagnosis d = attribute(e);
  CHECK(row_of(d, DiagnoseLayer::platform).verdict == LayerVerdict::suspect);
  CHECK(row_of(d, DiagnoseLayer::platform).hosts == std::vector<std::string>{"h3"});
  CHECK(row_of(d, DiagnoseLayer::platform).next == "fix probe.busy_clock_ghz");
  CHECK(causes(d) == 0);
}

TEST_CASE("diagnose: a gap no layer explains is the collectives' cause, all of it") {
  const Diagnosis d = attribute(measured(0.8, 12.5, 10.0));
  const LayerRow& calls = row_of(d, DiagnoseLayer::collectives);
  CHECK(calls.verdict == LayerVerdict::cause);
  CHECK(*calls.share == Approx(1.0));
  CHECK(*calls.gap_ms == Approx(2.5));
  CHECK_THAT(calls.next, ContainsSubstring("--search"));
  CHECK(causes(d) == 1);
  CHECK(d.exit_status() == kExitRegression);
}

TEST_CASE("diagnose: an undecided gate leaves the collectives unresolved, naming the repeats") {
  const Diagnosis d = attribute(measured(0.95, 10.5, 10.0, 3));
  REQUIRE(d.gate->verdict == GateVerdict::unresolved);
  const LayerRow& calls = row_of(d, DiagnoseLayer::collectives);
  CHECK(calls.verdict == LayerVerdict::unresolved);
  if (d.gate->repeats_to_settle) {
    CHECK_THAT(calls.next, ContainsSubstring("--repeats " + std::to_string(*d.gate->repeats_to_settle)));
  } else {
    CHECK_THAT(calls.next, ContainsSubstring("no number of repeats"));
  }
  CHECK(d.exit_status() == kExitUnresolved);
}

TEST_CASE("diagnose: a preflight error is a cause naming its hosts; a warning a suspect") {
  DiagnoseEvidence e = measured(1.0, 10.0, 10.0);
  e.preflight = {finding("env.uniform", doctor::Severity::error, "h2"),
                 finding("env.config_file", doctor::Severity::info, "h0")};
  Diagnosis d = attribute(e);
  const LayerRow& preflight = row_of(d, DiagnoseLayer::preflight);
  CHECK(preflight.verdict == LayerVerdict::cause);
  CHECK(preflight.hosts == std::vector<std::string>{"h2"});  // the information finding names no host
  CHECK_THAT(preflight.here, ContainsSubstring("env.uniform"));
  CHECK(preflight.next == "fix env.uniform");
  e.preflight = {finding("env.config_file", doctor::Severity::warning, "h0")};
  d = attribute(e);
  CHECK(row_of(d, DiagnoseLayer::preflight).verdict == LayerVerdict::suspect);
}

TEST_CASE("diagnose: what one host cannot judge, and a missing comparison, stay unresolved") {
  DiagnoseEvidence e;
  e.hosts_skipped = "one host (h0): no other host to judge it against";
  e.collectives_note = "not compared: no common row";
  const Diagnosis d = attribute(e);
  CHECK(row_of(d, DiagnoseLayer::platform).verdict == LayerVerdict::unresolved);
  CHECK(row_of(d, DiagnoseLayer::hosts).verdict == LayerVerdict::unresolved);
  CHECK(row_of(d, DiagnoseLayer::collectives).verdict == LayerVerdict::unresolved);
  CHECK(row_of(d, DiagnoseLayer::collectives).here == "not compared: no common row");
  CHECK(row_of(d, DiagnoseLayer::preflight).verdict == LayerVerdict::fine);
  CHECK(d.exit_status() == kExitUnresolved);
}

TEST_CASE("diagnose: a phase that stopped leaves its row unresolved and its status the launch's") {
  DiagnoseEvidence e = measured(1.0, 10, 10);
  e.hosts_stopped = "the phase stopped with exit status 3 (out/locate)";
  Diagnosis d = attribute(e);
  const LayerRow& hosts = row_of(d, DiagnoseLayer::hosts);
  CHECK(hosts.verdict == LayerVerdict::unresolved);
  CHECK(hosts.here == "not judged: the phase stopped with exit status 3 (out/locate)");
  CHECK(hosts.hosts.empty());
  CHECK(d.exit_status() == kExitOk);  // the gate's, while no phase stopped the launch
  d.stopped_status = kExitRuntime;
  CHECK(d.exit_status() == kExitRuntime);
  d.stopped_status = 130;  // SIGINT
  CHECK(d.exit_status() == 130);
}

TEST_CASE("diagnose: communication time sums the compared out-of-place rows, or the workload's calls") {
  Comparison c;
  const auto add = [&](Bytes size, Placement placement, double new_us, double reference_us) {
    RowComparison r;
    r.key = RowKey{&collective("all_reduce"), &data_type("float32"), ReduceOp::sum, size, placement, {}};
    r.new_row.key = r.key;
    r.reference_row.key = r.key;
    r.new_row.time_us = new_us;
    r.reference_row.time_us = reference_us;
    c.rows.push_back(r);
  };
  add(1024, Placement::out_of_place, 200, 100);
  add(1024, Placement::in_place, 900, 900);  // not summed: in-place
  add(4096, Placement::out_of_place, 400, 300);
  const auto plain = communication_time(c, std::nullopt);
  REQUIRE(plain);
  CHECK(plain->unit == "ms/pass");
  CHECK(plain->new_ms == Approx(0.6));
  CHECK(plain->reference_ms == Approx(0.4));
  CHECK(plain->calls == 2);

  WorkloadWeights w;
  WorkloadCall call;
  call.collective = &collective("all_reduce");
  call.dtype = &data_type("float32");
  call.bytes = 4096;
  call.calls = 10;
  w.calls = {call};
  const auto weighted = communication_time(c, w);
  REQUIRE(weighted);
  CHECK(weighted->unit == "ms/iter");
  CHECK(weighted->new_ms == Approx(4.0));  // 10 calls x 400 us
  CHECK(weighted->reference_ms == Approx(3.0));
  CHECK(weighted->calls == 1);
  CHECK_FALSE(communication_time(Comparison{}, std::nullopt).has_value());
}

TEST_CASE("diagnose budget: phases planned up front, and a budget they cannot fit refused") {
  const auto options = diagnose_locate_options(EngineKind::mpi);
  const DiagnoseBudget one_host = plan_diagnose_budget(600, {2}, options, EngineKind::mpi, 12);
  REQUIRE(one_host.phases.size() == 4);
  CHECK(one_host.phases[2].planned_s == 0);  // no tournament on one host
  double sum = 0;
  for (const auto& p : one_host.phases) sum += p.planned_s;
  CHECK(sum == Approx(600));
  CHECK(one_host.per_measurement_s == Approx(one_host.phases[3].planned_s * kBudgetModel.timed_share / 12));
  const DiagnoseBudget four = plan_diagnose_budget(600, {2, 2, 2, 2}, options, EngineKind::mpi, 12);
  CHECK(four.phases[2].planned_s > 0);
  CHECK(four.phases[3].planned_s < one_host.phases[3].planned_s);
  CHECK_THROWS_AS(plan_diagnose_budget(15, {2}, options, EngineKind::mpi, 12), UsageError);
  CHECK_THROWS_WITH(plan_diagnose_budget(30, {2}, options, EngineKind::mpi, 10000), ContainsSubstring("cannot hold"));
}

namespace {

// A search of `bands` bands; the first `won` of them won by `winner` at `gain` in the A/B.
SearchSummary searched(int bands, int won, const std::string& winner, double gain, bool settled = true) {
  SearchSummary s;
  s.baseline = "NCCL_PROTO=LL";
  s.measurements = 40;
  for (int i = 0; i < bands; ++i) {
    SearchBandSummary b;
    b.band = "all_gather band " + std::to_string(i);
    b.settled = settled;
    b.ab_measured = true;
    if (i < won) {
      b.winner = winner;
      b.ab_gain = gain;
    }
    s.bands.push_back(b);
  }
  return s;
}

}  // namespace

TEST_CASE("diagnose --sweep: a setting the A/B confirmed is the cause of the gap it closes, the rest the calls'") {
  DiagnoseEvidence e = measured(0.5, 20.0, 10.0);
  e.settings_sweep = "qps.yaml";
  e.settings = searched(2, 2, "NCCL_PROTO=Simple", 0.25);
  const Diagnosis d = attribute(e);
  REQUIRE(d.rows.size() == 5);
  const LayerRow& settings = row_of(d, DiagnoseLayer::settings);
  CHECK(settings.verdict == LayerVerdict::cause);
  CHECK_THAT(settings.here, ContainsSubstring("NCCL_PROTO=Simple: +25.0% algbw"));
  CHECK_THAT(settings.next, ContainsSubstring("set NCCL_PROTO=Simple"));
  CHECK_THAT(settings.reference, ContainsSubstring("NCCL_PROTO=LL"));
  // 25% faster saves 20 ms x (1 - 1/1.25) = 4 ms of the 10 ms gap.
  REQUIRE(settings.share.has_value());
  CHECK(*settings.share == Approx(0.4));
  CHECK(*row_of(d, DiagnoseLayer::collectives).share == Approx(0.6));
  CHECK_THAT(row_of(d, DiagnoseLayer::collectives).next, ContainsSubstring("NCCL settings row"));
}

TEST_CASE("diagnose --sweep: a winner in some bands is a cause of unknown share; none, fine; unsettled, unresolved") {
  DiagnoseEvidence e = measured(0.5, 20.0, 10.0);
  e.settings_sweep = "qps.yaml";
  e.settings = searched(3, 1, "NCCL_ALGO=Tree", 0.1);
  const LayerRow partly = row_of(attribute(e), DiagnoseLayer::settings);
  CHECK(partly.verdict == LayerVerdict::cause);
  CHECK_FALSE(partly.share.has_value());
  CHECK_THAT(partly.here, ContainsSubstring("1 of 3 band(s) won"));

  e.settings = searched(3, 0, "", 0);
  const LayerRow none = row_of(attribute(e), DiagnoseLayer::settings);
  CHECK(none.verdict == LayerVerdict::fine);
  CHECK_THAT(none.here, ContainsSubstring("beats the job's own"));
  CHECK(row_of(attribute(e), DiagnoseLayer::collectives).verdict == LayerVerdict::cause);

  e.settings = searched(3, 0, "", 0, false);
  CHECK(row_of(attribute(e), DiagnoseLayer::settings).verdict == LayerVerdict::unresolved);

  e.settings.reset();
  e.settings_note = "the search stopped with exit status 3";
  const LayerRow failed = row_of(attribute(e), DiagnoseLayer::settings);
  CHECK(failed.verdict == LayerVerdict::unresolved);
  CHECK_THAT(failed.here, ContainsSubstring("exit status 3"));

  // At the reference's pace a winning setting is an improvement to offer, not a cause.
  DiagnoseEvidence clean = measured(1.0, 10.0, 10.0);
  clean.settings_sweep = "qps.yaml";
  clean.settings = searched(2, 2, "NCCL_PROTO=Simple", 0.25);
  CHECK(row_of(attribute(clean), DiagnoseLayer::settings).verdict == LayerVerdict::suspect);
  CHECK(causes(attribute(clean)) == 0);
  CHECK(attribute(measured(1.0, 10.0, 10.0)).rows.size() == 4);  // no --sweep, no row
}

TEST_CASE("diagnose budget: --sweep gives the settings search its share of what the fixed phases leave") {
  const auto options = diagnose_locate_options(EngineKind::mpi);
  const DiagnoseBudget plain = plan_diagnose_budget(600, {2}, options, EngineKind::mpi, 12);
  const DiagnoseBudget searched_too = plan_diagnose_budget(600, {2}, options, EngineKind::mpi, 12, true);
  REQUIRE(searched_too.phases.size() == 5);
  CHECK(searched_too.phases[4].phase == "NCCL settings");
  CHECK(searched_too.phases[4].planned_s == Approx(plain.phases[3].planned_s * kBudgetModel.settings_share));
  CHECK(searched_too.phases[3].planned_s + searched_too.phases[4].planned_s == Approx(plain.phases[3].planned_s));
  // The smallest budget that holds the calls holds them with the search too only when larger.
  CHECK_NOTHROW(plan_diagnose_budget(60, {2}, options, EngineKind::mpi, 12));
  CHECK_THROWS_WITH(plan_diagnose_budget(60, {2}, options, EngineKind::mpi, 400, true), ContainsSubstring("cannot hold"));
}

TEST_CASE("diagnose formats: JSON carries every row, the SVG one bar per layer, csv is refused") {
  DiagnoseEvidence e = measured(0.5, 20.0, 10.0);
  e.slow = {SlowSubject{"host", {"h2"}, {2}, 0.05}};
  Diagnosis d = attribute(e);
  d.reference = "ref";
  d.budget_s = 600;
  d.phases = {{"preflight", 5, 1.0}, {"platform", 15, 3.0}, {"hosts and links", 30, {}}, {"collectives", 550, 20.0}};
  std::ostringstream json_text;
  print_diagnosis(d, ReportFormat::json, json_text);
  const auto j = nlohmann::json::parse(json_text.str());
  REQUIRE(j.at("layers").size() == 4);
  CHECK(j.at("layers")[2].at("layer") == "hosts and links");
  CHECK(j.at("layers")[2].at("verdict") == "cause");
  CHECK(j.at("layers")[2].at("hosts") == nlohmann::json{"h2"});
  CHECK(j.at("layers")[0].at("share").is_null());
  CHECK(j.at("acceptance").at("verdict") == "FAIL");
  CHECK(j.at("exit_status") == static_cast<int>(kExitRegression));
  CHECK(j.at("phases")[2].at("used_s").is_null());
  std::ostringstream svg;
  print_diagnosis(d, ReportFormat::svg, svg);
  std::size_t bars = 0;
  for (auto at = svg.str().find("<rect x="); at != std::string::npos; at = svg.str().find("<rect x=", at + 1)) ++bars;
  CHECK(bars == 4);
  std::ostringstream table;
  print_diagnosis(d, ReportFormat::table, table);
  CHECK_THAT(table.str(), ContainsSubstring("hosts and links  cause"));
  CHECK_THAT(table.str(), ContainsSubstring("acceptance at target 0.95: FAIL"));
  std::ostringstream md;
  print_diagnosis(d, ReportFormat::md, md);
  CHECK_THAT(md.str(), ContainsSubstring("| hosts and links |"));
  std::ostringstream csv;
  CHECK_THROWS_AS(print_diagnosis(d, ReportFormat::csv, csv), UsageError);
  CHECK(csv.str().empty());
}

TEST_CASE("diagnose --plan shows a cap per measurement under a second as it is, not as 0 s") {
  DiagnosePlan plan;
  plan.reference = "ref";
  plan.budget_s = 60;
  plan.phases = {{"preflight", 5, std::nullopt}, {"platform", 30, std::nullopt}, {"hosts and links", 0, std::nullopt},
                 {"collectives", 25, std::nullopt}};
  plan.ranks = 1;
  plan.hosts = 1;
  plan.measurements = 36;
  plan.per_measurement_s = 0.35;
  std::ostringstream text;
  print_diagnose_plan(plan, ReportFormat::table, text);
  INFO(text.str());
  CHECK_THAT(text.str(), ContainsSubstring("each at most 0.35 s timed"));
  CHECK_THAT(text.str(), ContainsSubstring("budget 60 s (preflight 5 s, platform 30 s"));
}

TEST_CASE("diagnose --plan says where the calls' repeats came from") {
  DiagnosePlan plan;
  plan.reference = "ref";
  plan.phases = {{"collectives", 25, std::nullopt}};
  plan.measurements = 18;
  const auto shown = [&](int repeats, RepeatsSource from, int reference_repeats) {
    plan.repeats = repeats;
    plan.repeats_from = from;
    plan.reference_repeats = reference_repeats;
    plan.wanted_repeats = std::clamp(reference_repeats, kDiagnoseMinRepeats, kDiagnoseMaxRepeats);
    std::ostringstream text;
    print_diagnose_plan(plan, ReportFormat::table, text);
    return text.str();
  };
  CHECK_THAT(shown(3, RepeatsSource::reference, 3), ContainsSubstring("(calls x placements x repeats), 3 repeats (as the reference's 3)"));
  CHECK_THAT(shown(3, RepeatsSource::reference, 1), ContainsSubstring("3 repeats (the reference's 1 within 3-10)"));
  CHECK_THAT(shown(10, RepeatsSource::reference, 40), ContainsSubstring("10 repeats (the reference's 40 within 3-10)"));
  CHECK_THAT(shown(2, RepeatsSource::budget, 5), ContainsSubstring("2 repeats (the budget does not hold the reference's 5)"));
  // An nccl-tests reference has one repeat: diagnose wanted three, and the budget held two.
  CHECK_THAT(shown(2, RepeatsSource::budget, 1),
             ContainsSubstring("2 repeats (the budget does not hold 3, the reference's 1 within 3-10)"));
  CHECK_THAT(shown(1, RepeatsSource::flag, 5), ContainsSubstring("1 repeat (--repeats)"));
  std::ostringstream json_text;
  print_diagnose_plan(plan, ReportFormat::json, json_text);
  const nlohmann::json doc = nlohmann::json::parse(json_text.str());
  CHECK(doc.at("repeats") == 1);
  CHECK(doc.at("repeats_from") == "--repeats");
  CHECK(doc.at("reference_repeats") == 5);
  CHECK(doc.at("wanted_repeats") == 5);
}
