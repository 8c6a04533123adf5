#pragma once
// JSON form of the result types (run.json, records.jsonl), via nlohmann_json.
#include <nlohmann/json.hpp>

#include "results/record.hpp"

namespace ncclsweep {

void to_json(nlohmann::json& j, const TimeStatsUs& t);
void from_json(const nlohmann::json& j, TimeStatsUs& t);
void to_json(nlohmann::json& j, const MeasurementRecord& r);
void from_json(const nlohmann::json& j, MeasurementRecord& r);
void to_json(nlohmann::json& j, const RankEntry& r);
void from_json(const nlohmann::json& j, RankEntry& r);
void to_json(nlohmann::json& j, const Versions& v);
void from_json(const nlohmann::json& j, Versions& v);
void to_json(nlohmann::json& j, const RunSettings& s);
void from_json(const nlohmann::json& j, RunSettings& s);
void to_json(nlohmann::json& j, const SettingOutcome& s);
void from_json(const nlohmann::json& j, SettingOutcome& s);
void to_json(nlohmann::json& j, const PointOutcome& p);
void from_json(const nlohmann::json& j, PointOutcome& p);
void to_json(nlohmann::json& j, const RunDocument& d);
// Throws UsageError for a document from a newer schema or with missing fields.
void from_json(const nlohmann::json& j, RunDocument& d);

}  // namespace ncclsweep
