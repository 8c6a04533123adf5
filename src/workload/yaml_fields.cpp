#include "workload/yaml_fields.hpp"

#include "core/input_file.hpp"
#include "core/yaml_guard.hpp"

#include <algorithm>
#include <vector>

namespace ncclsweep {
namespace {

constexpr const char* kMappingFix = "write one `key: value` per line (docs/workloads.md lists the keys)";

SourcePosition position(const YAML::Mark& mark, const std::string& file) {
  return {file, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0};
}

}  // namespace

YamlFields::YamlFields(const std::string& path) : file_(path) {
  try {
    node_ = load_one_yaml_document(read_input_file(path, kSettingsFileInput), path);
    guard_yaml_document(node_, path, kMaxYamlNodes, kMaxYamlDepth);
  } catch (const YAML::Exception& e) {
    throw UsageError("not valid YAML: " + e.msg, "fix the file's syntax", position(e.mark, path));
  }
  if (!node_.IsMap()) throw UsageError("expected a mapping of keys to values", kMappingFix, {path});
}

YamlFields::YamlFields(const YAML::Node& node, std::string file, std::set<std::string> flag_keys)
    : node_(node), file_(std::move(file)), flag_keys_(std::move(flag_keys)) {
  if (node_.IsDefined() && !node_.IsNull() && !node_.IsMap()) {
    throw UsageError("expected a mapping of keys to values", kMappingFix, position(node_.Mark(), file_));
  }
}

SourcePosition YamlFields::where(const std::string& key) const {
  if (flag_keys_.count(key)) {
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return {flag};
  }
  const auto value = node_[key];
  return value.IsDefined() ? position(value.Mark(), file_) : SourcePosition{file_};
}

std::int64_t YamlFields::integer(const std::string& key, std::int64_t fallback) const {
  if (!has(key)) return fallback;
  try {
    return node_[key].as<std::int64_t>();
  } catch (const YAML::Exception&) {
    throw UsageError(key + " must be a whole number", "write a whole number, e.g. " + key + ": 4", where(key));
  }
}

std::int64_t YamlFields::integer_in(const std::string& key, std::int64_t fallback, std::int64_t lo, std::int64_t hi,
                                    const std::string& fix) const {
  if (!has(key)) return fallback;
  const std::int64_t value = integer(key, fallback);
  if (value < lo) throw UsageError(key + " = " + std::to_string(value) + " must be at least " + std::to_string(lo), fix, where(key));
  if (value > hi) throw UsageError(key + " = " + std::to_string(value) + " is more than " + std::to_string(hi), fix, where(key));
  return value;
}

double YamlFields::number(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  try {
    return node_[key].as<double>();
  } catch (const YAML::Exception&) {
    throw UsageError(key + " must be a number", "write a number, e.g. " + key + ": 0.5", where(key));
  }
}

bool YamlFields::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  try {
    return node_[key].as<bool>();
  } catch (const YAML::Exception&) {
    throw UsageError(key + " must be true or false", "write " + key + ": true or " + key + ": false", where(key));
  }
}

std::string YamlFields::text(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  if (!node_[key].IsScalar()) {
    throw UsageError(key + " must be a single value", "give one value, not a list or a mapping", where(key));
  }
  return node_[key].as<std::string>();
}

YamlFields YamlFields::mapping(const std::string& key) const {
  return has(key) ? YamlFields(node_[key], file_) : YamlFields(YAML::Node(YAML::NodeType::Map), file_);
}

void YamlFields::reject_unknown(const std::set<std::string>& known) const {
  if (!node_.IsMap()) return;
  for (const auto& entry : node_) {
    const auto key = entry.first.as<std::string>();
    if (known.count(key) == 0) {
      std::string names;
      for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
      throw UsageError("unknown key '" + key + "'", "use one of: " + names, position(entry.first.Mark(), file_));
    }
  }
}

}  // namespace ncclsweep
