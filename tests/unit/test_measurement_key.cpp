// One typed key and one repeat aggregation: every printer sees a run of
// 2 points x 2 buffer modes x 2 launch modes x 2 sizes x 3 repeats, and a grouped run,
// and no two measurements are ever merged.
#include <cstdio>
#include <set>
#include <sstream>

#include "catch_compat.hpp"
#include "read_file.hpp"
#include "compare/side_readers.hpp"
#include "report/printers.hpp"
#include "report/sweep_report.hpp"
#include "report/sweep_summary.hpp"
#include "report/terminal_table.hpp"
#include "results/best_mode.hpp"
#include "results/measurement_key.hpp"
#include "results/record_json.hpp"
#include "results/repeats.hpp"
#include "results/resume.hpp"

using namespace ncclsweep;

namespace {

const char* const kPointLabels[] = {"NCCL_PROTO=LL", "NCCL_PROTO=Simple"};
const BufferMode kBuffers[] = {BufferMode::cuda_malloc, BufferMode::nccl_register};
const LaunchMode kLaunches[] = {LaunchMode::stream, LaunchMode::graph};
const Bytes kSizes[] = {1 << 20, 64 << 20};
constexpr int kRepeats = 3;

// Every measurement's busbw is its own: point 100s, buffers 10s, launch 1s, size 0.5;
// the repeats lie 0.1 around it, so the median is the base and any merge shows.
double base_busbw(int point, int buffers, int launch, int size) {
  return 100.0 * (point + 1) + 10.0 * buffers + launch + 0.5 * size;
}

MeasurementRecord fabricated(int point, int buffers, int launch, int size, int repeat, const char* placement) {
  MeasurementRecord r;
  r.collective = &collective("all_reduce");
  r.dtype = &data_type("float32");
  r.op = ReduceOp::sum;
  r.ranks = 4;
  r.size_bytes = r.requested_bytes = kSizes[size];
  r.count = kSizes[size] / 4;
  r.placement = parse_placement(placement);
  r.buffers = kBuffers[buffers];
  r.launch = kLaunches[launch];
  r.point = kPointLabels[point];
  r.repeat = repeat;
  r.busbw_gbps = base_busbw(point, buffers, launch, size) + 0.1 * (repeat - 1) + (placement[0] == 'i' ? 0.25 : 0);
  r.algbw_gbps = r.busbw_gbps / 1.5;
  r.time_us = {1, 2, static_cast<double>(kSizes[size]) / r.algbw_gbps / 1e3};
  r.wrong = 0;
  return r;
}

RunDocument mixed_mode_run() {
  RunDocument run;
  run.name = "modes";
  run.status = RunStatus::complete;
  run.baseline = kPointLabels[0];
  for (const char* label : kPointLabels) {
    PointOutcome p;
    p.label = label;
    p.status = PointStatus::ok;
    run.points.push_back(p);
  }
  for (int repeat = 0; repeat < kRepeats; ++repeat) {  // interleaved, as a run writes them
    for (int point = 0; point < 2; ++point) {
      for (int buffers = 0; buffers < 2; ++buffers) {
        for (int launch = 0; launch < 2; ++launch) {
          for (int size = 0; size < 2; ++size) {
            for (const char* placement : {"out_of_place", "in_place"}) {
              run.records.push_back(fabricated(point, buffers, launch, size, repeat, placement));
            }
          }
        }
      }
    }
  }
  return run;
}

constexpr std::size_t kMeasurements = 2 * 2 * 2 * 2 * 2;  // points, buffers, launches, sizes, placements

}  // namespace

TEST_CASE("the key holds every field that makes a measurement, and orders by them") {
  const MeasurementRecord a = fabricated(0, 0, 0, 0, 0, "out_of_place");
  const MeasurementKey k = key_of(a);
  CHECK(k.collective == &collective("all_reduce"));
  CHECK(k.dtype == &data_type("float32"));
  CHECK(k.op == ReduceOp::sum);
  CHECK(k.placement == Placement::out_of_place);
  CHECK(k.communicator == CommunicatorShape{CommunicatorKind::world, 4});
  MeasurementRecord later = a;
  later.repeat = 1;
  CHECK(key_of(later) > k);
  CHECK(without_repeat(key_of(later)) == k);
  MeasurementRecord other_point = a;
  other_point.point = "x";
  CHECK(series_of(key_of(other_point)) == series_of(k));
  MeasurementRecord other_mode = a;
  other_mode.launch = LaunchMode::graph;
  CHECK(series_of(key_of(other_mode)) != series_of(k));
  CHECK(series_title(key_of(other_mode)) == "all_reduce float32 sum [launch graph]");
  nlohmann::json bad = a;
  bad["buffers"] = "pinned";
  CHECK_THAT(usage_error_text([&] { (void)bad.get<MeasurementRecord>(); }),
             ContainsSubstring("unknown buffer mode 'pinned'"));
}

TEST_CASE("repeats are folded once: median, min, max, spread and count") {
  const RepeatStats s = repeat_stats(std::vector<double>{104, 100, 108});
  CHECK(s.median == Approx(104));
  CHECK(s.min == Approx(100));
  CHECK(s.max == Approx(108));
  CHECK(s.spread == Approx(8.0 / 104));
  CHECK(s.count == 3);
  CHECK(repeat_stats(std::vector<double>{5}).spread == 0);
}

