#pragma once
// The check pattern: what every rank puts in its input buffer and what every output
// element must then hold, for every collective, dtype and op. Values are small
// integers (1..8 as data, at most 2 contributors per reduced element) so that every
// result except avg is exact in every dtype, fp8 included, whatever order NCCL reduces
// in. Plain functions usable on the host (mpi engine, unit tests) and, compiled by
// nvcc, on the GPU (kernels/), so both sides check with the same definition.
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define NCCLSWEEP_HD __host__ __device__
#else
#define NCCLSWEEP_HD
#endif

namespace ncclsweep::pattern {

// Mirrors core/dtype.hpp's Encoding as plain ints so this header stays device-friendly.
enum EncodingId : int { kSignedInt = 0, kUnsignedInt = 1, kIeeeFloat = 2, kMinifloat = 3 };
// Mirrors core/collective.hpp's OutputLayout.
enum LayoutId : int {
  kGathered = 0, kReducedSlice, kReducedWhole, kReducedAtRoot, kFromRoot, kTransposed, kFromPrevious
};
// Mirrors core/dtype.hpp's ReduceOp.
enum OpId : int { kSum = 0, kProd, kMax, kMin, kAvg };

struct ElementFormat {
  int encoding;
  int bytes;
  int exponent_bits;
  int mantissa_bits;
  int exponent_bias;
  bool finite_only;
};

// Written into output buffers before a collective; never an expected value.
inline constexpr double kPoison = 16.0;

NCCLSWEEP_HD inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// What rank `rank` holds at index `index` of its input for a data-moving collective.
NCCLSWEEP_HD inline double source_value(int rank, std::uint64_t index) {
  return 1.0 + static_cast<double>(mix(index * 1315423911ull + static_cast<std::uint64_t>(rank)) % 8);
}

// The two ranks that contribute to reduced element `index`; every other rank holds
// the op's identity there, so a missing, doubled or misplaced rank changes the result.
NCCLSWEEP_HD inline int first_contributor(int nranks, std::uint64_t index) {
  return static_cast<int>(index % static_cast<std::uint64_t>(nranks));
}
NCCLSWEEP_HD inline int second_contributor(int nranks, std::uint64_t index) {
  if (nranks < 2) return -1;
  const std::uint64_t n = static_cast<std::uint64_t>(nranks);
  return static_cast<int>((index % n + 1 + (index / n) % (n - 1)) % n);
}
NCCLSWEEP_HD inline double first_share(std::uint64_t index) { return 1.0 + static_cast<double>(mix(index) & 1); }
NCCLSWEEP_HD inline double second_share(std::uint64_t index) {
  return 1.0 + static_cast<double>((mix(index) >> 1) & 1);
}

NCCLSWEEP_HD inline double identity_of(int op) {
  switch (op) {
    case kProd: return 1.0;
    case kMin: return 3.0;  // above every share (1 or 2)
    default: return 0.0;    // sum, avg, max: shares are positive
  }
}

// What rank `rank` holds at global index `index` of its input for a reduction.
NCCLSWEEP_HD inline double reduce_input(int rank, int nranks, std::uint64_t index, int op) {
  if (rank == first_contributor(nranks, index)) return first_share(index);
  if (rank == second_contributor(nranks, index)) return second_share(index);
  return identity_of(op);
}

// The exact reduction over all ranks at global index `index` (avg: integer division
// for integer dtypes, as NCCL divides the sum).
NCCLSWEEP_HD inline double reduce_result(int nranks, std::uint64_t index, int op, bool integer) {
  const double a = first_share(index);
  if (nranks < 2) return a;
  const double b = second_share(index);
  switch (op) {
    case kSum: return a + b;
    case kProd: return a * b;
    case kMax: return a > b ? a : b;
    case kMin: return a < b ? a : b;
    default: return integer ? std::floor((a + b) / nranks) : (a + b) / nranks;
  }
}

// What rank `rank` writes into element `index` of its input buffer.
NCCLSWEEP_HD inline double input_value(bool reduces, int rank, int nranks, std::uint64_t index, int op) {
  return reduces ? reduce_input(rank, nranks, index, op) : source_value(rank, index);
}

struct CheckSpec {
  int layout;
  int rank;
  int nranks;
  int root;
  std::uint64_t count;  // per-rank count passed to the call
  int op;
  bool integer;
};

// The value output element k must hold; false when this rank's output is not defined
// (a reduce's non-root ranks).
NCCLSWEEP_HD inline bool expected_output(const CheckSpec& s, std::uint64_t k, double* value) {
  const std::uint64_t c = s.count == 0 ? 1 : s.count;
  switch (s.layout) {
    case kGathered: *value = source_value(static_cast<int>(k / c), k % c); return true;
    case kReducedSlice:
      *value = reduce_result(s.nranks, static_cast<std::uint64_t>(s.rank) * c + k, s.op, s.integer);
      return true;
    case kReducedWhole: *value = reduce_result(s.nranks, k, s.op, s.integer); return true;
    case kReducedAtRoot:
      if (s.rank != s.root) return false;
      *value = reduce_result(s.nranks, k, s.op, s.integer);
      return true;
    case kFromRoot: *value = source_value(s.root, k); return true;
    case kTransposed:
      *value = source_value(static_cast<int>(k / c), static_cast<std::uint64_t>(s.rank) * c + k % c);
      return true;
    default: *value = source_value((s.rank + s.nranks - 1) % s.nranks, k); return true;
  }
}

// ---- element encoding -------------------------------------------------------

// Bits of a small non-negative number that the minifloat format represents exactly.
NCCLSWEEP_HD inline std::uint64_t encode_minifloat(double v, int exponent_bits, int mantissa_bits, int bias) {
  if (v == 0.0) return 0;
  const bool negative = v < 0;
  if (negative) v = -v;
  int exponent = 0;
  const double fraction = std::frexp(v, &exponent);  // v = fraction * 2^exponent, fraction in [0.5, 1)
  const int unbiased = exponent - 1;
  const std::uint64_t mantissa =
      static_cast<std::uint64_t>((fraction * 2.0 - 1.0) * static_cast<double>(1ull << mantissa_bits) + 0.5);
  const std::uint64_t biased = static_cast<std::uint64_t>(unbiased + bias);
  const std::uint64_t sign = negative ? 1ull << (exponent_bits + mantissa_bits) : 0;
  return sign | (biased << mantissa_bits) | mantissa;
}

NCCLSWEEP_HD inline double decode_minifloat(std::uint64_t bits, int exponent_bits, int mantissa_bits, int bias,
                                             bool finite_only) {
  const std::uint64_t mantissa_mask = (1ull << mantissa_bits) - 1;
  const std::uint64_t exponent_mask = (1ull << exponent_bits) - 1;
  const std::uint64_t mantissa = bits & mantissa_mask;
  const std::uint64_t exponent = (bits >> mantissa_bits) & exponent_mask;
  const bool negative = (bits >> (exponent_bits + mantissa_bits)) & 1;
  double value;
  if (exponent == exponent_mask && (!finite_only || mantissa == mantissa_mask)) {
    value = NAN;  // inf/nan (e4m3: only S.1111.111 is NaN)
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits);
  } else {
    value = std::ldexp(1.0 + static_cast<double>(mantissa) / static_cast<double>(1ull << mantissa_bits),
                       static_cast<int>(exponent) - bias);
  }
  return negative ? -value : value;
}

