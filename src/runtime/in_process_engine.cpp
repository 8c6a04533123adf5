#include "runtime/in_process_engine.hpp"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/nccl_version.hpp"

namespace ncclsweep {

std::vector<std::string> rank_hosts(RankGroup& ranks) {
  // As JSON: a host name is whatever the launcher or NCCLSWEEP_FAKE_HOSTNAME gave.
  const std::vector<std::string> gathered = ranks.gather(ranks.host());
  return nlohmann::json::parse(ranks.broadcast_string(ranks.rank() == 0 ? nlohmann::json(gathered).dump() : ""))
      .get<std::vector<std::string>>();
}

SplitMode split_mode(EngineKind kind, const Engine& engine) {
  if (kind != EngineKind::nccl) return {{}, "MPI_Comm_split"};
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

void stop_every_rank(RankGroup& session, std::exception_ptr failure) {
  // Any other kind leaves by the rethrow, for the top-level handler; abort does not return.
  try {
    std::rethrow_exception(failure);
  } catch (const RuntimeFailure& e) {
    print_error(e.message(session.rank(), session.host()));
    session.abort(kExitRuntime);
  } catch (const UsageError& e) {
    print_rank_error(session.rank(), session.host(), e.message());
    session.abort(kExitUsage);
  }
  // Not reached: each handler aborts. Said for the compiler, which does not follow a
  // [[noreturn]] call out of a handler and warned that this function returns.
  std::rethrow_exception(failure);
}

}  // namespace ncclsweep
