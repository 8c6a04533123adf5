#pragma once
// What the SVG printers share: escaping (core/xml_text.hpp), coordinates and tick steps (plain text, no
// plotting dependency).
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "core/printf_text.hpp"
#include "core/xml_text.hpp"
#include "core/units.hpp"

namespace ncclsweep {

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

// Text that fits `chars` characters (about 6.5 px each at 12 px sans-serif), so no
// label runs past the viewBox.
inline std::string fitted(const std::string& text, std::size_t chars) {
  return text.size() <= chars ? text : text.substr(0, chars - 3) + "...";
}

// A <text> element's content: `text` fitted and escaped, with the whole of it as a
// <title> (the tooltip) when fitting cut it, so a legend entry whose end was cut still
// says which series it is ("all_gather float32 [on intra-node gr..." names two kinds).
inline std::string fitted_content(const std::string& text, std::size_t chars) {
  const std::string shown = xml_escape(fitted(text, chars));
  return text.size() <= chars ? shown : shown + "<title>" + xml_escape(text) + "</title>";
}

// Text cut at spaces into lines of at most `chars`, at most `lines` of them (the last
// one fitted).
inline std::vector<std::string> wrapped(const std::string& text, std::size_t chars, std::size_t lines) {
  std::vector<std::string> out;
  std::string rest = text;
  while (!rest.empty() && out.size() + 1 < lines && rest.size() > chars) {
    auto cut = rest.rfind(' ', chars);
    if (cut == std::string::npos || cut == 0) cut = chars;
    out.push_back(rest.substr(0, cut));
    rest = rest.substr(rest[cut] == ' ' ? cut + 1 : cut);
  }
  if (!rest.empty()) out.push_back(fitted(rest, chars));
  return out;
}

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
