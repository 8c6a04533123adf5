#include "report/overlap_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/iteration_stats.hpp"
#include "core/printf_text.hpp"
#include "core/units.hpp"
#include "core/xml_text.hpp"
#include "report/svg_text.hpp"
#include "results/repeats.hpp"

namespace ncclsweep {
namespace {

std::string x_times(double v) { return printf_text("x%.2f", v); }
std::string us(double v) { return printf_text(v >= 100 ? "%.0f" : "%.3g", v); }
std::string quoted(const std::string& s) { return "\"" + s + "\""; }

void print_text(const OverlapReport& r, std::ostream& out, bool markdown) {
  const std::string h = markdown ? "## " : "# ";
  out << (markdown ? "\n" : "") << h << "Under compute: " << r.load << " (" << name_of(r.site) << "), " << r.ranks
      << " ranks\n";
  for (const std::string& note : r.notes) out << (markdown ? "- " : "# note: ") << note << "\n";
  if (markdown) out << "\n";
  const char* head[] = {"point", "collective", "size", "placement", "comm alone us", "comm under us", "comm slowdown",
                        "busbw alone", "busbw under", "gemm alone us", "gemm under us", "TFLOP/s alone",
                        "TFLOP/s under", "compute slowdown", "overlapped us", "serial us", "exposed us"};
  std::vector<std::vector<std::string>> cells;
  for (const OverlapRow& row : r.rows) {
    const UnderCompute& u = row.figures;
    cells.push_back({row.point, row.collective + " " + row.dtype, format_bytes(row.size_bytes),
                     std::string(name_of(row.placement)), us(u.comm_alone_us), us(u.comm_under_us),
                     x_times(row.comm_slowdown), printf_text("%.2f", u.busbw_alone_gbps),
                     printf_text("%.2f", u.busbw_under_gbps), us(u.compute_alone_us), us(u.compute_under_us),
                     printf_text("%.4g", u.tflops_alone), printf_text("%.4g", u.tflops_under),
                     x_times(row.compute_slowdown), us(u.overlapped_wall_us), us(u.serial_sum_us), us(row.exposed_us)});
  }
  const std::size_t kColumns = std::size(head);
  std::vector<std::size_t> width(kColumns);
  for (std::size_t c = 0; c < kColumns; ++c) {
    width[c] = std::string_view(head[c]).size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  const auto line = [&](const auto& row) {
    for (std::size_t c = 0; c < kColumns; ++c) {
      const std::string text(row[c]);
      if (markdown) {
        out << "| " << text << " ";
      } else {
        out << (c ? "  " : "") << text << std::string(width[c] - text.size(), ' ');
      }
    }
    out << (markdown ? "|\n" : "\n");
  };
  line(head);
  if (markdown) {
    for (std::size_t c = 0; c < kColumns; ++c) out << "|---";
    out << "|\n";
  }
  for (const auto& row : cells) line(row);
  out << (markdown ? "\n" + h + "# Per setting\n\n" : "# per setting: median slowdowns over its sizes\n");
  for (const OverlapSetting& s : r.settings) {
    std::string text = s.point + ": comm " + x_times(s.comm_slowdown) + ", compute " + x_times(s.compute_slowdown);
    if (s.sms >= 0) text += ", " + std::to_string(s.sms) + " channels";
    if (s.idle_ms) text += printf_text(", %.4g ms %s idle", *s.idle_ms, r.time_span.c_str());
    if (s.under_compute_ms) text += printf_text(", %.4g ms under compute", *s.under_compute_ms);
    out << (markdown ? "- " : "#   ") << text << "\n";
  }
}

void print_csv(const OverlapReport& r, std::ostream& out) {
  out << "point,collective,dtype,size_bytes,placement,compute,site,comm_alone_us,comm_under_us,comm_slowdown,"
         "busbw_alone_gbps,busbw_under_gbps,compute_alone_us,compute_under_us,tflops_alone,tflops_under,"
         "compute_slowdown,overlapped_wall_us,serial_sum_us,exposed_us,plain_loop_tflops\n";
  for (const OverlapRow& row : r.rows) {
    const UnderCompute& u = row.figures;
    out << quoted(row.point) << "," << row.collective << "," << row.dtype << "," << row.size_bytes << ","
        << name_of(row.placement) << "," << quoted(to_text(u.load)) << "," << name_of(u.site) << ","
        << printf_text("%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", u.comm_alone_us,
                       u.comm_under_us, row.comm_slowdown, u.busbw_alone_gbps, u.busbw_under_gbps, u.compute_alone_us,
                       u.compute_under_us, u.tflops_alone, u.tflops_under, row.compute_slowdown, u.overlapped_wall_us,
                       u.serial_sum_us, row.exposed_us, u.plain_loop_tflops)
        << "\n";
  }
}

void print_json(const OverlapReport& r, std::ostream& out) {
  nlohmann::ordered_json j{{"name", r.name}, {"compute", r.load}, {"site", std::string(name_of(r.site))}, {"ranks", r.ranks},
                           {"notes", r.notes}};
  auto& rows = j["rows"] = nlohmann::ordered_json::array();
  for (const OverlapRow& row : r.rows) {
    const UnderCompute& u = row.figures;
    rows.push_back({{"point", row.point}, {"collective", row.collective}, {"dtype", row.dtype},
                    {"size_bytes", row.size_bytes}, {"placement", std::string(name_of(row.placement))},
                    {"comm_alone_us", u.comm_alone_us}, {"comm_under_us", u.comm_under_us},
                    {"comm_slowdown", row.comm_slowdown}, {"busbw_alone_gbps", u.busbw_alone_gbps},
                    {"busbw_under_gbps", u.busbw_under_gbps}, {"compute_alone_us", u.compute_alone_us},
                    {"compute_under_us", u.compute_under_us}, {"tflops_alone", u.tflops_alone},
                    {"tflops_under", u.tflops_under}, {"compute_slowdown", row.compute_slowdown},
                    {"overlapped_wall_us", u.overlapped_wall_us}, {"serial_sum_us", u.serial_sum_us},
                    {"exposed_us", row.exposed_us}, {"plain_loop_tflops", u.plain_loop_tflops}});
  }
  auto& settings = j["settings"] = nlohmann::ordered_json::array();
  for (const OverlapSetting& s : r.settings) {
    nlohmann::ordered_json e{{"point", s.point}, {"comm_slowdown", s.comm_slowdown},
                             {"compute_slowdown", s.compute_slowdown}, {"channels", s.sms}};
    e["ms_per_iteration_idle"] = s.idle_ms ? nlohmann::ordered_json(*s.idle_ms) : nlohmann::ordered_json(nullptr);
    e["ms_per_iteration_under_compute"] =
        s.under_compute_ms ? nlohmann::ordered_json(*s.under_compute_ms) : nlohmann::ordered_json(nullptr);
    settings.push_back(e);
  }
  out << j.dump(2) << "\n";
}

// Each setting one dot: compute slowdown across, comm slowdown up; 1 x 1 is no contention.
// The legend under the plot names each setting whole.
void print_svg(const OverlapReport& r, std::ostream& out) {
  constexpr double kW = 640, kPlotH = 374, kLeft = 70, kRight = 20;
  double top_x = 1.1, top_y = 1.1;
  for (const OverlapSetting& s : r.settings) top_x = std::max(top_x, s.compute_slowdown * 1.1), top_y = std::max(top_y, s.comm_slowdown * 1.1);
  const double plot_w = kW - kLeft - kRight, plot_h = kPlotH;
  const std::vector<std::string> title =
      wrap_to_width("Under compute: " + r.load + " (" + std::string(name_of(r.site)) + ")", plot_w, 14);
  const double top = 24 + 18 * static_cast<double>(title.size());
  const auto px = [&](double v) { return kLeft + std::clamp(v - 1, 0.0, top_x - 1) / (top_x - 1) * plot_w; };
  const auto py = [&](double v) { return top + plot_h - std::clamp(v - 1, 0.0, top_y - 1) / (top_y - 1) * plot_h; };
  constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < r.settings.size(); ++i) {
    entries.push_back({printf_text("<circle cx=\"0\" cy=\"0\" r=\"5\" fill=\"%s\"/>", kPalette[i % std::size(kPalette)]),
                       r.settings[i].point});
  }
  const SvgLegend legend(std::move(entries), plot_w);
  const double legend_top = top + plot_h + 50;
  const double height = std::ceil(legend_top + legend.height() + 12);
  out << printf_text("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                     "font-family=\"sans-serif\" font-size=\"12\">\n",
                     kW, height, kW, height);
  out << "<title>" << xml_escape(r.name + " under " + r.load) << "</title>\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << text_lines(title, kLeft, 24, 18, "font-size=\"14\"");
  out << printf_text("<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#444\"/>\n", kLeft, top, plot_w, plot_h);
  for (int i = 0; i <= 4; ++i) {
    const double vx = 1 + (top_x - 1) * i / 4, vy = 1 + (top_y - 1) * i / 4;
    out << printf_text("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">x%.2f</text>\n", px(vx), top + plot_h + 18, vx);
    out << printf_text("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">x%.2f</text>\n", kLeft - 6, py(vy) + 4, vy);
  }
  out << printf_text("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"middle\">compute slowdown (GEMM under the collective)</text>\n",
                     kLeft + plot_w / 2, top + plot_h + 36);
  out << printf_text("<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 %.1f)\" text-anchor=\"middle\">comm slowdown (collective under the GEMM)</text>\n",
                     top + plot_h / 2, top + plot_h / 2);
  for (std::size_t i = 0; i < r.settings.size(); ++i) {
    const OverlapSetting& s = r.settings[i];
    const char* colour = kPalette[i % std::size(kPalette)];
    out << printf_text("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"><title>", px(s.compute_slowdown), py(s.comm_slowdown), colour)
        << xml_escape(s.point) << printf_text(": comm x%.2f, compute x%.2f</title></circle>\n", s.comm_slowdown, s.compute_slowdown);
  }
  legend.write(out, kLeft, legend_top);
  out << "</svg>\n";
}

}  // namespace

std::vector<std::string> under_compute_notes(ComputeSite site, int ranks) {
  std::vector<std::string> notes;
  if (site == ComputeSite::cpu_analogue) {
    notes.push_back("CPU analogue: the mpi engine's compute is a blocked matrix multiply on a thread pinned to each "
                    "rank's cores; it shows the mechanism and the records, not a GPU's contention");
  }
  if (ranks == 1) {
    notes.push_back("one rank is not a real collective: out of place it is a device copy, in place it moves nothing; "
                    "the slowdowns show memory and SM contention only");
  }
  return notes;
}

bool has_under_compute(const RunDocument& run) {
  return std::any_of(run.records.begin(), run.records.end(), [](const auto& r) { return r.under_compute.has_value(); });
}

OverlapReport build_overlap_report(const RunDocument& run) {
  OverlapReport report;
  if (run.workload) report.time_span = run.workload->span();
  report.name = run.name;
  const std::vector<RepeatedMeasurement> measurements = aggregate_repeats(run.records);
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_point;
  double plain = 0;
  std::vector<double> shares;  // per measurement: the GEMM alone over the plain loop of the same call
  for (const RepeatedMeasurement& m : measurements) {
    if (!m.under_compute) continue;
    const UnderCompute& u = *m.first.under_compute;
    report.load = label_of(u.load);
    report.site = u.site;
    report.ranks = m.first.ranks;
    plain = std::max(plain, u.plain_loop_tflops);
    if (u.plain_loop_tflops > 0) shares.push_back(u.tflops_alone / u.plain_loop_tflops);
    OverlapRow row{m.key.point, std::string(m.key.collective->name), std::string(m.key.dtype->name), m.key.size_bytes,
                   m.key.placement, u, m.under_compute->comm_slowdown.median, m.under_compute->compute_slowdown.median,
                   m.under_compute->exposed_us.median};
    by_point[row.point].first.push_back(row.comm_slowdown);
    by_point[row.point].second.push_back(row.compute_slowdown);
    report.rows.push_back(std::move(row));
  }
  std::stable_sort(report.rows.begin(), report.rows.end(), [](const OverlapRow& a, const OverlapRow& b) { return a.point < b.point; });
  std::vector<std::string> labels;
  for (const PointOutcome& p : run.points) labels.push_back(p.label);
  if (labels.empty()) labels.push_back("default");
  for (const std::string& label : labels) {
    const auto it = by_point.find(label);
    if (it == by_point.end()) continue;
    OverlapSetting s{label, median_of(it->second.first), median_of(it->second.second), -1, std::nullopt, std::nullopt};
    for (const PointOutcome& p : run.points) {
      if (p.label == label) s.sms = p.coll_channels;
    }
    for (const PointIterationTime& t : run.iteration_times) {
      if (t.point != label) continue;
      s.idle_ms = t.ms;
      s.under_compute_ms = t.under_compute_ms;
    }
    report.settings.push_back(s);
  }
  report.notes = under_compute_notes(report.site, report.ranks);
  if (!shares.empty()) {
    // Median and lowest both: a GEMM held at its power cap drops some measurements below
    // the plain loop measured at another moment, and the lowest alone would hide the typical.
    report.notes.push_back(printf_text("cuBLAS in a plain loop in the same call: up to %.4g TFLOP/s; the GEMM alone "
                                       "reached a median %.0f%% of its own call's loop (lowest %.0f%%, of %zu)",
                                       plain, median_of(shares) * 100,
                                       *std::min_element(shares.begin(), shares.end()) * 100, shares.size()));
  }
  return report;
}

void print_overlap_report(const OverlapReport& report, ReportFormat format, std::ostream& out) {
  switch (format) {
    case ReportFormat::table: return print_text(report, out, false);
    case ReportFormat::md: return print_text(report, out, true);
    case ReportFormat::csv: return print_csv(report, out);
    case ReportFormat::json: return print_json(report, out);
    case ReportFormat::svg: return print_svg(report, out);
    case ReportFormat::prom: break;
  }
  throw unsupported_format(format, "the under-compute view",
                           {ReportFormat::table, ReportFormat::md, ReportFormat::csv, ReportFormat::json, ReportFormat::svg});
}

}  // namespace ncclsweep
