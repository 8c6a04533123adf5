#include "verify/nccl_log_line.hpp"

namespace ncclsweep {

std::optional<NcclLogLine> read_nccl_log_line(std::string_view line) {
  for (const std::string_view level : {std::string_view("INFO"), std::string_view("WARN")}) {
    const std::string tag = "NCCL " + std::string(level) + " ";
    const std::size_t at = line.find(tag);
    if (at == std::string_view::npos) continue;
    std::string_view origin = line.substr(0, at);
    while (!origin.empty() && origin.back() == ' ') origin.remove_suffix(1);
    return NcclLogLine{origin, level, line.substr(at + tag.size())};
  }
  return std::nullopt;
}

void for_each_log_line(std::string_view text, const std::function<void(std::string_view line, int number)>& each) {
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    each(line, ++number);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

std::string process_of(std::string_view origin) {
  // The thread id varies within one process: "host:pid:tid [dev]" -> "host:pid [dev]".
  const std::size_t first = origin.find(':');
  const std::size_t second = first == std::string_view::npos ? first : origin.find(':', first + 1);
  const std::size_t space = origin.find(' ');
  if (second == std::string_view::npos || space == std::string_view::npos || space < second) return std::string(origin);
  return std::string(origin.substr(0, second)) + std::string(origin.substr(space));
}

}  // namespace ncclsweep
