#include "locate/locate_results.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/iteration_stats.hpp"
#include "core/finding.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
#include "core/output_file.hpp"
#include "core/printf_text.hpp"
#include "core/xml_text.hpp"
#include "locate/locate_reference.hpp"
#include "locate/locate_text.hpp"
#include "locate/noise.hpp"
#include "report/prometheus_text.hpp"
#include "report/svg_text.hpp"
#include "results/json_lines.hpp"
#include "results/results_directory.hpp"

namespace ncclsweep::locate {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json options_json(const LocateOptions& o) {
  return {{"host_phase", o.host_phase}, {"pairs_phase", o.pairs_phase}, {"by_rail", o.by_rail},
          {"pairs", std::string(name_of(o.pairs))},           {"sizes", o.sizes},             {"warmup", o.warmup},
          {"iters", o.iters},           {"repeats", o.repeats},         {"passes", o.passes},
          {"threshold", o.threshold}};
}

LocateOptions options_from(const json& j) {
  LocateOptions o;
  o.host_phase = j.at("host_phase").get<bool>();
  o.pairs_phase = j.at("pairs_phase").get<bool>();
  o.by_rail = j.at("by_rail").get<bool>();
  o.pairs = kPairScheduleNames.parse(j.at("pairs").get<std::string>());
  o.sizes = j.at("sizes").get<std::vector<Bytes>>();
  o.warmup = j.at("warmup").get<int>();
  o.iters = j.at("iters").get<int>();
  o.repeats = j.at("repeats").get<int>();
  o.passes = j.value("passes", 1);
  o.threshold = j.at("threshold").get<double>();
  return o;
}

std::string host_list(const HostLayout& layout, const std::vector<int>& hosts) {
  std::string names;
  for (const int h : hosts) names += (names.empty() ? "" : ",") + layout.hosts[static_cast<std::size_t>(h)];
  return names;
}

std::string what_of(const Finding& f) {
  if (f.kind == FindingKind::nic) return "nic (rail " + std::to_string(f.rail) + ")";
  if (f.kind == FindingKind::rail) return "link, rail " + std::to_string(f.rail);
  if (f.kind == FindingKind::gpu && f.local.size() == 1) return "gpu: local " + std::to_string(f.local[0]);
  if (f.kind == FindingKind::gpu_link && f.local.size() == 2) {
    return "gpu-link: local " + std::to_string(f.local[0]) + "-" + std::to_string(f.local[1]);
  }
  return std::string(name_of(f.kind));
}

std::string share(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

// Red below the threshold, amber within 10% above it, green above; grey unmeasured.
const char* colour_of(double ratio, double threshold) {
  if (ratio < 0) return "#dddddd";
  if (ratio < threshold) return "#d73027";
  if (ratio < threshold * 1.1) return "#fdae61";
  return "#1a9850";
}

}  // namespace

RecordsJournal open_locate_results(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create results directory " + dir.string() + ": " + ec.message(), "give a writable -o");
  refuse_planted_links(dir, {"run.json", "run.json.tmp", "records.jsonl"});
  if (fs::exists(dir / "run.json")) {
    throw UsageError(dir.string() + " already holds a run", "give a new directory to -o, or remove the old one");
  }
  return RecordsJournal::create(dir, "run locate again with -o naming a new directory");
}

void write_locate_document(const fs::path& dir, const LocateDocument& d, const Verdicts& verdicts) {
  const HostLayout layout = layout_from_hosts(d.rank_hosts);
  json steps = json::array();
  for (const StepTime& s : d.steps) {
    steps.push_back({{"phase", name_of(s.phase)},
                     {"round", s.round},
                     {"pass", s.pass},
                     {"seconds", s.seconds},
                     {"split_seconds", s.split_seconds}});
  }
  json run = {{"kind", "locate"},
              {"version", d.version},
              {"engine", std::string(name_of(d.engine))},
              {"split", d.split_mode},
              {"start_time", d.start_time},
              {"end_time", d.end_time},
              {"command_line", d.command_line},
              {"hosts", layout.hosts},
              {"rank_hosts", d.rank_hosts},
              {"options", options_json(d.options)},
              {"steps", steps},
              {"notes", d.notes},
              {"verdicts", verdicts_json(layout, verdicts, d.options.threshold,
                                         d.reference ? d.reference->source : std::string())}};
  if (!d.fault.empty()) run["inject_fault"] = d.fault;
  if (d.reference) run["reference"] = reference_json(*d.reference);
  if (const int error = replace_file(dir / "run.json", run.dump(2) + "\n"); error != 0) {
    throw UsageError("cannot write " + (dir / "run.json.tmp").string() + ": " + std::strerror(error), "check the disk");
  }
}

bool is_locate_results(const fs::path& dir) {
  if (!input_path_exists((dir / "run.json").string())) return false;
  const std::string path = (dir / "run.json").string();
  try {
    const json run = parse_json_input(read_input_file(path, kResultsFileInput), {path}, max_json_values(kResultsFileInput));
    return run.is_object() && run.value("kind", "") == "locate";
  } catch (const json::exception&) {
    return false;  // not JSON: not a locate's, whatever else reads it says what it is
  }
}

namespace {

// run.json's fields; a name this ncclsweep does not know (an engine, a phase, a pair
// schedule) is refused naming the file.
void read_document(const json& run, const fs::path& path, LocateDocument& d) {
  try {
    d.version = run.at("version").get<std::string>();
    d.engine = kEngineNames.parse(run.at("engine").get<std::string>());
    d.split_mode = run.value("split", "");
    d.start_time = run.at("start_time").get<std::string>();
    d.end_time = run.at("end_time").get<std::string>();
    d.command_line = run.at("command_line").get<std::vector<std::string>>();
    d.rank_hosts = run.at("rank_hosts").get<std::vector<std::string>>();
    d.options = options_from(run.at("options"));
    d.fault = run.value("inject_fault", "");
    if (run.contains("reference")) d.reference = reference_from_json(run.at("reference"));
    d.notes = run.value("notes", std::vector<std::string>{});
    for (const json& s : run.at("steps")) {
      d.steps.push_back({kLocatePhaseNames.parse(s.at("phase").get<std::string>()), s.at("round").get<int>(), s.value("pass", 1),
                         s.at("seconds").get<double>(), s.value("split_seconds", 0.0)});
    }
  } catch (const UsageError& e) {
    throw UsageError(path.string() + ": " + e.what(), e.fix());
  }
}

// What in a record's place run.json's hosts and ranks do not have ("" when all is there):
// the verdicts index hosts and ranks by these numbers.
std::string outside_layout(const LocatePlace& place, const HostLayout& layout) {
  for (const int host : place.hosts) {
    if (host < 0 || host >= layout.host_count()) return "host index " + std::to_string(host) + " is not in run.json's hosts";
  }
  for (const int rank : place.group) {
    if (rank < 0 || rank >= layout.ranks()) return "rank " + std::to_string(rank) + " is not in run.json's ranks";
  }
  return "";
}

}  // namespace

LocateResults read_locate_results(const fs::path& dir) {
  LocateResults r;
  try {
    const std::string run_path = (dir / "run.json").string();
    const json run = parse_json_input(read_input_file(run_path, kResultsFileInput), {run_path},
                                      max_json_values(kResultsFileInput));
    read_document(run, dir / "run.json", r.document);
    // run.json is written after the last measurement: beside it a cut line is damage, not a kill.
    const std::string records_path = (dir / "records.jsonl").string();
    const auto damaged = [&](int line, const std::string& why) {
      return UsageError(records_path + " line " + std::to_string(line) + ": " + why, "the file is damaged; run locate again");
    };
    const JsonLines read = read_json_lines(read_input_file(records_path, kResultsFileInput), records_path, damaged);
    if (read.torn_line > 0) throw damaged(read.torn_line, read.torn_why);
    const HostLayout layout = layout_from_hosts(r.document.rank_hosts);
    for (const JsonLine& line : read.lines) {
      try {
        r.measurements.push_back(read_locate_record(line.value));
        if (const std::string wrong = outside_layout(place_of(r.measurements.back()), layout); !wrong.empty()) {
          throw damaged(line.number, wrong);
        }
      } catch (const json::exception& e) {
        throw damaged(line.number, e.what());
      } catch (const UsageError& e) {  // a name (phase, collective) this ncclsweep does not know
        throw UsageError(records_path + " line " + std::to_string(line.number) + ": " + e.what(), e.fix());
      }
    }
  } catch (const json::exception& e) {
    throw UsageError("cannot read the locate results in " + dir.string() + ": " + e.what(),
                     "give a directory written by ncclsweep locate");
  }
  return r;
}

std::vector<std::string> resolution_notes(const Verdicts& verdicts, int iters) {
  std::vector<std::string> notes;
  for (const Resolution& r : verdicts.resolution) {
    if (r.resolves(verdicts.threshold)) continue;
    const double longer = r.longer_for(verdicts.threshold);
    std::string advice;
    if (!std::isfinite(longer)) {
      advice = printf_text("no length of repeat tells --threshold %.2f (the least noise width is %.0f%%): use %.2f or lower",
                           verdicts.threshold, 100 * kLeastNoiseWidth, std::exp(-r.widths * kLeastNoiseWidth));
    } else {
      advice = printf_text("--threshold %.2f needs about %.2gx longer repeats", verdicts.threshold, longer);
      if (iters > 0) advice += printf_text(" (--iters %.0f)", std::ceil(iters * longer));
      if (r.seconds_per_call > 0) advice += "; a call took " + seconds_text(r.seconds_per_call) + " here";
    }
    notes.push_back(printf_text("%s phase: this run tells a %s from noise only below %s (noise %.2g%%, %.3g widths); ",
                                std::string(name_of(r.phase)).c_str(), std::string(name_of(r.subject)).c_str(),
                                share(r.tells_below()).c_str(), 100 * r.noise, r.widths) +
                    advice);
  }
  return notes;
}

namespace {

void print_rows_markdown(std::ostream& out, const HostLayout& layout, const std::vector<Finding>& findings,
                         const std::string& prefix) {
  for (const Finding& f : findings) {
    std::string evidence;
    for (const auto& e : f.evidence) evidence += (evidence.empty() ? "" : "<br>") + e;
    out << "| " << prefix << what_of(f) << " | " << doctor::compact_ranks(f.ranks) << " | " << host_list(layout, f.hosts)
        << " | " << share(f.ratio) << " | " << evidence << " |\n";
  }
}

}  // namespace

void print_findings_table(std::ostream& out, const HostLayout& layout, const Verdicts& verdicts, bool markdown,
                          int iters) {
  const std::string comment = markdown ? "" : "# ";
  const std::vector<std::string> notes = resolution_notes(verdicts, iters);
  const auto print_notes = [&] {
    for (const std::string& note : notes) out << comment << "resolution: " << note << (markdown ? "\n\n" : "\n");
  };
  if (verdicts.all_clear()) {
    out << comment << "locate: nothing slow on " << layout.host_count() << " host(s), " << layout.ranks() << " rank(s)"
        << (notes.empty() ? "" : " (nothing below the threshold; see the resolution)") << (markdown ? "\n\n" : "\n");
    print_notes();
    return;
  }
  // Unresolved rows say so in their first column: below the threshold, within noise.
  const std::string unresolved = "unresolved ";
  if (markdown) {
    out << "| what | ranks | hosts | slow | evidence |\n|---|---|---|---|---|\n";
    print_rows_markdown(out, layout, verdicts.findings, "");
    print_rows_markdown(out, layout, verdicts.unresolved, unresolved);
    out << "\n";
    print_notes();
    return;
  }
  std::vector<std::array<std::string, 4>> rows;
  std::vector<const Finding*> findings;
  std::array<std::size_t, 4> width{4, 5, 5, 4};
  for (const auto* list : {&verdicts.findings, &verdicts.unresolved}) {
    for (const Finding& f : *list) {
      const std::string what = (list == &verdicts.unresolved ? unresolved : std::string()) + what_of(f);
      rows.push_back({what, doctor::compact_ranks(f.ranks), host_list(layout, f.hosts), share(f.ratio)});
      findings.push_back(&f);
      for (std::size_t c = 0; c < 4; ++c) width[c] = std::max(width[c], rows.back()[c].size());
    }
  }
  const auto cell = [&](const std::string& text, std::size_t c) {
    out << text << std::string(width[c] - text.size() + 2, ' ');
  };
  cell("what", 0), cell("ranks", 1), cell("hosts", 2), cell("slow", 3);
  out << "evidence\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& evidence = findings[i]->evidence;
    for (std::size_t e = 0; e < evidence.size(); ++e) {
      for (std::size_t c = 0; c < 4; ++c) cell(e == 0 ? rows[i][c] : "", c);
      out << evidence[e] << "\n";
    }
  }
  print_notes();
}

