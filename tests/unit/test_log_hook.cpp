// The sinks' log hook: which level reaches which stream, in what words, and that the
// table's own "# " lines and the log on stderr never mix.
#include <sstream>

#include "catch_compat.hpp"
#include "core/printf_text.hpp"
#include "report/log_lines.hpp"
#include "report/terminal_table.hpp"
#include "runtime/progress.hpp"

using namespace ncclsweep;

namespace {

// Records every event it is given, to check what a fanout forwards and in which order.
class EventLog final : public ResultSink {
 public:
  EventLog(std::vector<std::string>& events, std::string name) : events_(events), name_(std::move(name)) {}
  void row(std::span<const MeasurementRecord>) override { events_.push_back(name_ + " row"); }
  void log(LogLevel level, std::string_view message) override {
    events_.push_back(name_ + " " + std::string(log_word(level)) + " " + std::string(message));
  }

 private:
  std::vector<std::string>& events_;
  std::string name_;
};

}  // namespace

TEST_CASE("a log line names its level, except an outcome, which the exit status grades") {
  CHECK(log_line(LogLevel::note, "kept 3 records") == "ncclsweep: note: kept 3 records\n");
  CHECK(log_line(LogLevel::warning, "point a: odd") == "ncclsweep: warning: point a: odd\n");
  CHECK(log_line(LogLevel::error, "2 output elements held wrong values") ==
        "ncclsweep: error: 2 output elements held wrong values\n");
  CHECK(log_line(LogLevel::outcome, "point b failed: why") == "ncclsweep: point b failed: why\n");
}

TEST_CASE("the log shows every level but info; the table shows info alone, as # lines") {
  std::ostringstream err, out;
  SinkFanout both;
  both.add(make_log_lines(err));
  both.add(make_terminal_table(out));
  both.log(LogLevel::info, "preflight: 5 informational finding(s)");
  both.log(LogLevel::note, "a worker ended with signal 9 (Killed)");
  both.log(LogLevel::outcome, "stopped by signal 2");
  CHECK(out.str() == "# preflight: 5 informational finding(s)\n");
  CHECK(err.str() == "ncclsweep: note: a worker ended with signal 9 (Killed)\nncclsweep: stopped by signal 2\n");
}

TEST_CASE("a fanout hands each message to every sink in the order they were added") {
  std::vector<std::string> events;
  SinkFanout fanout;
  fanout.add(std::make_unique<EventLog>(events, "first"));
  fanout.add(std::make_unique<EventLog>(events, "second"));
  fanout.log(LogLevel::warning, "w");
  fanout.log(LogLevel::info, "i");
  CHECK(events == std::vector<std::string>{"first warning w", "second warning w", "first info i", "second info i"});
}

TEST_CASE("the progress display passes messages to the table it wraps, also before the run begins") {
  std::ostringstream out;
  auto display = make_progress_display(make_terminal_table(out), ProgressPlan{}, ProgressMode::lines, out);
  display->log(LogLevel::info, "preflight: 0 informational finding(s) in run.json");
  display->log(LogLevel::warning, "not the table's");
  CHECK(out.str() == "# preflight: 0 informational finding(s) in run.json\n");
}

TEST_CASE("printf_text prints what printf would, at any length") {
  CHECK(printf_text("%12s|%-5d|%7.2f", "size", 42, 3.14159) == "        size|42   |   3.14");
  CHECK(printf_text("%+5.0f%%", 12.4) == "  +12%");
  CHECK(printf_text("%s", "").empty());
  const std::string long_text(5000, 'x');  // longer than any buffer the printers had
  CHECK(printf_text("<%s>", long_text.c_str()) == "<" + long_text + ">");
}
