#include "runtime/run_fingerprint.hpp"

#include "results/resume.hpp"

namespace ncclsweep {

std::string run_fingerprint(const RunSpec& spec, const std::vector<WorkerGroup>& groups,
                            const std::vector<std::string>& rank_hosts) {
  RunSpec measured = spec;
  measured.name.clear();  // a new name does not change what is measured
  nlohmann::json text{{"spec", measured}, {"ranks", rank_hosts.size()}, {"hosts", rank_hosts}};
  nlohmann::json& points = text["groups"] = nlohmann::json::array();
  for (const WorkerGroup& group : groups) {
    points.push_back({{"process_env", group.process_env}, {"points", group.points}});
  }
  return digest_hex(text.dump());
}

}  // namespace ncclsweep
