#include "core/report_format.hpp"

namespace ncclsweep {

std::string format_choices(std::span<const ReportFormat> formats) {
  std::string text;
  std::size_t i = 0;
  for (const ReportFormat f : formats) {
    if (i > 0) text += i + 1 == formats.size() ? " or " : ", ";
    text += name_of(f);
    ++i;
  }
  return text;
}

UsageError unsupported_format(ReportFormat format, std::string_view view, std::span<const ReportFormat> supported) {
  return UsageError(std::string(view) + " has no --format " + std::string(name_of(format)),
                    "use --format " + format_choices(supported));
}

}  // namespace ncclsweep
