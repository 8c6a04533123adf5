// busbw against size as a self-contained SVG: log2 size axis labelled in KiB/MiB/GiB,
// one line per collective and placement, a legend, and the run's identity as title.
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

constexpr double kWidth = 960, kHeight = 540;
constexpr double kLeft = 70, kRight = 270, kTop = 64, kBottom = 56;
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

// Each input's name in the legend; two inputs of one name are told apart by their number.
std::vector<std::string> input_names(std::span<const Side> sides) {
  std::vector<std::string> plain, names;
  for (const Side& side : sides) plain.push_back(name_of_side(side));
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const bool shared = std::count(plain.begin(), plain.end(), plain[i]) > 1;
    names.push_back(shared ? "#" + std::to_string(i + 1) + " " + plain[i] : plain[i]);
  }
  return names;
}

std::string dash_attribute(std::size_t input) {
  const char* dash = kInputDashes[input % std::size(kInputDashes)];
  return *dash ? std::string(" stroke-dasharray=\"") + dash + "\"" : std::string();
}

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
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (x - x_min) / (x_max - x_min) * plot_w; };
  auto py = [&](double y) { return kTop + plot_h - y / y_max * plot_h; };
  const bool overlay = sides.size() > 1;
  const std::vector<std::string> names = input_names(sides);

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const std::string title = overlay ? std::to_string(sides.size()) + " inputs overlaid" : names.front();
  out << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">busbw vs size: "
      << xml_escape(fitted(title, 100)) << "</text>\n";
  const std::string subtitle = overlay ? "line style: the input; colour: the collective and placement"
                                       : identity_line(sides.front().identity);
  out << "<text x=\"" << kLeft << "\" y=\"44\" fill=\"#444\">" << xml_escape(fitted(subtitle, 130)) << "</text>\n";
  // Grid and axes.
  write_size_grid(out, x_min, x_max, px, kTop, plot_h);
  for (double y = 0; y <= y_max + y_step / 2; y += y_step) {
    out << "<line x1=\"" << kLeft << "\" y1=\"" << fixed(py(y)) << "\" x2=\"" << kLeft + plot_w << "\" y2=\""
        << fixed(py(y)) << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << kLeft - 8 << "\" y=\"" << fixed(py(y) + 4) << "\" text-anchor=\"end\">" << significant3(y)
        << "</text>\n";
  }
  out << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"#333\"/>\n";
  out << "<text x=\"" << fixed(kLeft + plot_w / 2) << "\" y=\"" << kHeight - 12
      << "\" text-anchor=\"middle\">size (bytes, log2 scale)</text>\n";
  out << "<text transform=\"translate(18 " << fixed(kTop + plot_h / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">busbw (GB/s)</text>\n";
  if (style.link_peak_gbps) {
    out << "<line x1=\"" << kLeft << "\" y1=\"" << fixed(py(*style.link_peak_gbps)) << "\" x2=\"" << kLeft + plot_w
        << "\" y2=\"" << fixed(py(*style.link_peak_gbps)) << "\" stroke=\"#000\" stroke-dasharray=\"6 4\"/>\n";
    out << "<text x=\"" << kLeft + 6 << "\" y=\"" << fixed(py(*style.link_peak_gbps) - 6) << "\">"
        << xml_escape(style.link_name) << " peak " << significant3(*style.link_peak_gbps) << " GB/s</text>\n";
  }
  // One line per series.
  for (const Series& s : series) {
    const char* colour = colour_of(s);
    out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\"" << dash_attribute(s.input)
        << " points=\"";
    for (const auto& [x, y] : s.points) out << fixed(px(x)) << "," << fixed(py(y)) << " ";
    out << "\"/>\n";
    for (const auto& [x, y] : s.points) {
      out << "<circle cx=\"" << fixed(px(x)) << "\" cy=\"" << fixed(py(y)) << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
    }
  }
  // The legend: each input's line style (overlay only), then each colour. Entries are
  // packed closer when many, so none runs below the plot.
  const std::size_t entries = (overlay ? sides.size() : 0) + colour_keys.size();
  const double spacing = std::min(20.0, plot_h / static_cast<double>(std::max<std::size_t>(entries, 1)));
  double ly = kTop + 10;
  const auto legend_entry = [&](const std::string& colour, const std::string& dash, const std::string& label) {
    out << "<line x1=\"" << kWidth - kRight + 16 << "\" y1=\"" << fixed(ly) << "\" x2=\"" << kWidth - kRight + 40
        << "\" y2=\"" << fixed(ly) << "\" stroke=\"" << colour << "\" stroke-width=\"2\"" << dash << "/>\n";
    out << "<text x=\"" << kWidth - kRight + 46 << "\" y=\"" << fixed(ly + 4) << "\">" << fitted_content(label, 34)
        << "</text>\n";
    ly += spacing;
  };
  if (overlay) {
    for (std::size_t i = 0; i < sides.size(); ++i) legend_entry("#333", dash_attribute(i), names[i]);
  }
  for (std::size_t i = 0; i < colour_keys.size(); ++i) {
    legend_entry(kSeriesPalette[i % std::size(kSeriesPalette)], "", colour_keys[i]);
  }
  out << "</svg>\n";
}

}  // namespace ncclsweep
