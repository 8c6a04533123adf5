#include "report/log_lines.hpp"

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

class LogLines final : public ResultSink {
 public:
  explicit LogLines(std::ostream& out) : out_(out) {}
  void row(std::span<const MeasurementRecord>) override {}
  void log(LogLevel level, std::string_view message) override {
    if (level == LogLevel::info) return;
    out_ << log_line(level, message);
    out_.flush();
  }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<ResultSink> make_log_lines(std::ostream& out) { return std::make_unique<LogLines>(out); }

std::string log_line(LogLevel level, std::string_view message) {
  std::string line = "ncclsweep: ";
  if (const std::string_view word = log_word(level); !word.empty()) (line += word) += ": ";
  // A refusal may carry its fix line; every other message is one line whatever its text holds.
  (line += level == LogLevel::error ? printable_message(message) : message_with_fix(message, "")) += '\n';
  return line;
}

}  // namespace ncclsweep
