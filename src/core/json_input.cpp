#include "core/json_input.hpp"

#include <algorithm>

namespace ncclsweep {

std::uint64_t max_json_values(InputKind kind) { return input_cap(kind) / 256; }

nlohmann::json parse_json_input(std::string_view text, const SourcePosition& where, std::uint64_t max_values) {
  std::uint64_t values = 0;
  const nlohmann::json::parser_callback_t limit = [&](int depth, nlohmann::json::parse_event_t event,
                                                      nlohmann::json&) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::key || event == Event::object_end || event == Event::array_end) return true;
    if (depth > kMaxJsonDepth) {
      throw UsageError("the JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels, which no ncclsweep or nccl-tests file does",
                       "check that this is the file you meant", where);
    }
    if (++values > max_values) {
      throw UsageError("the JSON holds more than " + std::to_string(max_values) + " values, more than its reader takes",
                       "check that this is the file you meant; if it is real, pass --max-input-size with a larger size",
                       where);
    }
    return true;
  };
  return nlohmann::json::parse(text.begin(), text.end(), limit);
}

std::int64_t checked_json_integer(const nlohmann::json& j, std::int64_t lo, std::int64_t hi, const std::string& what) {
  const auto refuse = [&](const std::string& why) -> std::int64_t {
    throw UsageError(what + " is " + j.dump() + ", " + why, "the file is damaged or was edited; restore it from its run");
  };
  if (j.is_number_unsigned()) {
    const auto value = j.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(hi)) return refuse("above " + std::to_string(hi));
    return static_cast<std::int64_t>(value);
  }
  if (j.is_number_integer()) {
    const auto value = j.get<std::int64_t>();
    if (value < lo) return refuse("below " + std::to_string(lo));
    if (value > hi) return refuse("above " + std::to_string(hi));
    return value;
  }
  if (j.is_number_float()) return refuse("not a whole number");
  return refuse("not a number");
}

std::size_t max_json_line_bytes() {
  return std::max<std::size_t>(kMaxJsonLineBytes, static_cast<std::size_t>(input_cap(kResultsFileInput) / 64));
}

void throw_json_line_too_long(std::size_t bytes, const SourcePosition& where) {
  throw UsageError("the line is " + std::to_string(bytes / kMebibyte) + " MiB long, more than the " +
                       std::to_string(max_json_line_bytes() / kMebibyte) + " MiB any record takes",
                   "check that this is the file you meant (a record is one line of at most a few MiB; a soak "
                   "window that traced many hosts' pairs is larger: --max-input-size raises the limit to a "
                   "64th of the size it gives)",
                   where);
}

nlohmann::json parse_json_line(std::string_view line, const SourcePosition& where) {
  if (line.size() > max_json_line_bytes()) throw_json_line_too_long(line.size(), where);
  return parse_json_input(line, where, line.size() / 2 + 1);
}

}  // namespace ncclsweep
