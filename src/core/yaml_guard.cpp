#include "spec/yaml_guard.hpp"

#include <map>
#include <vector>

namespace ncclsweep {
namespace {

struct Walk {
  const std::string& file;
  std::size_t max_nodes;
  int max_depth;
  std::size_t visited = 0;

  void visit(const YAML::Node& node, int depth) {
    if (++visited > max_nodes) {
      throw UsageError("the document expands to more than " + std::to_string(max_nodes) +
                           " YAML nodes (aliases that repeat aliases?)",
                       "write the values out; sweep files need no anchors or aliases",
                       yaml_position(file, node));
    }
    if (depth > max_depth) {
      throw UsageError("the document nests deeper than " + std::to_string(max_depth) + " levels",
                       "sweep files need at most a few levels: key -> list or map of values",
                       yaml_position(file, node));
    }
    if (node.IsSequence()) {
      for (const auto& child : node) visit(child, depth + 1);
    } else if (node.IsMap()) {
      std::map<std::string, YAML::Mark> seen;
      for (const auto& entry : node) {
        if (entry.first.IsScalar() && entry.first.Scalar() == "<<" && entry.first.Tag() != "!") {
          // yaml-cpp reads a merge key as a key named "<<", so its keys would never arrive.
          throw UsageError("merge keys ('<<') are not supported here",
                           "write the merged keys out in this map (anchors with '*alias' values do work)",
                           yaml_position(file, entry.first));
        }
        if (entry.first.IsScalar()) {
          const auto [it, fresh] = seen.emplace(entry.first.Scalar(), entry.first.Mark());
          if (!fresh) {
            throw UsageError("duplicate key '" + entry.first.Scalar() + "' (first at line " +
                                 std::to_string(it->second.line + 1) + ")",
                             "keep one of them; YAML maps hold each key once",
                             yaml_position(file, entry.first));
          }
        }
        visit(entry.first, depth + 1);
        visit(entry.second, depth + 1);
      }
    }
  }
};

}  // namespace

SourcePosition yaml_position(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

SourcePosition yaml_position(const std::string& file, const YAML::Node& node) {
  return yaml_position(file, node.Mark());
}

YAML::Node load_one_yaml_document(const std::string& text, const std::string& file) {
  std::vector<YAML::Node> documents = YAML::LoadAll(text);
  if (documents.size() > 1) {
    // The second document's line: its first node, else its "---" marker.
    SourcePosition where = yaml_position(file, documents[1]);
    if (where.line == 0) {
      int line = 0, markers = 0;
      for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
        ++line;
        if (text.compare(at, 3, "---") == 0 && ++markers == (text.compare(0, 3, "---") == 0 ? 2 : 1)) {
          where = {file, line, 1};
          break;
        }
        if (text.find('\n', at) == std::string::npos) break;
      }
    }
    throw UsageError("the file holds " + std::to_string(documents.size()) +
                         " YAML documents ('---' starts another); ncclsweep reads one",
                     "keep one document per file: remove the '---' and what follows, or split the file", where);
  }
  return documents.empty() ? YAML::Node() : documents.front();
}

void guard_yaml_document(const YAML::Node& root, const std::string& file, std::size_t max_nodes, int max_depth) {
  Walk walk{file, max_nodes, max_depth};
  walk.visit(root, 0);
}

}  // namespace ncclsweep
