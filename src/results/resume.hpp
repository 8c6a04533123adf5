#pragma once
// What `ncclsweep run --resume DIR` needs from an earlier run's directory: the
// measurements already in records.jsonl (complete lines only) and how to recognise a
// measurement again, so the run skips what is done and never records anything twice.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "results/measurement_key.hpp"
#include "results/record.hpp"

namespace ncclsweep {

struct RecordedMeasurements {
  std::vector<MeasurementRecord> records;
  std::uintmax_t complete_bytes = 0;  // records.jsonl is cut back to this length before appending
  std::string dropped_tail;           // a note when a truncated last line was ignored; empty otherwise
  bool file_exists = false;           // records.jsonl was there (possibly empty)
};

// Reads DIR/records.jsonl. A last line without its newline, or one that does not parse
// (a run killed mid-write), is dropped and noted; a malformed line before the last
// throws UsageError naming the file and line, as does one measurement recorded twice.
RecordedMeasurements read_recorded_measurements(const std::filesystem::path& records_file);

// The key (results/measurement_key.hpp) of every record: what each rank and worker skips.
std::set<MeasurementKey> measurement_keys(const std::vector<MeasurementRecord>& records);

// A short, stable hex digest of `text` (FNV-1a, 64 bits): run.json's fingerprint of the
// expanded plan and rank layout.
std::string digest_hex(const std::string& text);

}  // namespace ncclsweep
