// Every value of every enum a record, point or run holds goes through run.json and back
// unchanged, and each printer writes it by its one name. The values come from the enums'
// name tables, so a value added to a table is covered here without a line of this file.
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "catch_compat.hpp"
#include "compare/side_readers.hpp"
#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "core/setting_kind.hpp"
#include "core/stopping_rule.hpp"
#include "report/printers.hpp"
#include "report/sweep_report.hpp"
#include "results/measurement_key.hpp"
#include "results/record_json.hpp"
#include "results/search_summary.hpp"
#include "test_data.hpp"

using namespace ncclsweep;

namespace {

MeasurementRecord plain_record(Bytes size) {
  MeasurementRecord r;
  r.collective = &collective("all_gather");
  r.dtype = &data_type("float32");
  r.op = std::nullopt;
  r.size_bytes = r.requested_bytes = size;
  r.count = size / 8;
  r.ranks = 2;
  r.iters = 5;
  r.time_us = {10, 11, 12};
  r.algbw_gbps = 1;
  r.busbw_gbps = 0.5;
  return r;
}

RunDocument run_of(std::vector<MeasurementRecord> records) {
  RunDocument run;
  run.name = "enums";
  run.status = RunStatus::complete;
  run.settings.engine = EngineKind::mpi;
  run.records = std::move(records);
  return run;
}

RunDocument round_trip(const RunDocument& run) { return nlohmann::json(run).get<RunDocument>(); }

std::string printed(const RunDocument& run, std::string_view format) {
  std::ostringstream out;
  side_printer(kReportFormatNames.parse(format))(side_from_run(run, "run.json"), PrintStyle{}, out);
  return out.str();
}

// One record per value of `table`, each set by `set`, sizes 1, 2, 3 KiB... so the
// records stay distinct measurements.
template <typename Table, typename Set>
std::vector<MeasurementRecord> one_record_per_value(const Table& table, Set set) {
  std::vector<MeasurementRecord> records;
  Bytes size = 1024;
  for (const auto& [value, name] : table.entries()) {
    MeasurementRecord r = plain_record(size);
    size += 1024;
    set(r, value);
    records.push_back(r);
  }
  return records;
}

}  // namespace

TEST_CASE("every record mode survives run.json and is printed by its name in csv and json") {
  const auto check_table = [](const auto& table, auto set, auto get) {
    const RunDocument run = run_of(one_record_per_value(table, set));
    const RunDocument back = round_trip(run);
    REQUIRE(back.records.size() == table.entries().size());
    const std::string csv = printed(run, "csv"), json_text = printed(run, "json");
    for (std::size_t i = 0; i < back.records.size(); ++i) {
      const auto& [value, name] = table.entries()[i];
      INFO(table.what() << " " << name);
      CHECK(get(back.records[i]) == value);
      CHECK(get(run.records[i]) == value);
      CHECK_THAT(csv, ContainsSubstring("," + std::string(name) + ","));
      CHECK_THAT(json_text + csv, ContainsSubstring(std::string(name)));
    }
  };
  check_table(kPlacementNames, [](MeasurementRecord& r, Placement v) { r.placement = v; },
              [](const MeasurementRecord& r) { return r.placement; });
  check_table(kBufferModeNames, [](MeasurementRecord& r, BufferMode v) { r.buffers = v; },
              [](const MeasurementRecord& r) { return r.buffers; });
  check_table(kLaunchModeNames, [](MeasurementRecord& r, LaunchMode v) { r.launch = v; },
              [](const MeasurementRecord& r) { return r.launch; });
  check_table(kCacheStateNames, [](MeasurementRecord& r, CacheState v) { r.cache = v; },
              [](const MeasurementRecord& r) { return r.cache.value(); });
}

