// The acceptance gate (compare/acceptance_gate.hpp): rows pooled with NEW's noise, part of
// it shared by every row, against a target; the repeats that would settle an UNRESOLVED
// one; weights by precision or by a workload's time per iteration. Judged on rows made
// here and on a real nccl-tests table made slower by a known ratio.
#include <cmath>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "nccl_tests_scaling.hpp"
#include "read_file.hpp"
#include "test_data.hpp"
#include "compare/acceptance_gate.hpp"
#include "compare/comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"

using namespace ncclsweep;

namespace {

// `n` rows at `ratio`, each measured once with a band of +-4% (sigma 2%) on both sides:
// the default band of a bandwidth-bound single figure.
std::vector<GateRow> uniform_rows(double ratio, int n, double sigma = 0.02, int repeats = 1) {
  GateRow r;
  r.ratio = ratio;
  r.new_sigma = sigma;
  r.new_repeats = repeats;
  r.reference_sigma = sigma;
  return std::vector<GateRow>(static_cast<std::size_t>(n), r);
}

AcceptanceGate gate_at(double ratio, int n, double sigma = 0.02, int repeats = 1) {
  return evaluate_gate(uniform_rows(ratio, n, sigma, repeats), {});
}

// The pooled standard error, read back from the interval the gate printed.
double standard_error(const AcceptanceGate& g) { return std::log(g.upper / g.lower) / (2 * kGateZ); }

// A real all_gather table (2x H200, 8 B to 8 GiB) and a copy of it `ratio` as fast, judged
// as compare judges them from 1 MiB up: 28 rows.
Comparison scaled_comparison(double ratio) {
  const auto path = kNcclTestsData / "nccl-tests-all_gather-g2-8B-8G.txt";
  const std::string text = read_file(path);
  const Side reference = side_from_nccl_tests_text(text, path.string());
  const Side slower = side_from_nccl_tests_text(scaled_nccl_tests(text, ratio), "scaled.txt");
  CompareOptions options;
  options.min_size = kMiB;
  options.target = kDefaultTarget;
  return compare_sides(slower, reference, options);
}

}  // namespace

TEST_CASE("gate: runs at 90, 94, 96 and 100% of the reference, never PASS below the target") {
  // 28 rows, each alone too noisy to tell 94% from 95% (a band of +-4% a side).
  CHECK(gate_at(0.90, 28).verdict == GateVerdict::fail);
  CHECK(gate_at(0.94, 28).verdict != GateVerdict::pass);
  CHECK(gate_at(0.96, 28).verdict != GateVerdict::fail);
  CHECK(gate_at(1.00, 28).verdict == GateVerdict::pass);
  for (double ratio = 0.80; ratio < kDefaultTarget; ratio += 0.005) {
    for (int n : {1, 3, 28, 1000}) {
      INFO(ratio << " over " << n << " rows");
      CHECK(gate_at(ratio, n).verdict != GateVerdict::pass);
      CHECK(gate_at(ratio, n, 0.005, 10).verdict != GateVerdict::pass);
    }
  }
  // A gate's figures: the rows' ratio, an interval around it.
  const AcceptanceGate g = gate_at(0.94, 28);
  CHECK(g.ratio == Approx(0.94));
  CHECK(g.lower < 0.94);
  CHECK(g.upper > 0.94);
  CHECK(g.rows == 28);
}

TEST_CASE("gate: rows that moved together are evidence together, but shared noise is not averaged away") {
  // One row 8% down is inside its own noise; 28 such rows are not.
  CHECK(gate_at(0.92, 1).verdict == GateVerdict::unresolved);
  CHECK(gate_at(0.92, 28).verdict == GateVerdict::fail);
  // Half of each row's variance moves every row at once: however many rows, the standard
  // error stays at sqrt(0.5) of a row's sigma (2%), where independent rows would shrink it
  // by sqrt(1000).
  const AcceptanceGate many = gate_at(0.94, 1000);
  CHECK(standard_error(many) >= std::sqrt(kSharedNoiseShare) * 0.02 * 0.999);
  CHECK(standard_error(many) < std::sqrt(kSharedNoiseShare) * 0.02 * 1.01);
  CHECK(many.verdict == GateVerdict::unresolved);
  GateSettings independent;
  independent.shared_share = 0;
  const AcceptanceGate blind = evaluate_gate(uniform_rows(0.94, 1000), independent);
  CHECK(standard_error(blind) == Approx(0.02 / std::sqrt(1000.0)).epsilon(0.01));
  CHECK(blind.verdict == GateVerdict::fail);
}