json verdicts_json(const HostLayout& layout, const Verdicts& verdicts, double threshold, const std::string& reference) {
  const auto findings_json = [&](const std::vector<Finding>& list) {
    json findings = json::array();
    for (const Finding& f : list) {
      std::vector<std::string> hosts;
      for (const int h : f.hosts) hosts.push_back(layout.hosts[static_cast<std::size_t>(h)]);
      json j = {{"kind", name_of(f.kind)}, {"hosts", hosts}, {"ranks", f.ranks}, {"ratio", f.ratio}, {"evidence", f.evidence}};
      j["rail"] = f.rail >= 0 ? json(f.rail) : json(nullptr);
      if (!f.local.empty()) j["local"] = f.local;
      findings.push_back(j);
    }
    return findings;
  };
  json resolution = json::array();
  for (const Resolution& r : verdicts.resolution) {
    resolution.push_back({{"phase", name_of(r.phase)},
                          {"subject", name_of(r.subject)},
                          {"noise", r.noise},
                          {"widths", r.widths},
                          {"tells_below", r.tells_below()},
                          {"resolves_threshold", r.resolves(threshold)},
                          {"longer_for_threshold", r.longer_for(threshold)},
                          {"seconds_per_call", r.seconds_per_call}});
  }
  json matrix = json::array();
  for (const auto& row : verdicts.matrix) {
    json cells = json::array();
    for (const double v : row) cells.push_back(v < 0 ? json(nullptr) : json(v));
    matrix.push_back(cells);
  }
  json gpu_matrices = json::object();
  for (std::size_t h = 0; h < verdicts.gpu_matrix.size(); ++h) {
    if (verdicts.gpu_matrix[h].empty()) continue;
    json rows = json::array();
    for (const auto& row : verdicts.gpu_matrix[h]) {
      json cells = json::array();
      for (const double v : row) cells.push_back(v < 0 ? json(nullptr) : json(v));
      rows.push_back(cells);
    }
    gpu_matrices[layout.hosts[h]] = rows;
  }
  return {{"slow", verdicts.anything_slow()},
          {"clear", verdicts.all_clear()},
          {"unresolved", findings_json(verdicts.unresolved)},
          {"resolution", resolution},
          {"gpu_matrix", gpu_matrices},
          {"threshold", threshold},
          {"judged_against", reference.empty() ? std::string("this run") : reference},
          {"hosts", layout.hosts},
          {"findings", findings_json(verdicts.findings)},
          {"matrix", matrix}};
}