TEST_CASE("every collective, dtype and op survives run.json as a table entry and is printed by its name") {
  std::vector<MeasurementRecord> records;
  Bytes size = 1024;
  const auto add = [&](const CollectiveKind& kind, const DataType& dtype, std::optional<ReduceOp> op) {
    MeasurementRecord r = plain_record(size);
    size += 1024;
    r.collective = &kind;
    r.dtype = &dtype;
    r.op = kind.reduces ? op : std::nullopt;
    records.push_back(r);
  };
  for (const CollectiveKind& kind : all_collectives()) add(kind, data_type("float32"), ReduceOp::sum);
  for (const DataType& dtype : all_data_types()) add(collective("all_reduce"), dtype, ReduceOp::sum);
  for (const ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg}) {
    add(collective("reduce_scatter"), data_type("bfloat16"), op);
  }
  const RunDocument run = run_of(records);
  const RunDocument back = round_trip(run);
  REQUIRE(back.records.size() == run.records.size());
  const std::string csv = printed(run, "csv"), json_text = printed(run, "json");
  for (std::size_t i = 0; i < back.records.size(); ++i) {
    const MeasurementRecord& r = run.records[i];
    INFO(collective_name(r) << " " << dtype_name(r) << " " << op_name(r));
    CHECK(back.records[i].collective == r.collective);  // the same table entry, not a copy of its name
    CHECK(back.records[i].dtype == r.dtype);
    CHECK(back.records[i].op == r.op);
    const std::string row = std::string(collective_name(r)) + "," + std::string(dtype_name(r)) + "," + std::string(op_name(r));
    CHECK_THAT(csv, ContainsSubstring(row));
    CHECK_THAT(json_text, ContainsSubstring("\"" + std::string(dtype_name(r)) + "\""));
  }
  nlohmann::json bad = run;
  bad["records"][0]["collective"] = "all_gatherr";
  CHECK_THROWS_WITH(bad.get<RunDocument>(), ContainsSubstring("all_gather"));
  bad = run;
  bad["records"][0]["op"] = "median";
  CHECK_THROWS_WITH(bad.get<RunDocument>(), ContainsSubstring("median"));
}

TEST_CASE("every communicator kind survives run.json and is named in the series title") {
  std::vector<MeasurementRecord> records;
  Bytes size = 1024;
  for (const auto& [kind, name] : kCommunicatorKindNames.entries()) {
    MeasurementRecord r = plain_record(size);
    size += 1024;
    r.communicator = kind;
    if (kind != CommunicatorKind::world) {
      r.communicators = 2;
      r.per_communicator = {SubCommunicatorTime{0, {10, 11, 12}, 0.5}, SubCommunicatorTime{1, {10, 11, 12}, 0.5}};
    }
    records.push_back(r);
  }
  const RunDocument run = run_of(records);
  const std::string text = nlohmann::json(run).dump();
  const RunDocument back = round_trip(run);
  REQUIRE(back.records.size() == records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& [kind, name] = kCommunicatorKindNames.entries()[i];
    INFO(name);
    CHECK(back.records[i].communicator == kind);
    if (kind == CommunicatorKind::world) continue;  // world records leave the key out
    CHECK_THAT(text, ContainsSubstring("\"communicator\":\"" + std::string(name) + "\""));
    CHECK_THAT(series_title(key_of(back.records[i])), ContainsSubstring(std::string(name) + " groups of 2"));
  }
  nlohmann::json bad = run;
  bad["records"][1]["communicator"] = "rack";
  CHECK_THROWS_WITH(bad.get<RunDocument>(), ContainsSubstring("unknown communicator kind 'rack'"));
}