TEST_CASE("gate: an UNRESOLVED one names the repeats of NEW that settle it, and those repeats do") {
  for (double ratio : {0.94, 0.96, 0.935, 0.97}) {
    INFO(ratio);
    const AcceptanceGate once = gate_at(ratio, 28);
    REQUIRE(once.verdict == GateVerdict::unresolved);
    REQUIRE(once.repeats_to_settle);
    const int n = *once.repeats_to_settle;
    CHECK(n > 1);
    CHECK_THAT(once.line(), ContainsSubstring("measuring NEW with --repeats " + std::to_string(n) + " (now 1) would settle it"));
    // NEW measured n times (the same ratio, each measurement as noisy as before): decided,
    // the right way, with room for the rerun's own noise.
    const AcceptanceGate settled = gate_at(ratio, 28, 0.02, n);
    CHECK(settled.verdict == (ratio < kDefaultTarget ? GateVerdict::fail : GateVerdict::pass));
    const double gap = std::abs(std::log(ratio / kDefaultTarget));
    CHECK((kGateZ + kGatePowerZ) * standard_error(settled) <= gap);
    // ... and n is the fewest that give that room.
    CHECK((kGateZ + kGatePowerZ) * standard_error(gate_at(ratio, 28, 0.02, n - 1)) > gap);
  }
  // A ratio on the target cannot be settled; the line says so.
  const AcceptanceGate on = gate_at(kDefaultTarget, 28);
  CHECK(on.verdict == GateVerdict::unresolved);
  CHECK_FALSE(on.repeats_to_settle);
  CHECK_THAT(on.line(), ContainsSubstring("the ratio sits on the target"));
  // Nothing to pool: UNRESOLVED, no repeats named.
  const AcceptanceGate none = evaluate_gate({}, {});
  CHECK(none.verdict == GateVerdict::unresolved);
  CHECK(none.rows == 0);
  CHECK_FALSE(none.repeats_to_settle);
}

TEST_CASE("gate: a workload's time per iteration weighs the rows; without one, their precision") {
  // 1% of the iteration at 80%, 99% at 100%: the iteration is at 99.8%.
  std::vector<GateRow> rows = uniform_rows(1.0, 2, 0.005, 10);
  rows[0].ratio = 0.80;
  rows[0].time_weight = 1;
  rows[1].time_weight = 99;
  GateSettings by_time;
  by_time.weighting = GateWeighting::workload_time;
  const AcceptanceGate light = evaluate_gate(rows, by_time);
  CHECK(light.ratio == Approx(std::exp(0.01 * std::log(0.80))));
  CHECK(light.verdict == GateVerdict::pass);
  std::swap(rows[0].time_weight, rows[1].time_weight);
  const AcceptanceGate heavy = evaluate_gate(rows, by_time);
  CHECK(heavy.ratio == Approx(std::exp(0.99 * std::log(0.80))));
  CHECK(heavy.verdict == GateVerdict::fail);
  // By precision: a row known to +-50% barely moves rows known to +-1%.
  std::vector<GateRow> mixed = uniform_rows(1.0, 4, 0.01);
  mixed[0].ratio = 0.5;
  mixed[0].new_sigma = mixed[0].reference_sigma = 0.5;
  const AcceptanceGate precise = evaluate_gate(mixed, {});
  CHECK(precise.ratio > 0.99);
  CHECK(precise.verdict == GateVerdict::pass);
}

TEST_CASE("gate: one measurement's sigma from its band or its repeats' range, and a median's") {
  CHECK(one_measurement_sigma(0.04, 1, 0) == Approx(0.02));  // a band is about two sigma
  // Five repeats spanning 23.26% of their median: d2(5) = 2.326 sigmas, so 10%.
  CHECK(one_measurement_sigma(0.04, 5, 0.2326) == Approx(0.10));
  // A range narrower than the band leaves the band.
  CHECK(one_measurement_sigma(0.04, 5, 0.01) == Approx(0.02));
  CHECK(median_sigma(0.02, 1) == Approx(0.02));
  CHECK(median_sigma(0.02, 2) == Approx(0.02 / std::sqrt(2.0)));
  CHECK(median_sigma(0.02, 9) == Approx(0.02 * std::sqrt(3.14159265 / 2) / 3));
}

