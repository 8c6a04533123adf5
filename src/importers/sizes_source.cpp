#include "importers/sizes_source.hpp"

#include <ostream>

#include "core/errors.hpp"
#include "importers/importers.hpp"
#include "workload/derivation.hpp"

namespace ncclsweep {

CommProfile sizes_profile(const SizesRequest& r) {
  const int imports = !r.nccl_log.empty() + !r.torch_trace.empty() + !r.inspector.empty();
  const bool derive = !r.workload.empty() || !r.overrides.empty();
  if (imports + (derive ? 1 : 0) != 1) {
    throw UsageError("give exactly one source of sizes",
                     "--workload FILE and/or --model NAME with layout flags, or one of --from-nccl-log, "
                     "--from-torch-trace, --from-inspector");
  }
  if (!r.nccl_log.empty()) return import_nccl_log(r.nccl_log, r.iterations);
  if (!r.torch_trace.empty()) return import_torch_trace(r.torch_trace, r.iterations);
  if (!r.inspector.empty()) return import_inspector(r.inspector, r.iterations);
  return derive_collectives(load_workload(r.workload, r.overrides, r.models_dir));
}

int run_sizes_command(const SizesRequest& request, std::ostream& out) {
  out << format_sizes(sizes_profile(request), request.format) << std::flush;
  return kExitOk;
}

}  // namespace ncclsweep
