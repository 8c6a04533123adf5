// busbw against size as a self-contained SVG: log2 size axis labelled in KiB/MiB/GiB,
// one line per collective and placement, a legend under the plot with every label whole,
// and the run's identity as title.
// Several inputs (`report A B ...`) overlay in one plot: a colour per collective and
// placement, a line style per input.
// Plain text output, no plotting dependency.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "report/printers.hpp"
#include "report/svg_text.hpp"

namespace ncclsweep {
namespace {

struct Series {
  std::string label;   // "all_gather float32 out-of-place": its colour across inputs
  std::size_t input;   // which input it comes from: its dash pattern
  std::vector<std::pair<double, double>> points;  // log2(size), busbw
};

// One dash pattern per input (solid first), so a collective keeps its colour in every input.
constexpr const char* kInputDashes[] = {"", "7 4", "2 3", "10 3 2 3", "1 6"};

std::vector<Series> series_of(const Side& side, std::size_t input) {
  std::vector<Series> out;
  for (const RowGroup& g : group_rows(side)) {
    Series oop{g.title + " out-of-place", input, {}}, ip{g.title + " in-place", input, {}};
    for (const SizeRow& s : g.sizes) {
      const double x = std::log2(static_cast<double>(s.any().key.size_bytes));
      if (s.any().key.size_bytes == 0) continue;  // nothing moved; no place on a log axis
      if (s.out_of_place) oop.points.emplace_back(x, s.out_of_place->busbw_gbps);
      if (s.in_place) ip.points.emplace_back(x, s.in_place->busbw_gbps);
    }
    for (Series* s : {&oop, &ip}) {
      if (!s->points.empty()) out.push_back(std::move(*s));
    }
  }
  return out;
}

std::string name_of_side(const Side& side) { return side.identity.name.empty() ? std::string(name_of(side.identity.source)) : side.identity.name; }

// Each input's name in the legend: the file or directory it was read from, with the
// run's own name where the path does not say it; an input given twice says which it is.
std::vector<std::string> input_names(std::span<const Side> sides) {
  std::vector<std::string> names;
  for (const Side& side : sides) {
    const std::string& path = side.identity.path;
    const std::string name = name_of_side(side);
    if (path.empty()) names.push_back(name);
    else names.push_back(path.find(name) == std::string::npos ? path + " (" + name + ")" : path);
  }
  const std::vector<std::string> plain = names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (std::count(plain.begin(), plain.end(), plain[i]) > 1) names[i] += ", input " + std::to_string(i + 1);
  }
  return names;
}

std::string dash_of(std::size_t input) { return kInputDashes[input % std::size(kInputDashes)]; }

}  // namespace

void print_side_svg(const Side& side, const PrintStyle& style, std::ostream& out) {
  print_sides_svg(std::span<const Side>(&side, 1), style, out);
}

