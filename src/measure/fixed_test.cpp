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

void warm_up(Engine& engine, const std::vector<CollectiveCall>& calls, int count) {
  if (count <= 0) return;
  for (const CollectiveCall& call : calls) engine.run_timed(call, count);
}

double seconds_per_call(Engine& engine, const CollectiveCall& call, int iters) {
  return engine.run_timed(call, iters).device_seconds / iters;
}

}  // namespace ncclsweep
