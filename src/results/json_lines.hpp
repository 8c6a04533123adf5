#pragma once
// records.jsonl, read back: one JSON value a line. A run and a soak append theirs a
// line at a time as they measure; a writer killed mid-line leaves the last line torn (no
// newline, or JSON cut short), which is dropped and said, and `complete_bytes` marks where
// the whole lines end, so a resume cuts the file back there before it appends. A damaged
// line before the last was not cut by a kill and is refused at its line, in the caller's
// words; a reader of a file written whole (locate's) refuses a torn line too.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"

namespace ncclsweep {

struct JsonLine {
  int number = 0;  // from 1
  nlohmann::json value;
};

struct JsonLines {
  std::vector<JsonLine> lines;
  std::uintmax_t complete_bytes = 0;  // the whole lines' length, newlines included
  int torn_line = 0;                  // the dropped last line's number; 0: none
  std::string torn_why;               // why it counts as torn: "no newline at its end" or the parse error
};

// What the caller says of a damaged line before the last: `why` is the parse error.
using DamagedLine = std::function<UsageError(int line, const std::string& why)>;

// Splits and parses `text`, the file at `path` (for positions). A line past the limits of
// parse_json_line is refused wherever it is: no write of ncclsweep's, cut short, makes one.
JsonLines read_json_lines(std::string_view text, const std::string& path, const DamagedLine& damaged);

}  // namespace ncclsweep
