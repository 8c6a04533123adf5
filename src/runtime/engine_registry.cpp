#include "runtime/engine_registry.hpp"

#include <string>

#include "core/errors.hpp"
#include "core/run_options.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "transport/mpi_session.hpp"
#if NCCLSWEEP_HAVE_NCCL
#include "engine/nccl/nccl_engine.hpp"
#endif

namespace ncclsweep {

std::vector<std::string_view> available_engines() {
#if NCCLSWEEP_HAVE_NCCL
  return {name_of(EngineKind::nccl), name_of(EngineKind::mpi)};
#else
  return {name_of(EngineKind::mpi)};
#endif
}

EngineKind default_engine() { return parse_engine(available_engines().front()); }

void check_engine(EngineKind engine) {
  for (const auto name : available_engines()) {
    if (name == name_of(engine)) return;
  }
  if (engine == EngineKind::nccl) {
    throw UsageError("this ncclsweep was built without CUDA or NCCL, so it has no nccl engine",
                     "use --engine mpi, or rebuild where CUDA and NCCL are installed (see README.md)");
  }
  throw UsageError("the " + std::string(name_of(engine)) + " engine is not in this build", "use one of " + kEngineNames.joined());
}

std::unique_ptr<Engine> make_in_process_engine(EngineKind engine, MpiSession& session) {
  check_engine(engine);  // refuses an engine this build lacks, with the fix
#if NCCLSWEEP_HAVE_NCCL
  if (engine == EngineKind::nccl) return make_nccl_engine(session);
#endif
  return make_mpi_engine(session.world(), &session.stall_watch());
}

}  // namespace ncclsweep
