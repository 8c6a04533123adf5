// Report printers and summary.md: canonical order, 3 significant digits, no volatile
// fields; CSV, JSON and SVG forms.
#include <nlohmann/json.hpp>
#include <sstream>

#include <algorithm>
#include <set>

#include "catch_compat.hpp"
#include "compare/side_readers.hpp"
#include "report/printers.hpp"
#include "report/summary_file.hpp"
#include "report/svg_text.hpp"
#include "report/system_links.hpp"

using namespace ncclsweep;

namespace {

MeasurementRecord record(const std::string& collective, Bytes size, const std::string& placement, double busbw) {
  MeasurementRecord r;
  r.collective = &ncclsweep::collective(collective);
  r.dtype = &data_type("float32");
  r.op = collective == "all_gather" ? std::nullopt : std::optional<ReduceOp>(ReduceOp::sum);
  r.size_bytes = r.requested_bytes = size;
  r.count = size / 8;
  r.placement = parse_placement(placement);
  r.ranks = 2;
  r.time_us = {10, 11, 12.345};
  r.algbw_gbps = busbw * 2;
  r.busbw_gbps = busbw;
  r.wrong = 0;
  return r;
}

RunDocument run_with(std::vector<MeasurementRecord> records) {
  RunDocument run;
  run.name = "qps";
  run.status = RunStatus::complete;
  run.start_time = "2026-11-29T18:00:00Z";
  run.end_time = "2026-11-29T18:01:00Z";
  run.settings = {EngineKind::nccl, 5, 20, true};
  run.versions.nccl_library = "2.28.3";
  run.hosts = {"gpu-node-17"};
  for (int rank = 0; rank < 2; ++rank) {
    RankEntry e;
    e.rank = rank;
    e.host = "gpu-node-17";
    e.gpu_name = "NVIDIA H200";
    run.ranks.push_back(e);
  }
  run.records = std::move(records);
  return run;
}

}  // namespace

TEST_CASE("summary.md has a fixed row order, 3 significant digits and no volatile fields") {
  const RunDocument a = run_with({record("all_gather", 1 << 20, "out_of_place", 37.5812),
                                  record("all_gather", 1 << 20, "in_place", 42.14),
                                  record("all_gather", 1 << 26, "out_of_place", 214.137),
                                  record("reduce_scatter", 1 << 20, "out_of_place", 37.53)});
  RunDocument b = a;  // the same results, measured in another order, at another time, elsewhere
  std::swap(b.records[0], b.records[3]);
  std::swap(b.records[1], b.records[2]);
  b.start_time = "2027-01-01T00:00:00Z";
  b.hosts = {"other-host"};
  for (auto& r : b.ranks) r.host = "other-host";
  const std::string text = summary_markdown(a);
  CHECK(text == summary_markdown(b));
  CHECK_THAT(text, ContainsSubstring("| 1 MiB | 37.6 | 42.1 | - | ok |"));
  CHECK_THAT(text, ContainsSubstring("| 64 MiB | 214 | - | - | ok |"));
  CHECK(text.find("gpu-node-17") == std::string::npos);
  CHECK(text.find("2026-11-29") == std::string::npos);
  CHECK(text.find("12.345") == std::string::npos);
  CHECK(text.find("all_gather float32") < text.find("reduce_scatter float32 sum"));
  // A changed result changes the summary.
  RunDocument c = a;
  c.records[2].busbw_gbps = 150;
  CHECK(summary_markdown(c) != text);
}

TEST_CASE("verification counts wrong elements of either placement") {
  RunDocument run = run_with({record("all_gather", 1 << 20, "out_of_place", 37.5), record("all_gather", 1 << 20, "in_place", 42.1),
                              record("all_gather", 1 << 21, "out_of_place", 50)});
  run.records[1].wrong = 3;
  run.records[2].wrong.reset();
  const std::string text = summary_markdown(run);
  CHECK_THAT(text, ContainsSubstring("| 1 MiB | 37.5 | 42.1 | - | 3 wrong |"));
  CHECK_THAT(text, ContainsSubstring("| 2 MiB | 50.0 | - | - | unchecked |"));
  // The overview: best busbw, where, the mean over every row as nccl-tests' "Avg bus
  // bandwidth" ((37.5 + 42.1 + 50) / 3), and the collective's status over every size.
  CHECK_THAT(text, ContainsSubstring("| all_gather float32 | 1 MiB .. 2 MiB (2) | 50.0 | 2 MiB | 43.2 | 3 wrong |"));
}

