#pragma once
// The search tests' grid: footprint x cache (6 points), every point but one slowed by a
// known factor (--inject-fault slow=F@POINT), so the true winner of every band is that one.
// Shared by the in-process search (tests/unit/test_search_in_process.cpp) and the mpirun
// one (tests/integration/test_search_launch.cpp).
#include <string>

namespace ncclsweep::testing {

inline const std::string kSearchWinner = "footprint=exact cache=warm";
inline const std::string kSearchBaseline = "footprint=largest cache=warm";
// Factors of 4 and 6: on the loaded CI machine one measurement can be 2-3x off, and a
// 3x-slowed baseline once measured faster than the winner in the final A/B.
inline const std::string kSearchSlowed =
    "slow=6@footprint=largest cache=warm;4@footprint=largest cache=flush;6@footprint=exact cache=flush;"
    "4@footprint=8388608 cache=warm;6@footprint=8388608 cache=flush";

}  // namespace ncclsweep::testing
