#pragma once
// What a value of an NCCL variable or ncclConfig_t field may look like, and the check
// that refuses anything else before a run starts. NCCL itself rarely complains: it reads
// integers with strtoll (so "abc" is 0 and "4M" is 4), compares level names
// case-sensitively and falls back to a default without a word, and rejects an unknown
// algorithm name only at communicator init on every rank. The kinds follow NCCL 2.28's
// own parsers; docs/sweep-files.md lists them for users.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ncclsweep {

enum class ValueSyntax {
  integer,              // a whole number in [min, max], a multiple of `step`
  boolean,              // 0 or 1
  bytes,                // a plain byte count in [min, max]: NCCL reads no units
  name,                 // one of `names`
  name_list,            // names separated by commas, "^" first to exclude them
  per_collective_list,  // NCCL_ALGO / NCCL_PROTO: "Ring,Tree", "^LL128", "allreduce:Tree;allgather:Ring"
  interface_list,       // NCCL_SOCKET_IFNAME / NCCL_IB_HCA: "^" and "=" prefixes, "name[:port]" entries
  distance,             // NCCL_P2P_LEVEL style: a path-type name or an old-style number
  text,                 // anything (paths, addresses, plugin names)
};

struct ValueKind {
  ValueSyntax syntax = ValueSyntax::text;
  long long min = 0;   // integer, bytes
  long long max = 0;   // integer, bytes
  long long step = 1;  // integer: the value must be a multiple of it
  std::string_view item{};  // what one name is, for messages: "protocol", "level"
  std::span<const std::string_view> names{};  // name, name_list, per_collective_list, distance
  bool exact_case = false;                    // NCCL compares with strcmp rather than strcasecmp
  std::span<const std::string_view> prefixes{};  // per_collective_list: the collectives NCCL knows
  bool ports = false;                            // interface_list: entries may carry ":port"
};

// MAXCHANNELS in NCCL: it caps larger channel and CTA counts, whether set by a variable
// or by an ncclConfig_t field.
inline constexpr long long kNcclMaxChannels = 64;

constexpr ValueKind integer_kind(long long min, long long max, long long step = 1) {
  return {.syntax = ValueSyntax::integer, .min = min, .max = max, .step = step};
}
constexpr ValueKind boolean_kind() { return {.syntax = ValueSyntax::boolean, .min = 0, .max = 1}; }
constexpr ValueKind bytes_kind(long long min, long long max) { return {.syntax = ValueSyntax::bytes, .min = min, .max = max}; }
constexpr ValueKind text_kind() { return {}; }
constexpr ValueKind name_kind(std::string_view item, std::span<const std::string_view> names, bool exact_case = false) {
  return {.syntax = ValueSyntax::name, .item = item, .names = names, .exact_case = exact_case};
}
constexpr ValueKind name_list_kind(std::string_view item, std::span<const std::string_view> names) {
  return {.syntax = ValueSyntax::name_list, .item = item, .names = names};
}
constexpr ValueKind per_collective_kind(std::string_view item, std::span<const std::string_view> names,
                                        std::span<const std::string_view> collectives) {
  return {.syntax = ValueSyntax::per_collective_list, .item = item, .names = names, .prefixes = collectives};
}
constexpr ValueKind interface_kind(bool ports) {
  return {.syntax = ValueSyntax::interface_list, .item = ports ? "device" : "interface", .ports = ports};
}
constexpr ValueKind distance_kind(std::span<const std::string_view> names, long long max_number) {
  return {.syntax = ValueSyntax::distance, .max = max_number, .item = "level", .names = names, .exact_case = true};
}

// What is wrong with a value, and what the setting takes.
struct ValueProblem {
  std::string what;  // "unknown protocol 'Simpel' (did you mean Simple?)"
  std::string fix;   // "NCCL_PROTO takes ..."
};

// nullopt when `value` is one that `setting` (named in messages) takes.
std::optional<ValueProblem> check_value(std::string_view setting, const ValueKind& kind, std::string_view value);

// "an integer from 1 to 128", "protocols LL, LL128, Simple separated by commas; ...".
std::string describe(const ValueKind& kind);

// Whether NCCL reads `a` and `b` as the same setting: names it compares with strcasecmp
// ("LL" and "ll"), numbers of one value ("8" and "0x8"); otherwise the same text.
bool nccl_reads_alike(const ValueKind& kind, std::string_view a, std::string_view b);

// A whole number as NCCL writes one: decimal, or hexadecimal with 0x. nullopt for
// anything else (octal-looking "010", "4M", "abc", " 8", overflow).
std::optional<long long> parse_whole_number(std::string_view text);

}  // namespace ncclsweep
