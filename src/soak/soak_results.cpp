#include "soak/soak_results.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
#include "core/printf_text.hpp"
#include "core/xml_text.hpp"
#include "measure/fixed_test.hpp"
#include "report/svg_text.hpp"
#include "results/atomic_file.hpp"
#include "results/json_lines.hpp"
#include "soak/soak_metrics.hpp"

namespace ncclsweep::soak {
namespace {

namespace fs = std::filesystem;
// 2: a window's figures are measurement records with a SoakPlace (1: figures of their own
// form, still read).
constexpr int kSchema = 2;

// "world", a host's name, or a link's two names joined by "-".
std::string subject_name(const std::vector<std::string>& hosts, int host, int peer) {
  if (host < 0) return "world";
  const std::string& first = hosts.at(static_cast<std::size_t>(host));
  return peer < 0 ? first : first + "-" + hosts.at(static_cast<std::size_t>(peer));
}

nlohmann::json verdicts_json(const std::vector<std::string>& hosts, const SoakVerdicts& verdicts) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Verdict& v : verdicts.findings) {
    nlohmann::json named = nlohmann::json::array();
    for (const int h : {v.host, v.peer}) {
      if (h >= 0) named.push_back(hosts.at(static_cast<std::size_t>(h)));
    }
    findings.push_back({{"kind", name_of(v.kind)},
                        {"host", subject_name(hosts, v.host, v.peer)},
                        {"hosts", named},
                        {"series", v.series},
                        {"first_window", v.first_window},
                        {"start_s", v.start_s},
                        {"step", v.step},
                        {"windows", v.windows},
                        {"lowest_mhz", v.lowest_mhz},
                        {"evidence", v.evidence}});
  }
  return {{"findings", findings}};
}

std::vector<std::string> soak_collective_names(const std::vector<const CollectiveKind*>& kinds) {
  std::vector<std::string> names;
  for (const CollectiveKind* kind : kinds) names.emplace_back(kind->name);
  return names;
}

}  // namespace

nlohmann::json options_json(const SoakOptions& o) {
  return {{"window_s", o.window_s},
          {"duration_s", o.duration_s},
          {"collectives", soak_collective_names(o.collectives)},
          {"sizes", o.sizes},
          {"warmup", o.warmup},
          {"iters", o.iters},
          {"noise_relative", o.verdicts.noise_relative},
          {"threshold", o.verdicts.threshold},
          {"baseline_windows", o.verdicts.baseline_windows}};
}

SoakOptions options_from(const nlohmann::json& j) {
  SoakOptions o;
  o.window_s = j.at("window_s").get<double>();
  o.duration_s = j.at("duration_s").get<double>();
  o.collectives.clear();
  for (const auto& name : j.at("collectives")) o.collectives.push_back(&collective(name.get<std::string>()));
  o.sizes = j.at("sizes").get<std::vector<Bytes>>();
  o.warmup = j.at("warmup").get<int>();
  o.iters = j.at("iters").get<int>();
  o.verdicts.noise_relative = j.at("noise_relative").get<double>();
  o.verdicts.threshold = j.at("threshold").get<double>();
  o.verdicts.baseline_windows = j.at("baseline_windows").get<int>();
  return o;
}

std::vector<std::string> host_names(const SoakDocument& document) {
  std::vector<std::string> hosts;
  for (const std::string& h : document.rank_hosts) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  return hosts;
}

void create_soak_results(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create results directory " + dir.string() + ": " + ec.message(), "choose a writable -o DIR");
  if (fs::exists(dir / "run.json")) {
    throw UsageError("results directory " + dir.string() + " already holds a run",
                     "choose a new directory with -o DIR, or continue this soak with --resume " + dir.string());
  }
}

SoakVerdicts judge_document(const SoakDocument& document, const std::vector<SoakWindow>& windows) {
  return judge_soak(windows, static_cast<int>(host_names(document).size()), document.options.verdicts);
}

void write_soak_document(const fs::path& dir, const SoakDocument& d, const std::vector<SoakWindow>& windows,
                         const SoakVerdicts& verdicts) {
  nlohmann::json launches = nlohmann::json::array();
  for (const LaunchEntry& l : d.launches) {
    launches.push_back({{"launch", l.launch}, {"start_utc", l.start_utc}, {"end_utc", l.end_utc}, {"end", l.end}});
  }
  const nlohmann::json j{{"kind", "soak"},
                         {"schema", kSchema},
                         {"version", d.version},
                         {"engine", std::string(name_of(d.engine))},
                         {"command_line", d.command_line},
                         {"rank_hosts", d.rank_hosts},
                         {"options", options_json(d.options)},
                         {"fault", d.fault},
                         {"metrics_file", d.metrics_file},
                         {"launches", launches},
                         {"windows", windows.size()},
                         {"verdicts", verdicts_json(host_names(d), verdicts)}};
  write_file_atomically(dir / "run.json", j.dump(2) + "\n");
}