TEST_CASE("gate: a real nccl-tests table 10, 6, 4 and 0% slower at every size") {
  // The defect this gate answers: 6% slower at every size, and no row is slower beyond
  // its own band, so the rows alone pass.
  const Comparison six = scaled_comparison(0.94);
  REQUIRE(six.rows.size() == 28);
  for (const RowComparison& r : six.rows) CHECK_FALSE(r.fails);
  REQUIRE(six.acceptance);
  CHECK(six.acceptance->verdict != GateVerdict::pass);
  CHECK(six.acceptance->ratio == Approx(0.94).margin(0.003));
  CHECK(six.exit_status() != kExitOk);
  CHECK_FALSE(six.passed());
  const Comparison ten = scaled_comparison(0.90);
  CHECK(ten.acceptance->verdict == GateVerdict::fail);
  CHECK(ten.exit_status() == kExitRegression);
  // Rows 10% down fail on their own, and the summary names them; the gate agrees.
  CHECK_THAT(ten.summary(), ContainsSubstring("-> FAIL: below 95% of reference at"));
  CHECK_THAT(ten.acceptance->line(), ContainsSubstring("acceptance at target 0.95: FAIL, NEW at 0.900 of REFERENCE"));
  const Comparison four = scaled_comparison(0.96);
  CHECK(four.acceptance->verdict != GateVerdict::fail);
  const Comparison same = scaled_comparison(1.0);
  CHECK(same.acceptance->verdict == GateVerdict::pass);
  CHECK(same.exit_status() == kExitOk);
  CHECK_THAT(same.summary(), ContainsSubstring("-> PASS: acceptance 1"));
  // Each UNRESOLVED names its repeats; the exit status is its own.
  for (const Comparison* c : {&six, &four}) {
    if (c->acceptance->verdict != GateVerdict::unresolved) continue;
    CHECK(c->acceptance->repeats_to_settle);
    CHECK(c->exit_status() == kExitUnresolved);
    CHECK_THAT(c->summary(), ContainsSubstring("-> UNRESOLVED: acceptance"));
  }
  // Without a target there is no gate, and the rows alone decide as before.
  CompareOptions rows_only;
  rows_only.min_size = kMiB;
  const std::string text = read_file(kNcclTestsData / "nccl-tests-all_gather-g2-8B-8G.txt");
  const Comparison plain = compare_sides(side_from_nccl_tests_text(scaled_nccl_tests(text, 0.94), "s.txt"),
                                         side_from_nccl_tests_text(text, "r.txt"), rows_only);
  CHECK_FALSE(plain.acceptance);
  CHECK(plain.passed());
}

TEST_CASE("gate: rows with no figure or differing footprints are left out, and a workload's calls weigh the rest") {
  const std::string text = read_file(kNcclTestsData / "nccl-tests-all_gather-np2.txt");
  Side reference = side_from_nccl_tests_text(text, "r.txt");
  Side slower = side_from_nccl_tests_text(scaled_nccl_tests(text, 0.80), "s.txt");
  // The workload calls 64 MiB (90 calls) and 4 GiB (10 calls); 1 GiB is not among them.
  WorkloadWeights workload;
  workload.source = "w.yaml";
  const auto call = [](Bytes bytes, double calls) {
    WorkloadCall c;
    c.collective = &collective("all_gather");
    c.dtype = &data_type("float32");
    c.bytes = bytes;
    c.calls = calls;
    return c;
  };
  workload.calls = {call(64 * kMiB, 90), call(4096 * kMiB, 10), call(3 * kMiB, 5)};
  slower.workload = workload;
  // Only 64 MiB out of place is 20% slower; the rest is the reference.
  for (SideRow& row : slower.rows) {
    if (row.key.size_bytes != 64 * kMiB || row.key.placement != Placement::out_of_place) {
      for (const SideRow& same : reference.rows) {
        if (same.key == row.key) row = same;
      }
    }
  }
  CompareOptions options;
  options.target = kDefaultTarget;
  const Comparison c = compare_sides(slower, reference, options);
  REQUIRE(c.acceptance);
  CHECK(c.acceptance->weighting == GateWeighting::workload_time);
  CHECK(c.acceptance->workload == "w.yaml");
  CHECK(c.acceptance->rows == 2);
  // Weighed by calls x the reference's time: 64 MiB 90 x 156.70 us, 4 GiB 10 x 7304.67 us.
  const double w64 = 90 * 156.70, w4g = 10 * 7304.67;
  const double ratio64 = 171.31 / 214.14;  // the 20% slower row as printed
  CHECK(c.acceptance->ratio == Approx(std::exp(w64 / (w64 + w4g) * std::log(ratio64))).epsilon(0.002));
  CHECK_THAT(c.acceptance->line(), ContainsSubstring("2 rows at the workload's calls, weighed by time per iteration (w.yaml)"));
  REQUIRE(c.acceptance->notes.size() == 1);
  CHECK_THAT(c.acceptance->notes[0], ContainsSubstring("1 of the workload's 3 calls have no compared row"));
}

