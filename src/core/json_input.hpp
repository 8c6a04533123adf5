#pragma once
// JSON read from a file (run.json, records.jsonl, probe.json, soak and locate results,
// nccl-tests -J output) is parsed here, under limits checked while it is parsed: a
// deeply nested value, more values than the input can hold, or a line longer than any
// record is refused at its file and line before the memory and time it would take.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/input_file.hpp"

namespace ncclsweep {

// Deeper than any document ncclsweep writes (a record nests five levels).
inline constexpr int kMaxJsonDepth = 64;
// One line of a JSON-lines file (a record with every rank's time at 100,000 ranks is
// about 2 MiB).
inline constexpr std::size_t kMaxJsonLineBytes = 16 * kMebibyte;
// The longest line a reader takes: kMaxJsonLineBytes, or a 64th of the results files' cap
// where --max-input-size raised that (a soak window that traced every pair of hundreds of
// hosts is one line of tens of MiB). Throws UsageError as input_cap does.
std::size_t max_json_line_bytes();

// The most values (numbers, strings, objects, arrays, ...) a document of `kind` may hold:
// one per 256 bytes of its cap (4 Mi values in a 1 GiB results file: a run.json of 100,000
// records holds about as many), raised with the cap by --max-input-size. The refusal comes
// while parsing, so what it costs first is bounded too (a few hundred MB at most).
std::uint64_t max_json_values(InputKind kind);

// `text` parsed; throws UsageError at `where` (file and line) for JSON nested deeper than
// kMaxJsonDepth or holding more than `max_values` values, naming the limit. A syntax
// error is nlohmann's parse_error, for the caller to word.
nlohmann::json parse_json_input(std::string_view text, const SourcePosition& where, std::uint64_t max_values);

// One line of a JSON-lines file: refused past max_json_line_bytes() before it is parsed, then
// parsed as above (at most a value per two bytes of the line).
nlohmann::json parse_json_line(std::string_view line, const SourcePosition& where);

// A whole number read back from a file, checked as a flag's number is: `j` must be a JSON
// number without a fraction, within [lo, hi]; otherwise a UsageError naming `what` and the
// value as the file wrote it (-256 stays -256, not 2^64 - 256). `T` is the field's type.
std::int64_t checked_json_integer(const nlohmann::json& j, std::int64_t lo, std::int64_t hi, const std::string& what);
template <typename T>
void get_checked(const nlohmann::json& j, T& field, std::int64_t lo, std::int64_t hi, const std::string& what) {
  field = static_cast<T>(checked_json_integer(j, lo, hi, what));
}

// The UsageError for a line past max_json_line_bytes(), for readers that scan lines themselves.
[[noreturn]] void throw_json_line_too_long(std::size_t bytes, const SourcePosition& where);

}  // namespace ncclsweep
