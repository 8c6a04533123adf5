#pragma once
// The --format of the commands that print either a readable table or one JSON document
// on stdout (plan, doctor, locate, soak), and where such a command's other lines go.
#include <iostream>
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

enum class TableOrJson { table, json };
inline constexpr NameTable<TableOrJson, 2> kTableOrJsonNames{
    "--format", {{{TableOrJson::table, "table"}, {TableOrJson::json, "json"}}}};

// A command's two outputs: its document (the table, or the one JSON document) on stdout,
// and the readable lines beside it (progress, `# ` headers and notes, where the results
// went). Those share stdout with a table and go to stderr beside JSON, so that stdout is
// one document that parses. Every command that prints while it runs takes its streams here.
struct CommandStreams {
  std::ostream& document;
  std::ostream& notes;
};

inline CommandStreams command_streams(TableOrJson format, std::ostream& document = std::cout) {
  return {document, format == TableOrJson::json ? std::cerr : document};
}

}  // namespace ncclsweep
