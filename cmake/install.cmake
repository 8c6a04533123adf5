# `cmake --install BUILD --prefix P` puts the binary in P/bin and the data it reads in
# P/share/ncclsweep (configs/models, configs/workloads, configs/systems, the example
# sweeps/ and the Slurm template), and the GPU module in P/lib/ncclsweep;
# src/cli/data_dir.cpp and src/doctor/gpu_module.cpp find them from the binary's own path,
# so these paths must keep their relation. `cpack -G DEB` packages the same
# tree for /usr.
install(TARGETS ncclsweep RUNTIME DESTINATION bin)
# The GPU module, which the binary loads from ../lib/ncclsweep (src/doctor/gpu_module.cpp).
if(NCCLSWEEP_HAVE_NCCL)
  install(TARGETS ncclsweep_gpu LIBRARY DESTINATION ${NCCLSWEEP_GPU_MODULE_DIR})
endif()
install(DIRECTORY configs/models configs/workloads configs/systems DESTINATION share/ncclsweep/configs)
install(DIRECTORY sweeps/ DESTINATION share/ncclsweep/sweeps)
install(FILES scripts/slurm/ncclsweep.sbatch DESTINATION share/ncclsweep/slurm)
install(FILES README.md DESTINATION share/doc/ncclsweep)
# MPI, NCCL and the CUDA runtime may live outside the loader's paths (/usr/local/cuda/lib,
# a Spack prefix): the installed binary and module keep the directories they were linked against.
set_target_properties(ncclsweep PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# ---- the .deb: runtime dependencies named as Debian 12 and Ubuntu 24.04 call them ----
# (CLI11, nlohmann_json and Catch2 are header-only or test-only: nothing to depend on.)
if(yaml-cpp_VERSION MATCHES "^([0-9]+\\.[0-9]+)")
  set(_yaml_package "libyaml-cpp${CMAKE_MATCH_1}")
else()
  set(_yaml_package "libyaml-cpp0.7 | libyaml-cpp0.8")
endif()
# Ubuntu 24.04 renamed Open MPI's library package for the 64-bit time_t transition.
set(_depends "openmpi-bin, libopenmpi3 | libopenmpi3t64, ${_yaml_package}, zlib1g, libhwloc15")
if(NCCLSWEEP_HAVE_NCCL)
  # NVIDIA's package names (their CUDA repository): NCCL's runtime and the CUDA runtime.
  string(APPEND _depends ", libnccl2, cuda-cudart-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
  # cuBLAS: ncclsweep probe's GEMM under load.
  string(APPEND _depends ", libcublas-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
endif()
set(CPACK_PACKAGE_NAME ncclsweep)
set(CPACK_PACKAGE_VENDOR ncclsweep)
set(CPACK_PACKAGE_CONTACT "ncclsweep maintainers <ncclsweep@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NCCL collective benchmark sweeps: workload sizes, settings, comparisons")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_depends}")
include(CPack)
