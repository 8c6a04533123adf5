#include "compare/footprint_match.hpp"

#include <algorithm>
#include <cstdio>

namespace ncclsweep {
namespace {

bool is_exact(const SideRow& row) { return row.footprint && row.footprint->mode == FootprintMode::exact; }

std::string footprint_text(const SideRow& row) {
  if (!row.footprint_bytes) return "unknown";
  return is_exact(row) ? "exact (each size)" : format_bytes(*row.footprint_bytes);
}

// Rows of an exact footprint have buffers the size of the call: those of another size
// are a different allocation, but two exact sides always match each other.
bool same_footprint(const SideRow& a, const SideRow& b) {
  const bool a_exact = is_exact(a) || *a.footprint_bytes <= a.key.size_bytes;
  const bool b_exact = is_exact(b) || *b.footprint_bytes <= b.key.size_bytes;
  if (a_exact || b_exact) return a_exact && b_exact;
  return *a.footprint_bytes == *b.footprint_bytes;
}

bool footprints_differ(const SideRow& a, const SideRow& b) {
  return a.footprint_bytes && b.footprint_bytes && !same_footprint(a, b);
}
bool caches_differ(const SideRow& a, const SideRow& b) { return a.cache && b.cache && *a.cache != *b.cache; }

// ", warm": the cache state after a footprint, "" when unknown.
std::string cache_suffix(const SideRow& row) { return row.cache ? ", " + std::string(name_of(*row.cache)) : ""; }

// The flags that make side `rerun` measure what `like` measured, in the words of the
// tool that made `rerun`; empty when that tool cannot (nccl-tests never flushes a cache).
std::string rerun_flags(const SideRow& rerun, const SideIdentity& rerun_side, const SideRow& like) {
  const bool footprint = footprints_differ(rerun, like);
  const bool cache = caches_differ(rerun, like);
  std::string flags;
  if (made_by_nccl_tests(rerun_side)) {
    if (cache) return "";
    if (footprint) {
      // nccl-tests allocates -e bytes once; one size per launch is its exact footprint.
      flags = is_exact(like) ? "-b SIZE -e SIZE, one launch per size" : "-e " + std::to_string(*like.footprint_bytes);
    }
    return flags;
  }
  if (footprint) flags = "--buffer-footprint " + (is_exact(like) ? std::string("exact") : std::to_string(*like.footprint_bytes));
  if (cache) flags += (flags.empty() ? "" : " ") + ("--cache " + std::string(name_of(*like.cache)));
  return flags;
}

std::string tool_name(const SideIdentity& side) { return made_by_nccl_tests(side) ? "nccl-tests" : "ncclsweep"; }

}  // namespace

std::optional<std::string> footprint_mismatch(const SideRow& new_row, const SideRow& reference_row) {
  if (new_row.key.size_bytes > kFootprintSensitiveBytes) return std::nullopt;
  std::string what;
  if (footprints_differ(new_row, reference_row)) {
    what = "buffer footprint " + footprint_text(new_row) + " vs " + footprint_text(reference_row);
  }
  if (caches_differ(new_row, reference_row)) {
    what += (what.empty() ? "" : ", ") + ("cache " + std::string(name_of(*new_row.cache)) + " vs " + std::string(name_of(*reference_row.cache)));
  }
  if (what.empty()) return std::nullopt;
  return what;
}

bool beyond_footprint_envelope(double new_value, double new_band, double ref_value, double ref_band) {
  const double new_low = std::max(0.0, new_value - new_band), new_high = new_value + new_band;
  const double ref_low = std::max(0.0, ref_value - ref_band), ref_high = ref_value + ref_band;
  return new_high * kFootprintEnvelope < ref_low || new_low > ref_high * kFootprintEnvelope;
}

std::string footprint_difference_line(const SideRow& new_row, const SideIdentity& new_side, const SideRow& reference_row,
                                      const SideIdentity& reference, const FootprintRows& rows) {
  char envelope[16];
  std::snprintf(envelope, sizeof envelope, "%gx", kFootprintEnvelope);
  std::string line = "buffer footprint / cache: NEW " + footprint_text(new_row) +
                     cache_suffix(new_row) + "; REFERENCE " + footprint_text(reference_row) + cache_suffix(reference_row) +
                     ": at <= " +
                     format_bytes(kFootprintSensitiveBytes) + " the footprint alone moves busbw by up to " + envelope + "; " +
                     std::to_string(rows.ambiguous) + " row(s) inside that are ambiguous, " + std::to_string(rows.judged) +
                     " agree or differ beyond it and are judged";
  std::string hint;
  if (const std::string flags = rerun_flags(new_row, new_side, reference_row); !flags.empty()) {
    hint = "rerun NEW (" + tool_name(new_side) + ") with " + flags;
  }
  if (const std::string flags = rerun_flags(reference_row, reference, new_row); !flags.empty()) {
    hint += (hint.empty() ? "rerun " : ", or ") + ("REFERENCE (" + tool_name(reference) + ") with " + flags);
  }
  return line + (hint.empty() ? "" : "; to compare like for like, " + hint);
}

}  // namespace ncclsweep
