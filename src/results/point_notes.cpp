#include "results/point_notes.hpp"

namespace ncclsweep {

std::string unexpected_environment_note(const PointOutcome& point) {
  if (point.unexpected_environment.empty()) return "";
  std::string note = ", unexpected ";
  for (std::size_t i = 0; i < point.unexpected_environment.size(); ++i) {
    note += (i ? " " : "") + point.unexpected_environment[i];
  }
  return note;
}

}  // namespace ncclsweep
