#pragma once
// A run's name becomes one directory level under the results root and a string in
// run.json: a sweep file's `name:` and --name are checked here, where both are read.
#include <string>

namespace ncclsweep {

// Why `name` cannot be one directory level of a results path ("" when it can): it
// must not climb out of the results root (/, .., a leading dot) or hold control bytes.
std::string unsafe_run_name_reason(const std::string& name);

}  // namespace ncclsweep