TEST_CASE("CSV has one tidy row per measurement with a header") {
  const Side side = side_from_run(run_with({record("all_gather", 1024, "in_place", 1.25),
                                            record("all_gather", 1024, "out_of_place", 1.5)}),
                                  "x");
  std::ostringstream out;
  print_side_csv(side, {}, out);
  std::istringstream lines(out.str());
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].starts_with("source,name,ranks,hosts,gpu,nccl,collective,dtype,op,root,size_bytes"));
  // Out-of-place first, whatever order the records came in.
  CHECK(rows[1] == "ncclsweep run.json,qps,2,1,NVIDIA H200,2.28.3,all_gather,float32,none,-1,1024,128,out_of_place,default,"
                   "cuda-malloc,stream,,,,world,1,12.345,3.0,1.5,,0,");
  CHECK(rows[2].find(",in_place,") != std::string::npos);
}

TEST_CASE("CSV: a footprint has its own column and never lands in the point column") {
  MeasurementRecord largest = record("all_gather", 1 << 20, "out_of_place", 10);
  largest.buffer_footprint = BufferFootprint{FootprintMode::largest, 0};
  largest.footprint_bytes = 1 << 20;
  largest.cache = CacheState::warm;
  MeasurementRecord exact = largest;
  exact.buffer_footprint = BufferFootprint{FootprintMode::exact, 0};
  exact.busbw_gbps = 12;
  MeasurementRecord repeat = exact;
  repeat.repeat = 1;
  repeat.busbw_gbps = 13;
  std::ostringstream out;
  print_side_csv(side_from_run(run_with({largest, exact, repeat}), "x"), {}, out);
  std::istringstream lines(out.str());
  std::vector<std::vector<std::string>> cells;
  for (std::string line; std::getline(lines, line);) {
    cells.emplace_back();
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, ',');) cells.back().push_back(f);
  }
  REQUIRE(cells.size() == 3);
  const auto column = [&](const std::string& name) {
    const auto it = std::find(cells[0].begin(), cells[0].end(), name);
    REQUIRE(it != cells[0].end());
    return static_cast<std::size_t>(it - cells[0].begin());
  };
  std::set<std::string> footprints;
  for (std::size_t i = 1; i < cells.size(); ++i) {
    CHECK(cells[i][column("point")] == "default");
    footprints.insert(cells[i][column("buffer_footprint")]);
    if (cells[i][column("buffer_footprint")] == "exact") {
      CHECK(cells[i][column("repeats")] == "2");
      CHECK_FALSE(cells[i][column("spread")].empty());  // two repeats: their spread
    }
  }
  CHECK(footprints == std::set<std::string>{"largest", "exact"});
}

TEST_CASE("JSON report carries identity and every row") {
  const Side side = side_from_run(run_with({record("all_gather", 1024, "out_of_place", 1.5)}), "x");
  std::ostringstream out;
  print_side_json(side, {true, 478.0, "H200 NVLink"}, out);
  const auto j = nlohmann::json::parse(out.str());
  CHECK(j.at("identity").at("ranks") == 2);
  CHECK(j.at("rows").size() == 1);
  CHECK(j.at("rows")[0].at("busbw_gbps") == 1.5);
  CHECK(j.at("link_peak_gbps") == 478.0);
}

