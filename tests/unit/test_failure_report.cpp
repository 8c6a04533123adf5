// Every exception that can reach the top becomes one message and an exit status, and
// environment values that are not UTF-8 can still be recorded in JSON.
#include <filesystem>
#include <new>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"

using namespace ncclsweep;

namespace {

template <typename Error>
FailureReport report_of(Error error) {
  return describe_failure(std::make_exception_ptr(error));
}

}  // namespace

TEST_CASE("bad input is exit 2, every other failure exit 3, each with what failed") {
  const FailureReport usage = report_of(UsageError("bad size '4Q'", "use K, M or G"));
  CHECK(usage.status == kExitUsage);
  CHECK(usage.message == "bad size '4Q'\n  fix: use K, M or G");
  const FailureReport runtime = report_of(RuntimeFailure("MPI_Bcast", "peer gone"));
  CHECK(runtime.status == kExitRuntime);
  CHECK(runtime.message == "MPI_Bcast failed: peer gone");
  const FailureReport disk = report_of(std::filesystem::filesystem_error(
      "cannot create directories", "/r/nccl-logs", std::make_error_code(std::errc::no_space_on_device)));
  CHECK(disk.status == kExitRuntime);
  CHECK_THAT(disk.message, ContainsSubstring("file system: "));
  CHECK_THAT(disk.message, ContainsSubstring("/r/nccl-logs"));
  CHECK_THAT(disk.message, ContainsSubstring("No space left on device"));
  // The JSON error nlohmann throws for bytes that are not UTF-8.
  FailureReport json;
  try {
    (void)nlohmann::json(std::string("caf\xe9")).dump();
  } catch (...) {
    json = describe_failure(std::current_exception());
  }
  CHECK(json.status == kExitRuntime);
  CHECK_THAT(json.message, ContainsSubstring("JSON: [json.exception.type_error.316]"));
  CHECK(report_of(std::bad_alloc()).message == "out of host memory (std::bad_alloc)");
  const FailureReport other = report_of(std::out_of_range("map::at"));
  CHECK(other.status == kExitRuntime);
  CHECK(other.message == "map::at (std::out_of_range)");
  const FailureReport unknown = report_of(42);
  CHECK(unknown.status == kExitRuntime);
  CHECK(unknown.message == "an exception of an unknown type");
}

TEST_CASE("bytes that are not UTF-8 are escaped as \\xNN; valid text is unchanged") {
  CHECK(escape_invalid_utf8("ib0:1,caf\xc3\xa9") == "ib0:1,caf\xc3\xa9");
  CHECK(escape_invalid_utf8("caf\xe9-\xff") == "caf\\xe9-\\xff");
  CHECK(escape_invalid_utf8("\xc0\xaf") == "\\xc0\\xaf");          // an overlong '/'
  CHECK(escape_invalid_utf8("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  CHECK(escape_invalid_utf8("\xe2\x82") == "\\xe2\\x82");          // cut short
  std::string entry = "NCCL_HOSTID=caf\xe9";
  char* envp[] = {entry.data(), nullptr};
  const auto recorded = environment_with_prefixes(envp, {"NCCL_"});
  REQUIRE(recorded.count("NCCL_HOSTID") == 1);
  CHECK(recorded.at("NCCL_HOSTID") == "caf\\xe9");
  CHECK_NOTHROW(nlohmann::json(recorded).dump());
  CHECK(environment_map(envp).at("NCCL_HOSTID") == "caf\xe9");  // a child still gets the bytes
}
