#pragma once
// What the CSV printers share: one field as RFC 4180 writes it, and a number in its
// shortest form that reads back the same.
#include <nlohmann/json.hpp>
#include <string>

namespace ncclsweep {

// The field as is, or quoted (its quotes doubled) when it holds a comma, quote or line break.
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

inline std::string csv_number(double v) { return nlohmann::json(v).dump(); }

}  // namespace ncclsweep
