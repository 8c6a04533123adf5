// A comparison as a self-contained SVG: busbw against size (both log scales), one colour
// per collective series, NEW solid, REFERENCE dashed, the threshold (REFERENCE x
// threshold) dotted, and each NEW point marked by its verdict, so the figure says what
// the table says (docs/compare.md, "Formats").
#include <algorithm>
#include <cmath>

#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "report/printers.hpp"
#include "report/svg_text.hpp"

namespace ncclsweep {
namespace {

struct ComparedPoint {
  double log2_size = 0, new_gbps = 0, reference_gbps = 0;
  Verdict verdict = Verdict::same;
  bool fails = false;
};

struct ComparedSeries {
  std::string label;
  std::vector<ComparedPoint> points;  // ascending size
};

// Rows are in key order (collective, dtype, op, size, placement, variant): a series is one
// (collective, dtype, op, placement, variant), its sizes ascending.
std::vector<ComparedSeries> series_of(const Comparison& c) {
  std::vector<ComparedSeries> out;
  std::vector<RowKey> keys;
  for (const RowComparison& r : c.rows) {
    if (r.key.size_bytes == 0) continue;  // no place on a log axis
    RowKey series_key = r.key;
    series_key.size_bytes = 0;
    auto it = std::find(keys.begin(), keys.end(), series_key);
    if (it == keys.end()) {
      const std::string variant = variant_text(r.key.variant);
      std::string label = collective_name(r.key) + " " + dtype_name(r.key) + (r.key.op ? " " + op_name(r.key) : "") +
                          (r.key.placement == Placement::in_place ? " in-place" : "") + (variant.empty() ? "" : " " + variant);
      keys.push_back(series_key);
      out.push_back({std::move(label), {}});
      it = keys.end() - 1;
    }
    out[static_cast<std::size_t>(it - keys.begin())].points.push_back(
        {std::log2(static_cast<double>(r.key.size_bytes)), r.new_row.busbw_gbps, r.reference_row.busbw_gbps, r.verdict,
         r.fails});
  }
  return out;
}

// The mark of one verdict at (x, y): a failing row is a red cross, whatever else it is.
std::string verdict_mark(Verdict v, bool fails, double x, double y, const char* colour) {
  const std::string cx = fixed(x), cy = fixed(y);
  if (fails) {
    return "<path d=\"M" + fixed(x - 6) + " " + fixed(y - 6) + "L" + fixed(x + 6) + " " + fixed(y + 6) + "M" + fixed(x - 6) +
           " " + fixed(y + 6) + "L" + fixed(x + 6) + " " + fixed(y - 6) + "\" stroke=\"#c00\" stroke-width=\"3\"/>\n";
  }
  switch (v) {
    case Verdict::faster:
      return "<path d=\"M" + cx + " " + fixed(y - 6) + "L" + fixed(x + 5) + " " + fixed(y + 4) + "L" + fixed(x - 5) + " " +
             fixed(y + 4) + "Z\" fill=\"" + colour + "\"/>\n";
    case Verdict::slower:
      return "<path d=\"M" + cx + " " + fixed(y + 6) + "L" + fixed(x + 5) + " " + fixed(y - 4) + "L" + fixed(x - 5) + " " +
             fixed(y - 4) + "Z\" fill=\"" + colour + "\"/>\n";
    case Verdict::ambiguous:
      return "<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"4\" fill=\"white\" stroke=\"" + colour + "\" stroke-width=\"2\"/>\n";
    case Verdict::unresolved:
      return "<rect x=\"" + fixed(x - 4) + "\" y=\"" + fixed(y - 4) + "\" width=\"8\" height=\"8\" fill=\"white\" stroke=\"#888\" stroke-width=\"2\"/>\n";
    case Verdict::same: break;
  }
  return "<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"3.5\" fill=\"" + colour + "\"/>\n";
}

std::string polyline(const std::vector<std::pair<double, double>>& points, const char* colour, const char* dash,
                     double width) {
  std::string out = "<polyline fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"" + fixed(width) + "\"";
  if (*dash) out += " stroke-dasharray=\"" + std::string(dash) + "\"";
  out += " points=\"";
  for (const auto& [x, y] : points) out += fixed(x) + "," + fixed(y) + " ";
  return out + "\"/>\n";
}

constexpr double kLine = 16;

}  // namespace

void print_comparison_svg(const Comparison& c, const PrintStyle&, std::ostream& out) {
  const std::vector<ComparedSeries> series = series_of(c);
  // Axis ranges: whole powers of two in size, whole decades in busbw, over every figure drawn.
  double x_min = 1e300, x_max = -1e300, y_min = 1e300, y_max = -1e300;
  for (const auto& s : series) {
    for (const ComparedPoint& p : s.points) {
      x_min = std::min(x_min, std::floor(p.log2_size));
      x_max = std::max(x_max, std::ceil(p.log2_size));
      for (double v : {p.new_gbps, p.reference_gbps, p.reference_gbps * c.options.threshold}) {
        if (v > 0) y_min = std::min(y_min, std::floor(std::log10(v))), y_max = std::max(y_max, std::ceil(std::log10(v)));
      }
    }
  }
  if (x_max < x_min) x_min = 0, x_max = 1;
  if (x_max <= x_min) x_max = x_min + 1;
  if (y_max < y_min) y_min = 0, y_max = 1;
  if (y_max <= y_min) y_max = y_min + 1;
  // The title, then the summary and both identities: wrapped to the width, never cut.
  const double text_room = kPlotWidth - kPlotLeft - kPlotRight;
  const auto name = [](const SideIdentity& id) { return id.name.empty() ? std::string(name_of(id.source)) : id.name; };
  const std::vector<std::string> title =
      wrap_to_width("busbw: " + name(c.new_side) + " (NEW) over " + name(c.reference) + " (REFERENCE)", text_room, 15, true);
  std::vector<std::string> header = wrap_to_width(c.summary(), text_room, 12);
  if (c.acceptance) {
    for (std::string& line : wrap_to_width(c.acceptance->line(), text_room, 12)) header.push_back(std::move(line));
  }
  for (const SideIdentity* id : {&c.new_side, &c.reference}) {
    for (std::string& line : wrap_to_width((id == &c.new_side ? "NEW " : "REFERENCE ") + identity_line(*id), text_room, 12)) {
      header.push_back(std::move(line));
    }
  }
  const double header_y = 22 + 19 * static_cast<double>(title.size());
  const double top = header_y + kLine * static_cast<double>(header.size()) + 4;
  const double plot_w = kPlotWidth - kPlotLeft - kPlotRight;
  auto px = [&](double x) { return kPlotLeft + (x - x_min) / (x_max - x_min) * plot_w; };
  auto py = [&](double gbps) { return top + kPlotHeight - (std::log10(gbps) - y_min) / (y_max - y_min) * kPlotHeight; };
  // The legend under the plot: each series' colour, the three line styles, the six marks.
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < series.size(); ++i) {
    entries.push_back({line_swatch(kSeriesPalette[i % std::size(kSeriesPalette)], ""), series[i].label});
  }
  entries.push_back({line_swatch("#333", "", 1.5), "NEW"});
  entries.push_back({line_swatch("#333", "7 4", 1.5), "REFERENCE"});
  entries.push_back({line_swatch("#333", "2 3", 1.5), "threshold: " + printf_text("%g", c.options.threshold * 100) + "% of REFERENCE"});
  const std::pair<Verdict, bool> marks[] = {{Verdict::same, false}, {Verdict::faster, false}, {Verdict::slower, false},
                                            {Verdict::ambiguous, false}, {Verdict::unresolved, false}, {Verdict::slower, true}};
  for (const auto& [verdict, fails] : marks) {
    entries.push_back({verdict_mark(verdict, fails, 0, 0, "#333"),
                       fails ? "slower, below the threshold: FAIL" : std::string(verdict_name(verdict))});
  }
  const SvgLegend legend(std::move(entries), text_room);
  const double legend_top = top + kPlotHeight + 56;
  const double height = std::ceil(legend_top + legend.height() + 12);

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kPlotWidth << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << kPlotWidth << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << text_lines(title, kPlotLeft, 22, 19, "font-size=\"15\" font-weight=\"bold\"");
  out << text_lines(header, kPlotLeft, header_y, kLine, "fill=\"#444\"");
  // Grid: a line per power of two (labelled about 12 of them), a line per decade of busbw.
  write_size_grid(out, x_min, x_max, px, top, kPlotHeight);
  for (double decade = y_min; decade <= y_max; decade += 1) {
    const double gbps = std::pow(10.0, decade);
    out << "<line x1=\"" << kPlotLeft << "\" y1=\"" << fixed(py(gbps)) << "\" x2=\"" << kPlotLeft + plot_w << "\" y2=\""
        << fixed(py(gbps)) << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << kPlotLeft - 8 << "\" y=\"" << fixed(py(gbps) + 4) << "\" text-anchor=\"end\">" << printf_text("%g", gbps)
        << "</text>\n";
  }
  out << "<rect x=\"" << kPlotLeft << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\"" << kPlotHeight
      << "\" fill=\"none\" stroke=\"#333\"/>\n";
  out << "<text x=\"" << fixed(kPlotLeft + plot_w / 2) << "\" y=\"" << top + kPlotHeight + 42
      << "\" text-anchor=\"middle\">size (bytes, log2 scale)</text>\n";
  out << "<text transform=\"translate(18 " << fixed(top + kPlotHeight / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">busbw (GB/s, log10 scale)</text>\n";

  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* colour = kSeriesPalette[i % std::size(kSeriesPalette)];
    std::vector<std::pair<double, double>> fresh, reference, threshold;
    for (const ComparedPoint& p : series[i].points) {
      if (p.new_gbps > 0) fresh.emplace_back(px(p.log2_size), py(p.new_gbps));
      if (p.reference_gbps > 0) {
        reference.emplace_back(px(p.log2_size), py(p.reference_gbps));
        threshold.emplace_back(px(p.log2_size), py(p.reference_gbps * c.options.threshold));
      }
    }
    out << polyline(threshold, colour, "2 3", 1) << polyline(reference, colour, "7 4", 1.5) << polyline(fresh, colour, "", 2);
    for (const ComparedPoint& p : series[i].points) {
      if (p.new_gbps > 0) out << verdict_mark(p.verdict, p.fails, px(p.log2_size), py(p.new_gbps), colour);
    }
  }
  legend.write(out, kPlotLeft, legend_top);
  out << "</svg>\n";
}

}  // namespace ncclsweep
