#include "core/failure_report.hpp"

#include <cxxabi.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <new>
#include <typeinfo>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

// "std::runtime_error" rather than "St13runtime_error": the type tells a reader where to look.
std::string type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                    &std::free);
  return status == 0 && name ? name.get() : type.name();
}

}  // namespace

FailureReport describe_failure(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const UsageError& e) {
    return {kExitUsage, e.message()};
  } catch (const RuntimeFailure& e) {
    return {kExitRuntime, e.call() + " failed: " + e.what()};
  } catch (const std::filesystem::filesystem_error& e) {
    // what() names the operation, the paths and the system's reason.
    return {kExitRuntime, std::string("file system: ") + e.what()};
  } catch (const nlohmann::json::exception& e) {
    // Input files are checked where they are read (bad input, exit 2); one reaching
    // here is data ncclsweep itself could not write or read back.
    return {kExitRuntime, std::string("JSON: ") + e.what()};
  } catch (const std::bad_alloc&) {
    return {kExitRuntime, "out of host memory (std::bad_alloc)"};
  } catch (const std::exception& e) {
    return {kExitRuntime, std::string(e.what()) + " (" + type_name(typeid(e)) + ")"};
  } catch (...) {
    return {kExitRuntime, "an exception of an unknown type"};
  }
}

void print_error_line(const std::string& line) {
  std::cout.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  const std::string text = line + "\n";
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // stderr is gone: nothing left to tell
    written += static_cast<std::size_t>(n);
  }
}

void print_error(const std::string& message) { print_error_line("ncclsweep: error: " + printable_message(message)); }

void print_rank_error(int rank, const std::string& host, const std::string& message) {
  print_error_line("ncclsweep: error on rank " + std::to_string(rank) + (host.empty() ? "" : " (" + host + ")") + ": " +
                   printable_message(message));
}

}  // namespace ncclsweep
