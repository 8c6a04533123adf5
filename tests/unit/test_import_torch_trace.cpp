#include "catch_compat.hpp"
#include "importers/importers.hpp"
#include "test_import_fixtures.hpp"

using namespace ncclsweep;

namespace {
const std::string kTrace = kFixtures + "/torch_trace.json";
}  // namespace

TEST_CASE("torch traces: each collective counted once though it is a CPU op and a kernel") {
  const auto text = read_file(kTrace);
  const long steps = occurrences(text, "\"ProfilerStep#");
  REQUIRE(steps == 2);
  for (const auto& [collective, torch_name] : {std::pair{"all_gather", "_allgather_base"},
                                              std::pair{"reduce_scatter", "_reduce_scatter_base"},
                                              std::pair{"all_reduce", "allreduce"}}) {
    INFO(collective);
    // Every call appears twice in the file: once as record_param_comms, once as its kernel.
    const long events = occurrences(text, std::string("\"Collective name\": \"") + torch_name + "\"");
    REQUIRE(events % 2 == 0);
    const auto profile = import_torch_trace(kTrace, 0);
    const auto* row = row_of(profile, collective);
    REQUIRE(row != nullptr);
    CHECK(row->calls == Approx(events / 2.0 / steps));
    CHECK(row->group.size == 2);
  }
}

TEST_CASE("torch traces: sizes from Out nelems for all-gather, In nelems otherwise; gzip reads the same") {
  const auto plain = import_torch_trace(kTrace, 0);
  const auto* ag = row_of(plain, "all_gather");
  REQUIRE(ag != nullptr);
  CHECK(ag->bytes == 12596224ull * 2);  // Out msg nelems x BFloat16
  CHECK(ag->dtype == &ncclsweep::data_type("bfloat16"));
  CHECK(row_of(plain, "reduce_scatter")->bytes == 12596224ull * 4);  // In msg nelems x Float
  CHECK(plain.per_iteration);
  const auto zipped = import_torch_trace(kFixtures + "/torch_trace.json.gz", 0);
  REQUIRE(zipped.uses.size() == plain.uses.size());
  for (std::size_t i = 0; i < plain.uses.size(); ++i) {
    CHECK(zipped.uses[i].bytes == plain.uses[i].bytes);
    CHECK(zipped.uses[i].calls == plain.uses[i].calls);
  }
}

TEST_CASE("truncated, non-trace and missing traces are refused by name") {
  const auto text = read_file(kTrace);
  const auto cut = temp_file("cut.json", text.substr(0, text.size() / 2));
  CHECK_THAT(usage_error_text([&] { import_torch_trace(cut, 0); }), ContainsSubstring(cut + ": not a complete JSON trace"));
  const auto gz = read_file(kFixtures + "/torch_trace.json.gz");
  const auto cut_gz = temp_file("cut.json.gz", gz.substr(0, gz.size() / 2));
  CHECK_THAT(usage_error_text([&] { import_torch_trace(cut_gz, 0); }), ContainsSubstring(cut_gz));
  const auto not_trace = kFixtures + "/not_a_trace.json";
  CHECK_THAT(usage_error_text([&] { import_torch_trace(not_trace, 0); }), ContainsSubstring("without a traceEvents array"));
  CHECK_THAT(usage_error_text([&] { import_torch_trace(kFixtures + "/none-*.json", 0); }), ContainsSubstring("no file matches"));
}
