#include "compare/footprint_match.hpp"

namespace ncclsweep {
namespace {

std::string footprint_text(const SideRow& row) {
  if (!row.footprint_bytes) return "unknown";
  return row.footprint_mode == "exact" ? "exact (each size)" : format_bytes(*row.footprint_bytes);
}

// Rows of an exact footprint have buffers the size of the call: those of another size
// are a different allocation, but two exact sides always match each other.
bool same_footprint(const SideRow& a, const SideRow& b) {
  const bool a_exact = a.footprint_mode == "exact" || *a.footprint_bytes <= a.key.size_bytes;
  const bool b_exact = b.footprint_mode == "exact" || *b.footprint_bytes <= b.key.size_bytes;
  if (a_exact || b_exact) return a_exact && b_exact;
  return *a.footprint_bytes == *b.footprint_bytes;
}

}  // namespace

std::optional<std::string> footprint_mismatch(const SideRow& new_row, const SideRow& reference_row) {
  if (new_row.key.size_bytes > kFootprintSensitiveBytes) return std::nullopt;
  std::string what;
  if (new_row.footprint_bytes && reference_row.footprint_bytes && !same_footprint(new_row, reference_row)) {
    what = "buffer footprint " + footprint_text(new_row) + " vs " + footprint_text(reference_row);
  }
  if (!new_row.cache.empty() && !reference_row.cache.empty() && new_row.cache != reference_row.cache) {
    what += (what.empty() ? "" : ", ") + ("cache " + new_row.cache + " vs " + reference_row.cache);
  }
  if (what.empty()) return std::nullopt;
  return what;
}

std::string footprint_difference_line(const SideRow& new_row, const SideRow& reference_row, int rows) {
  std::string fix;
  if (reference_row.footprint_bytes && reference_row.footprint_mode != "exact") {
    fix = "--buffer-footprint " + std::to_string(*reference_row.footprint_bytes);
  } else if (reference_row.footprint_mode == "exact") {
    fix = "--buffer-footprint exact";
  }
  if (!reference_row.cache.empty() && reference_row.cache != new_row.cache) {
    fix += (fix.empty() ? "" : " ") + ("--cache " + reference_row.cache);
  }
  return "buffer footprint / cache: NEW " + footprint_text(new_row) + (new_row.cache.empty() ? "" : ", " + new_row.cache) +
         "; REFERENCE " + footprint_text(reference_row) + (reference_row.cache.empty() ? "" : ", " + reference_row.cache) +
         ": " + std::to_string(rows) + " row(s) at <= " + format_bytes(kFootprintSensitiveBytes) +
         " are ambiguous, not judged (the footprint alone moves busbw there by up to a third)" +
         (fix.empty() ? "" : "; to compare like for like, rerun NEW with " + fix);
}

}  // namespace ncclsweep
