#pragma once
// What a job sends: one row per (collective, size, dtype, op, group) with how often a
// rank makes that call. The derivation and every importer produce this one form.
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/units.hpp"
#include "workload/layout.hpp"

namespace ncclsweep {

struct CommUse {
  const CollectiveKind* collective = nullptr;
  Bytes bytes = 0;                  // total size, nccl-tests convention
  const DataType* dtype = nullptr;  // nullptr when the source does not say
  std::optional<ReduceOp> op;       // none for non-reducing calls or when unknown
  ParallelGroup group;         // imports: kind unknown, stride 0 (layout unknown), size = communicator ranks
  double calls = 0;        // per rank, per iteration (or over the whole input: see basis)
  std::string origin;      // "grad bucket 3 of chunk 0", "NCCL log: 4 ranks"
  bool via_nccl = true;    // false: listed for completeness, sent outside NCCL
};

// The names a use's type fields print as: "-" where the source did not say.
inline std::string_view dtype_text(const CommUse& use) { return use.dtype != nullptr ? use.dtype->name : "-"; }
inline std::string_view op_text(const CommUse& use) { return use.op ? name_of(*use.op) : "-"; }

struct CommProfile {
  std::string source;          // the workload file, or the imported files
  bool per_iteration = true;   // false: calls are per rank over the whole input
  std::string basis;           // says which, in words
  std::vector<CommUse> uses;
  int layout_ranks = 0;        // the rank count the uses' groups were laid out for (0: unknown, imports)
  int ranks_per_node = 0;      // ranks per node, filled in rank order (0: not given): which groups cross nodes
  std::vector<std::string> notes;  // assumptions made, lines skipped
};

}  // namespace ncclsweep
