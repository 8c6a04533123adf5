#pragma once
// A validated sweep file: what to measure (a RunSpec), which NCCL settings to vary
// (env and config axes), and how to pick, order and repeat the points. Built from YAML
// by load_sweep_*; every problem is a UsageError with file:line:column and a fix.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/yaml_guard.hpp"
#include "core/name_table.hpp"
#include "core/errors.hpp"
#include "spec/comm_split.hpp"
#include "spec/run_spec.hpp"
#include "spec/config_fields.hpp"
#include "spec/search_spec.hpp"

namespace ncclsweep {

// What the checks compare config fields against.
struct SweepContext {
  int nccl_version_code = kNewestKnownNcclVersion;
  bool allow_unknown_values = false;  // --allow-unknown-values: as the sweep file's key
};

// One swept setting: an environment variable ("NCCL_PROTO") or a config field ("max_ctas").
struct SweepAxis {
  std::string name;
  std::vector<std::string> values;
  SourcePosition where;  // the key in the file, or the command-line option
  std::vector<SourcePosition> value_where{};  // each value's place in the file; empty: `where`
};

// A partial point of include / exclude / baseline: setting name -> value.
struct PartialPoint {
  std::vector<std::pair<std::string, std::string>> values;
  SourcePosition where;
  std::vector<SourcePosition> value_where{};  // each value's place in the file; empty: `where`
};

// One entry of sizes: {calls: [...]}: a call the job sends, as `ncclsweep sizes --format
// yaml` writes it. Names are checked here; plan turns it into the workload's form.
struct ListedCall {
  const CollectiveKind* collective = nullptr;
  Bytes bytes = 0;                  // total size, nccl-tests convention
  const DataType* dtype = nullptr;  // nullptr: the sweep's first dtype
  std::optional<ReduceOp> op;       // none: sum
  std::optional<CommunicatorKind> group;  // dp, tp, cp, ep, pp, dp-cp, edp; none: unknown (a log's communicator)
  int group_size = 0;      // ranks of its communicator; 0: the world
  int group_stride = 0;    // rank spacing inside the group (with `group`)
  double calls = 1;        // per rank, per iteration (or over the input: SizesSource::per_iteration)
  std::string origin;
  SourcePosition where;
};

// sizes: {workload: FILE} | {from_nccl_log: GLOB} | {from_torch_trace: GLOB} | {calls: [...]}:
// the sizes a real job sends, resolved by the run and plan commands (plan/sweep_sizes.cpp).
// Where a sweep's sizes come from: a workload file, imported logs or traces, or listed calls.
enum class SizesSourceKind { workload, from_nccl_log, from_torch_trace, calls };
inline constexpr NameTable<SizesSourceKind, 4> kSizesSourceKindNames{
    "sizes source",
    {{{SizesSourceKind::workload, "workload"},
      {SizesSourceKind::from_nccl_log, "from_nccl_log"},
      {SizesSourceKind::from_torch_trace, "from_torch_trace"},
      {SizesSourceKind::calls, "calls"}}}};
constexpr std::string_view name_of(SizesSourceKind kind) { return kSizesSourceKindNames.name(kind); }

struct SizesSource {
  SizesSourceKind kind = SizesSourceKind::workload;
  std::string path;  // as written; relative paths also tried against the sweep file's folder
  int iterations = 0;  // imports: iterations the files cover (0: unknown)
  SourcePosition where;
  std::vector<ListedCall> calls{};  // kind calls
  int ranks = 0;                    // kind calls: the rank count its groups were laid out for (0: unknown)
  bool per_iteration = true;        // kind calls: false when the counts cover a whole input
};

struct Sweep {
  std::string file;  // where it came from, for messages
  std::string description;
  RunSpec measurements;  // name, collectives, sizes, dtypes, ops, root, warmup, iters, check, engine ("" = default)
  SourcePosition engine_where;
  SourcePosition root_where;               // for a root no rank of the run has
  SourcePosition dtypes_where, ops_where;  // the keys, for refusals of what an engine cannot run
  SourcePosition sizes_where;              // for refusals of buffers no rank can hold
  SourcePosition footprint_where;          // ... where a fixed buffer footprint makes them that large
  std::vector<SweepAxis> env;     // in file order
  std::vector<SweepAxis> config;  // in file order
  std::vector<PartialPoint> include;
  std::vector<PartialPoint> exclude;
  std::vector<std::vector<std::string>> zip;  // axis names that vary together
  SourcePosition zip_where;
  std::optional<PartialPoint> baseline;
  int repeats = 1;
  RepeatOrder order = RepeatOrder::sequential;
  std::uint64_t seed = 0;
  bool allow_unknown_env = false;
  bool allow_unknown_values = false;  // pass values the NCCL tables do not know (a newer NCCL)
  std::optional<SizesSource> sizes_from;  // instead of a size grid
  SearchSpec search;  // search: instead of the full grid (docs/search.md); method grid without the key
  std::optional<CommSplitRequest> communicators;     // sub-communicators (docs/groups.md); none: world, or workload with sizes_from
};

// The most YAML nodes a sweep file may expand to (aliases included), and how deep it may nest.
inline constexpr std::size_t kMaxSweepNodes = kMaxYamlNodes;
inline constexpr int kMaxSweepDepth = kMaxYamlDepth;

Sweep load_sweep_file(const std::string& path, const SweepContext& context = {});
Sweep load_sweep_text(const std::string& text, const std::string& name, const SweepContext& context = {});

// The top-level keys a sweep file may use (sweeps/schema.json lists the same).
const std::vector<std::string>& sweep_file_keys();

// Checks that span keys: variable names, config fields against the NCCL version,
// variables overriding swept fields, the engine. The loader calls it; call it again
// after adding command-line axes.
void check_sweep(const Sweep& sweep, const SweepContext& context);

// Values pass unchecked: the file's key, or the command line's flag in the context.
bool values_unchecked(const Sweep& sweep, const SweepContext& context);

// "--env NCCL_PROTO=LL,Simple" / "--config max_ctas=8,32" -> an axis (names and values
// not yet checked; text that is not UTF-8 is refused here).
SweepAxis parse_axis_argument(const std::string& text, const std::string& option);

// Adds the axis, or replaces the one of the same name.
void set_axis(std::vector<SweepAxis>& axes, SweepAxis axis);

// The groups a run or plan uses: --groups (`groups_flag`, "" when not given) over the
// sweep file's `groups:` (none without a sweep file).
inline std::optional<CommSplitRequest> requested_groups(const Sweep* sweep, const std::string& groups_flag) {
  if (!groups_flag.empty()) return parse_comm_split_request(groups_flag, {"--groups", 0, 0});
  return sweep != nullptr ? sweep->communicators : std::nullopt;
}

}  // namespace ncclsweep
