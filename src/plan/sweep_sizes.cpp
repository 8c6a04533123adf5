#include "plan/sweep_sizes.hpp"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "importers/importers.hpp"
#include "workload/derivation.hpp"
#include "workload/histogram.hpp"
#include "workload/workload.hpp"

namespace ncclsweep {
namespace {

std::string resolve_path(const std::string& path, const std::string& sweep_file) {
  namespace fs = std::filesystem;
  if (fs::path(path).is_absolute() || fs::exists(path) || path.find_first_of("*?[") != std::string::npos) return path;
  const fs::path beside = fs::path(sweep_file).parent_path() / path;
  return fs::exists(beside) ? beside.string() : path;
}


// Where one use runs, or nullopt for "the world, with a note".
std::optional<CommSplit> own_group(const CommUse& use, const SizesInput& input, int ranks) {
  if (use.group.size == ranks) return CommSplit{};
  if (input.profile.layout_ranks != ranks || use.group.kind == ParallelKind::unknown || use.group.size < 2) {
    return std::nullopt;
  }
  return CommSplit{*communicator_kind_of(use.group.kind), use.group.size, use.group.stride};
}

// The group of that kind: from the layout, or as a listed call gives it.
std::optional<ParallelGroup> group_named(const SizesInput& input, ParallelKind kind) {
  if (input.layout) return group_of(kind, *input.layout);
  for (const CommUse& use : input.profile.uses) {
    if (use.group.kind == kind) return use.group;
  }
  return std::nullopt;
}

}  // namespace

CommProfile listed_calls_profile(const SizesSource& source, const std::string& source_name) {
  CommProfile profile;
  profile.source = source_name;
  profile.per_iteration = source.per_iteration;
  profile.layout_ranks = source.ranks;
  profile.basis = source.per_iteration ? "per rank per iteration, as listed" : "per rank over the whole input, as listed";
  for (const ListedCall& c : source.calls) {
    CommUse use;
    use.collective = c.collective;
    use.bytes = c.bytes;
    use.dtype = c.dtype;
    use.op = c.op;
    use.group = {c.group ? parallel_kind_of(*c.group) : ParallelKind::unknown, c.group_size, c.group_stride};
    use.calls = c.calls;
    use.origin = c.origin.empty() ? "listed at " + c.where.str() : c.origin;
    profile.uses.push_back(std::move(use));
  }
  return profile;
}

SizesInput load_sizes_source(const SizesSource& source, const std::string& sweep_file, const std::string& models_dir) {
  const std::string path = resolve_path(source.path, sweep_file);
  try {
    SizesInput input;
    if (source.kind == SizesSourceKind::workload) {
      const Workload workload = load_workload(path, {}, models_dir);
      input.profile = derive_collectives(workload);
      input.layout = workload.layout;
    } else if (source.kind == SizesSourceKind::calls) {
      input.profile = listed_calls_profile(source, sweep_file + " (" + std::to_string(source.calls.size()) + " listed calls)");
    } else if (source.kind == SizesSourceKind::from_nccl_log) {
      input.profile = import_nccl_log(path, source.iterations);
    } else {
      input.profile = import_torch_trace(path, source.iterations);
    }
    return input;
  } catch (const UsageError& e) {
    // The sweep file's line says who asked; the source's own place stays in the text.
    std::string what = e.what();
    if (!e.where().file.empty()) what = e.where().str() + ": " + what;
    throw UsageError("sizes " + std::string(name_of(source.kind)) + " " + source.path + ": " + what, e.fix(), source.where);
  }
}

CommSplit grid_split(const std::optional<CommSplitRequest>& groups, int ranks, int ranks_per_node) {
  if (!groups) return CommSplit{};
  if (needs_workload(*groups)) {
    throw UsageError("groups " + groups->text() + " needs a workload's layout", "take sizes from a workload (sizes: {workload: FILE}), "
                     "or use intra-node, inter-node, stride:K or size:N", groups->where);
  }
  return resolve_plain_split(*groups, ranks, ranks_per_node);
}

WorkloadCalls plan_workload_calls(const SizesInput& input, const std::optional<CommSplitRequest>& groups,
                                  const std::vector<const DataType*>& fallback_dtypes, int ranks, int ranks_per_node) {
  WorkloadCalls out;
  out.weights.source = input.profile.source;
  out.weights.basis = input.profile.basis;
  out.weights.per_iteration = input.profile.per_iteration;
  // One group for every call, when the request names one.
  std::optional<CommSplit> forced;
  const bool each_its_own = !groups || groups->workload;
  const std::string kind = groups ? groups->text() : "workload";
  if (each_its_own) {
    // Each call on its own workload group: below.
  } else if (groups->kind == CommunicatorKind::world) {
    forced = CommSplit{};
  } else if (is_parallel(groups->kind)) {
    const std::optional<ParallelGroup> named = group_named(input, parallel_kind_of(groups->kind));
    if (input.profile.layout_ranks != ranks || !named) {
      throw UsageError("groups " + kind + " needs a workload layout of " + std::to_string(ranks) + " ranks" +
                           (input.profile.layout_ranks > 0 ? " (its layout has " + std::to_string(input.profile.layout_ranks) + ")" : "") +
                           (input.profile.layout_ranks == ranks && !named ? " with a " + kind + " group" : ""),
                       "scale the workload's layout to the rank count, or use plain groups", groups->where);
    }
    const ParallelGroup spec = *named;
    forced = spec.size == ranks ? CommSplit{} : CommSplit{groups->kind, spec.size, spec.stride};
  } else {
    forced = resolve_plain_split(*groups, ranks, ranks_per_node);
  }
  bool fell_back = false;
  for (const CommUse& use : input.profile.uses) {
    if (!use.via_nccl) {
      out.notes.push_back("not measured (outside NCCL): " + std::string(use.collective->name) + " " + std::to_string(use.bytes) + " B, " +
                          use.origin);
      continue;
    }
    std::optional<CommSplit> group = forced ? forced : own_group(use, input, ranks);
    if (!group) {
      fell_back = true;
      group = CommSplit{};
    }
    const DataType* dtype = use.dtype != nullptr ? use.dtype : fallback_dtypes.front();
    const CollectiveKind& coll = *use.collective;
    const ReduceOp op = use.op && coll.reduces ? *use.op : ReduceOp::sum;
    SizedCall call{&coll, dtype, op, use.bytes, *group};
    const auto same = [&](const SizedCall& c) {
      return std::tie(c.kind, c.dtype, c.op, c.bytes, c.split.size, c.split.stride) ==
             std::tie(call.kind, call.dtype, call.op, call.bytes, call.split.size, call.split.stride);
    };
    if (std::none_of(out.calls.begin(), out.calls.end(), same)) out.calls.push_back(call);
    const CommunicatorKind group_name =
        group->is_world() ? (use.group.size == ranks && use.group.kind != ParallelKind::unknown
                                 ? kCommunicatorKindNames.parse(name_of(use.group.kind))
                                 : CommunicatorKind::world)
                          : group->kind;
    out.weights.calls.push_back({&coll, use.bytes, dtype, group_name,
                                 group->ranks_in(ranks), use.calls, use.origin});
  }
  if (fell_back) {
    out.notes.push_back(input.profile.layout_ranks > 0
                            ? "the workload's layout has " + std::to_string(input.profile.layout_ranks) + " ranks, this run " +
                                  std::to_string(ranks) + ": collectives whose group does not fit run on the world communicator"
                            : "imported files (and listed calls without ranks:) do not give the rank layout: collectives of "
                              "smaller communicators run "
                              "on the world communicator");
  }
  if (out.calls.empty()) {
    throw UsageError("the workload sends nothing through NCCL", "check its tp_comm_overlap and moe_dispatcher fields");
  }
  return out;
}

std::optional<PlannedWorkload> plan_workload_preview(const Sweep& sweep, const std::optional<CommSplitRequest>& groups,
                                                     const std::string& sweep_file, const std::string& models_dir,
                                                     int ranks) {
  if (!sweep.sizes_from) {
    if (groups && needs_workload(*groups)) {
      throw UsageError("groups " + groups->text() + " needs a workload's layout",
                       "take sizes from a workload (sizes: {workload: FILE}), or use plain groups", groups->where);
    }
    return std::nullopt;
  }
  const SizesInput input = load_sizes_source(*sweep.sizes_from, sweep_file, models_dir);
  PlannedWorkload planned;
  if (ranks > 0) {
    planned.ranks = ranks;
  } else if (input.layout) {
    planned.ranks = input.layout->world();
  } else if (input.profile.layout_ranks > 0) {
    planned.ranks = input.profile.layout_ranks;  // sizes: {calls: [...], ranks: N}
  } else {
    for (const auto& use : input.profile.uses) planned.ranks = std::max(planned.ranks, use.group.size);
  }
  planned.calls = plan_workload_calls(input, groups, sweep.measurements.dtypes, planned.ranks, planned.ranks);
  return planned;
}

}  // namespace ncclsweep
