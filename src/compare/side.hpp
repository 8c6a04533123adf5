#pragma once
// One side of a comparison, or the subject of a report: rows of busbw keyed the same
// way whatever produced them (an ncclsweep run.json, nccl-tests text or -J JSON), and
// the identity that decides whether two sides are comparable at all.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "core/name_table.hpp"
#include "core/run_options.hpp"
#include "core/units.hpp"
#include "results/measurement_key.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// What tells an ncclsweep run's rows apart beyond collective, dtype, op, size and
// placement, typed from its MeasurementKey: the sweep point and what the call ran under.
// Every field is at its default for a plain run's rows and for nccl-tests', so those match.
struct RowVariant {
  std::string point;  // a sweep point's label; empty: a run's one default point (nccl-tests has no points)
  std::optional<CommunicatorShape> groups;  // sub-communicator groups; empty: the world (and nccl-tests)
  BufferMode buffers = BufferMode::cuda_malloc;
  LaunchMode launch = LaunchMode::stream;
  // Set only where a run measured several footprints or cache states and this row is not
  // nccl-tests' model (largest, warm): the rest stay matchable with nccl-tests' rows, and
  // compare judges their footprints (compare/footprint_match.hpp).
  struct Conditions {
    BufferFootprint footprint;
    CacheState cache = CacheState::warm;
    auto operator<=>(const Conditions&) const = default;
  };
  std::optional<Conditions> conditions;
  std::optional<ComputeLoad> compute;  // measured beside a compute load (docs/overlap.md)
  auto operator<=>(const RowVariant&) const = default;
};

// How printers show a variant: "NCCL_PROTO=LL on dp groups of 2 buffers nccl-register";
// "" for the default one.
std::string variant_text(const RowVariant& variant);

// What a row is a measurement of. Collective and dtype point into their tables (an
// importer maps nccl-tests' names and skips rows of collectives, types and ops ncclsweep
// does not measure).
struct RowKey {
  const CollectiveKind* collective = nullptr;
  const DataType* dtype = nullptr;
  std::optional<ReduceOp> op;  // empty: the collective does not reduce ("none")
  Bytes size_bytes = 0;    // total buffer, nccl-tests convention
  Placement placement = Placement::out_of_place;
  RowVariant variant;
  bool operator==(const RowKey&) const = default;
};
// The names a row's collective, dtype and op have in files and printers.
inline std::string collective_name(const RowKey& k) { return k.collective ? std::string(k.collective->name) : "?"; }
inline std::string dtype_name(const RowKey& k) { return k.dtype ? std::string(k.dtype->name) : "?"; }
inline std::string op_name(const RowKey& k) { return k.op ? std::string(name_of(*k.op)) : "none"; }
// Report order: collective, dtype, op, size, out-of-place before in-place, variant.
bool operator<(const RowKey& a, const RowKey& b);

struct SideRow {
  RowKey key;
  std::uint64_t count = 0;
  int root = -1;
  double time_us = 0;  // the collective's time (ncclsweep: max over ranks)
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<std::uint64_t> wrong;  // empty when not checked
  // Relative half-width of this figure's own spread (repeats, per-iteration
  // percentiles), when the source measured one; empty for a single figure.
  std::optional<double> measured_spread;
  // How many independent measurements this row folds (repeats of one record key); 1
  // for a single figure, whose spread cannot show how far another launch would move it.
  int repeats = 1;
  // Half the last printed digit, in GB/s: a text table rounds busbw to 0.01.
  double busbw_resolution_gbps = 0;
  // What the buffers spanned and what the cache held (compare/footprint_match.hpp):
  // nccl-tests allocates once at maxBytes; empty when the source does not say.
  std::optional<Bytes> footprint_bytes;
  std::optional<BufferFootprint> footprint;  // nccl-tests: largest
  std::optional<CacheState> cache;           // nccl-tests: warm
  // From an ncclsweep run: the measurement this row is (without its repeat). Empty for
  // nccl-tests rows.
  std::optional<MeasurementKey> measurement;
};

// What made a side: its name is what reports print ("nccl-tests text (all_gather_perf)").
enum class SideSource { ncclsweep_run, nccl_tests_text, nccl_tests_json };
inline constexpr NameTable<SideSource, 3> kSideSourceNames{"side source",
                                                           {{{SideSource::ncclsweep_run, "ncclsweep run.json"},
                                                             {SideSource::nccl_tests_text, "nccl-tests text"},
                                                             {SideSource::nccl_tests_json, "nccl-tests JSON"}}}};
inline std::string_view name_of(SideSource source) { return kSideSourceNames.name(source); }

struct SideIdentity {
  SideSource source = SideSource::ncclsweep_run;
  std::string path;
  std::string name;    // run name or nccl-tests program name
  int ranks = 0;
  int hosts = 0;
  std::string gpu;     // model name; "mixed: A, B" when ranks differ
  std::string nccl_version;
  std::string cuda_version;
  std::optional<EngineKind> engine;  // an ncclsweep run's engine; empty for nccl-tests (and runs that name none)
};

// Whether nccl-tests (text or -J JSON) made this side, so hints use its flags.
bool made_by_nccl_tests(const SideIdentity& side);

// nccl-tests' own closing "Avg bus bandwidth" of one test, with the digits the file
// prints it with, and the rows of that test this side holds. A report prints it where
// its group of rows is exactly those rows, so the figure agrees with the file.
struct PrintedAverage {
  std::string text;           // "0.669677", as printed
  std::vector<RowKey> rows;   // sorted
  bool every_row_kept = true; // false when rows of the test were skipped (a type ncclsweep does not measure)
};

struct Side {
  SideIdentity identity;
  std::vector<SideRow> rows;        // sorted by key, keys unique
  std::vector<std::string> notes;   // what an importer dropped or assumed
  std::vector<PrintedAverage> printed_averages;  // nccl-tests output only
  std::optional<WorkloadWeights> workload;  // an ncclsweep run's workload calls (run.json), for the acceptance gate
};

// The most repeats any row folds (1 for a side without rows or repeats).
int most_repeats(const Side& side);

// Sorts rows by key and keeps the first of duplicate keys (noted). Every importer
// ends with this, so printers and the comparison see one canonical order.
void normalise_rows(Side& side);

// "all_gather float32 64 MiB in-place": the words a user reads in a summary.
std::string row_label(const RowKey& key);

// nccl-tests' type name as ours (float, half, f8e4m3, and the NCCL 1 builds' char and
// int); nullptr for a type ncclsweep does not measure.
const DataType* nccl_tests_dtype(std::string_view type);

// A row of nccl-tests' names (collective, type: float, half, f8e4m3..., redop: none,
// sum...) as a key, or nullopt with `skipped` saying why ncclsweep cannot compare it
// (a collective, type or op it does not measure: gather, mulsum...).
std::optional<RowKey> nccl_tests_key(const std::string& collective, const std::string& type, const std::string& redop,
                                     Bytes size, Placement placement, std::string& skipped);
// The note for a skipped row, added to the side once per reason.
void note_skipped_row(Side& side, const std::string& skipped);
// One communicator's ranks where nccl-tests split `ranks` into `groups` communicators that
// ran at once (NCCL_TESTS_SPLIT: busbw is of one of them), with a note naming `test`;
// `ranks` itself for one group. Throws UsageError at `where` for groups of unequal size.
int split_communicator_ranks(Side& side, int ranks, std::size_t groups, const std::string& test,
                             const SourcePosition& where);
// "22803" or "2.28.3" -> "2.28.3".
std::string nccl_version_string(const std::string& code);

}  // namespace ncclsweep
