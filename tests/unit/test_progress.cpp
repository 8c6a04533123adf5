// The progress line's bookkeeping: totals from the plan, where the run is as records
// arrive, and the time left as the plan's estimate scaled by the measured rate.
#include "catch_compat.hpp"
#include "plan/measurement_plan.hpp"
#include "report/terminal_table.hpp"
#include "runtime/progress.hpp"

#include <sstream>

using namespace ncclsweep;

namespace {

// all_gather (out-of-place and in-place) at 2 sizes, 2 repeats: 8 measurements a point.
// Points a and b share isolation group 0, c is alone in group 1.
ProgressPlan three_point_plan() {
  RunSpec spec;
  spec.collectives = parse_collective_list("all_gather");
  spec.sizes = parse_size_list("1M,64M");
  spec.dtypes = parse_dtype_list("float32");
  spec.ops = parse_op_list("sum");
  spec.repeats = 2;
  spec.engine = EngineKind::nccl;
  std::vector<WorkerGroup> groups(2);
  groups[0].index = 0;
  groups[0].points = {PointSpec{"a", {}, {}, {}}, PointSpec{"b", {}, {}, {}}};
  groups[1].index = 1;
  groups[1].points = {PointSpec{"c", {}, {}, {}}};
  return progress_plan(plan_measurements(spec, 4), spec, groups);
}

std::vector<MeasurementRecord> records(const std::string& point, std::size_t n) {
  MeasurementRecord r;
  r.point = point;
  r.size_bytes = 64u << 20;
  return std::vector<MeasurementRecord>(n, r);
}

}  // namespace

TEST_CASE("the progress plan counts every repeat and placement of every point") {
  const ProgressPlan plan = three_point_plan();
  CHECK(plan.points.size() == 3);
  CHECK(plan.groups == 2);
  CHECK(plan.measurements_per_point == 2 * 2 * 2);
  CHECK(plan.point_measurements_s > 0);
  const ProgressSnapshot start = ProgressTracker(plan).snapshot(0);
  CHECK(start.point == 1);
  CHECK(start.group == 1);
  CHECK(start.done == 0);
  CHECK(start.total == 24);
  // Nothing measured yet: the plan's own estimate, all of it.
  CHECK(start.left_s == Approx(2 * plan.group_start_s + 3 * (plan.point_start_s + plan.point_measurements_s)));
}

TEST_CASE("the tracker follows the points and groups and says when a point is finished") {
  ProgressTracker tracker(three_point_plan());
  CHECK(tracker.add(records("a", 2)).empty());
  CHECK(tracker.add(records("a", 6)) == "a");  // its 8th measurement: finished
  const ProgressSnapshot after_a = tracker.snapshot(1);
  CHECK(after_a.point == 1);
  CHECK(after_a.done == 8);
  CHECK(tracker.add(records("c", 2)) == "a");  // moved on (b failed without a record)
  const ProgressSnapshot in_c = tracker.snapshot(2);
  CHECK(in_c.point == 3);
  CHECK(in_c.group == 2);
  CHECK(in_c.done == 10);
}

TEST_CASE("the time left is the plan's estimate scaled by how fast the work so far went") {
  ProgressTracker tracker(three_point_plan());
  tracker.add(records("a", 4));
  const double on_estimate = tracker.snapshot(1.0).left_s;
  const double twice_as_slow = tracker.snapshot(2.0).left_s;
  CHECK(on_estimate > 0);
  CHECK(twice_as_slow == Approx(2 * on_estimate));
  tracker.add(records("a", 4));
  CHECK(tracker.snapshot(1.0).left_s < on_estimate);  // less left once more is done
  tracker.add(records("b", 8));
  tracker.add(records("c", 8));
  CHECK(tracker.snapshot(5.0).left_s == 0);
}

TEST_CASE("measurements resumed from an earlier run count as done, not as measured speed") {
  ProgressTracker tracker(three_point_plan());
  tracker.add_resumed(records("a", 8));
  const ProgressSnapshot s = tracker.snapshot(100.0);
  CHECK(s.done == 8);
  CHECK(s.left_s > 0);
  CHECK(s.left_s < ProgressTracker(three_point_plan()).snapshot(0).left_s);  // the plan's estimate, less a's part
}

TEST_CASE("the progress text names point, group, measurements, elapsed and left") {
  const ProgressSnapshot s{2, 12, 1, 4, 240, 960, 65.2, 200.0};
  CHECK(format_progress(s) == "point 2/12 (isolation group 1/4), 240/960 measurements, elapsed 1m05s, left ~3m20s");
  const ProgressSnapshot long_run{1, 1, 1, 1, 0, 10, 7322, 30};
  CHECK_THAT(format_progress(long_run), ContainsSubstring("elapsed 2h02m, left ~30s"));
}

TEST_CASE("--progress settings: off, lines and live as given; an unknown one is refused") {
  CHECK(progress_mode(ProgressSetting::off) == ProgressMode::off);
  CHECK(progress_mode(ProgressSetting::lines) == ProgressMode::lines);
  CHECK(progress_mode(ProgressSetting::live) == ProgressMode::live);
  CHECK(kProgressSettingNames.parse("auto") == ProgressSetting::automatic);
  CHECK_THROWS_AS(kProgressSettingNames.parse("sometimes"), UsageError);
}

TEST_CASE("lines mode: a single-point run says how far it is after every measurement") {
  RunSpec spec;
  spec.collectives = parse_collective_list("all_gather");
  spec.sizes = parse_size_list("1M,4M,16M");
  spec.dtypes = parse_dtype_list("float32");
  spec.ops = parse_op_list("sum");
  spec.engine = EngineKind::mpi;
  std::ostringstream table_out, progress_out;
  auto display = make_progress_display(make_terminal_table(table_out),
                                       progress_plan(plan_measurements(spec, 2), spec, {}), ProgressMode::lines,
                                       progress_out);
  RunDocument run;
  run.settings.engine = EngineKind::mpi;
  display->begin(run);
  for (Bytes size : {Bytes{1} << 20, Bytes{4} << 20}) {
    MeasurementRecord out_of_place;
    out_of_place.collective = &collective("all_gather");
    out_of_place.dtype = &data_type("float32");
    out_of_place.op = std::nullopt;
    out_of_place.size_bytes = size;
    out_of_place.placement = Placement::out_of_place;
    MeasurementRecord in_place = out_of_place;
    in_place.placement = Placement::in_place;
    const std::vector<MeasurementRecord> row{out_of_place, in_place};
    display->row(row);
  }
  const std::string text = progress_out.str();
  CHECK_THAT(text, ContainsSubstring("2/6 measurements"));
  CHECK_THAT(text, ContainsSubstring("4/6 measurements"));
}
