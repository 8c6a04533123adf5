#include "runtime/run_fingerprint.hpp"

#include "results/record_json.hpp"
#include "results/resume.hpp"

namespace ncclsweep {

std::string run_fingerprint(const RunSpec& spec, const std::vector<WorkerGroup>& groups,
                            const std::vector<std::string>& rank_hosts) {
  RunSpec measured = spec;
  measured.name.clear();  // a new name does not change what is measured
  nlohmann::json identity{{"spec", measured}, {"ranks", rank_hosts.size()}, {"hosts", rank_hosts}};
  nlohmann::json& fingerprinted = identity["groups"] = nlohmann::json::array();
  for (const WorkerGroup& group : groups) {
    // Each point by its label and settings as run.json records them: what the worker is
    // sent besides (the config fields and variables those settings make) follows from
    // them, and the message's form may change without changing what is measured.
    nlohmann::json points = nlohmann::json::array();
    for (const PointSpec& point : group.points) points.push_back({{"label", point.label}, {"settings", point.settings}});
    fingerprinted.push_back({{"process_env", group.process_env}, {"points", points}});
  }
  return digest_hex(identity.dump());
}

}  // namespace ncclsweep
