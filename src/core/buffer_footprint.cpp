#include "core/buffer_footprint.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/list_text.hpp"

namespace ncclsweep {

std::string label_of(const BufferFootprint& footprint) {
  if (footprint.mode == FootprintMode::fixed) return std::to_string(footprint.bytes);
  return std::string(name_of(footprint.mode));
}

namespace {
constexpr const char* kFootprintFix =
    "use largest (nccl-tests' model: one allocation at the run's largest size), exact (buffers of each size), or a "
    "size such as 1G (an allocation that large)";
}  // namespace

BufferFootprint parse_footprint(const std::string& item) {
  for (const FootprintMode mode : {FootprintMode::largest, FootprintMode::exact}) {
    if (item == name_of(mode)) return {mode, 0};
  }
  BufferFootprint f;
  try {
    f = {FootprintMode::fixed, parse_size(item)};
  } catch (const UsageError&) {
    throw UsageError("unknown buffer footprint '" + item + "'", kFootprintFix);
  }
  if (f.bytes == 0) throw UsageError("buffer footprint '" + item + "' is zero bytes", kFootprintFix);
  return f;
}

std::vector<BufferFootprint> parse_footprint_list(const std::string& text) {
  std::vector<BufferFootprint> out;
  for (const std::string& item : split_list(text, "buffer footprint")) {
    const BufferFootprint f = parse_footprint(item);
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  if (out.empty()) throw UsageError("empty list of buffer footprints", kFootprintFix);
  return out;
}

Bytes footprint_bytes(const BufferFootprint& footprint, Bytes call_bytes, Bytes largest_bytes) {
  switch (footprint.mode) {
    case FootprintMode::largest: return std::max(call_bytes, largest_bytes);
    case FootprintMode::exact: return call_bytes;
    case FootprintMode::fixed: return std::max(call_bytes, footprint.bytes);
  }
  return call_bytes;
}

std::uint64_t rotation_offsets(Bytes footprint, Bytes call_bytes) {
  if (call_bytes == 0) return 1;
  return std::max<std::uint64_t>(1, footprint / call_bytes);
}

BufferSpan buffer_span(Bytes send_bytes, Bytes recv_bytes, Bytes footprint) {
  const Bytes call = std::max(send_bytes, recv_bytes);
  if (footprint <= call) return {send_bytes, recv_bytes, 1, call};
  return {footprint, footprint, rotation_offsets(footprint, call), call};
}

std::vector<CacheState> parse_cache_state_list(const std::string& text) {
  std::vector<CacheState> out;
  for (const std::string& item : split_list(text, "cache state")) {
    const CacheState s = kCacheStateNames.parse(item);
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  if (out.empty()) throw UsageError("empty list of cache states", "use warm or flush");
  return out;
}

}  // namespace ncclsweep
