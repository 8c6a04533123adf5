#pragma once
// Message sizes: parsing "1M", "64MB", "1M:4G:x4", "1K:8K:+1K" and printing them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep {

using Bytes = std::uint64_t;
inline constexpr Bytes kKiB = Bytes(1) << 10;
inline constexpr Bytes kMiB = Bytes(1) << 20;

// One size with an optional unit: K M G T (powers of 1024, also KiB MiB GiB TiB),
// KB MB GB TB (powers of 1000), B or nothing (bytes). Throws UsageError.
Bytes parse_size(std::string_view text);

// A comma-separated list of sizes and ranges MIN:MAX:xF (multiply by F > 1),
// MIN:MAX:+STEP (add STEP > 0) or MIN:MAX (x2, as nccl-tests). Returns the sizes
// sorted ascending without duplicates. Throws UsageError.
std::vector<Bytes> parse_size_list(std::string_view text);

// The largest size any parse accepts: 2^62 bytes (4 EiB).
inline constexpr Bytes kLargestSize = Bytes(1) << 62;

// The most sizes one list may expand to; a range past it is almost always a typo.
inline constexpr std::size_t kMaxSizesInList = 10000;

// "1 MiB", "1.5 GiB", "768 B": binary units, at most 3 significant digits after
// the integer part is exact.
std::string format_bytes(Bytes bytes);

}  // namespace ncclsweep
