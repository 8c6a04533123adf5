// Buffer footprint and cache state: parsing, the plan, the buffer spans both
// engines follow, records, and compare's footprint-aware verdicts against a real
// nccl-tests log.
#include <nlohmann/json.hpp>

#include <filesystem>

#include "catch_compat.hpp"
#include "compare/comparison.hpp"
#include "compare/footprint_match.hpp"
#include "compare/side_readers.hpp"
#include "core/buffer_footprint.hpp"
#include "core/errors.hpp"
#include "plan/measurement_plan.hpp"
#include "results/best_mode.hpp"
#include "results/measurement_key.hpp"
#include "results/repeats.hpp"
#include "results/record_json.hpp"
#include "results/resume.hpp"
#include "processes/worker_protocol.hpp"

using namespace ncclsweep;

namespace {

const std::filesystem::path kNcclTests = NCCLSWEEP_TEST_DATA "/nccl-tests";

RunSpec reduce_scatter(const std::string& sizes) {
  RunSpec spec;
  spec.collectives = parse_collective_list("reduce_scatter");
  spec.sizes = parse_size_list(sizes);
  spec.dtypes = parse_dtype_list("float32");
  spec.ops = parse_op_list("sum");
  return spec;
}

// An ncclsweep run on 2 ranks with one record per row of `like`, at `scale` x its busbw,
// measured with `footprint` (resolved as the plan would, against the largest size).
RunDocument run_like(const Side& like, double scale, const BufferFootprint& footprint, CacheState cache) {
  RunDocument run;
  run.status = RunStatus::complete;
  run.ranks.resize(2);
  run.hosts = {"vm"};
  Bytes largest = 0;
  for (const SideRow& row : like.rows) largest = std::max(largest, row.key.size_bytes);
  for (const SideRow& row : like.rows) {
    MeasurementRecord r;
    r.collective = row.key.collective;
    r.dtype = row.key.dtype;
    r.op = row.key.op;
    r.size_bytes = r.requested_bytes = row.key.size_bytes;
    r.placement = row.key.placement;
    r.busbw_gbps = row.busbw_gbps * scale;
    r.time_us.max = row.time_us / scale;
    r.ranks = 2;
    r.buffer_footprint = footprint;
    r.footprint_bytes = footprint_bytes(footprint, r.size_bytes, largest);
    r.cache = cache;
    run.records.push_back(r);
  }
  return run;
}

}  // namespace

TEST_CASE("footprint and cache lists parse, and a typo names the valid forms") {
  const auto footprints = parse_footprint_list("largest, exact,1G,exact");
  REQUIRE(footprints.size() == 3);
  CHECK(footprints[0].mode == FootprintMode::largest);
  CHECK(footprints[1].mode == FootprintMode::exact);
  CHECK(footprints[2] == BufferFootprint{FootprintMode::fixed, Bytes{1} << 30});
  CHECK(label_of(footprints[2]) == "1073741824");
  CHECK_THAT(usage_error_text([] { parse_footprint_list("biggest"); }), ContainsSubstring("largest"));
  CHECK_THROWS_AS(parse_footprint_list("0"), UsageError);
  CHECK(parse_cache_state_list("flush,warm") == std::vector<CacheState>{CacheState::flush, CacheState::warm});
  CHECK_THAT(usage_error_text([] { parse_cache_state_list("cold"); }), ContainsSubstring("use one of warm, flush"));
  // The same comma lists as every other flag: an empty entry is refused, not read as a size.
  CHECK_THAT(usage_error_text([] { parse_footprint_list("largest,,exact"); }),
             ContainsSubstring("empty entry in the buffer footprint list"));
  CHECK_THAT(usage_error_text([] { parse_cache_state_list(""); }), ContainsSubstring("the cache state list is empty"));
}