TEST_CASE("every measurement of a mixed-mode run keeps its own repeats") {
  const RunDocument run = mixed_mode_run();
  const std::vector<RepeatedMeasurement> all = aggregate_repeats(run.records);
  REQUIRE(all.size() == kMeasurements);
  std::set<double> medians;
  for (const RepeatedMeasurement& m : all) {
    CHECK(m.busbw_gbps.count == kRepeats);
    CHECK(m.busbw_gbps.max - m.busbw_gbps.min == Approx(0.2));
    CHECK(m.wrong == std::uint64_t{0});
    medians.insert(m.busbw_gbps.median);
  }
  CHECK(medians.size() == kMeasurements);
  // --resume skips each recorded repeat of each measurement, and nothing else.
  CHECK(measurement_keys(run.records).size() == run.records.size());
}

TEST_CASE("the sweep report has a block per mode and the median of each point's own repeats") {
  const SweepReport report = build_sweep_report(mixed_mode_run());
  REQUIRE(report.blocks.size() == 4);  // buffers x launches
  std::set<std::string> titles;
  for (const SweepBlock& block : report.blocks) {
    titles.insert(block.title);
    REQUIRE(block.sizes.size() == 2);
    REQUIRE(block.busbw[0].size() == 2);
    const int buffers = block.title.find("nccl-register") != std::string::npos;
    const int launch = block.title.find("launch graph") != std::string::npos;
    for (int size = 0; size < 2; ++size) {
      for (int point = 0; point < 2; ++point) {
        REQUIRE(block.busbw[size][point]);
        CHECK(*block.busbw[size][point] == Approx(base_busbw(point, buffers, launch, size)));
      }
    }
  }
  CHECK(titles.size() == 4);
  CHECK(titles.count("all_reduce float32 sum") == 1);  // the default modes keep the plain title
  for (const char* format : {"table", "md", "csv", "json"}) {
    std::ostringstream out;
    print_sweep_report(report, kReportFormatNames.parse(format), out);
    INFO(format << "\n" << out.str());
    CHECK(occurrences(out.str(), "launch graph") >= 2);
  }
}

TEST_CASE("the end-of-run summary never takes modes for repeats") {
  const std::string text = sweep_summary_text(mixed_mode_run(), kPointLabels[0]);
  INFO(text);
  CHECK(occurrences(text, "# all_reduce float32 sum") == 4);
  // Point 1 is 100 GB/s above point 0 in every mode: +100%, +83%, ... never within noise.
  CHECK(occurrences(text, "%~)") == 0);
  for (int buffers = 0; buffers < 2; ++buffers) {
    for (int launch = 0; launch < 2; ++launch) {
      char cell[32];
      std::snprintf(cell, sizeof cell, "%.1f", base_busbw(1, buffers, launch, 0));
      CHECK(occurrences(text, cell) == 1);
    }
  }
}

TEST_CASE("the terminal table starts a block per point and mode, and picks the best mode per size") {
  RunDocument run = mixed_mode_run();
  std::ostringstream out;
  auto table = make_terminal_table(out);
  for (std::size_t i = 0; i + 1 < run.records.size(); i += 2) table->row({&run.records[i], 2});
  table->finish(run);
  const std::string text = out.str();
  INFO(text);
  // Repeats come interleaved: each repeat's point and mode starts a block again.
  CHECK(occurrences(text, "#\n# all_reduce") == 2 * 2 * 2 * kRepeats);
  const std::vector<BestMode> best = best_modes(aggregate_repeats(run.records));
  REQUIRE(best.size() == 2 * 2 * 2);  // points x sizes x placements
  for (const BestMode& b : best) {
    CHECK(b.modes == 4);
    CHECK(b.key.buffers == BufferMode::nccl_register);
    CHECK(b.key.launch == LaunchMode::graph);
  }
  CHECK(occurrences(text, "nccl-register graph") == best.size());
}

TEST_CASE("compare and the report of a run see every measurement as its own row") {
  const Side side = side_from_run(mixed_mode_run(), "run.json");
  CHECK(side.rows.size() == kMeasurements);
  CHECK(side.notes.empty());  // no duplicates dropped
  std::set<double> busbw;
  for (const SideRow& row : side.rows) {
    busbw.insert(row.busbw_gbps);
    REQUIRE(row.measured_spread);
  }
  CHECK(busbw.size() == kMeasurements);
  for (const char* format : {"table", "md", "csv", "json"}) {
    std::ostringstream out;
    side_printer(kReportFormatNames.parse(format))(side, PrintStyle{}, out);
    CHECK(occurrences(out.str(), "nccl-register") >= 4);
  }
}

TEST_CASE("a grouped run keeps the world's numbers apart from the groups'") {
  RunDocument run = mixed_mode_run();
  std::vector<MeasurementRecord> records;
  for (MeasurementRecord r : run.records) {
    if (r.buffers != BufferMode::cuda_malloc || r.launch != LaunchMode::stream) continue;
    records.push_back(r);
    r.communicator = CommunicatorKind::intra_node;
    r.ranks = 2;
    r.communicators = 2;
    r.busbw_gbps += 1000;  // the groups' numbers are far from the world's
    records.push_back(r);
  }
  run.records = records;
  const std::string text = sweep_summary_text(run, kPointLabels[0]);
  INFO(text);
  CHECK(occurrences(text, "# all_reduce float32 sum\n") == 1);
  CHECK(occurrences(text, "# all_reduce float32 sum on intra-node groups of 2\n") == 1);
  CHECK(occurrences(text, "%~)") == 0);
  const SweepReport report = build_sweep_report(run);
  REQUIRE(report.blocks.size() == 2);
  CHECK(*report.blocks[0].busbw[0][0] < 1000);
  CHECK(*report.blocks[1].busbw[0][0] > 1000);
  const Side side = side_from_run(run, "run.json");
  CHECK(side.rows.size() == run.records.size() / kRepeats);
  CHECK(side.notes.empty());
}
