#include "report/svg_text.hpp"

#include <array>

namespace ncclsweep {
namespace {

// DejaVu Sans advance widths of ' ' .. '~' in units of 1/2048 em.
constexpr std::array<int, 95> kAdvance{
    651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,   // ' ' .. '/'
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087,  // '0' .. '?'
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612,  // '@' .. 'O'
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799,  690,  799,  1716, 1024,  // 'P' .. '_'
    1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995, 1298, 1253,  // '`' .. 'o'
    1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716};       // 'p' .. '~'

constexpr double kLegendFont = 12, kLegendLine = 15, kSwatchRoom = 30, kColumnGap = 16;

}  // namespace

double text_width(std::string_view text, double font_px, bool bold) {
  double units = 0;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 32 && byte < 127) {
      units += kAdvance[byte - 32];
    } else if ((byte & 0xC0) != 0x80) {  // a character beyond ASCII (its first byte), or a control
      units += 2048;
    }
  }
  return units / 2048 * font_px * (bold ? 1.15 : 1.0) * 1.02;
}

std::vector<std::string> wrap_to_width(const std::string& text, double width, double font_px, bool bold) {
  std::vector<std::string> lines;
  std::string line;
  const auto fits = [&](const std::string& s) { return text_width(s, font_px, bold) <= width; };
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t space = text.find(' ', at);
    std::string word = text.substr(at, space == std::string::npos ? std::string::npos : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    if (line.empty() ? fits(word) : fits(line + " " + word)) {
      line += (line.empty() ? "" : " ") + word;
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line.clear();
    // A word wider than the room on its own: cut it where it fills a line (never inside
    // a UTF-8 character).
    while (!fits(word)) {
      std::size_t cut = 1;
      while (cut < word.size() && fits(word.substr(0, cut + 1))) ++cut;
      while (cut < word.size() && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) ++cut;
      lines.push_back(word.substr(0, cut));
      word = word.substr(cut);
    }
    line = word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string text_lines(const std::vector<std::string>& lines, double x, double y, double line_px,
                       const std::string& attributes) {
  std::string out = "<text x=\"" + fixed(x) + "\" y=\"" + fixed(y) + "\"" + (attributes.empty() ? "" : " " + attributes) + ">";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += i == 0 ? xml_escape(lines[i])
                  : "<tspan x=\"" + fixed(x) + "\" dy=\"" + fixed(line_px) + "\">" + xml_escape(lines[i]) + "</tspan>";
  }
  return out + "</text>\n";
}

SvgLegend::SvgLegend(std::vector<LegendEntry> entries, double width) : entries_(std::move(entries)) {
  double widest = 0;
  for (const LegendEntry& e : entries_) widest = std::max(widest, text_width(e.label, kLegendFont));
  // As many columns as the widest label allows, at most one per entry.
  std::size_t columns = 1;
  while (columns < entries_.size() &&
         kSwatchRoom + widest <= (width - kColumnGap * static_cast<double>(columns)) / static_cast<double>(columns + 1)) {
    ++columns;
  }
  const double column_width = (width - kColumnGap * static_cast<double>(columns - 1)) / static_cast<double>(columns);
  const std::size_t rows = (entries_.size() + columns - 1) / columns;
  double y = kLegendLine / 2;
  for (std::size_t row = 0; row < rows; ++row) {
    std::size_t tallest = 1;
    for (std::size_t column = 0; column < columns; ++column) {
      const std::size_t i = column * rows + row;  // down each column, then across
      if (i >= entries_.size()) continue;
      Placed placed;
      placed.x = static_cast<double>(column) * (column_width + kColumnGap);
      placed.y = y;
      placed.lines = wrap_to_width(entries_[i].label, column_width - kSwatchRoom, kLegendFont);
      tallest = std::max(tallest, placed.lines.size());
      placed_.resize(std::max(placed_.size(), i + 1));
      placed_[i] = std::move(placed);
    }
    y += kLegendLine * static_cast<double>(tallest) + 4;
  }
  height_ = entries_.empty() ? 0 : y - kLegendLine / 2;
}

void SvgLegend::write(std::ostream& out, double x, double y) const {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Placed& p = placed_[i];
    out << "<g class=\"legend-entry\" transform=\"translate(" << fixed(x + p.x + 12) << " " << fixed(y + p.y) << ")\">"
        << entries_[i].swatch << text_lines(p.lines, kSwatchRoom - 12, 4, kLegendLine) << "</g>\n";
  }
}

std::string line_swatch(const std::string& colour, const std::string& dash, double stroke_width) {
  return "<line x1=\"-12\" y1=\"0\" x2=\"12\" y2=\"0\" stroke=\"" + colour + "\" stroke-width=\"" + fixed(stroke_width) + "\"" +
         (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>";
}

}  // namespace ncclsweep
