#pragma once
// Which engine measures, how sweep points that differ in process-cached settings are
// isolated, and how rank 0 shows progress: names as the command line, sweep files and
// run.json spell them.
#include <optional>
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

// nccl: GPU buffers and NCCL, in worker processes. mpi: host buffers and MPI
// collectives, in the MPI ranks (no GPU needed).
enum class EngineKind { nccl, mpi };
inline constexpr NameTable<EngineKind, 2> kEngineNames{"engine", {{{EngineKind::nccl, "nccl"}, {EngineKind::mpi, "mpi"}}}};
constexpr std::string_view name_of(EngineKind engine) { return kEngineNames.name(engine); }
inline EngineKind parse_engine(std::string_view name) { return kEngineNames.parse(name); }
// For text: a run.json may name no engine ("none").
constexpr std::string_view engine_text(std::optional<EngineKind> engine) { return engine ? name_of(*engine) : "none"; }

// automatic ("auto"): fresh worker processes where process-cached settings differ.
// reinit: every point in one process, re-initialising NCCL in it.
enum class Isolation { automatic, reinit };
inline constexpr NameTable<Isolation, 2> kIsolationNames{"isolation",
                                                         {{{Isolation::automatic, "auto"}, {Isolation::reinit, "reinit"}}}};
constexpr std::string_view name_of(Isolation isolation) { return kIsolationNames.name(isolation); }

// --progress: automatic ("auto") is live when rank 0's output reaches a terminal, else lines.
enum class ProgressSetting { automatic, live, lines, off };
inline constexpr NameTable<ProgressSetting, 4> kProgressSettingNames{
    "progress setting",
    {{{ProgressSetting::automatic, "auto"}, {ProgressSetting::live, "live"}, {ProgressSetting::lines, "lines"},
      {ProgressSetting::off, "off"}}}};

}  // namespace ncclsweep
