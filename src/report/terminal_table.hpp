#pragma once
#include <memory>
#include <ostream>
#include <string>

#include "core/run_options.hpp"
#include "results/result_sink.hpp"

namespace ncclsweep {

// The nccl-tests-style table: size, count, type, redop, root, then time, algbw, busbw
// and #wrong for out-of-place and in-place; one block per collective. Messages at
// `info` level (preflight, where the results went) are "# " lines among its own.
std::unique_ptr<ResultSink> make_terminal_table(std::ostream& out);

// Why every busbw of a one-rank run is 0: said as a run note (the table's header, run.json,
// summary.md) and again in the table's closing summary.
std::string one_rank_busbw_note(std::optional<EngineKind> engine);

}  // namespace ncclsweep