TEST_CASE("every footprint mode and stop reason survives run.json; an unknown name is refused with the valid ones") {
  for (const BufferFootprint footprint : {BufferFootprint{FootprintMode::largest, 0}, BufferFootprint{FootprintMode::exact, 0},
                                          BufferFootprint{FootprintMode::fixed, 8u << 20}}) {
    MeasurementRecord r = plain_record(1024);
    r.buffer_footprint = footprint;
    r.footprint_bytes = 8u << 20;
    const RunDocument back = round_trip(run_of({r}));
    CHECK(back.records.at(0).buffer_footprint == footprint);
    CHECK(key_of(back.records.at(0)).footprint == footprint);
  }
  for (const auto& [reason, name] : kStopReasonNames.entries()) {
    MeasurementRecord r = plain_record(1024);
    r.stopped_by = reason;
    const nlohmann::json j = r;
    CHECK(j.at("stopped_by") == name);
    CHECK(j.get<MeasurementRecord>().stopped_by == reason);
  }
  // Records from before these fields were written: unknown, and the key reads nccl-tests' model.
  nlohmann::json old = plain_record(1024);
  old.erase("stopped_by");
  const MeasurementRecord older = old.get<MeasurementRecord>();
  CHECK_FALSE(older.stopped_by);
  CHECK_FALSE(older.buffer_footprint);
  CHECK_FALSE(older.cache);
  CHECK(key_of(older).cache == CacheState::warm);

  nlohmann::json bad = plain_record(1024);
  bad["placement"] = "sideways";
  const std::string text = usage_error_text([&] { (void)bad.get<MeasurementRecord>(); });
  CHECK_THAT(text, ContainsSubstring("unknown placement 'sideways'"));
  CHECK_THAT(text, ContainsSubstring("out_of_place, in_place"));
  bad = plain_record(1024);
  bad["cache"] = "cold";
  CHECK_THAT(usage_error_text([&] { (void)bad.get<MeasurementRecord>(); }), ContainsSubstring("warm, flush"));
}

TEST_CASE("every point and run status survives run.json and the sweep report prints it by its name") {
  RunDocument run = run_of({plain_record(1024)});
  for (const auto& [status, name] : kPointStatusNames.entries()) {
    PointOutcome point;
    point.label = "P-" + std::string(name);
    point.status = status;
    run.points.push_back(point);
  }
  for (const auto& [status, name] : kRunStatusNames.entries()) {
    run.status = status;
    const RunDocument back = round_trip(run);
    CHECK(back.status == status);
    CHECK(nlohmann::json(run).at("status") == name);
    REQUIRE(back.points.size() == kPointStatusNames.entries().size());
    for (std::size_t i = 0; i < back.points.size(); ++i) CHECK(back.points[i].status == run.points[i].status);
  }
  const SweepReport report = build_sweep_report(run);
  std::ostringstream table, json;
  print_sweep_report(report, ReportFormat::table, table);
  print_sweep_report(report, ReportFormat::json, json);
  for (const auto& [status, name] : kPointStatusNames.entries()) {
    INFO(name);
    CHECK_THAT(table.str(), ContainsSubstring("P-" + std::string(name) + "  [" + std::string(name)));
    CHECK_THAT(json.str(), ContainsSubstring("\"status\": \"" + std::string(name) + "\""));
  }
  // A point written before its status was typed had "" there: ok.
  nlohmann::json old = run;
  old["points"][0]["status"] = "";
  CHECK(old.get<RunDocument>().points[0].status == PointStatus::ok);
  old["points"][0]["status"] = "fine";
  CHECK_THAT(usage_error_text([&] { (void)old.get<RunDocument>(); }), ContainsSubstring("unknown point status 'fine'"));
}

TEST_CASE("every setting kind and status survives run.json by its one name") {
  RunDocument run = run_of({plain_record(1024)});
  PointOutcome point;
  point.label = "p";
  for (const auto& [kind, kind_name] : kSettingKindNames.entries()) {
    for (const auto& [status, status_name] : kSettingStatusNames.entries()) {
      point.settings.push_back({"NCCL_" + std::string(kind_name) + "_" + std::string(status_name), "1", kind, status});
    }
  }
  run.points.push_back(point);
  const nlohmann::json j = run;
  const RunDocument back = j.get<RunDocument>();
  REQUIRE(back.points.at(0).settings.size() == point.settings.size());
  for (std::size_t i = 0; i < point.settings.size(); ++i) {
    CHECK(back.points[0].settings[i].kind == point.settings[i].kind);
    CHECK(back.points[0].settings[i].status == point.settings[i].status);
    CHECK(j.at("points")[0].at("settings")[i].at("kind") == name_of(point.settings[i].kind));
  }
}

