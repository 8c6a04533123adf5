#pragma once
// Safety checks on a parsed YAML document before anything reads it: yaml-cpp shares
// aliased nodes, so a "billion laughs" file is small in memory but explodes when walked;
// and yaml-cpp 0.7 keeps both entries of a duplicate key without a word.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

#include "core/errors.hpp"

namespace ncclsweep {

// 1-based file:line:column of a node or mark (yaml-cpp counts from 0).
SourcePosition yaml_position(const std::string& file, const YAML::Mark& mark);
SourcePosition yaml_position(const std::string& file, const YAML::Node& node);

// The one YAML document `text` holds; throws UsageError at the second document when
// there are more (yaml-cpp's Load would read the first and drop the rest unseen).
// Only the first two documents are read. Throws YAML::ParserException for a syntax error.
YAML::Node load_one_yaml_document(const std::string& text, const std::string& file);

// What a sweep, workload or model file may expand to: far past any real one, far below
// what an alias bomb reaches.
inline constexpr std::size_t kMaxYamlNodes = 100000;
inline constexpr int kMaxYamlDepth = 32;

// Throws UsageError when the document expands to more than max_nodes nodes, nests
// deeper than max_depth, a map repeats a key, or uses a merge key ('<<').
void guard_yaml_document(const YAML::Node& root, const std::string& file, std::size_t max_nodes, int max_depth);

}  // namespace ncclsweep
