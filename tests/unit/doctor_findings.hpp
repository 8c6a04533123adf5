#pragma once
// What the doctor tests ask of a list of findings: the ones of one check.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "doctor/checks.hpp"

inline std::vector<ncclsweep::doctor::Finding> with_check(const std::vector<ncclsweep::doctor::Finding>& all,
                                                          const std::string& check) {
  std::vector<ncclsweep::doctor::Finding> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [&](const ncclsweep::doctor::Finding& f) { return f.check == check; });
  return out;
}
