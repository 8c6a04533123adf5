#pragma once
// One table per option that maps its enum to the names users type and files hold: every
// parse, every printed name and every "use one of" list comes from it, so adding a value
// is one line and no second spelling can drift.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/suggest.hpp"

namespace ncclsweep {

template <typename Enum, std::size_t N>
class NameTable {
 public:
  // `what` names the option in messages: "buffer mode", "engine".
  constexpr NameTable(std::string_view what, std::array<std::pair<Enum, std::string_view>, N> entries)
      : what_(what), entries_(entries) {}

  constexpr std::string_view name(Enum value) const {
    for (const auto& [v, n] : entries_) {
      if (v == value) return n;
    }
    return "?";
  }

  constexpr std::optional<Enum> find(std::string_view name) const {
    for (const auto& [v, n] : entries_) {
      if (n == name) return v;
    }
    return std::nullopt;
  }

  // Throws UsageError naming the bad name and the valid ones.
  Enum parse(std::string_view name) const {
    if (const auto value = find(name)) return *value;
    throw UsageError("unknown " + std::string(what_) + " '" + std::string(name) + "'" + did_you_mean(name, names()),
                     "use one of " + joined());
  }

  // "a, b, c": for messages.
  std::string joined() const {
    std::string text;
    for (const auto& [v, n] : entries_) text += (text.empty() ? "" : ", ") + std::string(n);
    return text;
  }

  // For CLI11's IsMember.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [v, n] : entries_) out.emplace_back(n);
    return out;
  }

  constexpr std::string_view what() const { return what_; }
  // Every value with its name, in table order: what a test walks to cover them all.
  constexpr const auto& entries() const { return entries_; }

 private:
  std::string_view what_;
  std::array<std::pair<Enum, std::string_view>, N> entries_;
};

}  // namespace ncclsweep