TEST_CASE("gate: on one rank an in-place row moves nothing and is left out; on two it counts") {
  const std::string text = read_file(kNcclTestsData / "nccl-tests-all_gather-np2.txt");
  Side reference = side_from_nccl_tests_text(text, "r.txt");
  // Every in-place row 20% slower, every out-of-place row as the reference.
  Side now = reference;
  for (SideRow& row : now.rows) {
    if (row.key.placement == Placement::in_place) row.busbw_gbps *= 0.8, row.time_us /= 0.8;
  }
  CompareOptions options;
  options.target = kDefaultTarget;
  const Comparison two_ranks = compare_sides(now, reference, options);
  REQUIRE(two_ranks.acceptance);
  CHECK(two_ranks.acceptance->ratio < 0.95);  // real in-place collectives: evidence
  // The same figures from one rank (an in-place call's figure is then launch overhead).
  now.identity.ranks = reference.identity.ranks = 1;
  const Comparison one_rank = compare_sides(now, reference, options);
  REQUIRE(one_rank.acceptance);
  CHECK(one_rank.acceptance->rows * 2 == two_ranks.acceptance->rows);
  CHECK(one_rank.acceptance->ratio == Approx(1.0));
  CHECK(one_rank.acceptance->verdict == GateVerdict::pass);
  REQUIRE_FALSE(one_rank.acceptance->notes.empty());
  CHECK_THAT(one_rank.acceptance->notes.back(), ContainsSubstring("in place on one rank left out: such a call moves nothing"));
  // Its out-of-place rows still decide: all of them 20% slower fails.
  Side slower = reference;
  for (SideRow& row : slower.rows) {
    if (row.key.placement == Placement::out_of_place) row.busbw_gbps *= 0.8, row.time_us /= 0.8;
  }
  CHECK(compare_sides(slower, reference, options).acceptance->verdict == GateVerdict::fail);
}

TEST_CASE("gate: a run's rows match the workload's calls by the size asked for and the communicator they ran on") {
  // ncclsweep rows: 1000000 bytes asked for, 999936 moved (rounded to the ranks); one on
  // the world, the same size on dp groups (a row of its own, tagged like a point).
  const auto run_row = [](Bytes asked, Bytes moved, CommunicatorKind kind, double busbw) {
    SideRow r;
    r.key = {&collective("all_gather"), &data_type("float32"), std::nullopt, moved, Placement::out_of_place, {}};
    if (kind != CommunicatorKind::world) r.key.variant.groups = CommunicatorShape{kind, 4};
    r.busbw_gbps = busbw;
    r.time_us = 100;
    MeasurementKey k;
    k.collective = r.key.collective;
    k.dtype = r.key.dtype;
    k.communicator = {kind, kind == CommunicatorKind::world ? 8 : 4};
    k.size_bytes = moved;
    k.requested_bytes = asked;
    r.measurement = k;
    return r;
  };
  const auto run_side = [&](double world_busbw, double dp_busbw) {
    Side s;
    s.identity = {SideSource::ncclsweep_run, "run", "run", 8, 1, "", "", "", EngineKind::mpi};
    s.rows = {run_row(1000000, 999936, CommunicatorKind::world, world_busbw),
              run_row(1000000, 999936, CommunicatorKind::dp, dp_busbw)};
    normalise_rows(s);
    return s;
  };
  // The world row is 20% down, the dp row as fast as the reference.
  Side now = run_side(80, 100);
  const Side reference = run_side(100, 100);
  WorkloadCall dp_call;
  dp_call.collective = &collective("all_gather");
  dp_call.dtype = &data_type("float32");
  dp_call.bytes = 1000000;
  dp_call.communicator = CommunicatorKind::dp;
  dp_call.calls = 10;
  now.workload = WorkloadWeights{"dp.yaml", "per iteration", {dp_call}, true};
  CompareOptions options;
  options.target = kDefaultTarget;
  const Comparison c = compare_sides(now, reference, options);
  REQUIRE(c.acceptance);
  CHECK(c.acceptance->weighting == GateWeighting::workload_time);
  CHECK(c.acceptance->rows == 1);
  CHECK(c.acceptance->ratio == Approx(1.0));  // the dp row, not the slower world row
  // Called on the world instead, the slower row is the one weighed.
  now.workload->calls[0].communicator = CommunicatorKind::world;
  const Comparison world = compare_sides(now, reference, options);
  CHECK(world.acceptance->rows == 1);
  CHECK(world.acceptance->ratio == Approx(0.8));
  CHECK(world.acceptance->verdict == GateVerdict::fail);
  // A call on a group as large as the world (all 8 ranks) was measured on the world.
  now.workload->calls[0].communicator = CommunicatorKind::tp;
  now.workload->calls[0].communicator_ranks = 8;
  const Comparison whole = compare_sides(now, reference, options);
  CHECK(whole.acceptance->weighting == GateWeighting::workload_time);
  CHECK(whole.acceptance->rows == 1);
  CHECK(whole.acceptance->ratio == Approx(0.8));
  // On 4-rank tp groups it has no row: the gate pools every row and says so.
  now.workload->calls[0].communicator_ranks = 4;
  const Comparison unmatched = compare_sides(now, reference, options);
  CHECK(unmatched.acceptance->weighting == GateWeighting::precision);
  CHECK(unmatched.acceptance->rows == 2);
}