// An element's low `bytes` bytes (1, 2, 4 or 8; little-endian) copied with a size the
// compiler sees: a plain load or store, where a memcpy of a runtime size is a library
// call per element (under AddressSanitizer an intercepted one, most of a check's time).
NCCLSWEEP_HD inline void put_low_bytes(unsigned char* p, std::uint64_t bits, int bytes) {
  switch (bytes) {
    case 1: { const std::uint8_t b = static_cast<std::uint8_t>(bits); std::memcpy(p, &b, 1); return; }
    case 2: { const std::uint16_t b = static_cast<std::uint16_t>(bits); std::memcpy(p, &b, 2); return; }
    case 4: { const std::uint32_t b = static_cast<std::uint32_t>(bits); std::memcpy(p, &b, 4); return; }
    default: std::memcpy(p, &bits, 8); return;
  }
}
NCCLSWEEP_HD inline std::uint64_t get_low_bytes(const unsigned char* p, int bytes) {
  switch (bytes) {
    case 1: { std::uint8_t b; std::memcpy(&b, p, 1); return b; }
    case 2: { std::uint16_t b; std::memcpy(&b, p, 2); return b; }
    case 4: { std::uint32_t b; std::memcpy(&b, p, 4); return b; }
    default: { std::uint64_t b; std::memcpy(&b, p, 8); return b; }
  }
}

NCCLSWEEP_HD inline void store(void* base, std::uint64_t i, double v, const ElementFormat& f) {
  unsigned char* p = static_cast<unsigned char*>(base) + i * static_cast<std::uint64_t>(f.bytes);
  std::uint64_t bits = 0;
  if (f.encoding == kMinifloat) {
    bits = encode_minifloat(v, f.exponent_bits, f.mantissa_bits, f.exponent_bias);
  } else if (f.encoding == kIeeeFloat) {
    if (f.bytes == 4) {
      const float x = static_cast<float>(v);
      std::uint32_t b;
      std::memcpy(&b, &x, 4);
      bits = b;
    } else {
      std::memcpy(&bits, &v, 8);
    }
  } else {
    bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  }
  put_low_bytes(p, bits, f.bytes);
}

NCCLSWEEP_HD inline double load(const void* base, std::uint64_t i, const ElementFormat& f) {
  const unsigned char* p = static_cast<const unsigned char*>(base) + i * static_cast<std::uint64_t>(f.bytes);
  const std::uint64_t bits = get_low_bytes(p, f.bytes);
  switch (f.encoding) {
    case kMinifloat:
      return decode_minifloat(bits, f.exponent_bits, f.mantissa_bits, f.exponent_bias, f.finite_only);
    case kIeeeFloat:
      if (f.bytes == 4) {
        float x;
        std::uint32_t b = static_cast<std::uint32_t>(bits);
        std::memcpy(&x, &b, 4);
        return x;
      } else {
        double x;
        std::memcpy(&x, &bits, 8);
        return x;
      }
    case kSignedInt: {
      const int shift = 64 - 8 * f.bytes;
      return static_cast<double>(static_cast<std::int64_t>(bits << shift) >> shift);
    }
    default: return static_cast<double>(bits);
  }
}

// Relative tolerance of an avg result: NCCL pre-multiplies by 1/n in the dtype.
NCCLSWEEP_HD inline double avg_tolerance(const ElementFormat& f) {
  if (f.encoding == kMinifloat) return 4.0 / static_cast<double>(1ull << f.mantissa_bits);
  if (f.encoding == kIeeeFloat) return f.bytes == 4 ? 1e-5 : 1e-12;
  return 0.0;
}

NCCLSWEEP_HD inline bool matches(double got, double expected, int op, const ElementFormat& f) {
  if (op == kAvg && (f.encoding == kMinifloat || f.encoding == kIeeeFloat)) {
    const double scale = expected > 1.0 ? expected : 1.0;
    return std::fabs(got - expected) <= avg_tolerance(f) * scale;  // NaN compares false
  }
  return got == expected;
}

}  // namespace ncclsweep::pattern