TEST_CASE("a larger footprint rotates calls through it as nccl-tests shifts its iterations") {
  // ReduceScatter of 16 MiB in a 64 MiB allocation: four offsets, 16 MiB apart.
  const BufferSpan rotated = buffer_span(16 * kMiB, 8 * kMiB, 64 * kMiB);
  CHECK(rotated.send_bytes == 64 * kMiB);
  CHECK(rotated.recv_bytes == 64 * kMiB);
  CHECK(rotated.offsets == 4);
  CHECK(rotated.offset_of(0) == 0);
  CHECK(rotated.offset_of(3) == 48 * kMiB);
  CHECK(rotated.offset_of(5) == 16 * kMiB);
  // Not a whole multiple: floor, so the last offset still holds the whole call.
  const BufferSpan floor = buffer_span(24 * kMiB, 24 * kMiB, 64 * kMiB);
  CHECK(floor.offsets == 2);
  CHECK(floor.offset_of(1) + 24 * kMiB <= floor.recv_bytes);
  // Exact: each buffer as the call needs it, always at offset 0.
  const BufferSpan exact = buffer_span(16 * kMiB, 8 * kMiB, 16 * kMiB);
  CHECK(exact.send_bytes == 16 * kMiB);
  CHECK(exact.recv_bytes == 8 * kMiB);
  CHECK(exact.offsets == 1);
  CHECK(exact.offset_of(7) == 0);
}

TEST_CASE("the plan resolves largest against the run's largest size, and measures each footprint and cache") {
  RunSpec spec = reduce_scatter("1M,16M,64M");
  const MeasurementPlan plain = plan_measurements(spec, 2);
  REQUIRE(plain.calls.size() == 3);
  for (const PlannedCall& c : plain.calls) {
    CHECK(c.call.footprint_bytes == 64 * kMiB);  // the default is nccl-tests' model
    CHECK(c.call.cache == CacheState::warm);
  }
  spec.footprints = parse_footprint_list("exact,256M");
  spec.cache_states = parse_cache_state_list("warm,flush");
  const MeasurementPlan axes = plan_measurements(spec, 2);
  REQUIRE(axes.calls.size() == 3 * 2 * 2);
  CHECK(axes.calls[1].call.footprint_bytes == 16 * kMiB);  // exact: the size
  CHECK(axes.calls[3].call.cache == CacheState::flush);
  CHECK(axes.calls[6].call.footprint_bytes == 256 * kMiB);
  CHECK(axes.calls[6].footprint.mode == FootprintMode::fixed);
}

TEST_CASE("workers receive footprints and cache states; plain runs' messages carry neither") {
  RunSpec spec = reduce_scatter("1M");
  CHECK_FALSE(nlohmann::json(spec).contains("buffer_footprint"));
  CHECK_FALSE(nlohmann::json(spec).contains("cache"));
  spec.footprints = parse_footprint_list("exact,8G");
  spec.cache_states = {CacheState::flush};
  const RunSpec back = nlohmann::json(spec).get<RunSpec>();
  CHECK(back.footprints == spec.footprints);
  CHECK(back.cache_states == spec.cache_states);
}

TEST_CASE("records carry the footprint and cache; different footprints stay apart everywhere") {
  MeasurementRecord r;
  r.collective = &collective("reduce_scatter");
  r.dtype = &data_type("float32");
  r.op = ReduceOp::sum;
  r.placement = Placement::out_of_place;
  r.size_bytes = r.requested_bytes = 16 * kMiB;
  r.buffer_footprint = BufferFootprint{FootprintMode::largest, 0};
  r.footprint_bytes = 1024 * kMiB;
  r.footprint_offsets = 64;
  r.cache = CacheState::warm;
  const nlohmann::json j = r;
  CHECK(j.at("footprint_bytes") == 1024 * kMiB);
  const MeasurementRecord back = j.get<MeasurementRecord>();
  CHECK(back.buffer_footprint == BufferFootprint{FootprintMode::largest, 0});
  CHECK(back.footprint_offsets == 64);
  CHECK(back.cache == CacheState::warm);
  // Records from before the footprint existed read as unknown, not as a default.
  nlohmann::json old = j;
  old.erase("buffer_footprint");
  old.erase("footprint_bytes");
  old.erase("cache");
  CHECK_FALSE(old.get<MeasurementRecord>().buffer_footprint);

  MeasurementRecord exact = r;
  exact.buffer_footprint = BufferFootprint{FootprintMode::exact, 0};
  exact.footprint_bytes = 16 * kMiB;
  MeasurementRecord flushed = r;
  flushed.cache = CacheState::flush;
  CHECK(conditions_text(key_of(r)).empty());
  CHECK(conditions_text(key_of(exact)) == "footprint exact");
  CHECK(conditions_text(key_of(flushed)) == "cache flush");
  // --resume tells them apart; a plain record's key is as before.
  CHECK(key_of(exact) != key_of(r));
  CHECK(key_of(flushed) != key_of(r));
  MeasurementRecord unknown = r;
  unknown.buffer_footprint.reset();
  unknown.cache.reset();
  CHECK(key_of(unknown) == key_of(r));
  // The best mode per size never picks across footprints: each is its own size.
  exact.busbw_gbps = 1;
  MeasurementRecord registered = exact;
  registered.buffers = BufferMode::nccl_register;
  registered.busbw_gbps = 2;
  const std::vector<MeasurementRecord> records{r, exact, registered};
  const auto best = best_modes(aggregate_repeats(records));
  REQUIRE(best.size() == 1);
  CHECK(best[0].key.footprint.mode == FootprintMode::exact);
  CHECK(best[0].key.buffers == BufferMode::nccl_register);
}