TEST_CASE("gate: a reference noisier than a clean figure widens the interval, and NEW's repeats cannot settle that") {
  // A clean figure's noise in the reference is the bar's own: nothing in the interval.
  CHECK(excess_sigma(0.02, 0.02, 1) == 0);
  CHECK(excess_sigma(0.01, 0.02, 1) == 0);
  CHECK(excess_sigma(0.05, 0.03, 1) == Approx(0.04));
  CHECK(excess_sigma(0.05, 0.03, 4) == Approx(0.04 * std::sqrt(3.14159265 / 2) / 2));
  // NEW 4x "faster" than a reference whose launch was loaded: rows that read 25% of
  // NEW's speed, but spread by 30% within their own measurement.
  std::vector<GateRow> rows = uniform_rows(4.0, 6);
  for (GateRow& r : rows) r.reference_excess = 0.15;
  const AcceptanceGate loaded = evaluate_gate(rows, {});
  CHECK(loaded.verdict == GateVerdict::pass);  // 4x clears 0.95 whatever the reference's noise
  for (GateRow& r : rows) r.ratio = 0.96;
  const AcceptanceGate near = evaluate_gate(rows, {});
  CHECK(near.verdict == GateVerdict::unresolved);
  CHECK(near.reference_too_noisy);
  CHECK_FALSE(near.repeats_to_settle);
  CHECK_THAT(near.line(), ContainsSubstring("measure the reference again"));
  // Without the excess, repeats of NEW would settle the same ratio.
  for (GateRow& r : rows) r.reference_excess = 0;
  CHECK(evaluate_gate(rows, {}).repeats_to_settle);
  // From a comparison: a reference run whose repeats spread 40% around the same figures.
  const std::string text = read_file(kNcclTestsData / "nccl-tests-all_gather-np2.txt");
  const Side now = side_from_nccl_tests_text(scaled_nccl_tests(text, 0.90), "s.txt");
  Side disturbed = side_from_nccl_tests_text(text, "r.txt");
  for (SideRow& r : disturbed.rows) {
    r.repeats = 3;
    r.measured_spread = 0.20;  // half the range over the median
  }
  CompareOptions options;
  options.target = kDefaultTarget;
  options.min_size = 4 * kMiB;
  const Comparison c = compare_sides(now, disturbed, options);
  CHECK(c.acceptance->verdict == GateVerdict::unresolved);
  CHECK(c.acceptance->reference_too_noisy);
  // The same reference measured cleanly: the 10% drop fails.
  const Comparison clean = compare_sides(now, side_from_nccl_tests_text(text, "r.txt"), options);
  CHECK(clean.acceptance->verdict == GateVerdict::fail);
}
