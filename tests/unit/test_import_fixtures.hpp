#pragma once
// Helpers the importer tests use to count fixture contents by plain text search,
// independently of the importers' parsing.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "workload/comm_use.hpp"

inline const std::string kFixtures = NCCLSWEEP_SOURCE_DIR "/tests/data";

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline long occurrences(const std::string& text, const std::string& needle) {
  long n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

inline std::string temp_file(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() / ("ncclsweep-test-" + name);
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

inline const ncclsweep::CommUse* row_of(const ncclsweep::CommProfile& p, const std::string& collective) {
  for (const auto& u : p.uses) if (u.collective == collective) return &u;
  return nullptr;
}
