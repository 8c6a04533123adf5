// The comparison: matching, noise-aware verdicts, the threshold, the summary line and
// the comparability block.
#include "catch_compat.hpp"
#include "compare/comparison.hpp"
#include "core/number_format.hpp"
#include "core/units.hpp"

using namespace ncclsweep;

namespace {

SideRow row(Bytes size, double busbw, const std::string& placement = "out_of_place") {
  SideRow r;
  r.key = {&collective("all_gather"), &data_type("float32"), std::nullopt, size, parse_placement(placement), {}};
  r.busbw_gbps = busbw;
  r.wrong = 0;
  return r;
}

Side side(std::vector<SideRow> rows, int ranks = 8) {
  Side s;
  s.identity = {SideSource::nccl_tests_text, "x.txt", "all_gather_perf", ranks, 1, "NVIDIA H200", "2.28.3", "", std::nullopt};
  s.rows = std::move(rows);
  normalise_rows(s);
  return s;
}


}  // namespace

TEST_CASE("a side compared with itself is all same and passes") {
  const Side s = side({row(kMiB, 37.5), row(64 * kMiB, 214), row(256 * kMiB, 245.6)});
  const Comparison c = compare_sides(s, s, {});
  REQUIRE(c.rows.size() == 3);
  for (const auto& r : c.rows) CHECK(r.verdict == Verdict::same);
  CHECK(c.passed());
  CHECK(c.summary() == "3 rows: 3 same -> PASS");
  CHECK(c.differences.empty());
}

TEST_CASE("verdicts come from both sides' noise bands, not a fixed percentage") {
  const Side reference = side({row(kMiB, 100), row(2 * kMiB, 100), row(4 * kMiB, 100), row(8 * kMiB, 100)});
  // Default band 4% each side (these rows have no time, so no time part): within 4%
  // same; 4%..8% the bands overlap: ambiguous; beyond 8% apart.
  const Side now = side({row(kMiB, 102), row(2 * kMiB, 95), row(4 * kMiB, 91), row(8 * kMiB, 109)});
  const Comparison c = compare_sides(now, reference, {});
  REQUIRE(c.rows.size() == 4);
  CHECK(c.rows[0].verdict == Verdict::same);
  CHECK(c.rows[1].verdict == Verdict::ambiguous);
  CHECK(c.rows[2].verdict == Verdict::slower);
  CHECK(c.rows[3].verdict == Verdict::faster);
  // A measured spread wider than the default widens the band: 9% slower is then same.
  Side noisy = now;
  noisy.rows[2].measured_spread = 0.10;
  CHECK(compare_sides(noisy, reference, {}).rows[2].verdict == Verdict::same);
}

TEST_CASE("the printed precision of tiny figures counts as noise") {
  // nccl-tests prints 0.01 GB/s for a 128 B all_gather: 0.01 vs 0.02 is rounding.
  SideRow a = row(128, 0.01), b = row(128, 0.02);
  a.busbw_resolution_gbps = b.busbw_resolution_gbps = 0.005;
  CHECK(compare_sides(side({a}), side({b}), {}).rows[0].verdict != Verdict::slower);
}

TEST_CASE("figures equal as printed are same, however wide their bands") {
  // nccl-tests' 128 B all_gather: 0.01 GB/s in 13.6 us on both sides. The band (+-0.0061)
  // is over half the figure, yet nothing moved.
  SideRow a = row(128, 0.01), b = row(128, 0.01);
  a.time_us = b.time_us = 13.6;
  a.busbw_resolution_gbps = b.busbw_resolution_gbps = 0.005;
  const Comparison same = compare_sides(side({a}), side({b}), {});
  REQUIRE(same.rows.size() == 1);
  CHECK(same.rows[0].new_band_gbps > kDefaultMaxBandShare * 0.01);
  CHECK(same.rows[0].verdict == Verdict::same);
  SideRow zero_a = row(64, 0), zero_b = row(64, 0);  // 0.00 against 0.00
  zero_a.busbw_resolution_gbps = zero_b.busbw_resolution_gbps = 0.005;
  CHECK(compare_sides(side({zero_a}), side({zero_b}), {}).rows[0].verdict == Verdict::same);
  // One printed digit apart is a gap, and the wide band leaves it unresolved.
  b.busbw_gbps = 0.02;
  CHECK(compare_sides(side({a}), side({b}), {}).rows[0].verdict == Verdict::unresolved);
  CHECK(judge_row(0.01, 0.006, 0.01, 0.006, false, kDefaultMaxBandShare, 0.005) == Verdict::same);
  CHECK(judge_row(0.01, 0.006, 0.02, 0.006, false, kDefaultMaxBandShare, 0.005) == Verdict::unresolved);
}

