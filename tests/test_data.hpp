#pragma once
// Where the fixtures are, for the test programs built with NCCLSWEEP_TEST_DATA (tests/data).
// One definition for every test file: the tests build as unity sources, where a copy per
// file would collide.
#include <filesystem>

inline const std::filesystem::path kTestData = NCCLSWEEP_TEST_DATA;
inline const std::filesystem::path kNcclTestsData = kTestData / "nccl-tests";  // nccl-tests output tables
inline const std::filesystem::path kRecommendData = kTestData / "recommend";   // fabricated sweeps for recommend
