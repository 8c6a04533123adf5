#include "measure/fixed_test.hpp"

#include "core/dtype.hpp"

namespace ncclsweep {

std::string test_name(const CollectiveKind& collective, Bytes bytes) {
  return std::string(collective.name) + " " + format_bytes(bytes);
}

CollectiveCall fixed_call(const FixedTest& test, int ranks, int comm) {
  CollectiveCall call;
  call.kind = test.collective;
  call.dtype = &data_type("float32");
  call.count = count_per_rank(*call.kind, test.bytes, ranks, call.dtype->bytes);
  call.comm = comm;
  return call;
}

Bytes measured_bytes(const FixedTest& test, int ranks) {
  const CollectiveCall call = fixed_call(test, ranks, 0);
  return total_bytes(*call.kind, call.count, ranks, call.dtype->bytes);
}

MeasurementRecord fixed_record(const FixedTest& test, int ranks, double seconds, int warmup, int iters) {
  const CollectiveCall call = fixed_call(test, ranks, 0);
  MeasurementRecord r;
  r.collective = call.kind;
  r.dtype = call.dtype;
  if (call.kind->reduces) r.op = call.op;
  r.root = call.kind->has_root ? call.root : -1;
  r.size_bytes = total_bytes(*call.kind, call.count, ranks, call.dtype->bytes);
  r.requested_bytes = test.bytes;
  r.count = call.count;
  r.ranks = ranks;
  r.warmup = warmup;
  r.iters = iters;
  r.time_us.max = seconds * 1e6;
  r.algbw_gbps = algbw_of(r.size_bytes, seconds);
  r.busbw_gbps = busbw_of(*call.kind, r.size_bytes, seconds, ranks);
  return r;
}

void warm_up(Engine& engine, const std::vector<CollectiveCall>& calls, int count) {
  if (count <= 0) return;
  for (const CollectiveCall& call : calls) engine.run_timed(call, count);
}

double seconds_per_call(Engine& engine, const CollectiveCall& call, int iters) {
  return engine.run_timed(call, iters).device_seconds / iters;
}

}  // namespace ncclsweep
