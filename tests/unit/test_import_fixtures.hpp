#pragma once
// Helpers the importer tests use to count fixture contents by plain text search,
// independently of the importers' parsing.
#include <filesystem>
#include <fstream>
#include <string>

#include "read_file.hpp"
#include "test_data.hpp"
#include "workload/comm_use.hpp"
#include "scratch.hpp"

inline const std::string kFixtures = kTestData.string();  // as text: the importers take paths as strings

inline std::string temp_file(const std::string& name, const std::string& content) {
  const auto path = ncclsweep::testing::scratch_root() / name;
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

inline const ncclsweep::CommUse* row_of(const ncclsweep::CommProfile& p, const std::string& collective) {
  for (const auto& u : p.uses) if (u.collective->name == collective) return &u;
  return nullptr;
}