namespace {

constexpr double kMapFont = 11, kHeadingFont = 14;

// Room for a map's labels, from their text: row labels end left of the cells, column
// labels rise at 60 degrees above them (their height and their reach right of the last
// column follow from their length).
struct LabelRoom {
  int left = 0, top = 0, right = 0;
};

LabelRoom label_room(const std::vector<std::string>& labels) {
  double widest = 0;
  for (const std::string& label : labels) widest = std::max(widest, text_width(label, kMapFont));
  LabelRoom room;
  room.left = static_cast<int>(std::ceil(widest)) + 12;
  room.top = static_cast<int>(std::ceil(widest * 0.87 + kMapFont)) + 10;
  room.right = static_cast<int>(std::ceil(widest * 0.5)) + 10;
  return room;
}

// One heat map of `cells` (rows x columns, negative: not measured) at (left, top), its
// rows and columns labelled `labels`; returns its height.
int draw_matrix(std::ostream& out, int left, int top, int cell, const std::vector<std::string>& labels,
                const std::vector<std::vector<double>>& cells, double threshold, const std::string& title_prefix) {
  const int n = static_cast<int>(labels.size());
  const LabelRoom room = label_room(labels);
  for (int y = 0; y < n; ++y) {
    const std::string name = xml_escape(labels[static_cast<std::size_t>(y)]);
    out << "<text x=\"" << left + room.left - 6 << "\" y=\"" << top + room.top + y * cell + cell / 2 + 4
        << "\" text-anchor=\"end\">" << name << "</text>\n";
    out << "<text transform=\"translate(" << left + room.left + y * cell + cell / 2 + 4 << "," << top + room.top - 6
        << ") rotate(-60)\">" << name << "</text>\n";
    for (int x = 0; x < n; ++x) {
      const double v = cells[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)];
      const int px = left + room.left + x * cell, py = top + room.top + y * cell;
      out << "<rect x=\"" << px << "\" y=\"" << py << "\" width=\"" << cell - 2 << "\" height=\"" << cell - 2
          << "\" fill=\"" << colour_of(v, threshold) << "\"><title>" << xml_escape(title_prefix) << name << " x "
          << xml_escape(labels[static_cast<std::size_t>(x)]) << ": "
          << (v < 0 ? std::string("not measured") : share(v)) << "</title></rect>\n";
      if (v >= 0) {
        char text[16];
        std::snprintf(text, sizeof text, "%.2f", v);
        out << "<text x=\"" << px + cell / 2 - 1 << "\" y=\"" << py + cell / 2 + 3 << "\" text-anchor=\"middle\">"
            << text << "</text>\n";
      }
    }
  }
  return room.top + n * cell;
}

