#pragma once
// The run's log on a stream (stderr): every message but `info` (which the table shows)
// as one line, "ncclsweep: " and the level's word, flushed at once so that it lands
// between other ranks' and workers' lines as it happens.
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "results/result_sink.hpp"

namespace ncclsweep {

std::unique_ptr<ResultSink> make_log_lines(std::ostream& out);

// One message as the log prints it, newline included:
// "ncclsweep: warning: TEXT\n", or "ncclsweep: TEXT\n" for an outcome.
std::string log_line(LogLevel level, std::string_view message);

}  // namespace ncclsweep