TEST_CASE("every mode, collective, dtype, op and communicator kind is named in the table, md and svg printers") {
  // One record per value; the human printers name a series by its title, where a mode at
  // its default is left out ("all_gather float32" is cuda_malloc, stream, largest, warm).
  std::vector<MeasurementRecord> records;
  std::vector<std::string> titles;  // what each record's value must show as, in every printer
  Bytes size = 1024;
  const auto add = [&](MeasurementRecord r, const std::string& shown) {
    r.size_bytes = r.requested_bytes = size;
    r.count = size / 8;
    size += 1024;
    records.push_back(r);
    titles.push_back(shown);
  };
  for (const auto& [value, name] : kBufferModeNames.entries()) {
    MeasurementRecord r = plain_record(0);
    r.buffers = value;
    add(r, value == BufferMode::cuda_malloc ? "" : "buffers " + std::string(name));
  }
  for (const auto& [value, name] : kLaunchModeNames.entries()) {
    MeasurementRecord r = plain_record(0);
    r.launch = value;
    add(r, value == LaunchMode::stream ? "" : "launch " + std::string(name));
  }
  for (const auto& [value, name] : kCacheStateNames.entries()) {
    MeasurementRecord r = plain_record(0);
    r.cache = value;
    add(r, value == CacheState::warm ? "" : "cache " + std::string(name));
  }
  for (const CollectiveKind& kind : all_collectives()) {
    MeasurementRecord r = plain_record(0);
    r.collective = &kind;
    r.op = kind.reduces ? std::optional(ReduceOp::sum) : std::nullopt;
    add(r, std::string(kind.name));
  }
  for (const DataType& dtype : all_data_types()) {
    MeasurementRecord r = plain_record(0);
    r.collective = &collective("all_reduce");
    r.dtype = &dtype;
    r.op = ReduceOp::sum;
    add(r, "all_reduce " + std::string(dtype.name) + " sum");
  }
  for (const ReduceOp op : {ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg}) {
    MeasurementRecord r = plain_record(0);
    r.collective = &collective("reduce_scatter");
    r.op = op;
    add(r, "reduce_scatter float32 " + std::string(name_of(op)));
  }
  for (const auto& [kind, name] : kCommunicatorKindNames.entries()) {
    if (kind == CommunicatorKind::world) continue;
    MeasurementRecord r = plain_record(0);
    r.communicator = kind;
    r.communicators = 2;
    r.per_communicator = {SubCommunicatorTime{0, {10, 11, 12}, 0.5}, SubCommunicatorTime{1, {10, 11, 12}, 0.5}};
    add(r, std::string(name) + " groups of 2");
  }
  const RunDocument back = round_trip(run_of(records));
  for (const char* format : {"table", "md", "svg"}) {
    const std::string text = printed(back, format);
    for (const std::string& shown : titles) {
      INFO(format << ": " << shown);
      if (!shown.empty()) CHECK_THAT(text, ContainsSubstring(shown));
    }
  }
}

TEST_CASE("search.json holds its method, band collectives and fates by name, and reads them back") {
  for (const auto& [method, method_name] : kSearchMethodNames.entries()) {
    SearchSummary summary;
    summary.method = method;
    for (const CollectiveKind& kind : all_collectives()) {
      SearchBandSummary band;
      band.band = std::string(kind.name) + " 1 MiB";
      band.collective = &kind;
      summary.bands.push_back(band);
    }
    SearchPointFate fate;
    fate.point = "p";
    for (const auto& [state, state_name] : kFateStateNames.entries()) fate.bands.push_back({"b", state, 1, "q", 0.1});
    summary.points.push_back(fate);
    const nlohmann::json j = summary;
    INFO(method_name);
    CHECK(j.at("method") == method_name);
    const SearchSummary back = j.get<SearchSummary>();
    CHECK(back.method == method);
    REQUIRE(back.bands.size() == summary.bands.size());
    for (std::size_t i = 0; i < back.bands.size(); ++i) {
      CHECK(back.bands[i].collective == summary.bands[i].collective);  // the table entry itself
      CHECK(j.at("bands")[i].at("collective") == std::string(summary.bands[i].collective->name));
    }
    for (std::size_t i = 0; i < fate.bands.size(); ++i) {
      CHECK(back.points.at(0).bands.at(i).state == fate.bands[i].state);
      CHECK(j.at("points")[0].at("bands")[i].at("state") == kFateStateNames.entries()[i].second);
    }
    nlohmann::json bad = j;
    bad["points"][0]["bands"][0]["state"] = "winning";
    CHECK_THAT(usage_error_text([&] { (void)bad.get<SearchSummary>(); }), ContainsSubstring("unknown search fate 'winning'"));
    bad = j;
    bad["method"] = "anneal";
    CHECK_THAT(usage_error_text([&] { (void)bad.get<SearchSummary>(); }), ContainsSubstring("racing"));
  }
}

