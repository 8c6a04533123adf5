// What --resume reads back from an earlier run's records.jsonl.
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "results/json_lines.hpp"
#include "results/measurement_key.hpp"
#include "results/record_json.hpp"
#include "results/results_directory.hpp"
#include "results/resume.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
namespace fs = std::filesystem;

namespace {

MeasurementRecord record(Bytes size, const std::string& placement) {
  MeasurementRecord r;
  r.collective = &collective("all_reduce");
  r.dtype = &data_type("float32");
  r.op = ReduceOp::sum;
  r.size_bytes = r.requested_bytes = size;
  r.placement = parse_placement(placement);
  r.point = "p1";
  r.time_us = {1, 2, 3};
  return r;
}

fs::path write_records(const std::string& name, const std::string& text) {
  const fs::path dir = ncclsweep::testing::scratch_root() / "resume";
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

std::string line(const MeasurementRecord& r) { return nlohmann::json(r).dump() + "\n"; }

}  // namespace

TEST_CASE("a measurement's key names what was measured, not what it measured") {
  MeasurementRecord a = record(1024, "in_place");
  MeasurementRecord b = a;
  b.time_us = {9, 9, 9};
  b.busbw_gbps = 5;
  CHECK(key_of(a) == key_of(b));
  CHECK(key_of(a) == key_of(b));
  for (auto change : {+[](MeasurementRecord& r) { r.placement = Placement::out_of_place; },
                      +[](MeasurementRecord& r) { r.point = "p2"; }, +[](MeasurementRecord& r) { r.size_bytes = 2048; },
                      +[](MeasurementRecord& r) { r.requested_bytes = 1000; },
                      +[](MeasurementRecord& r) { r.dtype = &data_type("int8"); }, +[](MeasurementRecord& r) { r.op = ReduceOp::max; },
                      +[](MeasurementRecord& r) { r.collective = &collective("all_gather"); },
                      +[](MeasurementRecord& r) { r.buffers = BufferMode::nccl_register; },
                      +[](MeasurementRecord& r) { r.launch = LaunchMode::graph; },
                      +[](MeasurementRecord& r) { r.communicator = CommunicatorKind::intra_node; },
                      +[](MeasurementRecord& r) { r.ranks = 2; }, +[](MeasurementRecord& r) { r.repeat = 1; },
                      +[](MeasurementRecord& r) { r.root = 0; }}) {
    MeasurementRecord c = a;
    change(c);
    CHECK(key_of(c) != key_of(a));
    CHECK(key_of(c) != key_of(a));
  }
}

TEST_CASE("complete lines are kept and a cut-off last line is dropped and noted") {
  const std::string good = line(record(1024, "in_place")) + line(record(2048, "in_place"));
  const std::string cut = line(record(4096, "in_place")).substr(0, 30);
  const fs::path path = write_records("cut.jsonl", good + cut);
  const RecordedMeasurements found = read_recorded_measurements(path);
  REQUIRE(found.records.size() == 2);
  CHECK(found.records[1].size_bytes == 2048);
  CHECK(found.complete_bytes == good.size());
  CHECK_THAT(found.dropped_tail, ContainsSubstring("line 3"));
}

TEST_CASE("a last line that ends in a newline but is not a record is dropped too") {
  const std::string good = line(record(1024, "in_place"));
  const RecordedMeasurements found = read_recorded_measurements(write_records("bad-last.jsonl", good + "{\"coll\n"));
  CHECK(found.records.size() == 1);
  CHECK(found.complete_bytes == good.size());
  CHECK_FALSE(found.dropped_tail.empty());
}

TEST_CASE("an intact file has nothing dropped; a missing one has no records") {
  const std::string good = line(record(1024, "in_place")) + line(record(1024, "out_of_place"));
  const RecordedMeasurements found = read_recorded_measurements(write_records("intact.jsonl", good));
  CHECK(found.records.size() == 2);
  CHECK(found.complete_bytes == good.size());
  CHECK(found.dropped_tail.empty());
  CHECK(measurement_keys(found.records).size() == 2);
  CHECK(read_recorded_measurements("/nonexistent/records.jsonl").records.empty());
}

TEST_CASE("a malformed line before the last is refused with its line number") {
  const fs::path path = write_records("middle.jsonl", line(record(1024, "in_place")) + "garbage\n" +
                                                          line(record(2048, "in_place")));
  const std::string text = usage_error_text([&] { read_recorded_measurements(path); });
  CHECK_THAT(text, ContainsSubstring("line 2"));
  CHECK_THAT(text, ContainsSubstring("--resume"));
}

TEST_CASE("a whole line naming a collective this ncclsweep does not know is refused with its file and line") {
  std::string odd = line(record(2048, "in_place"));
  const std::string known = "\"collective\":\"all_reduce\"";
  REQUIRE(odd.find(known) != std::string::npos);
  odd.replace(odd.find(known), known.size(), "\"collective\":\"all_reduse\"");
  // Last line too: it is whole (it ends in a newline), so it is not a cut-off tail to drop.
  const fs::path path = write_records("unknown-name.jsonl", line(record(1024, "in_place")) + odd);
  const std::string text = usage_error_text([&] { read_recorded_measurements(path); });
  CHECK_THAT(text, ContainsSubstring("unknown-name.jsonl line 2: unknown collective 'all_reduse'"));
  CHECK_THAT(text, ContainsSubstring("all_reduce"));
}

TEST_CASE("the JSON-lines reader keeps whole lines, drops a torn last one and refuses damage before it") {
  const auto damaged = [](int line, const std::string& why) {
    return UsageError("damaged at " + std::to_string(line) + ": " + why, "the caller's fix");
  };
  const JsonLines whole = read_json_lines("{\"a\":1}\n{\"a\":2}\n", "f.jsonl", damaged);
  REQUIRE(whole.lines.size() == 2);
  CHECK(whole.lines[1].number == 2);
  CHECK(whole.lines[1].value.at("a") == 2);
  CHECK(whole.complete_bytes == 16);
  CHECK(whole.torn_line == 0);
  // Killed mid-line: no newline, or a newline after JSON cut short. The whole lines stay.
  for (const std::string& tail : {std::string("{\"a\":"), std::string("{\"a\":\n")}) {
    const JsonLines torn = read_json_lines("{\"a\":1}\n" + tail, "f.jsonl", damaged);
    CHECK(torn.lines.size() == 1);
    CHECK(torn.complete_bytes == 8);
    CHECK(torn.torn_line == 2);
    CHECK_FALSE(torn.torn_why.empty());
  }
  CHECK(read_json_lines("{\"a\":1}\n{\"a\":", "f.jsonl", damaged).torn_why == "no newline at its end");
  // Damage before the last line is no kill's: refused in the caller's words, at its line.
  CHECK_THAT(usage_error_text([&] { read_json_lines("{\"a\":1}\nnot json\n{\"a\":3}\n", "f.jsonl", damaged); }),
             ContainsSubstring("damaged at 2: "));
  CHECK(read_json_lines("", "f.jsonl", damaged).lines.empty());
}

TEST_CASE("the digest is stable and tells texts apart") {
  CHECK(digest_hex("abc") == digest_hex("abc"));
  CHECK(digest_hex("abc") != digest_hex("abd"));
  CHECK(digest_hex("").size() == 16);
  CHECK(digest_hex("a") == "af63dc4c8601ec8c");  // FNV-1a 64 of "a", the published test vector
}

TEST_CASE("a run name cannot lead a results directory out of the results root") {
  CHECK(unsafe_run_name_reason("nvls-sweep_2.28").empty());
  for (const char* bad : {"", "../etc", "..", ".", "a/b", "/abs", ".hidden", "a\\b", "tab\there"}) {
    INFO(bad);
    CHECK_FALSE(unsafe_run_name_reason(bad).empty());
    CHECK_THAT(usage_error_text([&] { default_results_dir("results", bad, "20261129T000000Z"); }),
               ContainsSubstring("--name"));
  }
  CHECK(default_results_dir("results", "ok", "T") == fs::path("results/ok/T"));
}

TEST_CASE("a run name must be UTF-8, since run.json holds it") {
  CHECK(unsafe_run_name_reason("s\xc3\xa9rie-\xe2\x82\xac").empty());  // é and €
  for (const char* bad : {"\xff", "a\xc3", "\xe2\x82", "\xc3\x28", "\xf8\x88\x80\x80\x80"}) {
    INFO(bad);
    CHECK_THAT(unsafe_run_name_reason(bad), ContainsSubstring("UTF-8"));
  }
}
