// Catch2 v2 needs one translation unit to provide main; v3 links Catch2WithMain instead.
#if !NCCLSWEEP_CATCH3
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
