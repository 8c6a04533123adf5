#include "runtime/plan_agreement.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "results/record_json.hpp"
#include "results/resume.hpp"
#include "transport/rank_group.hpp"

namespace ncclsweep {
namespace {

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

std::string difference_at(const nlohmann::json& leader, const nlohmann::json& mine, const std::string& path) {
  if (leader == mine) return "";
  if (leader.type() == mine.type() && leader.is_object()) {
    for (const auto& [key, value] : leader.items()) {
      const std::string here = path.empty() ? key : path + "." + key;
      if (!mine.contains(key)) return here + ": rank 0 has " + shown(value) + ", this rank has nothing";
      if (std::string d = difference_at(value, mine.at(key), here); !d.empty()) return d;
    }
    for (const auto& [key, value] : mine.items()) {
      if (!leader.contains(key)) return (path.empty() ? key : path + "." + key) + ": rank 0 has nothing, this rank has " + shown(value);
    }
  }
  if (leader.type() == mine.type() && leader.is_array()) {
    for (std::size_t i = 0; i < std::min(leader.size(), mine.size()); ++i) {
      if (std::string d = difference_at(leader[i], mine[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    }
    return path + ": rank 0 has " + std::to_string(leader.size()) + " entries, this rank has " + std::to_string(mine.size());
  }
  return path + ": rank 0 has " + shown(leader) + ", this rank has " + shown(mine);
}

}  // namespace

nlohmann::json canonical_plan(const LaunchRequest& request) {
  nlohmann::json groups = nlohmann::json::array();
  for (const WorkerGroup& group : request.groups) {
    groups.push_back({{"process_env", group.process_env}, {"points", group.points}});
  }
  return {{"spec", request.spec},
          {"plan", request.plan},
          {"groups", groups},
          {"baseline", request.baseline_point},
          {"workload", request.workload ? nlohmann::json(*request.workload) : nlohmann::json(nullptr)},
          {"fault", to_text(request.fault)},
          {"corrupt_rank", request.corrupt_rank},
          {"search", request.search.has_value()}};
}

std::string first_plan_difference(const nlohmann::json& leader, const nlohmann::json& mine) {
  // What the user gave first (the spec names the sizes read), what it expands to last.
  for (const char* part : {"spec", "workload", "groups", "baseline", "fault", "corrupt_rank", "search", "plan"}) {
    if (!leader.contains(part) || !mine.contains(part)) continue;
    if (std::string d = difference_at(leader.at(part), mine.at(part), part); !d.empty()) return d;
  }
  return difference_at(leader, mine, "");
}

std::string plan_disagreement(RankGroup& ranks, const nlohmann::json& plan) {
  const std::string text = plan.dump();
  const std::string digest = digest_hex(text);
  const bool differs = ranks.broadcast_string(digest, 0) != digest;
  if (ranks.max_across_ranks(differs ? 1 : 0) == 0) return "";
  // Rare and fatal: now the plan itself travels, so each rank can say where it differs.
  const nlohmann::json leader = nlohmann::json::parse(ranks.broadcast_string(ranks.rank() == 0 ? text : "", 0));
  const std::string mine = differs ? "rank " + std::to_string(ranks.rank()) + " (" + ranks.host() + ") at " +
                                         first_plan_difference(leader, plan)
                                   : "";
  std::string refusal;  // rank 0's; the others take it from rank 0 below
  int count = 0;
  for (const std::string& line : ranks.gather(mine, 0)) {
    if (line.empty()) continue;
    if (++count <= 3) refusal += (refusal.empty() ? "" : "; ") + line;
  }
  if (count > 3) refusal += "; and " + std::to_string(count - 3) + " more rank(s)";
  refusal = message_with_fix(
      "the ranks planned different runs, so they would wait for each other in different collectives: " +
          std::to_string(count) + " rank(s) differ from rank 0: " + refusal,
      "give every rank the same inputs: a sweep, workload or sizes file by an absolute path on a file system every "
      "node sees (a relative path is read from each rank's working directory), and the same flags");
  return ranks.broadcast_string(refusal, 0);
}

}  // namespace ncclsweep
