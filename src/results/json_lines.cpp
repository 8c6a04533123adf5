#include "results/json_lines.hpp"

#include "core/json_input.hpp"

namespace ncclsweep {

JsonLines read_json_lines(std::string_view text, const std::string& path, const DamagedLine& damaged) {
  JsonLines read;
  int number = 0;
  for (std::size_t start = 0; start < text.size();) {
    ++number;
    const std::size_t newline = text.find('\n', start);
    const bool whole = newline != std::string_view::npos;
    const std::string_view line = text.substr(start, (whole ? newline : text.size()) - start);
    start = whole ? newline + 1 : text.size();
    const bool last = start >= text.size();
    std::string why = whole ? "" : "no newline at its end";
    nlohmann::json value;
    if (why.empty()) {
      try {
        value = parse_json_line(line, {path, number, 0});
      } catch (const nlohmann::json::exception& e) {
        why = e.what();
      }
    }
    if (!why.empty()) {
      if (!last) throw damaged(number, why);
      read.torn_line = number;
      read.torn_why = why;
      break;
    }
    read.lines.push_back({number, std::move(value)});
    read.complete_bytes = start;
  }
  return read;
}

}  // namespace ncclsweep
