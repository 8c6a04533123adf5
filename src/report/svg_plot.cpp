// busbw against size as a self-contained SVG: log2 size axis labelled in KiB/MiB/GiB,
// one line per collective and placement, a legend, and the run's identity as title.
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
  std::string label;
  std::vector<std::pair<double, double>> points;  // log2(size), busbw
};

constexpr double kWidth = 960, kHeight = 540;
constexpr double kLeft = 70, kRight = 270, kTop = 64, kBottom = 56;

std::vector<Series> series_of(const Side& side) {
  std::vector<Series> out;
  for (const RowGroup& g : group_rows(side)) {
    Series oop{g.title + " out-of-place", {}}, ip{g.title + " in-place", {}};
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

}  // namespace

void print_side_svg(const Side& side, const PrintStyle& style, std::ostream& out) {
  const std::vector<Series> series = series_of(side);
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

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">busbw vs size: "
      << xml_escape(side.identity.name.empty() ? side.identity.source : side.identity.name) << "</text>\n";
  out << "<text x=\"" << kLeft << "\" y=\"44\" fill=\"#444\">" << xml_escape(identity_line(side.identity)) << "</text>\n";
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
  // One line per series, then the legend.
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* colour = kSeriesPalette[i % std::size(kSeriesPalette)];
    out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
    for (const auto& [x, y] : series[i].points) out << fixed(px(x)) << "," << fixed(py(y)) << " ";
    out << "\"/>\n";
    for (const auto& [x, y] : series[i].points) {
      out << "<circle cx=\"" << fixed(px(x)) << "\" cy=\"" << fixed(py(y)) << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
    }
    const double ly = kTop + 10 + 20 * static_cast<double>(i);
    out << "<line x1=\"" << kWidth - kRight + 16 << "\" y1=\"" << ly << "\" x2=\"" << kWidth - kRight + 40 << "\" y2=\""
        << ly << "\" stroke=\"" << colour << "\" stroke-width=\"2\"/>\n";
    out << "<text x=\"" << kWidth - kRight + 46 << "\" y=\"" << ly + 4 << "\">" << xml_escape(series[i].label)
        << "</text>\n";
  }
  out << "</svg>\n";
}

}  // namespace ncclsweep