TEST_CASE("nccl-tests text and JSON give their footprint: maxBytes, warm") {
  const Side text = load_side(kNcclTests / "nccl-tests-reduce_scatter-np2.txt");
  REQUIRE_FALSE(text.rows.empty());
  for (const SideRow& row : text.rows) {
    CHECK(row.footprint_bytes == std::optional<Bytes>(Bytes{4} << 30));  // "maxBytes 4294967296"
    CHECK(row.cache == CacheState::warm);
  }
  const Side json = load_side(kNcclTests / "all_gather-j.json");
  REQUIRE_FALSE(json.rows.empty());
  CHECK(json.rows.front().footprint_bytes == std::optional<Bytes>(4 * kMiB));  // -e 4M
}

TEST_CASE("compare: an exact-footprint run against a ranged nccl-tests log is ambiguous where it matters") {
  const Side reference = load_side(kNcclTests / "nccl-tests-reduce_scatter-np2.txt");
  // 25% faster everywhere, as an exact footprint reads at 1-16 MiB.
  const Side exact = side_from_run(run_like(reference, 1.25, {FootprintMode::exact, 0}, CacheState::warm), "exact-run");
  const Comparison c = compare_sides(exact, reference, CompareOptions{});
  int ambiguous = 0, judged = 0;
  for (const RowComparison& row : c.rows) {
    INFO(row_label(row.key));
    if (row.key.size_bytes <= kFootprintSensitiveBytes) {
      CHECK(row.verdict == Verdict::ambiguous);
      ++ambiguous;
    } else {
      CHECK(std::string(verdict_name(row.verdict)) + " " + row_label(row.key) == std::string("faster ") + row_label(row.key));
      ++judged;
    }
  }
  CHECK(ambiguous == 6);  // 1, 4 and 16 MiB, out of place and in place
  CHECK(judged > 0);
  bool said = false;
  for (const std::string& d : c.differences) {
    said = said || (d.find("buffer footprint") != std::string::npos && d.find("ambiguous") != std::string::npos &&
                    d.find("--buffer-footprint 4294967296") != std::string::npos);
  }
  CHECK(said);

  // 20% slower with an exact footprint: inside what a footprint explains, so small sizes
  // are not failed on it (larger ones are).
  const Side slow = side_from_run(run_like(reference, 0.8, {FootprintMode::exact, 0}, CacheState::warm), "slow-run");
  const Comparison s = compare_sides(slow, reference, CompareOptions{});
  for (const RowComparison& row : s.rows) CHECK(row.fails == (row.key.size_bytes > kFootprintSensitiveBytes));

  // The same footprint (largest at the log's maxBytes) is judged at every size (50% faster:
  // beyond the noise band of a 1 MiB figure, which grows where the time is small).
  const Side matched = side_from_run(run_like(reference, 1.5, {FootprintMode::largest, 0}, CacheState::warm), "matched-run");
  for (const RowComparison& row : compare_sides(matched, reference, CompareOptions{}).rows) {
    CHECK(row.verdict == Verdict::faster);
  }
  // A flushed cache is another measurement too.
  const Side flushed = side_from_run(run_like(reference, 1.25, {FootprintMode::largest, 0}, CacheState::flush), "flush-run");
  const Comparison f = compare_sides(flushed, reference, CompareOptions{});
  for (const RowComparison& row : f.rows) {
    CHECK((row.verdict == Verdict::ambiguous) == (row.key.size_bytes <= kFootprintSensitiveBytes));
  }
}

