#include "verify/nccl_log_line.hpp"

#include <cctype>
#include <vector>

namespace ncclsweep {
namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "[3]" (a CUDA device; -1 where none was current)
bool is_device_field(std::string_view s) {
  if (s.size() < 3 || s.front() != '[' || s.back() != ']') return false;
  std::string_view inner = s.substr(1, s.size() - 2);
  if (inner.front() == '-') inner.remove_prefix(1);
  return all_digits(inner);
}

// Where "host:pid:tid" begins in a word that ends with it ("gpu-07:4100:4187", or
// "[1,0]<stderr>:gpu-07:4100:4187" where a launcher glued its tag to it); npos when the
// word does not end with one.
std::size_t host_pid_tid_start(std::string_view word) {
  const std::size_t tid_colon = word.rfind(':');
  if (tid_colon == std::string_view::npos || tid_colon == 0 || !all_digits(word.substr(tid_colon + 1))) {
    return std::string_view::npos;
  }
  const std::size_t pid_colon = word.rfind(':', tid_colon - 1);
  if (pid_colon == std::string_view::npos || pid_colon == 0 ||
      !all_digits(word.substr(pid_colon + 1, tid_colon - pid_colon - 1))) {
    return std::string_view::npos;
  }
  const std::size_t host_colon = word.rfind(':', pid_colon - 1);
  const std::size_t host = host_colon == std::string_view::npos ? 0 : host_colon + 1;
  if (host >= pid_colon) return std::string_view::npos;  // an empty host
  // A hostname has no brackets, angle brackets or quotes: those end a launcher's tag.
  for (std::size_t i = pid_colon; i-- > host;) {
    if (std::string_view("[]<>()\"'").find(word[i]) != std::string_view::npos) return i + 1 < pid_colon ? i + 1 : std::string_view::npos;
  }
  return host;
}

struct Word {
  std::size_t begin, end;
};

// NCCL's "host:pid:tid [dev]" among the last words before the level tag, whatever comes
// before it (NCCL_DEBUG_TIMESTAMP_FORMAT's timestamp, a launcher's or Ray's prefix). A
// WARN puts "file.cc:line" between the device and the tag, a TRACE also a time.
std::string_view origin_before(std::string_view before) {
  std::vector<Word> words;
  for (std::size_t i = 0; i < before.size();) {
    while (i < before.size() && before[i] == ' ') ++i;
    if (i == before.size()) break;
    const std::size_t start = i;
    while (i < before.size() && before[i] != ' ') ++i;
    words.push_back({start, i});
  }
  for (std::size_t k = words.size(); k-- > 1 && words.size() - k <= 3;) {
    const std::string_view device = before.substr(words[k].begin, words[k].end - words[k].begin);
    if (!is_device_field(device)) continue;
    const std::string_view id = before.substr(words[k - 1].begin, words[k - 1].end - words[k - 1].begin);
    const std::size_t host = host_pid_tid_start(id);
    if (host == std::string_view::npos) continue;
    return before.substr(words[k - 1].begin + host, words[k].end - words[k - 1].begin - host);
  }
  return {};
}

}  // namespace

std::optional<NcclLogLine> read_nccl_log_line(std::string_view line) {
  // Two processes writing one stream can put one line's start before another's: the
  // last tag that follows an origin is the line's own.
  std::optional<NcclLogLine> found;
  for (const std::string_view level : {std::string_view("INFO"), std::string_view("WARN")}) {
    const std::string tag = "NCCL " + std::string(level) + " ";
    for (std::size_t at = line.find(tag); at != std::string_view::npos; at = line.find(tag, at + 1)) {
      const std::string_view origin = origin_before(line.substr(0, at));
      const NcclLogLine read{origin, level, line.substr(at + tag.size())};
      if (!found || (!origin.empty() && (found->origin.empty() || origin.data() > found->origin.data()))) found = read;
    }
  }
  return found;
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
  const std::size_t space = origin.find(' ');
  const std::size_t tid_colon = origin.substr(0, space).rfind(':');
  if (space == std::string_view::npos || tid_colon == std::string_view::npos) return std::string(origin);
  return std::string(origin.substr(0, tid_colon)) + std::string(origin.substr(space));
}

}  // namespace ncclsweep