TEST_CASE("run.json names its engine, reads it back, keeps none as none and refuses an unknown one") {
  for (const auto& [engine, name] : kEngineNames.entries()) {
    RunDocument run = run_of({plain_record(1024)});
    run.settings.engine = engine;
    const nlohmann::json j = run;
    CHECK(j.at("settings").at("engine") == name);
    CHECK(round_trip(run).settings.engine == engine);
    CHECK_THAT(printed(run, "table"), ContainsSubstring("engine " + std::string(name)));
  }
  RunDocument none = run_of({plain_record(1024)});
  none.settings.engine = std::nullopt;
  CHECK_FALSE(round_trip(none).settings.engine.has_value());
  nlohmann::json bad = none;
  bad["settings"]["engine"] = "gloo";
  CHECK_THAT(usage_error_text([&] { (void)bad.get<RunDocument>(); }), ContainsSubstring("unknown engine 'gloo'"));
}

TEST_CASE("a side's source and engine are named in the report's JSON, CSV and identity line, and nccl-tests has no engine") {
  const auto identity_of = [](const Side& side) {
    std::ostringstream json;
    side_printer(ReportFormat::json)(side, PrintStyle{}, json);
    return nlohmann::json::parse(json.str()).at("identity");
  };
  for (const auto& [engine, name] : kEngineNames.entries()) {
    RunDocument run = run_of({plain_record(1024)});
    run.settings.engine = engine;
    const Side side = side_from_run(round_trip(run), "run.json");
    CHECK(side.identity.source == SideSource::ncclsweep_run);
    const nlohmann::json identity = identity_of(side);
    CHECK(identity.at("source") == "ncclsweep run.json");
    CHECK(identity.at("engine") == name);
    CHECK_THAT(identity_line(side.identity), ContainsSubstring("engine " + std::string(name)));
  }
  const std::vector<std::pair<std::string, SideSource>> nccl_tests{
      {"nccl-tests-all_gather-np2.txt", SideSource::nccl_tests_text}, {"all_gather-j.json", SideSource::nccl_tests_json}};
  for (const auto& [file, source] : nccl_tests) {
    const Side side = load_side(kNcclTestsData / file);
    INFO(file);
    CHECK(side.identity.source == source);
    CHECK(made_by_nccl_tests(side.identity));
    const nlohmann::json identity = identity_of(side);
    CHECK(kSideSourceNames.parse(identity.at("source").get<std::string>()) == source);
    CHECK(identity.at("engine").is_null());
    CHECK_THAT(identity_line(side.identity), !ContainsSubstring("engine"));
    std::ostringstream csv;
    side_printer(ReportFormat::csv)(side, PrintStyle{}, csv);
    CHECK_THAT(csv.str(), ContainsSubstring("\n" + std::string(name_of(source)) + ","));
  }
}

TEST_CASE("every throttle reason survives run.json by its NVML name; an unknown one is refused") {
  for (const auto& [reason, name] : kThrottleReasonNames.entries()) {
    MeasurementRecord record = plain_record(1024);
    record.clocks = MeasurementClocks{1980, 1500, 3201, 3201, {reason}};
    const nlohmann::json j = record;
    CHECK(j.at("clocks").at("throttle") == nlohmann::json::array({name}));
    const auto back = j.get<MeasurementRecord>();
    REQUIRE(back.clocks);
    CHECK(back.clocks->throttle == std::vector<ThrottleReason>{reason});
  }
  MeasurementRecord record = plain_record(1024);
  record.clocks = MeasurementClocks{1980, 1500, 3201, 3201, {}};
  nlohmann::json bad = record;
  bad["clocks"]["throttle"] = {"gpu_idle"};  // NVML's, but not a reason that slows work
  CHECK_THAT(usage_error_text([&] { (void)bad.get<MeasurementRecord>(); }), ContainsSubstring("unknown throttle reason 'gpu_idle'"));
}
