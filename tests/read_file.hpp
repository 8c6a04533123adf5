#pragma once
// A whole file as a string (bytes as stored), for tests that compare or edit fixtures,
// and how often a text holds a needle (counted by plain search, apart from any parser).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Non-overlapping occurrences of `needle` in `text`.
inline long occurrences(const std::string& text, const std::string& needle) {
  long n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}