TEST_CASE("a band wider than a quarter of its figure is unresolved, counted apart, never same") {
  // all_gather 256 KiB on a CPU fabric: 0.00826 against 0.126 GB/s, the reference timed
  // at 0.5 us, so 1.1 us of jitter makes its band +-0.28 GB/s: wider than the figure.
  SideRow now = row(256 << 10, 0.00826), before = row(256 << 10, 0.126);
  now.time_us = 31.7;
  before.time_us = 0.5;
  const Comparison c = compare_sides(side({now}), side({before}), {});
  REQUIRE(c.rows.size() == 1);
  CHECK(c.rows[0].reference_band_gbps > c.rows[0].reference_row.busbw_gbps);
  CHECK(c.rows[0].verdict == Verdict::unresolved);
  CHECK_FALSE(c.rows[0].fails);
  CHECK(c.summary() ==
        "1 rows: 0 same, 1 unresolved (noise too large to judge: measure longer or raise --min-size) -> PASS, but no row "
        "was judged");
  // A narrower share makes it so sooner; a share of 100 judges it by the bands alone.
  CHECK(compare_sides(side({now}), side({before}), {kDefaultThreshold, false, {}, 0, 100.0}).rows[0].verdict ==
        Verdict::same);
  // Figures apart beyond even a wide band are still judged.
  SideRow wide = row(kMiB, 100);
  wide.measured_spread = 0.30;
  const Comparison apart = compare_sides(side({row(kMiB, 10)}), side({wide}), {});
  CHECK(apart.rows[0].verdict == Verdict::slower);
  CHECK(apart.rows[0].fails);
  // A judged row next to an unresolved one: the PASS is a plain one.
  const Comparison mixed = compare_sides(side({now, row(kMiB, 100)}), side({before, row(kMiB, 100)}), {});
  CHECK_THAT(mixed.summary(), ContainsSubstring("1 same, 1 unresolved"));
  CHECK(mixed.summary().substr(mixed.summary().size() - 7) == "-> PASS");
}

TEST_CASE("only slower rows below the threshold fail, and the summary names them") {
  const Side reference = side({row(kMiB, 100), row(64 * kMiB, 200), row(256 * kMiB, 250)});
  const Side now = side({row(kMiB, 100), row(64 * kMiB, 160), row(256 * kMiB, 275)});
  const Comparison c = compare_sides(now, reference, {});
  CHECK_FALSE(c.passed());
  CHECK(c.rows[1].fails);
  CHECK(c.rows[1].ratio == Approx(0.8));
  CHECK(c.summary() ==
        "3 rows: 1 same, 1 faster (+10.0% at all_gather float32 256 MiB), 1 slower (-20.0% at all_gather float32 64 MiB)"
        " -> FAIL: below 95% of reference at all_gather float32 64 MiB");
  // At a threshold of 0.75 the same slower row is reported but passes.
  const Comparison lenient = compare_sides(now, reference, {0.75, false});
  CHECK(lenient.passed());
  CHECK(lenient.rows[1].verdict == Verdict::slower);
  CHECK_THAT(lenient.summary(), ContainsSubstring("-> PASS"));
}

TEST_CASE("wrong elements on either side are named in the notes") {
  SideRow bad = row(kMiB, 100);
  bad.wrong = 7;
  const Comparison c = compare_sides(side({bad}), side({row(kMiB, 100)}), {});
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0] == "NEW: all_gather float32 1 MiB had 7 wrong elements");
}

TEST_CASE("a row NEW got wrong fails, and so does the gate, however fast it was") {
  SideRow bad = row(kMiB, 150);
  bad.wrong = 7;
  CompareOptions options;
  options.target = 0.95;
  const Comparison c = compare_sides(side({bad, row(4 * kMiB, 100)}), side({row(kMiB, 100), row(4 * kMiB, 100)}), options);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.rows[0].wrong_data);
  CHECK(c.rows[0].fails);
  CHECK_FALSE(c.rows[1].fails);
  CHECK(c.exit_status() == kExitRegression);
  CHECK_THAT(c.summary(), ContainsSubstring("-> FAIL: NEW returned wrong data at all_gather float32 1 MiB"));
  REQUIRE(c.acceptance);
  CHECK(c.acceptance->verdict == GateVerdict::fail);
  CHECK(c.acceptance->rows == 1);  // the wrong row is not pooled
  CHECK_THAT(c.acceptance->line(), ContainsSubstring("FAIL, NEW returned wrong data in 1 row"));
  // Wrong data in the reference only: a note, no failure of NEW.
  SideRow wrong_reference = row(kMiB, 100);
  wrong_reference.wrong = 7;
  const Comparison swapped = compare_sides(side({row(kMiB, 100)}), side({wrong_reference}), options);
  CHECK_FALSE(swapped.rows[0].fails);
  CHECK(swapped.exit_status() == kExitOk);
}