namespace {

// A soak's run.json through the one input opener (a FIFO, a /proc file or one past the cap
// is refused, not waited on) and the capped JSON parser.
nlohmann::json read_soak_json(const fs::path& run) {
  return parse_json_input(read_input_file(run.string(), kResultsFileInput), {run.string()},
                          max_json_values(kResultsFileInput));
}

}  // namespace

bool is_soak_results(const fs::path& dir) {
  if (!input_path_exists((dir / "run.json").string())) return false;
  try {
    const nlohmann::json j = read_soak_json(dir / "run.json");
    return j.is_object() && j.value("kind", "") == "soak";
  } catch (const nlohmann::json::exception&) {
    return false;  // not JSON: not a soak's run.json
  }
}

SoakResults read_soak_results(const fs::path& dir) {
  SoakResults results;
  const fs::path run = dir / "run.json";
  if (!input_path_exists(run.string())) {
    throw UsageError("cannot read " + run.string() + ": it does not exist", "give the results directory of an ncclsweep soak");
  }
  nlohmann::json j;
  try {
    j = read_soak_json(run);
  } catch (const nlohmann::json::exception&) {
    j = nullptr;  // refused just below as not a soak's run.json
  }
  if (!j.is_object() || j.value("kind", "") != "soak") {
    throw UsageError(run.string() + " is not a soak's run.json", "give the results directory of an ncclsweep soak");
  }
  try {
    if (j.at("schema").get<int>() > kSchema) {
      throw UsageError(run.string() + " is from a newer ncclsweep (schema " + j.at("schema").dump() + ")",
                       "read it with that version");
    }
    SoakDocument& d = results.document;
    d.version = j.at("version").get<std::string>();
    try {
      d.engine = kEngineNames.parse(j.at("engine").get<std::string>());
    } catch (const UsageError& e) {  // an engine this ncclsweep does not know
      throw UsageError(run.string() + ": " + e.what(), e.fix());
    }
    d.command_line = j.at("command_line").get<std::vector<std::string>>();
    d.rank_hosts = j.at("rank_hosts").get<std::vector<std::string>>();
    d.options = options_from(j.at("options"));
    d.fault = j.value("fault", "");
    d.metrics_file = j.value("metrics_file", "");
    for (const nlohmann::json& l : j.at("launches")) {
      d.launches.push_back({l.at("launch").get<int>(), l.at("start_utc").get<std::string>(),
                            l.at("end_utc").get<std::string>(), l.at("end").get<std::string>()});
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(run.string() + ": " + e.what(), "the file is damaged; it was written by ncclsweep soak");
  }
  const fs::path records_path = dir / "records.jsonl";
  const std::string text =
      input_path_exists(records_path.string()) ? read_input_file(records_path.string(), kResultsFileInput) : "";
  const JsonLines read = read_json_lines(text, records_path.string(), [&](int line, const std::string&) {
    return UsageError(records_path.string() + ":" + std::to_string(line) + ": not a complete window",
                      "the file is damaged in the middle; restore it or start a new soak");
  });
  for (const JsonLine& line : read.lines) {
    try {
      results.windows.push_back(line.value.get<SoakWindow>());
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(records_path.string() + ":" + std::to_string(line.number) + ": " + e.what(),
                       "the file was not written by this ncclsweep soak");
    } catch (const UsageError& e) {  // a name (scope, collective) this ncclsweep does not know
      throw UsageError(records_path.string() + ":" + std::to_string(line.number) + ": " + e.what(), e.fix());
    }
  }
  results.complete_bytes = read.complete_bytes;
  return results;
}

void print_verdicts_table(std::ostream& out, const std::vector<std::string>& hosts, const SoakVerdicts& verdicts) {
  if (!verdicts.anything()) {
    out << "# soak: nothing found (no drift, flap, throttling or outlier window)\n";
    return;
  }
  out << printf_text("%-10s %-10s %-28s %7s %8s  %s\n", "host", "verdict", "series", "window", "from_s", "evidence");
  for (const Verdict& v : verdicts.findings) {
    const std::string host = subject_name(hosts, v.host, v.peer);
    out << printf_text("%-10s %-10s %-28s %7d %8.1f  %s\n", host.c_str(), std::string(name_of(v.kind)).c_str(),
                       v.series.c_str(), v.first_window, v.start_s, v.evidence.c_str());
  }
}

void print_timeline_svg(std::ostream& out, const SoakDocument& document, const std::vector<SoakWindow>& windows,
                        const SoakVerdicts& verdicts) {
  constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  const std::vector<std::string> hosts = host_names(document);
  std::vector<std::pair<const CollectiveKind*, Bytes>> tests;
  for (const SoakWindow& w : windows) {
    for (const MeasurementRecord& f : w.figures) {
      if (std::find(tests.begin(), tests.end(), std::pair{f.collective, f.size_bytes}) == tests.end()) tests.emplace_back(f.collective, f.size_bytes);
    }
  }
  const bool clocks = std::any_of(windows.begin(), windows.end(), [](const SoakWindow& w) {
    return std::any_of(w.signals.begin(), w.signals.end(), [](const RankSignals& s) { return s.gpu.gap == Gap::none; });
  });
  using Lines = std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>;
  struct Panel {
    std::string title, unit;
    Lines lines;
    double high = 1;  // the y axis' top
    std::string top_label() const { return printf_text("%.3g %s", high, unit.c_str()); }
  };
  std::vector<Panel> panels;
  // The margins hold the y axis' labels and the line names whole (sized to their text).
  const auto margins = [&] {
    double left = 70, right = 160;
    for (const Panel& p : panels) {
      left = std::max(left, text_width(p.top_label(), 12) + 8);
      for (const auto& [name, points] : p.lines) right = std::max(right, text_width(name, 12) + 16);
    }
    return std::pair{std::ceil(left), std::ceil(right)};
  };
  const auto add_panel = [&](const std::string& title, const std::string& unit, Lines lines) {
    double high = 0;
    for (const auto& [name, points] : lines) {
      for (const auto& p : points) high = std::max(high, p.second);
    }
    panels.push_back({title, unit, std::move(lines), high > 0 ? high * 1.1 : 1});
  };
  const double width = 960, panel = 220, top = 40;
  double left = 70, right = 160;  // set by margins() once the panels are known
  const double end = windows.empty() ? 1 : std::max(1.0, windows.back().end_s);
  const auto x_of = [&](double s) { return left + (width - left - right) * s / end; };
  // One panel: lines of (window mid time, value), a y axis from 0 to the top value.
  const auto draw_panel = [&](int index, const Panel& p, const std::vector<int>& line_hosts) {
    const Lines& lines = p.lines;
    const double high = p.high;
    const double y0 = top + index * (panel + 40) + 20, y1 = y0 + panel;
    // Verdict shading under the lines: from where each verdict on a drawn host starts.
    for (const Verdict& v : verdicts.findings) {
      if (std::find(line_hosts.begin(), line_hosts.end(), v.host) == line_hosts.end()) continue;
      double to = end;
      if (v.kind == VerdictKind::throttling || v.kind == VerdictKind::outliers) {
        to = v.start_s;
        for (const SoakWindow& w : windows) {
          if (w.index == v.first_window) to = w.end_s;
        }
      }
      const char* colour = v.kind == VerdictKind::drift ? "#fdd" : v.kind == VerdictKind::flap ? "#fed" : "#eef";
      out << printf_text("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>\n",
                         x_of(v.start_s), y0, std::max(1.0, x_of(to) - x_of(v.start_s)), panel, colour,
                         xml_escape(std::string(name_of(v.kind)) + ": " + v.evidence).c_str());
    }
    const std::vector<std::string> title = wrap_to_width(p.title, width - left - right, 12);
    out << text_lines(title, left, y0 - 6 - 14.0 * static_cast<double>(title.size() - 1), 14);
    out << printf_text("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#000\"/>\n", left, y1, width - right, y1);
    out << printf_text("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#000\"/>\n", left, y0, left, y1);
    out << printf_text("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left - 4, y0 + 10, xml_escape(p.top_label()).c_str());
    out << printf_text("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">0</text>\n", left - 4, y1);
    out << printf_text("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f s</text>\n", width - right, y1 + 16, end);
    for (std::size_t l = 0; l < lines.size(); ++l) {
      std::string path;
      for (const auto& [x, y] : lines[l].second) {
        path += printf_text("%s%.1f,%.1f", path.empty() ? "" : " ", x_of(x), y1 - panel * y / high);
      }
      const bool world = lines[l].first == "world";
      out << printf_text("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"%s\"/>\n",
                         world ? "#000" : kPalette[l % 10], world ? " stroke-dasharray=\"5,3\"" : "", path.c_str());
      out << printf_text("<text x=\"%.0f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", width - right + 8, y0 + 14 + 14.0 * static_cast<double>(l),
                         world ? "#000" : kPalette[l % 10], xml_escape(lines[l].first).c_str());
    }
  };
  std::vector<int> all_hosts{-1};
  for (int h = 0; h < static_cast<int>(hosts.size()); ++h) all_hosts.push_back(h);
  for (std::size_t t = 0; t < tests.size(); ++t) {
    Lines lines;
    const auto line = [&](const std::string& name) -> std::vector<std::pair<double, double>>& {
      for (auto& l : lines) {
        if (l.first == name) return l.second;
      }
      lines.push_back({name, {}});
      return lines.back().second;
    };
    for (const SoakWindow& w : windows) {
      for (const MeasurementRecord& f : w.figures) {
        if (f.collective != tests[t].first || f.size_bytes != tests[t].second) continue;
        const std::string name = subject_name(hosts, place_of(f).host, place_of(f).peer);
        line(name).emplace_back((w.start_s + w.end_s) / 2, f.busbw_gbps > 0 ? f.busbw_gbps : f.algbw_gbps);
      }
    }
    add_panel(test_name(*tests[t].first, tests[t].second) + ": busbw (algbw on one rank) per window", "GB/s", std::move(lines));
  }
  if (clocks) {
    Lines lines;
    for (std::size_t r = 0; r < document.rank_hosts.size(); ++r) {
      std::vector<std::pair<double, double>> points;
      for (const SoakWindow& w : windows) {
        if (r < w.signals.size() && w.signals[r].gpu.gap == Gap::none) points.emplace_back(w.end_s, w.signals[r].gpu.sm_mhz);
      }
      lines.push_back({"rank " + std::to_string(r), points});
    }
    add_panel("SM clock per rank at each window's end", "MHz", std::move(lines));
  }
  std::tie(left, right) = margins();
  const double height = top + static_cast<double>(panels.size()) * (panel + 40) + 20;
  out << printf_text("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                     "font-family=\"sans-serif\" font-size=\"12\">\n",
                     width, height, width, height);
  out << "<title>ncclsweep soak timeline</title>\n";
  out << printf_text("<text x=\"%.0f\" y=\"20\" font-size=\"15\">soak: %zu window(s), %zu host(s), %s engine</text>\n", left,
                     windows.size(), hosts.size(), std::string(name_of(document.engine)).c_str());
  for (std::size_t i = 0; i < panels.size(); ++i) draw_panel(static_cast<int>(i), panels[i], all_hosts);
  out << "</svg>\n";
}

void print_soak_report(const fs::path& dir, ReportFormat format, std::ostream& out) {
  // Checked before reading: a format a soak has not is named at once.
  constexpr std::array kSoakFormats{ReportFormat::table, ReportFormat::json, ReportFormat::prom, ReportFormat::svg};
  if (std::find(kSoakFormats.begin(), kSoakFormats.end(), format) == kSoakFormats.end()) {
    throw unsupported_format(format, "a soak's results", kSoakFormats);
  }
  const SoakResults results = read_soak_results(dir);
  const SoakVerdicts verdicts = judge_document(results.document, results.windows);
  const std::vector<std::string> hosts = host_names(results.document);
  switch (format) {
    case ReportFormat::prom:
      out << soak_metrics(results.windows, hosts, verdicts);
      return;
    case ReportFormat::json: {
      nlohmann::json j = verdicts_json(hosts, verdicts);
      j["windows"] = results.windows.size();
      j["hosts"] = hosts;
      out << j.dump(2) << "\n";
      return;
    }
    case ReportFormat::svg:
      print_timeline_svg(out, results.document, results.windows, verdicts);
      return;
    case ReportFormat::md:
    case ReportFormat::csv:
      return;  // refused above
    case ReportFormat::table:
      out << printf_text("# soak: %zu window(s) of %.0f s, %zu host(s), %zu launch(es)\n", results.windows.size(),
                         results.document.options.window_s, hosts.size(), results.document.launches.size());
      print_verdicts_table(out, hosts, verdicts);
      return;
  }
}

void print_soak_summary(const SoakSummary& summary, TableOrJson format) {
  const CommandStreams out = command_streams(format);
  if (format == TableOrJson::json) {
    nlohmann::json document = verdicts_json(summary.hosts, summary.verdicts);
    document["results"] = summary.directory;
    out.document << document.dump(2) << "\n";
  } else {
    print_verdicts_table(out.document, summary.hosts, summary.verdicts);
  }
  if (summary.stopped_after) {
    out.notes << "# stopped after window " << *summary.stopped_after << "; continue with --resume " << summary.directory
              << "\n";
  }
  if (format == TableOrJson::table) out.notes << "# results: " << summary.directory << "\n";
  out.document.flush();
  out.notes.flush();
}

}  // namespace ncclsweep::soak
