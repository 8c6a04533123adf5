#include "measure/fixed_test.hpp"

#include "core/dtype.hpp"
#include "core/iteration_stats.hpp"

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

MeasurementRecord rounds_record(const FixedTest& test, int ranks, const std::vector<double>& round_seconds,
                                int warmup, int calls_per_round) {
  const IterationSummary rounds = summarize_iterations(round_seconds);
  const int round_count = static_cast<int>(round_seconds.size());
  MeasurementRecord r = fixed_record(test, ranks, rounds.p50, warmup, round_count * calls_per_round);
  r.calls_per_sample = calls_per_round;
  r.iteration_us = IterationPercentilesUs{rounds.p50 * 1e6, rounds.p90 * 1e6, rounds.p99 * 1e6, rounds.min * 1e6,
                                          rounds.max * 1e6};
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