TEST_CASE("SVG plots busbw on a log2 size axis with a legend and the run's identity") {
  const Side side = load_side(NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2.txt");
  std::ostringstream out;
  print_side_svg(side, {false, 478.0, "H200 NVLink"}, out);
  const std::string svg = out.str();
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  for (const char* label : {">1 MiB<", ">4 MiB<", ">64 MiB<", ">1 GiB<", ">4 GiB<", ">all_gather float32 out-of-place<",
                            ">all_gather float32 in-place<", "all_gather_perf_mpi", "H200 NVLink peak 478 GB/s"}) {
    CHECK_THAT(svg, ContainsSubstring(label));
  }
  CHECK(svg.find("<polyline") != std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);  // self-contained and inert
  CHECK(svg.find("href") == std::string::npos);
}

namespace {
RowComparison compared(Bytes size, double new_gbps, double ref_gbps, Verdict verdict, bool fails, const std::string& placement = "out_of_place") {
  RowComparison r;
  r.key = {&collective("all_gather"), &data_type("float32"), std::nullopt, size, parse_placement(placement), {}};
  r.new_row.key = r.reference_row.key = r.key;
  r.new_row.busbw_gbps = new_gbps;
  r.reference_row.busbw_gbps = ref_gbps;
  r.ratio = new_gbps / ref_gbps;
  r.verdict = verdict;
  r.fails = fails;
  return r;
}
std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("compare's SVG draws NEW over REFERENCE with the threshold, a mark per verdict, and no text past the edge") {
  Comparison c;
  c.new_side = {SideSource::ncclsweep_run, "", std::string(300, 'n'), 2, 1, "NVIDIA H200", "2.28.9", "13.0", EngineKind::mpi};
  c.reference = {SideSource::nccl_tests_text, "", "all_gather_perf_mpi", 2, 1, "", "", "", std::nullopt};
  c.options.threshold = 0.9;
  c.rows = {compared(1 << 20, 10, 10, Verdict::same, false), compared(1 << 24, 50, 100, Verdict::slower, true),
            compared(1 << 28, 0.5, 200, Verdict::unresolved, false),
            compared(1 << 28, 210, 200, Verdict::faster, false, "in_place")};
  std::ostringstream out;
  comparison_printer(ReportFormat::svg)(c, {}, out);
  const std::string svg = out.str();
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  // Two series (out-of-place, in-place), each NEW solid, REFERENCE dashed, threshold dotted.
  CHECK_THAT(svg, ContainsSubstring(">all_gather float32<"));
  CHECK_THAT(svg, ContainsSubstring(">all_gather float32 in-place<"));
  CHECK(count_of(svg, "<polyline") == 6);
  CHECK(count_of(svg, "stroke-dasharray=\"7 4\" points") == 2);
  CHECK(count_of(svg, "stroke-dasharray=\"2 3\" points") == 2);
  CHECK_THAT(svg, ContainsSubstring("threshold: 90% of REFERENCE"));
  // Marks: one red cross for the failing row plus the legend's; the unresolved square too.
  CHECK(count_of(svg, "stroke=\"#c00\"") == 2);
  CHECK(count_of(svg, "stroke=\"#888\"") == 2);
  // Log busbw axis: decades from 0.1 (the 0.5 GB/s row) to 1000 (the 210 GB/s row).
  CHECK_THAT(svg, ContainsSubstring(">0.1<"));
  CHECK_THAT(svg, ContainsSubstring(">1000<"));
  CHECK_THAT(svg, ContainsSubstring(">256 MiB<"));
  // Every line of text fits the page (960 px less the margins), and nothing is cut: the
  // 300-character run name wraps over lines whose text, put back together, is whole.
  std::string drawn;
  for (std::size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const auto end = svg.find("</text>", at);
    const std::string element = svg.substr(at, end - at);
    const bool bold = element.find("font-weight=\"bold\"") != std::string::npos;
    const double font = element.find("font-size=\"15\"") != std::string::npos ? 15 : 12;
    for (std::size_t open = element.find('>'); open != std::string::npos; open = element.find('>', open + 1)) {
      std::string line = element.substr(open + 1, element.find('<', open + 1) - open - 1);
      for (const auto& [entity, character] : {std::pair{"&apos;", "'"}, {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
        for (auto at = line.find(entity); at != std::string::npos; at = line.find(entity, at)) line.replace(at, std::string(entity).size(), character);
      }
      CHECK(text_width(line, font, bold) <= 960 - 70 - 30);
      drawn += line;
    }
  }
  CHECK_THAT(drawn, ContainsSubstring(std::string(300, 'n')));
  CHECK(svg.find("...") == std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);
}

TEST_CASE("markdown shows busbw as a share of the link peak when the system is known") {
  const Side side = load_side(NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2.txt");
  std::ostringstream out;
  print_side_markdown(side, {false, 478.0, "H200 NVLink"}, out);
  // 4 GiB in-place: 327.06 / 478 = 68.4%.
  CHECK_THAT(out.str(), ContainsSubstring("| 4 GiB | 294 | 327 | - | ok | 68.4% |"));
}

TEST_CASE("configs/systems matches the GPU model") {
  const auto link = find_system_link(NCCLSWEEP_SOURCE_DIR "/configs/systems", "NVIDIA H200");
  REQUIRE(link);
  CHECK(link->peak_gbps == 478);
  CHECK(!find_system_link(NCCLSWEEP_SOURCE_DIR "/configs/systems", "Tesla V100-SXM2-32GB"));
  CHECK(!find_system_link("/nonexistent", "NVIDIA H200"));
}

TEST_CASE("every --format either has a printer or is refused naming the ones that exist") {
  // Each value by its name, as the flag parses it: a value added to the enum must land in
  // one of the two lists of each printer table.
  const std::set<std::string> side_formats{"table", "md", "csv", "json", "svg"};
  const std::set<std::string> comparison_formats_named{"table", "md", "json", "svg"};
  for (const auto& [format, name] : kReportFormatNames.entries()) {
    INFO(name);
    CHECK(kReportFormatNames.parse(name) == format);
    if (side_formats.count(std::string(name))) {
      CHECK(side_printer(format) != nullptr);
    } else {
      CHECK_THAT(usage_error_text([&] { side_printer(format); }),
                 ContainsSubstring("no --format " + std::string(name)) && ContainsSubstring("table, md, csv, json or svg"));
    }
    if (comparison_formats_named.count(std::string(name))) {
      CHECK(comparison_printer(format) != nullptr);
    } else {
      CHECK_THAT(usage_error_text([&] { comparison_printer(format); }),
                 ContainsSubstring("no --format " + std::string(name)) && ContainsSubstring("table, md, json or svg"));
    }
  }
  CHECK(comparison_formats() ==
        std::vector<ReportFormat>{ReportFormat::table, ReportFormat::md, ReportFormat::json, ReportFormat::svg});
  CHECK_THAT(usage_error_text([] { kReportFormatNames.parse("html"); }), ContainsSubstring("table, md, csv, json, svg, prom"));
}

TEST_CASE("several inputs overlay in one SVG: a colour per collective and placement, a line style per input") {
  const Side one = load_side(NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2.txt");
  const Side two = load_side(NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2-launch2.txt");
  const std::vector<Side> sides{one, two, one};
  std::ostringstream out;
  print_sides_svg(sides, {}, out);
  const std::string svg = out.str();
  CHECK(svg.ends_with("</svg>\n"));
  CHECK_THAT(svg, ContainsSubstring("3 inputs overlaid"));
  // Three inputs x (out-of-place, in-place); the second dashed, the third dotted.
  CHECK(count_of(svg, "<polyline") == 6);
  CHECK(count_of(svg, "stroke-dasharray=\"7 4\" points") == 2);
  CHECK(count_of(svg, "stroke-dasharray=\"2 3\" points") == 2);
  // Out-of-place keeps its colour in every input.
  CHECK(count_of(svg, "<polyline fill=\"none\" stroke=\"#1f77b4\"") == 3);
  CHECK(count_of(svg, "<polyline fill=\"none\" stroke=\"#d62728\"") == 3);
  // Every input is named in the legend by its file (and its program where the file name
  // does not say it); the same file given twice says which input each line is.
  const std::string first = one.identity.path + " (all_gather_perf_mpi)";
  CHECK_THAT(svg, ContainsSubstring(">" + first + ", input 1<"));
  CHECK_THAT(svg, ContainsSubstring(">" + two.identity.path + " (all_gather_perf)<"));
  CHECK_THAT(svg, ContainsSubstring(">" + first + ", input 3<"));
  // One input alone: its identity as the title, no input legend.
  std::ostringstream alone;
  print_sides_svg(std::span<const Side>(&one, 1), {}, alone);
  CHECK(alone.str().find(one.identity.path) == std::string::npos);
  CHECK_THAT(alone.str(), ContainsSubstring("busbw vs size: all_gather_perf_mpi"));
}

#include "report/sweep_summary.hpp"

TEST_CASE("the sweep summary has a column per point and the change against the baseline") {
  ncclsweep::RunDocument run;
  for (const char* label : {"NCCL_PROTO=LL", "NCCL_PROTO=Simple"}) {
    ncclsweep::PointOutcome p;
    p.label = label;
    p.status = PointStatus::ok;
    run.points.push_back(p);
  }
  run.points[0].settings.push_back({"NCCL_IB_QPS_PER_CONNECTION", "4", SettingKind::env_process_cached, SettingStatus::not_read});
  for (const auto& [label, busbw] : {std::pair{"NCCL_PROTO=LL", 50.0}, std::pair{"NCCL_PROTO=Simple", 200.0}}) {
    ncclsweep::MeasurementRecord r;
    r.collective = &collective("all_gather");
    r.dtype = &data_type("bfloat16");
    r.op = std::nullopt;
    r.size_bytes = 1 << 30;
    r.placement = Placement::out_of_place;
    r.point = label;
    r.busbw_gbps = busbw;
    run.records.push_back(r);
  }
  const std::string text = ncclsweep::sweep_summary_text(run, "NCCL_PROTO=Simple");
  CHECK_THAT(text, ContainsSubstring("baseline P1"));
  CHECK_THAT(text, ContainsSubstring("50.0 (  -75%)"));
  CHECK_THAT(text, ContainsSubstring("NCCL_IB_QPS_PER_CONNECTION NOT READ by NCCL"));
  run.points.pop_back();
  CHECK(ncclsweep::sweep_summary_text(run, "").empty());
}