// A map's width with its labels, from `left`.
int matrix_width(int cell, const std::vector<std::string>& labels) {
  const LabelRoom room = label_room(labels);
  return room.left + static_cast<int>(labels.size()) * cell + room.right;
}

}  // namespace

void print_heat_map_svg(std::ostream& out, const HostLayout& layout, const Verdicts& verdicts, double threshold) {
  const int n = layout.host_count();
  const int cell = 48, gpu_cell = 30, margin = 10, heading = 30;
  const std::string title = "share of the reference busbw, host x host (threshold " + share(threshold) + ")";
  // The host x host map, then one GPU x GPU map per host that measured its GPU pairs; the
  // page as wide as its widest map or heading, so no label or title is cut.
  double width = margin + matrix_width(cell, layout.hosts) + margin;
  width = std::max(width, 2 * margin + text_width(title, kHeadingFont));
  int height = heading + label_room(layout.hosts).top + n * cell + 20;
  std::vector<std::pair<std::size_t, std::vector<std::string>>> gpu_maps;
  for (std::size_t h = 0; h < verdicts.gpu_matrix.size(); ++h) {
    const auto& cells = verdicts.gpu_matrix[h];
    if (cells.empty()) continue;
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < cells.size(); ++i) labels.push_back("local " + std::to_string(i));
    const std::string heading_text = layout.hosts[h] + ": GPU x GPU, neighbour pairs' share of the host's reference";
    width = std::max({width, margin + static_cast<double>(matrix_width(gpu_cell, labels)) + margin,
                      2 * margin + text_width(heading_text, kHeadingFont)});
    height += heading + label_room(labels).top + static_cast<int>(cells.size()) * gpu_cell + 10;
    gpu_maps.emplace_back(h, std::move(labels));
  }
  const int page_width = static_cast<int>(std::ceil(width));
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << page_width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << page_width << " " << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  out << "<text x=\"" << margin << "\" y=\"20\" font-size=\"14\">" << xml_escape(title) << "</text>\n";
  int top = heading;
  top += draw_matrix(out, margin, top, cell, layout.hosts, verdicts.matrix, threshold, "") + 20;
  for (const auto& [h, labels] : gpu_maps) {
    out << "<text x=\"" << margin << "\" y=\"" << top + 20 << "\" font-size=\"14\">" << xml_escape(layout.hosts[h])
        << ": GPU x GPU, neighbour pairs' share of the host's reference</text>\n";
    top += heading;
    top += draw_matrix(out, margin, top, gpu_cell, labels, verdicts.gpu_matrix[h], threshold, layout.hosts[h] + " ") + 10;
  }
  out << "</svg>\n";
}

