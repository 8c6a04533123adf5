// The noise band of compare's verdicts: a relative part plus launch-to-launch time
// jitter for single figures, the measured spread for repeats, and --min-size. Judged on
// real pairs of nccl-tests launches on one machine (tests/data/nccl-tests/README.md).
#include <filesystem>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "test_data.hpp"
#include "read_file.hpp"
#include "compare/comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/units.hpp"

using namespace ncclsweep;

namespace {


SideRow timed_row(double busbw, double time_us) {
  SideRow r;
  r.key = {&collective("all_gather"), &data_type("float32"), std::nullopt, kMiB, Placement::out_of_place, {}};
  r.busbw_gbps = busbw;
  r.time_us = time_us;
  return r;
}

Side load(const std::string& name) { return load_side(kNcclTestsData / name); }

// One Side per launch of a file that holds several launches one after another.
std::vector<Side> launches(const std::string& name) {
  const std::string text = read_file(kNcclTestsData / name);
  const std::string start = "# nccl-tests version";
  std::vector<Side> out;
  for (std::size_t at = text.find(start); at != std::string::npos;) {
    const std::size_t next = text.find(start, at + 1);
    out.push_back(side_from_nccl_tests_text(text.substr(at, next - at), name));
    at = next;
  }
  return out;
}

const RowComparison& row_at(const Comparison& c, Bytes size, const std::string& placement) {
  for (const auto& r : c.rows) {
    if (r.key.size_bytes == size && name_of(r.key.placement) == placement) return r;
  }
  FAIL("no row at " << size << " " << placement);
  return c.rows.front();
}

}  // namespace

TEST_CASE("a single figure's band is a relative part plus the busbw that the time jitter moves") {
  const NoiseModel noise;  // the defaults: 4% and 1.1 us
  const SideRow small = timed_row(44.09, 11.89);  // 1 MiB all_gather: launch-bound
  const SideRow large = timed_row(212.9, 157.61);  // 64 MiB: bandwidth-bound
  CHECK(noise_band_gbps(small, noise) == Approx((0.04 + 1.1 / 11.89) * 44.09));
  CHECK(noise_band_gbps(large, noise) == Approx((0.04 + 1.1 / 157.61) * 212.9));
  // The time part is most of the band at 12 us and little of it at 158 us.
  CHECK(noise_band_gbps(small, noise) / small.busbw_gbps > 3 * 0.04);
  CHECK(noise_band_gbps(large, noise) / large.busbw_gbps < 1.2 * 0.04);
  // Overrides: no jitter leaves the relative part alone.
  CHECK(noise_band_gbps(small, {0.03, 0}) == Approx(0.03 * 44.09));
  // A spread measured within one launch replaces a smaller relative part, and the
  // launch jitter still applies.
  SideRow spread = small;
  spread.measured_spread = 0.10;
  CHECK(noise_band_gbps(spread, noise) == Approx((0.10 + 1.1 / 11.89) * 44.09));
  // No time known: no time part.
  CHECK(noise_band_gbps(timed_row(100, 0), noise) == Approx(4.0));
}

TEST_CASE("rows folded from repeats are judged by their measured spread, with no time part") {
  SideRow repeated = timed_row(44.09, 11.89);
  repeated.repeats = 5;
  repeated.measured_spread = 0.01;
  CHECK(noise_band_gbps(repeated, {}) == Approx(0.04 * 44.09));  // never below the relative part
  repeated.measured_spread = 0.15;
  CHECK(noise_band_gbps(repeated, {}) == Approx(0.15 * 44.09));
}

TEST_CASE("two launches of nccl-tests on one machine never fail against each other") {
  for (const std::string collective : {"all_gather", "reduce_scatter"}) {
    const Side first = load("nccl-tests-" + collective + "-np2.txt");
    const Side second = load("nccl-tests-" + collective + "-np2-launch2.txt");
    for (const auto& [now, reference] : {std::pair{&first, &second}, std::pair{&second, &first}}) {
      const Comparison c = compare_sides(*now, *reference, {});
      INFO(collective << ": " << c.summary());
      CHECK(c.passed());
      // 1 MiB moved by about 2 us (15% of busbw) between the launches: inside the band.
      for (const char* placement : {"out_of_place", "in_place"}) {
        const RowComparison& r = row_at(c, kMiB, placement);
        CHECK((r.verdict == Verdict::same || r.verdict == Verdict::ambiguous));
      }
      // With a fixed 3% band and no time part (compare before the time jitter) the
      // slower launch failed at 1 MiB.
      const Comparison fixed = compare_sides(*now, *reference, {kDefaultThreshold, false, {0.03, 0}});
      if (now->rows.front().busbw_gbps < reference->rows.front().busbw_gbps) {
        CHECK_FALSE(fixed.passed());
        CHECK(row_at(fixed, kMiB, "out_of_place").fails);
      }
    }
  }
}

TEST_CASE("five launches of nccl-tests at 64 MiB..1 GiB all pass against each other") {
  const std::vector<Side> all = launches("nccl-tests-5-launches-64M-1G.txt");
  REQUIRE(all.size() == 10);  // 5 all_gather, then 5 reduce_scatter
  int pairs = 0;
  for (std::size_t a = 0; a < all.size(); ++a) {
    for (std::size_t b = 0; b < all.size(); ++b) {
      if (a == b || all[a].rows.front().key.collective != all[b].rows.front().key.collective) continue;
      const Comparison c = compare_sides(all[a], all[b], {});
      INFO("launch " << a << " against " << b << ": " << c.summary());
      CHECK(c.passed());
      ++pairs;
    }
  }
  CHECK(pairs == 40);
}

TEST_CASE("a row made 20% slower at 64 MiB still fails against a real launch, and is named") {
  const Side reference = load("nccl-tests-all_gather-np2.txt");
  Side slower = load("nccl-tests-all_gather-np2-launch2.txt");
  for (auto& row : slower.rows) {
    if (row.key.size_bytes != 64 * kMiB) continue;
    row.busbw_gbps *= 0.8;
    row.algbw_gbps *= 0.8;
    row.time_us *= 1.25;
  }
  const Comparison c = compare_sides(slower, reference, {});
  CHECK_FALSE(c.passed());
  for (const auto& r : c.rows) {
    INFO(row_label(r.key));
    CHECK(r.fails == (r.key.size_bytes == 64 * kMiB));
  }
  CHECK_THAT(c.summary(), ContainsSubstring("FAIL: below 95% of reference at all_gather float32 64 MiB, "
                                            "all_gather float32 64 MiB in-place"));
}

TEST_CASE("--min-size leaves smaller rows without a verdict, and says so") {
  const Side first = load("nccl-tests-all_gather-np2.txt");
  const Side second = load("nccl-tests-all_gather-np2-launch2.txt");
  // Without the time part the 1 MiB rows fail; above --min-size 4 MiB nothing does.
  const Comparison c = compare_sides(first, second, {kDefaultThreshold, false, {0.03, 0}, 4 * kMiB});
  CHECK(c.passed());
  CHECK(c.rows.size() == 12);  // 7 sizes x 2 placements, less 1 MiB's two
  for (const auto& r : c.rows) CHECK(r.key.size_bytes >= 4 * kMiB);
  CHECK_THAT(c.notes.back(), ContainsSubstring("2 matching rows below --min-size 4 MiB get no verdict"));
  const std::string text =
      usage_error_text([&] { compare_sides(first, second, {kDefaultThreshold, false, {}, 8ULL << 30}); });
  CHECK_THAT(text, ContainsSubstring("all 14 matching rows are below --min-size 8 GiB"));
}
