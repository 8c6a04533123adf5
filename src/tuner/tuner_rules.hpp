#pragma once
// The rule file of NCCL's example tuner plugin (NCCL 2.27.5+, NCCL_TUNER_CONFIG_FILE),
// which `ncclsweep recommend --format nccl-tuner` writes and libncclsweep-tuner.so reads:
//
//   collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]
//
// '#' starts a comment line; blank lines are skipped. Self-contained (no other ncclsweep
// code) because the plugin links it into a shared library NCCL loads (docs/recommend.md).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep::tuner {

// Index values are NCCL's own: ncclFunc_t, NCCL_ALGO_*, NCCL_PROTO_* (cost-table indices).
inline constexpr int kNumCollectives = 5;  // broadcast reduce allgather reducescatter allreduce
inline constexpr int kNumAlgorithms = 7;   // tree ring collnet_direct collnet_chain nvls nvls_tree pat
inline constexpr int kNumProtocols = 3;    // ll ll128 simple
inline constexpr int kAny = -1;            // channels: NCCL's choice; nNodes...regBuff: match any

struct TunerRule {
  int collective = 0;  // ncclFunc_t value
  std::uint64_t min_bytes = 0, max_bytes = 0;  // inclusive, NCCL's nBytes (nccl-tests' total size)
  int algorithm = 0, protocol = 0;
  int channels = kAny;
  int nodes = kAny, ranks = kAny, pipe_ops = kAny, reg_buff = kAny;
  int line = 0;  // 1-based line in the file
};

struct RuleProblem {
  int line = 0;
  std::string why;  // "unknown algorithm 'rign' (tree, ring, ...)"
};

struct RuleFile {
  std::vector<TunerRule> rules;      // in file order; the first match wins
  std::vector<RuleProblem> problems;  // lines skipped, with why
};

// Never throws on bad content: each bad line becomes a problem and is skipped.
RuleFile parse_tuner_rules(std::string_view text);

// What one call looks like to the tuner.
struct CallShape {
  int collective = 0;
  std::uint64_t bytes = 0;
  std::size_t nodes = 0, ranks = 0;
  int pipe_ops = 1;
  int reg_buff = 0;
};
bool rule_matches(const TunerRule& rule, const CallShape& call);
// Index of the first matching rule, or none.
std::optional<std::size_t> first_match(const std::vector<TunerRule>& rules, const CallShape& call);

// The file's names ("allgather", "ring", "ll128"), or "?" out of range.
std::string_view collective_name(int collective);
std::string_view algorithm_name(int algorithm);
std::string_view protocol_name(int protocol);
// Names as the file spells them, case-insensitive; none when unknown.
std::optional<int> parse_collective(std::string_view name);
std::optional<int> parse_algorithm(std::string_view name);
std::optional<int> parse_protocol(std::string_view name);

// One line of the file (no newline), channels etc. as given.
std::string format_rule(const TunerRule& rule);

}  // namespace ncclsweep::tuner
