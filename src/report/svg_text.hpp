#pragma once
// What the SVG printers share: escaping (core/xml_text.hpp), coordinates and tick steps,
// and text sized to its room: widths, wrapping and the legend (plain text, no plotting
// dependency).
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/printf_text.hpp"
#include "core/xml_text.hpp"
#include "core/units.hpp"

namespace ncclsweep {

// Every plot's frame, in px: the page's width, the plot's height and its side margins.
inline constexpr double kPlotWidth = 960, kPlotHeight = 400, kPlotLeft = 70, kPlotRight = 30;

// Ten distinct line colours (matplotlib's tab10), one per series.
inline constexpr const char* kSeriesPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                                 "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

// A coordinate, one decimal.
inline std::string fixed(double v) { return printf_text("%.1f", v); }

// 1, 2 or 5 times a power of ten, giving about `ticks` steps up to `top`.
inline double nice_step(double top, int ticks) {
  const double raw = top / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

// The width `text` takes at `font_px` in sans-serif, in px: per character, the advance
// widths of DejaVu Sans (what Chromium and most Linux browsers draw sans-serif with; others
// are narrower), bold 15% wider, and a full em for a character beyond ASCII. Every layout
// sizes its room by this, so no text runs past what holds it.
double text_width(std::string_view text, double font_px, bool bold = false);

// `text` in lines no wider than `width` px: broken at spaces, and inside a word only where
// one word alone is wider. Nothing is dropped.
std::vector<std::string> wrap_to_width(const std::string& text, double width, double font_px, bool bold = false);

// Lines of text at (x, y): the first line's baseline at y, then one every `line_px`; each
// line a <tspan>, so a browser draws exactly these breaks. `attributes` go on the <text>.
std::string text_lines(const std::vector<std::string>& lines, double x, double y, double line_px,
                       const std::string& attributes = "");

// A legend: one entry per series, its swatch (SVG drawn around the origin, at most 24 px
// wide and 12 px high) beside its whole label. Labels are never cut: entries share columns
// where every label fits one, else a label wraps onto as many lines as it needs. Each
// entry is a <g class="legend-entry"> whose text is the label.
struct LegendEntry {
  std::string swatch;
  std::string label;
};

class SvgLegend {
 public:
  // Laid out across `width` px, 12 px text.
  SvgLegend(std::vector<LegendEntry> entries, double width);
  double height() const { return height_; }
  // Writes the entries with the legend's top-left corner at (x, y).
  void write(std::ostream& out, double x, double y) const;

 private:
  struct Placed {
    double x = 0, y = 0;  // the entry's swatch centre, from the legend's corner
    std::vector<std::string> lines;
  };
  std::vector<LegendEntry> entries_;
  std::vector<Placed> placed_;
  double height_ = 0;
};

// A swatch of a line, `dash` a stroke-dasharray or "" for solid.
std::string line_swatch(const std::string& colour, const std::string& dash, double stroke_width = 2);

// The size axis's grid: a line per power of two from x_min to x_max (log2 bytes), about
// 12 of them labelled in B/KiB/MiB/GiB under the plot. `px` maps log2 bytes to x.
template <typename ToX>
void write_size_grid(std::ostream& out, double x_min, double x_max, ToX px, double top, double plot_height) {
  const int label_step = std::max(1, static_cast<int>(std::ceil((x_max - x_min) / 12)));
  for (double x = x_min; x <= x_max; x += 1) {
    const bool labelled = static_cast<int>(x - x_min) % label_step == 0;
    out << "<line x1=\"" << fixed(px(x)) << "\" y1=\"" << top << "\" x2=\"" << fixed(px(x)) << "\" y2=\""
        << top + plot_height << "\" stroke=\"" << (labelled ? "#ddd" : "#f2f2f2") << "\"/>\n";
    if (labelled) {
      out << "<text x=\"" << fixed(px(x)) << "\" y=\"" << top + plot_height + 18 << "\" text-anchor=\"middle\">"
          << xml_escape(format_bytes(static_cast<Bytes>(std::llround(std::exp2(x))))) << "</text>\n";
    }
  }
}

}  // namespace ncclsweep
