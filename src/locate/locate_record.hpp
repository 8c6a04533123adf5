#pragma once
// A locate measurement is a MeasurementRecord with its place in the schedule (`locate`,
// results/record.hpp): one group of one step, one collective and size, one repeat.
// records.jsonl holds one a line in the records' one JSON form; verdicts are made from a
// list of them alone.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "results/record.hpp"

namespace ncclsweep::locate {

// The record's place in the schedule. Every record locate makes or reads has one.
const LocatePlace& place_of(const MeasurementRecord& m);

// What repeats of the same measurement share ("all_gather 1 MiB").
std::string test_of(const MeasurementRecord& m);

// One line of a locate records.jsonl: the records' JSON form with its place, or the form
// locate wrote before (phase, hosts, ranks, time_s at the top level). A line without a
// place is refused (UsageError): it is not locate's.
MeasurementRecord read_locate_record(const nlohmann::json& j);

}  // namespace ncclsweep::locate
