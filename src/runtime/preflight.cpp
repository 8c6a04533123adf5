#include "runtime/preflight.hpp"

#include "doctor/checks.hpp"
#include "doctor/system_reader.hpp"
#include "transport/rank_group.hpp"

namespace ncclsweep::doctor {

RankFacts collect_local_facts(const RankGroup& session, char** envp, GpuFacts gpu) {
  const auto reader = make_rooted_reader("/");
  const RankIdentity identity{session.rank(), session.host(), session.local_rank()};
  return collect_rank_facts(*reader, identity, doctor_environment(envp), std::move(gpu));
}

std::vector<RankFacts> gather_facts(RankGroup& session, const RankFacts& mine) {
  const std::vector<std::string> all = session.gather(nlohmann::json(mine).dump());
  std::vector<RankFacts> facts;
  facts.reserve(all.size());
  for (const auto& text : all) facts.push_back(nlohmann::json::parse(text).get<RankFacts>());
  return facts;
}

std::vector<Finding> cheap_checks(RankGroup& session, char** envp, const DeviceDescription& device) {
  GpuFacts gpu;
  gpu.bus_id = device.pci_bus_id;
  if (device.pci_bus_id.empty()) gpu.unavailable_reason = "the engine drives no GPU";
  // NCCL's versions as the engine read them: this process need not load the GPU module.
  RankFacts mine = collect_local_facts(session, envp, std::move(gpu));
  mine.nccl_library_version = device.nccl_library_version;
  mine.nccl_header_version = device.nccl_header_version;
  const auto all = gather_facts(session, mine);
  return session.rank() == 0 ? evaluate(all) : std::vector<Finding>{};
}

}  // namespace ncclsweep::doctor

namespace ncclsweep {

std::vector<std::string> preflight_lines(const std::vector<doctor::Finding>& findings) {
  std::vector<std::string> lines;
  int info = 0;
  for (const auto& f : findings) {
    if (f.severity == doctor::Severity::info) {
      ++info;
      continue;
    }
    lines.push_back("preflight: " + std::string(doctor::name_of(f.severity)) + " " + f.check + " ranks " +
                    doctor::compact_ranks(f.ranks) + ": " + f.evidence);
  }
  lines.push_back("preflight: " + std::to_string(info) +
                  " informational finding(s) in run.json; ncclsweep doctor explains each");
  return lines;
}

}  // namespace ncclsweep
