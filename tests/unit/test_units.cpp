#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "core/gpu_sharing.hpp"
#include "core/units.hpp"
#include "core/xml_text.hpp"

using namespace ncclsweep;

TEST_CASE("sizes take binary and decimal units") {
  CHECK(parse_size("1048576") == 1048576);
  CHECK(parse_size("64K") == 64 * 1024);
  CHECK(parse_size("1M") == 1024 * 1024);
  CHECK(parse_size("4G") == 4ull << 30);
  CHECK(parse_size("2T") == 2ull << 40);
  CHECK(parse_size("1GiB") == 1ull << 30);
  CHECK(parse_size("100MB") == 100'000'000);
  CHECK(parse_size("1KB") == 1000);
  CHECK(parse_size(" 8B ") == 8);
  // nccl-tests' lowercase letters: powers of 1024 there too
  CHECK(parse_size("64k") == 64ull << 10);
  CHECK(parse_size("128m") == 128ull << 20);
  CHECK(parse_size("2g") == 2ull << 30);
}

TEST_CASE("malformed sizes are refused with the reason") {
  CHECK_THROWS_WITH(parse_size("abc"), ContainsSubstring("does not start with a number"));
  CHECK_THROWS_WITH(parse_size("-1M"), ContainsSubstring("negative"));
  CHECK_THROWS_WITH(parse_size("1.5G"), ContainsSubstring("fractions"));
  CHECK_THROWS_WITH(parse_size("4X"), ContainsSubstring("unknown unit 'X'"));
  CHECK_THROWS_WITH(parse_size("64mb"), ContainsSubstring("unknown unit 'mb'"));  // 10^6 or 2^20: not guessed
  CHECK_THROWS_WITH(parse_size("99999999999T"), ContainsSubstring("overflows"));
  CHECK_THROWS_WITH(parse_size("99999999999999999999999"), ContainsSubstring("too large"));
  CHECK_THROWS_AS(parse_size(""), UsageError);
}

TEST_CASE("a multiplying range expands like nccl-tests -f") {
  const auto sizes = parse_size_list("1M:4G:x4");
  REQUIRE(sizes.size() == 7);
  CHECK(sizes.front() == 1ull << 20);
  CHECK(sizes[1] == 4ull << 20);
  CHECK(sizes.back() == 4ull << 30);
}

TEST_CASE("an adding range, lists and duplicates") {
  CHECK(parse_size_list("1K:4K:+1K") == std::vector<Bytes>{1024, 2048, 3072, 4096});
  CHECK(parse_size_list("64M, 1M,64M") == std::vector<Bytes>{1ull << 20, 64ull << 20});
  CHECK(parse_size_list("1K:4K") == std::vector<Bytes>{1024, 2048, 4096});  // x2 by default
  CHECK(parse_size_list("1K:3K:x2") == std::vector<Bytes>{1024, 2048});     // stops below the maximum
}

TEST_CASE("a size range that never grows is refused") {
  CHECK_THROWS_WITH(parse_size_list("1M:1G:x1"), ContainsSubstring("factor must be > 1"));
  CHECK_THROWS_WITH(parse_size_list("1M:1G:+0"), ContainsSubstring("step must be > 0"));
  CHECK_THROWS_WITH(parse_size_list("0:1G:x2"), ContainsSubstring("cannot start at 0"));
  CHECK_THROWS_WITH(parse_size_list("1G:1M"), ContainsSubstring("minimum is above its maximum"));
  CHECK_THROWS_WITH(parse_size_list("1M:1G:*2"), ContainsSubstring("xF (multiply) or +STEP"));
  CHECK_THROWS_WITH(parse_size_list("1:1T:+1"), ContainsSubstring("more than 10000 sizes"));
  CHECK_THROWS_WITH(parse_size_list("1M,,2M"), ContainsSubstring("empty entry"));
}

TEST_CASE("a range up to the largest size ends there, and a size beyond 2^62 is refused") {
  const auto sizes = parse_size_list("1152921504606846976:4611686018427387904:x2");
  CHECK(sizes == std::vector<Bytes>{1ull << 60, 1ull << 61, 1ull << 62});
  CHECK(parse_size("4194304T") == kLargestSize);
  CHECK_THROWS_WITH(parse_size("4611686018427387905"), ContainsSubstring("beyond 2^62 bytes"));
  CHECK_THROWS_WITH(parse_size("4194305T"), ContainsSubstring("beyond 2^62 bytes"));
  CHECK_THROWS_WITH(parse_size_list("1G:18446744073709551615:x2"), ContainsSubstring("beyond 2^62 bytes"));
}

TEST_CASE("sizes print in binary units") {
  CHECK(format_bytes(1ull << 20) == "1 MiB");
  CHECK(format_bytes(1536ull << 20) == "1.5 GiB");
  CHECK(format_bytes(768) == "768 B");
  CHECK(format_bytes(4ull << 30) == "4 GiB");
  CHECK(format_bytes((1ull << 30) - 100000) == "1024 MiB");  // not 1.02e+03 MiB
  CHECK(format_bytes(1050673152ull) == "1002 MiB");
}

TEST_CASE("xml_escape: markup escaped, control bytes and broken UTF-8 replaced, good UTF-8 kept") {
  CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
  CHECK(xml_escape("h\x01st") == "h\xEF\xBF\xBDst");
  CHECK(xml_escape("tab\tnew\nline") == "tab\tnew\nline");
  CHECK(xml_escape("bad \xff byte") == "bad \xEF\xBF\xBD byte");
  CHECK(xml_escape("truncated \xE2\x82") == "truncated \xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(xml_escape("gr\xC3\xBC\xC3\x9F") == "gr\xC3\xBC\xC3\x9F");
  CHECK(xml_escape("") == "");
}

TEST_CASE("shared_gpus: ranks that drive one GPU of one host, and nothing else") {
  const std::vector<GpuUser> users{{0, "h1", "A"}, {1, "h1", "A"}, {2, "h1", "B"}, {3, "h2", "A"},
                                   {4, "h1", ""},  {5, "h1", "A"}, {6, "h2", "B"}, {7, "h2", "B"}};
  const auto shared = shared_gpus(users);
  REQUIRE(shared.size() == 2);
  CHECK(shared[0].ranks == std::vector<int>{0, 1, 5});  // rank 3 drives A on another host; rank 4 no GPU
  CHECK(describe_shared_gpu(shared[0]) == "ranks 0-1,5 on h1 all drive GPU A");
  CHECK(describe_shared_gpu(shared[1]) == "ranks 6 and 7 on h2 both drive GPU B");
  CHECK(shared_gpus({{0, "h1", "A"}, {1, "h1", "B"}}).empty());
}
