#include "results/measurement_key.hpp"

namespace ncclsweep {
namespace {
void add(std::string& text, const std::string& part) { text += (text.empty() ? "" : ", ") + part; }
}  // namespace

MeasurementKey key_of(const MeasurementRecord& r) {
  return {.collective = r.collective,
          .dtype = r.dtype,
          .op = r.op,
          .root = r.root,
          .communicator = {r.communicator, r.ranks},
          .buffers = r.buffers,
          .launch = r.launch,
          // Records from before footprints and caches were written: nccl-tests' model.
          .footprint = r.buffer_footprint.value_or(BufferFootprint{}),
          .cache = r.cache.value_or(CacheState::warm),
          .compute = r.under_compute ? std::optional<ComputeLoad>(r.under_compute->load) : std::nullopt,
          .placement = r.placement,
          .point = r.point,
          .size_bytes = r.size_bytes,
          .requested_bytes = r.requested_bytes,
          .repeat = r.repeat};
}

MeasurementKey without_repeat(MeasurementKey key) {
  key.repeat = 0;
  return key;
}

MeasurementKey series_of(MeasurementKey key) {
  key.point.clear();
  key.size_bytes = key.requested_bytes = 0;
  key.repeat = 0;
  return key;
}

std::string_view op_name(const MeasurementKey& key) { return key.op ? name_of(*key.op) : "none"; }

std::string communicator_text(const CommunicatorShape& group) {
  return std::string(name_of(group.kind)) + " groups of " + std::to_string(group.ranks);
}

std::string series_title(const MeasurementKey& k) {
  std::string title = std::string(k.collective->name) + " " + std::string(k.dtype->name);
  if (k.op) title += " " + std::string(name_of(*k.op));
  if (!k.communicator.is_world()) title += " on " + communicator_text(k.communicator);
  if (const std::string conditions = conditions_text(k); !conditions.empty()) title += " [" + conditions + "]";
  if (k.compute) title += " under " + label_of(*k.compute);
  return title;
}

std::string conditions_text(const MeasurementKey& k) {
  std::string text = call_modes_text(k);
  if (const std::string footprint = footprint_text(k); !footprint.empty()) add(text, footprint);
  return text;
}

std::string call_modes_text(const MeasurementKey& k) { return call_modes_text(k.buffers, k.launch); }

std::string call_modes_text(BufferMode buffers, LaunchMode launch) {
  std::string text;
  if (buffers != BufferMode::cuda_malloc) add(text, "buffers " + std::string(name_of(buffers)));
  if (launch != LaunchMode::stream) add(text, "launch " + std::string(name_of(launch)));
  return text;
}

std::string footprint_text(const MeasurementKey& k) { return footprint_text(k.footprint, k.cache); }

std::string footprint_text(const BufferFootprint& footprint, CacheState cache) {
  std::string text;
  if (footprint.mode != FootprintMode::largest) add(text, "footprint " + label_of(footprint));
  if (cache != CacheState::warm) add(text, "cache " + std::string(name_of(cache)));
  return text;
}

}  // namespace ncclsweep
