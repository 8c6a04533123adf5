#include "recommend/tuner_collectives.hpp"

#include <cctype>
#include <string>

#include "tuner/tuner_rules.hpp"

namespace ncclsweep {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<int> tuner_collective(const CollectiveKind& kind) { return tuner::parse_collective(lower(kind.nccl_name)); }

const CollectiveKind* collective_of_tuner(int tuner_collective) {
  const std::string_view name = tuner::collective_name(tuner_collective);
  for (const CollectiveKind& kind : all_collectives()) {
    if (lower(kind.nccl_name) == name) return &kind;
  }
  return nullptr;
}

}  // namespace ncclsweep
