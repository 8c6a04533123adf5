#include <cmath>
#include "catch_compat.hpp"
#include "workload/histogram.hpp"
#include "workload/sizes_output.hpp"

using namespace ncclsweep;

namespace {

CommUse use(const std::string& collective, Bytes bytes, double calls, bool via_nccl = true, int group = 8) {
  return {&ncclsweep::collective(collective), bytes, &data_type("bfloat16"), std::nullopt, ParallelGroup{ParallelKind::dp, group, 1},
          calls, collective + " origin", via_nccl};
}

HistogramRow row(const std::string& collective, Bytes bytes, double calls, int group = 8) {
  HistogramRow r;
  r.collective = &ncclsweep::collective(collective);
  r.bytes = bytes;
  r.calls = calls;
  r.group_size = group;
  return r;
}

}  // namespace

TEST_CASE("the histogram merges equal keys and shares bytes among NCCL rows") {
  CommProfile p;
  p.uses = {use("all_gather", 1000, 2), use("all_gather", 1000, 3), use("reduce_scatter", 4000, 1),
            use("all_gather", 500, 10, false), use("all_gather", 1000, 1, true, 4)};
  const auto rows = histogram(p);
  REQUIRE(rows.size() == 4);
  // all_gather 1000 on 8 ranks: 5 calls, 5000 B; reduce_scatter 4000 B; all_gather 1000 on 4: 1000 B.
  CHECK(rows[0].collective == &collective("all_gather"));
  CHECK(rows[0].calls == 5);
  CHECK(rows[0].origins.size() == 2);
  CHECK(rows[0].share_of_bytes == Approx(5000.0 / 10000));
  CHECK(rows[1].share_of_bytes == Approx(4000.0 / 10000));
  double sum = 0;
  for (const auto& r : rows) sum += r.share_of_bytes;
  CHECK(sum == Approx(1.0));
  CHECK(distinct_sizes(rows) == std::vector<Bytes>{1000, 4000});  // the non-NCCL 500 B is not swept
}

TEST_CASE("time per iteration: measured, interpolated log-linearly, or missing") {
  const std::vector<MeasuredTime> table = {{&collective("all_gather"), 1000, 0, 1e-3}, {&collective("all_gather"), 4000, 0, 4e-3},
                                           {&collective("all_gather"), 16000, 0, 10e-3}, {&collective("reduce_scatter"), 2000, 8, 2e-3}};
  const std::vector<HistogramRow> rows = {row("all_gather", 4000, 3), row("all_gather", 2000, 10),
                                          row("all_gather", 8000, 1)};
  const auto t = iteration_time(rows, table);
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0].source == TimeSource::measured);
  CHECK(t.rows[0].seconds_per_iteration == Approx(3 * 4e-3));
  // log time linear in log size: 2000 is halfway between 1000 and 4000 in log size,
  // so its time is the geometric mean of 1 ms and 4 ms.
  CHECK(t.rows[1].source == TimeSource::interpolated);
  CHECK(t.rows[1].seconds_per_call == Approx(2e-3));
  CHECK(t.rows[2].source == TimeSource::interpolated);
  CHECK(t.rows[2].seconds_per_call == Approx(std::sqrt(4e-3 * 10e-3)));
  CHECK(t.complete);
  CHECK(t.seconds == Approx(3 * 4e-3 + 10 * 2e-3 + std::sqrt(4e-3 * 10e-3)));
}

TEST_CASE("no extrapolation, and a measurement on another group size does not count") {
  const std::vector<MeasuredTime> table = {{&collective("all_gather"), 1000, 0, 1e-3}, {&collective("all_gather"), 4000, 0, 4e-3},
                                           {&collective("reduce_scatter"), 2000, 8, 2e-3}};
  const auto t = iteration_time({row("all_gather", 8000, 1), row("reduce_scatter", 2000, 2, 4)}, table);
  CHECK(t.rows[0].source == TimeSource::missing);
  CHECK(t.rows[1].source == TimeSource::missing);
  CHECK_FALSE(t.complete);
  CHECK(t.seconds == 0);
}

TEST_CASE("the yaml format lists each call NCCL sends, merged by shape, and notes what NCCL does not send") {
  CommProfile p;
  p.source = "test";
  p.uses = {use("all_gather", 436224000, 64), use("reduce_scatter", 872448000, 40), use("all_gather", 99, 1, false),
            use("all_gather", 436224000, 8)};
  const auto text = format_sizes(p, SizesFormat::yaml);
  CHECK_THAT(text, ContainsSubstring("\nsizes:\n  calls:\n"));
  CHECK_THAT(text, !ContainsSubstring("# calls"));  // no basis, no empty comment
  // The two all_gather uses of one shape are one call of 72, the second counted in the origin.
  CHECK_THAT(text, ContainsSubstring("{collective: all_gather, bytes: 436224000, dtype: bfloat16"));
  CHECK_THAT(text, ContainsSubstring("calls: 72, origin: \"all_gather origin (and 1 more)\"}  # 416 MiB"));
  CHECK_THAT(text, ContainsSubstring("{collective: reduce_scatter, bytes: 872448000"));
  CHECK_THAT(text, ContainsSubstring("# not measured (sent outside NCCL): all_gather 99 B"));
  CHECK_THAT(text, !ContainsSubstring("bytes: 99,"));
  p.uses = {use("all_gather", 99, 1, false)};
  CHECK_THAT(format_sizes(p, SizesFormat::yaml), ContainsSubstring("  calls: []"));
  // 0-byte calls (a NCCL log's count 0) are left out, in a comment: the loader refuses bytes: 0.
  p.uses = {use("all_reduce", 0, 3), use("all_reduce", 4096, 1)};
  const auto zero = format_sizes(p, SizesFormat::yaml);
  CHECK_THAT(zero, ContainsSubstring("# not measured (0 bytes): all_reduce, 3 calls, all_reduce origin\n"));
  CHECK_THAT(zero, !ContainsSubstring("bytes: 0,"));
  CHECK_THAT(zero, ContainsSubstring("{collective: all_reduce, bytes: 4096"));
  CHECK_THAT(usage_error_text([] { kSizesFormatNames.parse("xml"); }), ContainsSubstring("table, yaml, json"));
}
