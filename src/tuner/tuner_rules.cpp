#include "tuner/tuner_rules.hpp"

#include <array>
#include <cctype>
#include <charconv>

namespace ncclsweep::tuner {
namespace {

constexpr std::array<std::string_view, kNumCollectives> kCollectives = {"broadcast", "reduce", "allgather",
                                                                        "reducescatter", "allreduce"};
constexpr std::array<std::string_view, kNumAlgorithms> kAlgorithms = {"tree", "ring", "collnet_direct", "collnet_chain",
                                                                      "nvls", "nvls_tree", "pat"};
constexpr std::array<std::string_view, kNumProtocols> kProtocols = {"ll", "ll128", "simple"};

template <std::size_t N>
std::optional<int> index_of(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i].size() != name.size()) continue;
    bool same = true;
    for (std::size_t c = 0; c < name.size() && same; ++c) {
      same = std::tolower(static_cast<unsigned char>(name[c])) == names[i][c];
    }
    if (same) return static_cast<int>(i);
  }
  return std::nullopt;
}

template <std::size_t N>
std::string list_of(const std::array<std::string_view, N>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

template <std::size_t N>
std::string_view name_at(const std::array<std::string_view, N>& names, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < N ? names[static_cast<std::size_t>(index)] : "?";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <typename T>
bool parse_number(std::string_view text, T& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

// channels, nNodes, nRanks, numPipeOps, regBuff: -1 (any / NCCL's choice) or a positive count.
bool parse_count(std::string_view text, int& out, int lowest) {
  return parse_number(text, out) && (out == kAny || out >= lowest);
}

// The reason a line is bad, or "" with `rule` filled.
std::string parse_line(std::string_view line, TunerRule& rule) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (fields.size() < 8 || fields.size() > 10) {
    return std::to_string(fields.size()) +
           " fields, want 8 to 10: collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]";
  }
  const auto collective = parse_collective(fields[0]);
  if (!collective) return "unknown collective_type '" + std::string(fields[0]) + "' (" + list_of(kCollectives) + ")";
  rule.collective = *collective;
  if (!parse_number(fields[1], rule.min_bytes)) return "min_bytes '" + std::string(fields[1]) + "' is not a byte count";
  if (!parse_number(fields[2], rule.max_bytes)) return "max_bytes '" + std::string(fields[2]) + "' is not a byte count";
  if (rule.min_bytes > rule.max_bytes) return "min_bytes is larger than max_bytes";
  const auto algorithm = parse_algorithm(fields[3]);
  if (!algorithm) return "unknown algorithm '" + std::string(fields[3]) + "' (" + list_of(kAlgorithms) + ")";
  rule.algorithm = *algorithm;
  const auto protocol = parse_protocol(fields[4]);
  if (!protocol) return "unknown protocol '" + std::string(fields[4]) + "' (" + list_of(kProtocols) + ")";
  rule.protocol = *protocol;
  if (!parse_count(fields[5], rule.channels, 1)) return "channels '" + std::string(fields[5]) + "' is not -1 or a count";
  if (!parse_count(fields[6], rule.nodes, 1)) return "nNodes '" + std::string(fields[6]) + "' is not -1 or a count";
  if (!parse_count(fields[7], rule.ranks, 1)) return "nRanks '" + std::string(fields[7]) + "' is not -1 or a count";
  if (fields.size() > 8 && !parse_count(fields[8], rule.pipe_ops, 1)) {
    return "numPipeOps '" + std::string(fields[8]) + "' is not -1 or a count";
  }
  if (fields.size() > 9 && !(parse_number(fields[9], rule.reg_buff) && rule.reg_buff >= -1 && rule.reg_buff <= 1)) {
    return "regBuff '" + std::string(fields[9]) + "' is not -1, 0 or 1";
  }
  return "";
}

}  // namespace

std::string_view collective_name(int collective) { return name_at(kCollectives, collective); }
std::string_view algorithm_name(int algorithm) { return name_at(kAlgorithms, algorithm); }
std::string_view protocol_name(int protocol) { return name_at(kProtocols, protocol); }
std::optional<int> parse_collective(std::string_view name) { return index_of(kCollectives, name); }
std::optional<int> parse_algorithm(std::string_view name) { return index_of(kAlgorithms, name); }
std::optional<int> parse_protocol(std::string_view name) { return index_of(kProtocols, name); }

RuleFile parse_tuner_rules(std::string_view text) {
  RuleFile file;
  int number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    const std::string_view line = trim(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    start = end == std::string_view::npos ? text.size() : end + 1;
    ++number;
    if (line.empty() || line.front() == '#') continue;
    TunerRule rule;
    rule.line = number;
    std::string why = parse_line(line, rule);
    if (why.empty()) {
      file.rules.push_back(rule);
    } else {
      file.problems.push_back({number, std::move(why)});
    }
  }
  return file;
}

bool rule_matches(const TunerRule& rule, const CallShape& call) {
  const auto any_or = [](int wanted, long long actual) { return wanted == kAny || wanted == actual; };
  return rule.collective == call.collective && call.bytes >= rule.min_bytes && call.bytes <= rule.max_bytes &&
         any_or(rule.nodes, static_cast<long long>(call.nodes)) && any_or(rule.ranks, static_cast<long long>(call.ranks)) &&
         any_or(rule.pipe_ops, call.pipe_ops) && any_or(rule.reg_buff, call.reg_buff);
}

std::optional<std::size_t> first_match(const std::vector<TunerRule>& rules, const CallShape& call) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (rule_matches(rules[i], call)) return i;
  }
  return std::nullopt;
}

std::string format_rule(const TunerRule& rule) {
  return std::string(collective_name(rule.collective)) + "," + std::to_string(rule.min_bytes) + "," +
         std::to_string(rule.max_bytes) + "," + std::string(algorithm_name(rule.algorithm)) + "," +
         std::string(protocol_name(rule.protocol)) + "," + std::to_string(rule.channels) + "," +
         std::to_string(rule.nodes) + "," + std::to_string(rule.ranks) + "," + std::to_string(rule.pipe_ops) + "," +
         std::to_string(rule.reg_buff);
}

}  // namespace ncclsweep::tuner