TEST_CASE("different rank counts are refused unless allowed, with the reason") {
  const Side a = side({row(kMiB, 100)}, 8), b = side({row(kMiB, 100)}, 16);
  const std::string text = usage_error_text([&] { compare_sides(a, b, {}); });
  CHECK_THAT(text, ContainsSubstring("NEW ran on 8 ranks, REFERENCE on 16"));
  CHECK_THAT(text, ContainsSubstring("--allow-rank-mismatch"));
  const Comparison c = compare_sides(a, b, {kDefaultThreshold, true});
  CHECK_THAT(c.differences.front(), ContainsSubstring("(allowed)"));
}

TEST_CASE("on one rank, where busbw is 0, rows and the gate judge algbw") {
  // nccl-tests and ncclsweep print busbw 0 for all_gather on one rank.
  const auto one = [](Bytes size, double algbw) {
    SideRow r = row(size, 0);
    r.algbw_gbps = algbw;
    return r;
  };
  const Side reference = side({one(kMiB, 100), one(64 * kMiB, 200)}, 1);
  const Side now = side({one(kMiB, 80), one(64 * kMiB, 160)}, 1);
  CompareOptions options;
  options.target = 0.95;
  const Comparison c = compare_sides(now, reference, options);
  REQUIRE(c.rows.size() == 2);
  for (const auto& r : c.rows) {
    CHECK(r.verdict == Verdict::slower);
    CHECK(r.ratio == Approx(0.8));
  }
  REQUIRE(c.acceptance);
  CHECK(c.acceptance->rows == 2);
  CHECK(c.acceptance->ratio == Approx(0.8));
  CHECK(c.acceptance->verdict == GateVerdict::fail);
  CHECK_THAT(c.notes.back(), ContainsSubstring("one rank on both sides: 4 figures are algbw"));
  // More ranks: busbw 0 stays 0 (a real zero there is no bandwidth), and the gate has no row.
  const Comparison eight = compare_sides(side({one(kMiB, 80)}), side({one(kMiB, 100)}), options);
  CHECK(eight.rows[0].ratio == 0);
  CHECK(eight.acceptance->rows == 0);
}

TEST_CASE("no matching rows is refused and says what each side holds") {
  Side a = side({row(kMiB, 100)});
  Side b = side({row(kMiB, 100)});
  b.rows[0].key.collective = &collective("reduce_scatter");
  const std::string text = usage_error_text([&] { compare_sides(a, b, {}); });
  CHECK_THAT(text, ContainsSubstring("nothing to compare"));
  CHECK_THAT(text, ContainsSubstring("all_gather float32"));
  CHECK_THAT(text, ContainsSubstring("reduce_scatter float32"));
}

TEST_CASE("the comparability block names what differs") {
  Side a = side({row(kMiB, 100), row(2 * kMiB, 100)});
  Side b = side({row(kMiB, 100), row(4 * kMiB, 100)});
  b.identity.gpu = "NVIDIA H100 80GB HBM3";
  b.identity.nccl_version = "2.21.5";
  b.identity.hosts = 2;
  const Comparison c = compare_sides(a, b, {});
  const auto has = [&](const std::string& s) {
    for (const auto& d : c.differences) {
      if (d.find(s) != std::string::npos) return true;
    }
    return false;
  };
  CHECK(has("GPU: NEW NVIDIA H200, REFERENCE NVIDIA H100 80GB HBM3"));
  CHECK(has("NCCL: NEW 2.28.3, REFERENCE 2.21.5"));
  CHECK(has("hosts: NEW 1, REFERENCE 2"));
  CHECK(has("sizes only in NEW: 2 MiB"));
  CHECK(has("sizes only in REFERENCE: 4 MiB"));
  CHECK(c.rows.size() == 1);
}

TEST_CASE("numbers print with 3 significant digits and no exponent") {
  CHECK(significant3(245.62) == "246");
  CHECK(significant3(37.58) == "37.6");
  CHECK(significant3(0.014) == "0.0140");
  CHECK(significant3(1234.5) == "1230");
  CHECK(significant3(0) == "0");
  CHECK(percent_change(0.79) == "-21.0%");
}
