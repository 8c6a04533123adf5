// The check pattern's closed-form expectations against a brute-force simulation of
// each collective on the host: every rank's input is generated and stored in the
// dtype, the collective is carried out element by element on the stored values, and
// each output must match.
#include <cmath>
#include <vector>

#include "catch_compat.hpp"
#include "core/pattern_spec.hpp"

using namespace ncclsweep;
using namespace ncclsweep::pattern;

namespace {

double reduce_pair(double a, double b, ReduceOp op) {
  switch (op) {
    case ReduceOp::prod: return a * b;
    case ReduceOp::max: return std::max(a, b);
    case ReduceOp::min: return std::min(a, b);
    default: return a + b;  // sum; avg divides at the end
  }
}

// What output element k of `rank` holds after the collective, computed from the inputs.
double simulate(const CollectiveKind& kind, const DataType& t, ReduceOp op, std::uint64_t count, int rank, int n,
                int root, std::uint64_t k) {
  const auto f = element_format(t);
  auto input = [&](int r, std::uint64_t i) {
    std::vector<unsigned char> cell(t.bytes);
    store(cell.data(), 0, input_value(kind.reduces, r, n, i, static_cast<int>(op)), f);
    return load(cell.data(), 0, f);  // the value as the dtype holds it
  };
  auto reduced = [&](std::uint64_t i) {
    double acc = input(0, i);
    for (int r = 1; r < n; ++r) acc = reduce_pair(acc, input(r, i), op);
    if (op == ReduceOp::avg) {
      const bool integer = t.encoding == Encoding::signed_int || t.encoding == Encoding::unsigned_int;
      acc = integer ? std::floor(acc / n) : acc / n;
    }
    return acc;
  };
  switch (kind.layout) {
    case OutputLayout::gathered: return input(static_cast<int>(k / count), k % count);
    case OutputLayout::reduced_slice: return reduced(static_cast<std::uint64_t>(rank) * count + k);
    case OutputLayout::reduced_whole:
    case OutputLayout::reduced_at_root: return reduced(k);
    case OutputLayout::from_root: return input(root, k);
    case OutputLayout::transposed: return input(static_cast<int>(k / count), rank * count + k % count);
    case OutputLayout::from_previous: return input((rank + n - 1) % n, k);
  }
  return NAN;
}

}  // namespace

TEST_CASE("expected outputs match a simulated collective for every collective, dtype, op and rank count") {
  const std::uint64_t count = 37;
  for (const CollectiveKind& kind : all_collectives()) {
    for (const DataType& t : all_data_types()) {
      for (int op_index = 0; op_index < kReduceOpCount; ++op_index) {
        const auto op = static_cast<ReduceOp>(op_index);
        if (!kind.reduces && op != ReduceOp::sum) continue;
        for (int n : {1, 2, 3, 4, 8}) {
          const int root = n - 1;
          for (int rank = 0; rank < n; ++rank) {
            const auto spec = check_spec(kind, t, op, count, rank, n, root);
            const std::uint64_t outputs = recv_elements(kind, count, n);
            int mismatches = 0;
            for (std::uint64_t k = 0; k < outputs; ++k) {
              double expected = 0;
              if (!expected_output(spec, k, &expected)) continue;
              const double actual = simulate(kind, t, op, count, rank, n, root, k);
              if (!matches(actual, expected, static_cast<int>(op), element_format(t))) ++mismatches;
            }
            INFO(kind.name << " " << t.name << " " << name_of(op) << " n=" << n << " rank=" << rank);
            CHECK(mismatches == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("every rank contributes to some reduced element, so a lost rank is seen") {
  for (int n : {2, 3, 8, 512}) {
    std::vector<bool> contributes(n, false);
    for (std::uint64_t i = 0; i < 4u * n; ++i) {
      contributes[first_contributor(n, i)] = true;
      CHECK(second_contributor(n, i) != first_contributor(n, i));
    }
    for (int r = 0; r < n; ++r) CHECK(contributes[r]);
  }
}

TEST_CASE("small values encode exactly in every dtype") {
  CHECK(encode_minifloat(3.0, 5, 10, 15) == 0x4200);  // float16
  CHECK(encode_minifloat(3.0, 8, 7, 127) == 0x4040);  // bfloat16
  CHECK(encode_minifloat(3.0, 4, 3, 7) == 0x44);      // fp8 e4m3
  CHECK(encode_minifloat(3.0, 5, 2, 15) == 0x42);     // fp8 e5m2
  for (const DataType& t : all_data_types()) {
    const auto f = element_format(t);
    for (double v : {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, kPoison}) {
      unsigned char cell[8] = {};
      store(cell, 0, v, f);
      INFO(t.name << " " << v);
      CHECK(load(cell, 0, f) == v);
    }
  }
}

TEST_CASE("NaN and infinity never match") {
  const auto e4m3 = element_format(data_type("fp8_e4m3"));
  const unsigned char nan_e4m3 = 0x7F;
  CHECK(std::isnan(load(&nan_e4m3, 0, e4m3)));
  const auto e5m2 = element_format(data_type("fp8_e5m2"));
  const unsigned char inf_e5m2 = 0x7C;
  CHECK_FALSE(matches(load(&inf_e5m2, 0, e5m2), 4.0, kSum, e5m2));
  CHECK_FALSE(matches(NAN, 1.0, kAvg, element_format(data_type("float32"))));
}

TEST_CASE("a corrupted element is counted, a correct one is not") {
  const auto f = element_format(data_type("bfloat16"));
  const auto spec = check_spec(collective("all_gather"), data_type("bfloat16"), ReduceOp::sum, 4, 0, 2, 0);
  double expected = 0;
  REQUIRE(expected_output(spec, 5, &expected));
  CHECK(matches(expected, expected, kSum, f));
  CHECK_FALSE(matches(kPoison, expected, kSum, f));
}
