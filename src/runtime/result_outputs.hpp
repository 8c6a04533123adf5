#pragma once
// Where a run's text and files go. Every rank logs to stderr; rank 0 also prints the
// table (under the progress line) and the sweep summary on stdout, and writes the
// results directory (run.json, records.jsonl) and summary.md.
namespace ncclsweep {

struct LaunchState;

// Collective. Rank 0 picks the directory (--resume's, --output's, or
// results/<name>/<UTC start>/), reads what --resume keeps, and opens the sinks; every
// rank learns the directory and the measurements to skip. Returns kExitOk, or
// kExitUsage once rank 0 has said why.
int open_results(LaunchState& state);

}  // namespace ncclsweep
