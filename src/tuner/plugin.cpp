// libncclsweep-tuner.so: an NCCL tuner plugin (interface v5 and v4) that applies the
// rules `ncclsweep recommend --format nccl-tuner` writes, the CSV of NCCL's example
// tuner (NCCL_TUNER_CONFIG_FILE, default ./nccl_tuner.conf). For a call whose collective,
// size and communicator shape match a rule, it makes the rule's algorithm and protocol
// the cheapest entry of NCCL's cost table and sets the channel count when the rule has
// one. It logs through NCCL's logger what it loaded and, once per rule, when a rule
// applied. A bad line is logged with its number and skipped; a missing or empty file
// leaves every choice to NCCL. Nothing here may throw into NCCL or fail a collective.
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tuner/nccl_tuner_abi.hpp"
#include "tuner/tuner_rules.hpp"

namespace ncclsweep::tuner {
namespace {

constexpr const char* kPluginName = "ncclsweep";
constexpr const char* kDefaultRuleFile = "nccl_tuner.conf";  // as NCCL's example tuner

// One communicator's tuner: the rules it loaded and which of them it has announced.
class TunerContext {
 public:
  TunerContext(std::size_t ranks, std::size_t nodes, abi::Logger logger) : ranks_(ranks), nodes_(nodes), logger_(logger) {
    const char* from_env = std::getenv("NCCL_TUNER_CONFIG_FILE");
    path_ = from_env && *from_env ? from_env : kDefaultRuleFile;
    load();
  }

  abi::Result choose(abi::Func collective, std::size_t bytes, int pipe_ops, float** cost_table, int algorithms,
                     int protocols, int reg_buff, int* channels) {
    const CallShape call{static_cast<int>(collective), bytes, nodes_, ranks_, pipe_ops, reg_buff};
    const auto match = first_match(rules_, call);
    if (!match) return abi::kSuccess;
    const TunerRule& rule = rules_[*match];
    if (rule.algorithm >= algorithms || rule.protocol >= protocols || !cost_table) {
      announce(*match, "cannot apply: NCCL's cost table has no " + std::string(algorithm_name(rule.algorithm)) + "/" +
                           std::string(protocol_name(rule.protocol)) + " entry");
      return abi::kSuccess;
    }
    // float[algorithms][protocols], contiguous (nccl_tuner_abi.hpp).
    float& cost = reinterpret_cast<float*>(cost_table)[rule.algorithm * protocols + rule.protocol];
    if (cost == abi::kIgnoredCost) {
      announce(*match, "not applied to " + std::string(collective_name(rule.collective)) + " " + std::to_string(bytes) +
                           " B: NCCL cannot use " + std::string(algorithm_name(rule.algorithm)) + "/" +
                           std::string(protocol_name(rule.protocol)) + " for it, so NCCL's choice stays");
      return abi::kSuccess;
    }
    cost = 0.0f;  // the cheapest possible: NCCL picks the lowest cost
    if (rule.channels > 0 && channels) *channels = rule.channels;
    announce(*match, "applied to " + std::string(collective_name(rule.collective)) + " " + std::to_string(bytes) + " B: " +
                         std::string(algorithm_name(rule.algorithm)) + "/" + std::string(protocol_name(rule.protocol)) +
                         ", channels " + (rule.channels > 0 ? std::to_string(rule.channels) : std::string("NCCL's")));
    return abi::kSuccess;
  }

 private:
  void log(abi::LogLevel level, const std::string& message) const {
    if (logger_) logger_(level, abi::kSubsystemTuning | abi::kSubsystemInit, __FILE__, __LINE__, "TUNER/%s: %s", kPluginName, message.c_str());
  }

  void load() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
      log(abi::kLogInfo, "no rule file " + path_ + " (set NCCL_TUNER_CONFIG_FILE): NCCL's own choices stay");
      return;
    }
    std::ostringstream text;
    text << in.rdbuf();
    RuleFile file = parse_tuner_rules(text.str());
    for (const auto& problem : file.problems) {
      log(abi::kLogWarn, path_ + ":" + std::to_string(problem.line) + ": line skipped: " + problem.why);
    }
    rules_ = std::move(file.rules);
    announced_ = std::make_unique<std::atomic<bool>[]>(rules_.size());
    log(abi::kLogInfo, "loaded " + std::to_string(rules_.size()) + " rule(s) from " + path_ + " for " + std::to_string(nodes_) +
                           " node(s), " + std::to_string(ranks_) + " rank(s)");
    for (const auto& rule : rules_) log(abi::kLogInfo, "rule at line " + std::to_string(rule.line) + ": " + format_rule(rule));
  }

  // Logs a rule's first use (one line per rule, however many calls it serves).
  void announce(std::size_t index, const std::string& what) {
    if (announced_[index].exchange(true)) return;
    log(abi::kLogInfo, "rule at line " + std::to_string(rules_[index].line) + " " + what);
  }

  std::size_t ranks_, nodes_;
  abi::Logger logger_;
  std::string path_;
  std::vector<TunerRule> rules_;
  std::unique_ptr<std::atomic<bool>[]> announced_;
};

abi::Result make_context(void** context, std::size_t ranks, std::size_t nodes, abi::Logger logger) {
  if (!context) return abi::kInvalidArgument;
  try {
    *context = new TunerContext(ranks, nodes, logger);
    return abi::kSuccess;
  } catch (...) {
    *context = nullptr;
    return abi::kSystemError;  // NCCL then runs without this tuner
  }
}

abi::Result init_v5(void** context, std::uint64_t, std::size_t ranks, std::size_t nodes, abi::Logger logger,
                    abi::NvlDomainInfoV5*, abi::TunerConstantsV5*) {
  return make_context(context, ranks, nodes, logger);  // NCCL's model constants stay as they are
}

abi::Result init_v4(std::size_t ranks, std::size_t nodes, abi::Logger logger, void** context) {
  return make_context(context, ranks, nodes, logger);
}

abi::Result get_coll_info(void* context, abi::Func collective, std::size_t bytes, int pipe_ops, float** cost_table,
                          int algorithms, int protocols, int reg_buff, int* channels) {
  if (!context) return abi::kSuccess;
  try {
    return static_cast<TunerContext*>(context)->choose(collective, bytes, pipe_ops, cost_table, algorithms, protocols,
                                                       reg_buff, channels);
  } catch (...) {
    return abi::kSuccess;  // an error here would fail the user's collective: leave NCCL's choice
  }
}

abi::Result finalize(void* context) {
  delete static_cast<TunerContext*>(context);
  return abi::kSuccess;
}

}  // namespace
}  // namespace ncclsweep::tuner

// The symbols NCCL looks up with dlsym; everything else in the library is hidden.
extern "C" {
__attribute__((visibility("default"))) extern const ncclsweep::tuner::abi::TunerV5 ncclTunerPlugin_v5;
__attribute__((visibility("default"))) extern const ncclsweep::tuner::abi::TunerV4 ncclTunerPlugin_v4;
const ncclsweep::tuner::abi::TunerV5 ncclTunerPlugin_v5 = {ncclsweep::tuner::kPluginName, ncclsweep::tuner::init_v5,
                                                           ncclsweep::tuner::get_coll_info, ncclsweep::tuner::finalize};
const ncclsweep::tuner::abi::TunerV4 ncclTunerPlugin_v4 = {ncclsweep::tuner::kPluginName, ncclsweep::tuner::init_v4,
                                                           ncclsweep::tuner::get_coll_info, ncclsweep::tuner::finalize};
}
