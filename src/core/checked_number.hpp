#pragma once
// The one way ncclsweep reads a number from text (a flag, a file's cell or field): the
// whole text must be the number, finite and within the range its meaning allows. No
// bare std::stoi / std::stod, whose out_of_range would end the run as an internal error
// and which read "13x" as 13; no strtod that takes "nan" or "inf" for a measurement.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/errors.hpp"

namespace ncclsweep {

// The decimal integer `text` is in full ("-12", "4096"; no sign '+', no spaces, no hex),
// or nullopt when it is not one or does not fit in 64 bits.
std::optional<std::int64_t> parse_integer_text(std::string_view text);

// The finite decimal number `text` is in full ("1.5", "-2e3"); nullopt for nan, inf,
// hex, trailing characters or an overflow.
std::optional<double> parse_finite_text(std::string_view text);

// An integer within [lo, hi], or a UsageError: "<what> 'text' is not ..." at `where`.
std::int64_t checked_integer(std::string_view text, std::int64_t lo, std::int64_t hi, const std::string& what,
                             const SourcePosition& where = {});

// A finite number within [lo, hi], or a UsageError as above.
double checked_number(std::string_view text, double lo, double hi, const std::string& what,
                      const SourcePosition& where = {});

// A number already read (from JSON, a YAML node): refused when it is NaN, infinite or
// outside [lo, hi].
double checked_value(double value, double lo, double hi, const std::string& what, const SourcePosition& where = {});

}  // namespace ncclsweep