void print_sides_svg(std::span<const Side> sides, const PrintStyle& style, std::ostream& out) {
  std::vector<Series> series;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    for (Series& s : series_of(sides[i], i)) series.push_back(std::move(s));
  }
  // A colour per collective and placement, the same in every input.
  std::vector<std::string> colour_keys;
  for (const Series& s : series) {
    if (std::find(colour_keys.begin(), colour_keys.end(), s.label) == colour_keys.end()) colour_keys.push_back(s.label);
  }
  const auto colour_of = [&](const Series& s) {
    const auto at = static_cast<std::size_t>(std::find(colour_keys.begin(), colour_keys.end(), s.label) - colour_keys.begin());
    return kSeriesPalette[at % std::size(kSeriesPalette)];
  };
  double x_min = 1e300, x_max = -1e300, y_top = 0;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      x_min = std::min(x_min, std::floor(x));
      x_max = std::max(x_max, std::ceil(x));
      y_top = std::max(y_top, y);
    }
  }
  if (series.empty()) x_min = 0, x_max = 1;
  if (x_max <= x_min) x_max = x_min + 1;
  if (style.link_peak_gbps) y_top = std::max(y_top, *style.link_peak_gbps);
  const double y_step = nice_step(y_top > 0 ? y_top * 1.05 : 1, 6);
  const double y_max = std::ceil((y_top > 0 ? y_top * 1.05 : 1) / y_step) * y_step;
  const bool overlay = sides.size() > 1;
  const std::vector<std::string> names = input_names(sides);
  // The title and the line under it, wrapped to the width: nothing of them is cut.
  const double text_room = kPlotWidth - kPlotLeft - kPlotRight;
  const std::vector<std::string> title = wrap_to_width(
      "busbw vs size: " + (overlay ? std::to_string(sides.size()) + " inputs overlaid" : name_of_side(sides.front())),
      text_room, 15, true);
  const std::vector<std::string> subtitle = wrap_to_width(
      overlay ? "line style: the input; colour: the collective and placement" : identity_line(sides.front().identity),
      text_room, 12);
  const double subtitle_y = 24 + 19 * static_cast<double>(title.size()) + 2;
  const double top = subtitle_y + 16 * static_cast<double>(subtitle.size()) + 8;
  const double plot_w = kPlotWidth - kPlotLeft - kPlotRight, plot_h = kPlotHeight;
  auto px = [&](double x) { return kPlotLeft + (x - x_min) / (x_max - x_min) * plot_w; };
  auto py = [&](double y) { return top + plot_h - y / y_max * plot_h; };
  // The legend under the plot: each input's line style (overlay only), then each colour,
  // every label whole.
  std::vector<LegendEntry> entries;
  if (overlay) {
    for (std::size_t i = 0; i < sides.size(); ++i) entries.push_back({line_swatch("#333", dash_of(i)), names[i]});
  }
  for (std::size_t i = 0; i < colour_keys.size(); ++i) {
    entries.push_back({line_swatch(kSeriesPalette[i % std::size(kSeriesPalette)], ""), colour_keys[i]});
  }
  const SvgLegend legend(std::move(entries), text_room);
  const double legend_top = top + plot_h + 56;
  const double height = std::ceil(legend_top + legend.height() + 12);

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kPlotWidth << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << kPlotWidth << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << text_lines(title, kPlotLeft, 24, 19, "font-size=\"15\" font-weight=\"bold\"");
  out << text_lines(subtitle, kPlotLeft, subtitle_y, 16, "fill=\"#444\"");
  // Grid and axes.
  write_size_grid(out, x_min, x_max, px, top, plot_h);
  for (double y = 0; y <= y_max + y_step / 2; y += y_step) {
    out << "<line x1=\"" << kPlotLeft << "\" y1=\"" << fixed(py(y)) << "\" x2=\"" << kPlotLeft + plot_w << "\" y2=\""
        << fixed(py(y)) << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << kPlotLeft - 8 << "\" y=\"" << fixed(py(y) + 4) << "\" text-anchor=\"end\">" << significant3(y)
        << "</text>\n";
  }
  out << "<rect x=\"" << kPlotLeft << "\" y=\"" << fixed(top) << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"#333\"/>\n";
  out << "<text x=\"" << fixed(kPlotLeft + plot_w / 2) << "\" y=\"" << fixed(top + plot_h + 40)
      << "\" text-anchor=\"middle\">size (bytes, log2 scale)</text>\n";
  out << "<text transform=\"translate(18 " << fixed(top + plot_h / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">busbw (GB/s)</text>\n";
  if (style.link_peak_gbps) {
    out << "<line x1=\"" << kPlotLeft << "\" y1=\"" << fixed(py(*style.link_peak_gbps)) << "\" x2=\"" << kPlotLeft + plot_w
        << "\" y2=\"" << fixed(py(*style.link_peak_gbps)) << "\" stroke=\"#000\" stroke-dasharray=\"6 4\"/>\n";
    out << "<text x=\"" << kPlotLeft + 6 << "\" y=\"" << fixed(py(*style.link_peak_gbps) - 6) << "\">"
        << xml_escape(style.link_name) << " peak " << significant3(*style.link_peak_gbps) << " GB/s</text>\n";
  }
  // One line per series.
  for (const Series& s : series) {
    const char* colour = colour_of(s);
    const std::string dash = dash_of(s.input);
    out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\""
        << (dash.empty() ? std::string() : " stroke-dasharray=\"" + dash + "\"") << " points=\"";
    for (const auto& [x, y] : s.points) out << fixed(px(x)) << "," << fixed(py(y)) << " ";
    out << "\"/>\n";
    for (const auto& [x, y] : s.points) {
      out << "<circle cx=\"" << fixed(px(x)) << "\" cy=\"" << fixed(py(y)) << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
    }
  }
  legend.write(out, kPlotLeft, legend_top);
  out << "</svg>\n";
}

}  // namespace ncclsweep
