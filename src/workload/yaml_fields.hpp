#pragma once
// Reading a flat YAML mapping of known keys with errors that name file, line and key.
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "core/errors.hpp"

namespace ncclsweep {

class YamlFields {
 public:
  // Loads `path`; throws UsageError when it cannot be read or is not a mapping.
  explicit YamlFields(const std::string& path);
  // `flag_keys`: keys whose values came from the command-line flag of the same name
  // (dashes for underscores); where() names that flag, not the file.
  YamlFields(const YAML::Node& node, std::string file, std::set<std::string> flag_keys = {});

  bool has(const std::string& key) const { return node_[key].IsDefined(); }
  std::int64_t integer(const std::string& key, std::int64_t fallback) const;
  // A whole number from lo to hi when given ("KEY = V must be at least LO" / "is more
  // than HI" at its place, with `fix`); `fallback` unchecked when absent.
  std::int64_t integer_in(const std::string& key, std::int64_t fallback, std::int64_t lo, std::int64_t hi,
                          const std::string& fix) const;
  double number(const std::string& key, double fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string text(const std::string& key, const std::string& fallback) const;
  YamlFields mapping(const std::string& key) const;  // an empty mapping when absent

  // Throws UsageError for the first key not in `known`, listing them.
  void reject_unknown(const std::set<std::string>& known) const;
  const YAML::Node& node() const { return node_; }
  SourcePosition where(const std::string& key) const;
  const std::string& file() const { return file_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::set<std::string> flag_keys_;
};

}  // namespace ncclsweep
