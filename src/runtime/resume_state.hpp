#pragma once
// --resume DIR inside a launch: rank 0 reads the earlier run, every rank learns which
// measurements to skip, and a changed sweep or rank layout is refused unless --force.
#include <set>
#include <string>
#include <vector>

#include "results/measurement_key.hpp"
#include "results/record.hpp"
#include "results/resume.hpp"

namespace ncclsweep {

class RankGroup;
struct LaunchRequest;

struct EarlierRun {
  RunDocument document;           // its run.json
  RecordedMeasurements recorded;  // its complete records
};

// Rank 0: DIR's run.json and records.jsonl.
EarlierRun read_earlier_run(const std::string& dir);

// The keys of the earlier records as one JSON array (what rank 0 broadcasts), and back.
std::string done_keys_text(const RecordedMeasurements& recorded);
std::set<MeasurementKey> parse_done_keys(const std::string& text);

// Collective: rank 0's `keys_text` as a set on every rank, so every rank skips the same.
std::set<MeasurementKey> share_done_keys(RankGroup& session, const std::string& keys_text);

// Why resuming DIR is refused (the message with its fix), or "" when it may go on:
// the fingerprints differ and --force was not given.
// `changes` (from resume_changes) says what differs, so the message is more than two digests.
std::string resume_refusal(const std::string& dir, const std::string& earlier_fingerprint,
                           const std::string& fingerprint, bool force, const std::vector<std::string>& changes = {});

// Why the earlier records cannot be this launch's (the message with its fix), or "" when
// each is a measurement the launch plans: a point, a collective at a size, a repeat or a
// call mode the sweep does not have means records.jsonl holds another run's records,
// which a resume would carry into this run's results. Checked even when the fingerprints
// match, since records.jsonl can be swapped without run.json.
std::string foreign_records_refusal(const std::string& dir, const std::vector<MeasurementRecord>& records,
                                    const LaunchRequest& request);

// What the earlier run.json records differently from this launch: "ranks 4 -> 2",
// "iters 400 -> 401", "hosts a,b -> a"; empty when only what run.json does not hold
// (sizes, collectives, settings) changed.
std::vector<std::string> resume_changes(const RunDocument& earlier, const RunSettings& now,
                                        const std::vector<std::string>& rank_hosts);

}  // namespace ncclsweep
