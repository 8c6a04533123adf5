#include "core/yaml_guard.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <sstream>
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

namespace {

// Reads one document's events and keeps the place of its first node, or of its start
// (its "---") when it holds none (an empty document reads as one null).
class FirstNodePlace final : public YAML::EventHandler {
 public:
  YAML::Mark place;
  void OnDocumentStart(const YAML::Mark& mark) override { place = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { seen_ = true; }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { first(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    first(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    first(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    first(mark);
  }
  void OnMapEnd() override {}

 private:
  void first(const YAML::Mark& mark) {
    if (!seen_) place = mark;
    seen_ = true;
  }
  bool seen_ = false;
};

}  // namespace

YAML::Node load_one_yaml_document(const std::string& text, const std::string& file) {
  // yaml-cpp reads a NUL byte as the end of a line and reports an escape error past it.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    throw UsageError("the file holds a NUL byte, which no YAML text has (a binary file, or one saved as UTF-16?)",
                     "give a YAML text file saved as UTF-8", position_at(file, text, nul));
  }
  // Two documents' events are read, never more: a file of a million '---' is refused at
  // its second, not loaded whole first.
  std::istringstream in(text);
  YAML::Parser parser(in);
  FirstNodePlace first, second;
  if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second)) {
    throw UsageError("the file holds more than one YAML document ('---' starts another); ncclsweep reads one",
                     "keep one document per file: remove the '---' and what follows, or split the file",
                     yaml_position(file, second.place));
  }
  return YAML::Load(text);
}

void guard_yaml_document(const YAML::Node& root, const std::string& file, std::size_t max_nodes, int max_depth) {
  Walk walk{file, max_nodes, max_depth};
  walk.visit(root, 0);
}

}  // namespace ncclsweep
