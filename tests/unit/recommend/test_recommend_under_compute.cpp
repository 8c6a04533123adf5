// recommend --rank-by iteration-time-under-compute (docs/overlap.md): a setting that wins
// on an idle GPU can lose beside a GEMM, and ties on exposed time go to fewer SMs.
#include "catch_compat.hpp"
#include "recommend/recommendation.hpp"

namespace {

using namespace ncclsweep;

struct PointFigures {
  std::string label;
  int channels;
  double busbw_gbps;  // idle
  double exposed_us;  // per call under compute
};

// A sweep of all_gather 64 MiB on 2 ranks, 3 repeats per point (±1%), each measured
// idle and under a GEMM whose slowdown makes each point expose the given time.
RunDocument sweep_of(const std::vector<PointFigures>& points) {
  RunDocument run;
  run.name = "under-compute";
  run.status = RunStatus::complete;
  run.hosts = {"h0"};
  for (int r = 0; r < 2; ++r) {
    RankEntry entry;
    entry.rank = r;
    entry.host = "h0";
    run.ranks.push_back(entry);
  }
  run.baseline = points.front().label;
  const Bytes size = 64u << 20;
  for (const PointFigures& p : points) {
    PointOutcome point{.label = p.label, .status = PointStatus::ok};
    if (&p != &points.front()) point.settings.push_back({"NCCL_MAX_CTAS", std::to_string(p.channels), SettingKind::env_process_cached, SettingStatus::applied});
    point.coll_channels = p.channels;
    run.points.push_back(point);
    for (int repeat = 0; repeat < 3; ++repeat) {
      const double wobble = 1 + 0.01 * (repeat - 1);
      MeasurementRecord r;
      r.collective = &collective("all_gather");
      r.dtype = &data_type("float32");
      r.op = std::nullopt;
      r.size_bytes = r.requested_bytes = size;
      r.count = size / 4 / 2;
      r.placement = Placement::out_of_place;
      r.buffer_footprint = BufferFootprint{FootprintMode::largest, 0};
      r.footprint_bytes = size;
      r.cache = CacheState::warm;
      r.ranks = 2;
      r.point = p.label;
      r.repeat = repeat;
      r.busbw_gbps = p.busbw_gbps * wobble;
      r.algbw_gbps = r.busbw_gbps * 2;
      r.time_us = {1, static_cast<double>(size) / (r.algbw_gbps * 1e3), static_cast<double>(size) / (r.algbw_gbps * 1e3)};
      r.wrong = 0;
      UnderCompute u;
      u.load = parse_compute_load("gemm:8192x8192x8192:bf16");
      u.comm_alone_us = r.time_us.max;
      u.comm_under_us = 2 * p.exposed_us * wobble;  // with compute twice as slow, half of it is exposed
      u.compute_alone_us = 1000;
      u.compute_under_us = 2000;
      r.under_compute = u;
      run.records.push_back(r);
    }
  }
  return run;
}

RecommendOptions ranked_by(RankBy rank_by) {
  RecommendOptions options;
  options.rank_by = rank_by;
  return options;
}

}  // namespace

TEST_CASE("exposed time per call: under-compute time less the compute it ran at alone speed", "[recommend][overlap]") {
  UnderCompute u;
  u.comm_under_us = 100;
  u.compute_alone_us = 10;
  u.compute_under_us = 20;
  CHECK(u.exposed_us() == Approx(50));
  u.compute_under_us = 10;  // the GEMM never slowed: the collective was hidden
  CHECK(u.exposed_us() == Approx(0));
}

TEST_CASE("the under-compute recommendation differs from the idle one", "[recommend][overlap]") {
  // B wins idle (25% more busbw) but exposes more time beside the GEMM; C ties the
  // baseline idle and exposes a fifth of its time.
  const RunDocument run = sweep_of({{"A", 16, 80, 50}, {"B", 32, 100, 80}, {"C", 8, 80, 10}});
  const Recommendation idle = recommend({{run, "run.json"}}, ranked_by(RankBy::busbw));
  const Recommendation busy = recommend({{run, "run.json"}}, ranked_by(RankBy::iteration_time_under_compute));
  REQUIRE(idle.bands.size() == 1);
  REQUIRE(busy.bands.size() == 1);
  CHECK(idle.bands[0].winner == "B");
  CHECK(busy.bands[0].winner == "C");
  CHECK(busy.bands[0].median_gain == Approx(0.8).epsilon(0.02));  // 80% of the baseline's exposed time saved
}

TEST_CASE("settings tied on exposed time: the one taking fewer SMs wins", "[recommend][overlap]") {
  const RunDocument run = sweep_of({{"A", 16, 80, 50}, {"C", 8, 80, 10}, {"D", 4, 80, 10}});
  const Recommendation busy = recommend({{run, "run.json"}}, ranked_by(RankBy::iteration_time_under_compute));
  REQUIRE(busy.bands.size() == 1);
  CHECK(busy.bands[0].winner == "D");
}

TEST_CASE("ranking under compute needs measurements under compute", "[recommend][overlap]") {
  RunDocument run = sweep_of({{"A", 16, 80, 50}, {"B", 32, 100, 80}});
  for (MeasurementRecord& r : run.records) r.under_compute.reset();
  CHECK_THROWS_WITH(recommend({{run, "run.json"}}, ranked_by(RankBy::iteration_time_under_compute)),
                    ContainsSubstring("no measurements under compute"));
}
