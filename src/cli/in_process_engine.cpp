#include "cli/in_process_engine.hpp"

#include <cstdlib>
#include <sstream>

#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/nccl_version.hpp"

namespace ncclsweep {

// Every rank's host name, on every rank.
std::vector<std::string> rank_hosts(MpiSession& session, const std::string& mine) {
  std::string joined;
  for (const std::string& host : session.gather(mine)) joined += host + "\n";
  joined = session.broadcast_string(joined);
  std::vector<std::string> hosts;
  std::stringstream lines(joined);
  for (std::string line; std::getline(lines, line);) hosts.push_back(line);
  return hosts;
}

SplitMode split_mode(const std::string& engine_name, const Engine& engine) {
  if (engine_name != "nccl") return {{}, "MPI_Comm_split"};
#if defined(NCCLSWEEP_NCCL_VERSION_CODE) && NCCLSWEEP_NCCL_VERSION_CODE >= 21800
  const std::string library = engine.device().nccl_library_version;
  if (nccl_version_code(library) < 21800) {
    return {{}, "ncclCommSplit, own resources (NCCL " + library + " predates splitShare, 2.18)"};
  }
  std::string mode = "ncclCommSplit, shared resources (splitShare = 1 on the world communicator)";
  if (const char* env = std::getenv("NCCL_COMM_SPLIT_SHARE_RESOURCES")) {
    mode += "; NCCL_COMM_SPLIT_SHARE_RESOURCES=" + std::string(env) + " overrides it";
  }
  return {{{"split_share", "1"}}, mode};
#else
  (void)engine;
  return {{}, "ncclCommSplit, own resources (built against NCCL headers before 2.18, without splitShare)"};
#endif
}

void stop_every_rank(MpiSession& session, std::exception_ptr failure) {
  // Any other kind leaves by the rethrow, for the top-level handler; session.abort does
  // not return.
  try {
    std::rethrow_exception(failure);
  } catch (const RuntimeFailure& e) {
    print_error(e.message(session.rank(), session.host()));
    session.abort(kExitRuntime);
  } catch (const UsageError& e) {
    print_rank_error(session.rank(), session.host(), e.message());
    session.abort(kExitUsage);
  }
}

}  // namespace ncclsweep
