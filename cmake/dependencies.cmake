# Every package ncclsweep builds with, found one way for the build (CMakeLists.txt) and for
# scripts/setup's probe (cmake/setup-probe/), so that setup's verdict is the build's.
# Nothing here fails: it sets
#   NCCLSWEEP_MISSING        required packages not found, one entry each: "what|apt package"
#   NCCLSWEEP_FOUND          what was found, "name version" each, for setup's report
#   NCCLSWEEP_CATCH_TARGET   Catch2's target (empty when Catch2 is missing: no tests)
#   NCCLSWEEP_CATCH3         1 for Catch2 v3, 0 for v2
#   NCCLSWEEP_YAML_TARGET    yaml-cpp's target (its name changed in 0.8)
#   NCCLSWEEP_HAVE_NCCL      ON when the nccl engine can be built (CUDA and NCCL found)
# and the imported targets find_package makes. A Spack view or a module's prefix is found
# through CMAKE_PREFIX_PATH (the variable or the environment variable).
set(NCCLSWEEP_MISSING)
set(NCCLSWEEP_FOUND)

macro(_ncclsweep_found name version)
  list(APPEND NCCLSWEEP_FOUND "${name} ${version}")
endmacro()

set(MPI_CXX_SKIP_MPICXX ON)  # the C API only; the C++ bindings are deprecated
find_package(MPI QUIET COMPONENTS CXX)
if(MPI_CXX_FOUND)
  _ncclsweep_found(MPI "${MPI_CXX_VERSION}")
else()
  list(APPEND NCCLSWEEP_MISSING "MPI (C API, mpicxx)|libopenmpi-dev openmpi-bin")
endif()

find_package(CLI11 CONFIG QUIET)
if(CLI11_FOUND)
  _ncclsweep_found(CLI11 "${CLI11_VERSION}")
else()
  list(APPEND NCCLSWEEP_MISSING "CLI11|libcli11-dev")
endif()

find_package(nlohmann_json QUIET)
if(nlohmann_json_FOUND)
  _ncclsweep_found(nlohmann_json "${nlohmann_json_VERSION}")
else()
  list(APPEND NCCLSWEEP_MISSING "nlohmann_json|nlohmann-json3-dev")
endif()

find_package(yaml-cpp QUIET)
if(yaml-cpp_FOUND)
  _ncclsweep_found(yaml-cpp "${yaml-cpp_VERSION}")
  if(TARGET yaml-cpp::yaml-cpp)
    set(NCCLSWEEP_YAML_TARGET yaml-cpp::yaml-cpp)  # yaml-cpp 0.8 (Ubuntu 24.04)
  else()
    set(NCCLSWEEP_YAML_TARGET yaml-cpp)            # yaml-cpp 0.7 (Debian 12)
  endif()
else()
  list(APPEND NCCLSWEEP_MISSING "yaml-cpp|libyaml-cpp-dev")
endif()

find_package(ZLIB QUIET)  # gzip-compressed torch traces
if(ZLIB_FOUND)
  _ncclsweep_found(zlib "${ZLIB_VERSION_STRING}")
else()
  list(APPEND NCCLSWEEP_MISSING "zlib|zlib1g-dev")
endif()

# hwloc: topology and memory binding for `ncclsweep probe`'s NUMA figures (Open MPI
# already depends on it; libhwloc-dev is a Debian 12 and Ubuntu 24.04 package).
find_package(PkgConfig QUIET)
find_package(Threads QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(hwloc QUIET IMPORTED_TARGET hwloc)
endif()
if(hwloc_FOUND)
  _ncclsweep_found(hwloc "${hwloc_VERSION}")
elseif(NOT PkgConfig_FOUND)
  # hwloc is found through its pkg-config file; a minimal Debian has libhwloc-dev
  # without pkg-config (libhwloc-dev only recommends it).
  list(APPEND NCCLSWEEP_MISSING "hwloc (found through pkg-config, which is missing)|pkg-config libhwloc-dev")
else()
  list(APPEND NCCLSWEEP_MISSING "hwloc|libhwloc-dev")
endif()

# Tests only: without Catch2 the build goes on without them.
set(NCCLSWEEP_CATCH_TARGET)
set(NCCLSWEEP_CATCH3 0)
find_package(Catch2 3 QUIET CONFIG)
if(Catch2_FOUND)
  set(NCCLSWEEP_CATCH_TARGET Catch2::Catch2)  # tests/unit/catch_main.cpp is the main
  set(NCCLSWEEP_CATCH3 1)
else()
  find_package(Catch2 2 QUIET CONFIG)
  if(Catch2_FOUND)
    set(NCCLSWEEP_CATCH_TARGET Catch2::Catch2)
  endif()
endif()
if(Catch2_FOUND)
  _ncclsweep_found(Catch2 "${Catch2_VERSION}")
endif()

# Optional: the nccl engine.
set(NCCLSWEEP_HAVE_NCCL OFF)
if(NCCLSWEEP_WITH_NCCL)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit QUIET)
    find_package(NCCL QUIET)
    if(CUDAToolkit_FOUND AND NCCL_FOUND)
      set(NCCLSWEEP_HAVE_NCCL ON)
    endif()
  endif()
endif()
