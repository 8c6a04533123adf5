#pragma once
// One reader of NCCL's log lines, "host:pid:tid [dev] NCCL INFO <message>", for every
// part of ncclsweep that reads them: verify (INIT, ENV, TUNING lines) and the importers
// (COLL lines). NCCL_DEBUG_FILE logs and a job's stderr have the same shape, and so have
// RCCL's. Whatever precedes NCCL's own fields is passed over: NCCL 2.26+'s
// NCCL_DEBUG_TIMESTAMP_FORMAT timestamp, a launcher's tag (mpirun --tag-output, srun
// --label, Ray's "(RayTrainWorker pid=..., ip=...)"), even another process's line cut off.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ncclsweep {

struct NcclLogLine {
  std::string_view origin;   // "host:pid:tid [dev]" as NCCL printed it; empty when the line has none
  std::string_view level;    // "INFO" or "WARN"
  std::string_view message;  // NCCL's words after the level tag
};

// Empty for a line that carries no NCCL INFO or WARN tag.
std::optional<NcclLogLine> read_nccl_log_line(std::string_view line);

// Every line of `text` with its 1-based number, without its line end ("\r\n" too) or
// trailing spaces.
void for_each_log_line(std::string_view text, const std::function<void(std::string_view line, int number)>& each);

// "host:pid [dev]" from "host:pid:tid [dev]": one process whatever thread logged; the
// origin itself when it has another shape.
std::string process_of(std::string_view origin);

}  // namespace ncclsweep