void print_records_csv(std::ostream& out, const HostLayout& layout, const std::vector<MeasurementRecord>& measurements) {
  out << "phase,round,hosts,rail,ranks,collective,bytes,repeat,time_s,busbw_gbps\n";
  for (const MeasurementRecord& m : measurements) {
    const LocatePlace& place = place_of(m);
    out << name_of(place.phase) << "," << place.round << "," << host_list(layout, place.hosts) << ","
        << (place.rail >= 0 ? std::to_string(place.rail) : "") << ",\"" << doctor::compact_ranks(place.group) << "\","
        << collective_name(m) << "," << m.size_bytes << "," << m.repeat << "," << m.call_seconds() << "," << m.busbw_gbps << "\n";
  }
}

void print_locate_prometheus(std::ostream& out, const HostLayout& layout, const std::vector<MeasurementRecord>& measurements,
                             const Verdicts& verdicts) {
  // The host phase's busbw per host and test (the median of its repeats), and one gauge
  // per finding: a dashboard needs nothing but these to show what locate saw.
  std::map<std::tuple<std::string, Bytes, int>, std::vector<double>> host_busbw;
  for (const MeasurementRecord& m : measurements) {
    const LocatePlace& place = place_of(m);
    if (place.phase == LocatePhase::host && place.hosts.size() == 1) {
      host_busbw[{std::string(m.collective->name), m.size_bytes, place.hosts.front()}].push_back(m.busbw_gbps);
    }
  }
  PrometheusText prom;
  for (const auto& [key, values] : host_busbw) {
    const auto& [collective, bytes, host] = key;
    prom.gauge("ncclsweep_busbw_gbps", "Bus bandwidth in GB/s (nccl-tests convention), median of repeats",
               {{"collective", collective}, {"size", std::to_string(bytes)}, {"scope", "host"},
                {"host", layout.hosts[static_cast<std::size_t>(host)]}},
               median_of(values));
  }
  for (const Finding& f : verdicts.findings) {
    std::string hosts;
    for (const int h : f.hosts) hosts += (hosts.empty() ? "" : ",") + layout.hosts[static_cast<std::size_t>(h)];
    std::string ranks;
    for (const int r : f.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    prom.gauge("ncclsweep_locate_slow_ratio", "A locate finding: its share of the reference busbw",
               {{"kind", std::string(name_of(f.kind))}, {"hosts", hosts}, {"ranks", ranks}}, f.ratio);
  }
  prom.gauge("ncclsweep_locate_findings", "How many slow hosts, GPUs, NICs and links locate found", {},
             static_cast<double>(verdicts.findings.size()));
  prom.gauge("ncclsweep_locate_unresolved", "How many hosts, GPUs, NICs and links are below the threshold within noise",
             {}, static_cast<double>(verdicts.unresolved.size()));
  out << prom.text();
}

void print_locate_report(const fs::path& dir, ReportFormat format, std::ostream& out) {
  const LocateResults results = read_locate_results(dir);
  const HostLayout layout = layout_from_hosts(results.document.rank_hosts);
  const double threshold = results.document.options.threshold;
  const Verdicts verdicts = judge(layout, results.measurements, threshold,
                                  results.document.reference ? &*results.document.reference : nullptr);
  switch (format) {
    case ReportFormat::table:
    case ReportFormat::md:
      print_findings_table(out, layout, verdicts, format == ReportFormat::md, results.document.options.iters);
      return;
    case ReportFormat::json:
      out << verdicts_json(layout, verdicts, threshold,
                           results.document.reference ? results.document.reference->source : std::string())
                 .dump(2)
          << "\n";
      return;
    case ReportFormat::svg:
      print_heat_map_svg(out, layout, verdicts, threshold);
      return;
    case ReportFormat::csv:
      print_records_csv(out, layout, results.measurements);
      return;
    case ReportFormat::prom:
      print_locate_prometheus(out, layout, results.measurements, verdicts);
      return;
  }
}

void print_locate_summary(const LocateSummary& summary, TableOrJson format, std::ostream& document) {
  const CommandStreams streams = command_streams(format, document);
  if (format == TableOrJson::json) {
    nlohmann::json out = verdicts_json(summary.layout, summary.verdicts, summary.threshold, summary.reference);
    out["results"] = summary.directory;
    out["steps"] = nlohmann::json::array();
    for (const StepTime& t : summary.steps) {
      out["steps"].push_back({{"phase", name_of(t.phase)},
                              {"round", t.round},
                              {"pass", t.pass},
                              {"seconds", t.seconds},
                              {"split_seconds", t.split_seconds}});
    }
    streams.document << out.dump(2) << "\n";
  } else {
    std::vector<double> rounds, splits;
    for (const StepTime& t : summary.steps) {
      if (t.phase != LocatePhase::pairs) continue;
      rounds.push_back(t.seconds);
      splits.push_back(t.split_seconds);
    }
    if (!rounds.empty()) {
      std::sort(rounds.begin(), rounds.end());
      std::sort(splits.begin(), splits.end());
      const std::size_t per_pass = rounds.size() / static_cast<std::size_t>(summary.passes);
      streams.notes << "# pairs: " << per_pass << " round(s)"
                    << (summary.passes > 1 ? " x " + std::to_string(summary.passes) + " passes" : "") << ", "
                    << seconds_text(rounds[rounds.size() / 2]) << " per round, of which the split "
                    << seconds_text(splits[splits.size() / 2]) << " (medians)\n";
    }
    print_findings_table(streams.document, summary.layout, summary.verdicts, false, summary.iters);
    streams.notes << "# results: " << summary.directory << "\n";
  }
  streams.document.flush();
}

}  // namespace ncclsweep::locate