TEST_CASE("compare: a 1000x gap is slower whatever the footprints, with the footprint named") {
  const Side reference = load_side(kNcclTests / "nccl-tests-reduce_scatter-np2.txt");
  const Side broken = side_from_run(run_like(reference, 0.001, {FootprintMode::exact, 0}, CacheState::warm), "broken-run");
  const Comparison c = compare_sides(broken, reference, CompareOptions{});
  CHECK_FALSE(c.passed());
  for (const RowComparison& row : c.rows) {
    INFO(row_label(row.key));
    CHECK(row.verdict == Verdict::slower);
    CHECK(row.fails);
    CHECK(row.footprint_differs == (row.key.size_bytes <= kFootprintSensitiveBytes));
  }
  bool said = false;
  for (const std::string& d : c.differences) said = said || d.find("0 row(s) inside that are ambiguous, 6 ") != std::string::npos;
  CHECK(said);
  // Just beyond the envelope (1.6x) plus both bands is slower too; just inside, ambiguous.
  CHECK(judge_row(100, 1, 240, 1, true, kDefaultMaxBandShare) == Verdict::slower);
  CHECK(judge_row(100, 1, 150, 1, true, kDefaultMaxBandShare) == Verdict::ambiguous);
  CHECK(judge_row(100, 1, 150, 1, false, kDefaultMaxBandShare) == Verdict::slower);
}

TEST_CASE("compare: two nccl-tests launches with different maxBytes that agree are same, and hints use -e") {
  // One process driving 2 GPUs up to 8 GiB against two processes up to 4 GiB: different
  // footprints, the same machine. Where they agree (4 and 16 MiB) the rows are same; 1 MiB,
  // 26% apart, is inside the footprint envelope: ambiguous.
  const Side eight_gib = load_side(kNcclTests / "nccl-tests-all_gather-g2-8B-8G.txt");
  const Side four_gib = load_side(kNcclTests / "nccl-tests-all_gather-np2.txt");
  const Comparison c = compare_sides(eight_gib, four_gib, CompareOptions{});
  CHECK(c.passed());
  int same_small = 0;
  for (const RowComparison& row : c.rows) {
    INFO(row_label(row.key));
    CHECK(row.footprint_differs == (row.key.size_bytes <= kFootprintSensitiveBytes));
    if (row.key.size_bytes == 4 * kMiB || row.key.size_bytes == 16 * kMiB) {
      CHECK(row.verdict == Verdict::same);
      ++same_small;
    }
    if (row.key.size_bytes == kMiB && row.key.placement == Placement::out_of_place) CHECK(row.verdict == Verdict::ambiguous);
  }
  CHECK(same_small == 4);
  std::string line;
  for (const std::string& d : c.differences) {
    if (d.find("buffer footprint") != std::string::npos) line = d;
  }
  CHECK_THAT(line, ContainsSubstring("rerun NEW (nccl-tests) with -e 4294967296"));
  CHECK_THAT(line, ContainsSubstring("REFERENCE (nccl-tests) with -e 8589934592"));
  CHECK(line.find("--buffer-footprint") == std::string::npos);

  // NEW nccl-tests against an ncclsweep run with a flushed cache: nccl-tests cannot flush,
  // so the hint is the ncclsweep side's flags.
  const Side flushed = side_from_run(run_like(four_gib, 1.0, {FootprintMode::largest, 0}, CacheState::flush), "flush-run");
  const Comparison f = compare_sides(four_gib, flushed, CompareOptions{});
  std::string hint;
  for (const std::string& d : f.differences) {
    if (d.find("buffer footprint") != std::string::npos) hint = d;
  }
  CHECK_THAT(hint, ContainsSubstring("rerun REFERENCE (ncclsweep) with --cache warm"));
  CHECK(hint.find("NEW (nccl-tests)") == std::string::npos);
}

TEST_CASE("a run with two footprints keeps the non-default one as rows of its own") {
  const Side reference = load_side(kNcclTests / "nccl-tests-reduce_scatter-np2.txt");
  RunDocument both = run_like(reference, 1.0, {FootprintMode::largest, 0}, CacheState::warm);
  const RunDocument exact = run_like(reference, 2.0, {FootprintMode::exact, 0}, CacheState::warm);
  both.records.insert(both.records.end(), exact.records.begin(), exact.records.end());
  const Side side = side_from_run(both, "both");
  CHECK(side.rows.size() == 2 * reference.rows.size());
  // Only the largest rows match nccl-tests', and they are the same measurement.
  const Comparison c = compare_sides(side, reference, CompareOptions{});
  CHECK(c.rows.size() == reference.rows.size());
  for (const RowComparison& row : c.rows) CHECK(row.verdict == Verdict::same);
}
