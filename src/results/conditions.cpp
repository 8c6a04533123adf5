#include "results/conditions.hpp"

namespace ncclsweep {
namespace {
void add(std::string& tag, const std::string& part) { tag += (tag.empty() ? "" : ", ") + part; }
}  // namespace

std::string footprint_tag(const MeasurementRecord& r) {
  std::string tag;
  if (!r.buffer_footprint.empty() && r.buffer_footprint != "largest") add(tag, "footprint " + r.buffer_footprint);
  if (!r.cache.empty() && r.cache != "warm") add(tag, "cache " + r.cache);
  return tag;
}

std::string conditions_tag(const MeasurementRecord& r) {
  std::string tag;
  if (r.buffers != "cuda-malloc") add(tag, "buffers " + r.buffers);
  if (r.launch != "stream") add(tag, "launch " + r.launch);
  const std::string footprint = footprint_tag(r);
  if (!footprint.empty()) add(tag, footprint);
  return tag;
}

}  // namespace ncclsweep
