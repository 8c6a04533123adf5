# Finds NCCL's header and library from one installation. Looks in NCCL_HOME first,
# then the system (libnccl-dev), then the CUDA toolkit (NVIDIA's installers, where the
# library sits in lib or lib64). Defines NCCL::nccl, NCCL_VERSION, NCCL_LIBRARY.
set(_nccl_hints)
if(DEFINED ENV{NCCL_HOME})
  list(APPEND _nccl_hints $ENV{NCCL_HOME})
endif()
if(NCCL_HOME)
  list(APPEND _nccl_hints ${NCCL_HOME})
endif()

find_library(NCCL_LIBRARY NAMES nccl HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64)
if(NOT NCCL_LIBRARY)
  find_library(NCCL_LIBRARY NAMES nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
               PATH_SUFFIXES lib lib64)
endif()
# The header that belongs to the library: look beside it first.
set(_nccl_header_hints ${_nccl_hints})
if(NCCL_LIBRARY)
  get_filename_component(_nccl_libdir ${NCCL_LIBRARY} DIRECTORY)
  get_filename_component(_nccl_prefix ${_nccl_libdir} DIRECTORY)
  list(APPEND _nccl_header_hints ${_nccl_prefix})
endif()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_header_hints} PATH_SUFFIXES include)
if(NOT NCCL_INCLUDE_DIR)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
endif()

if(NCCL_INCLUDE_DIR AND EXISTS ${NCCL_INCLUDE_DIR}/nccl.h)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_line ${_nccl_version_lines})
    if(_line MATCHES "^#define NCCL_(MAJOR|MINOR|PATCH) +([0-9]+)")
      set(_nccl_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
    endif()
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)
if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  # BEFORE the CUDA toolkit's include directory, which may hold another nccl.h.
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION ${NCCL_LIBRARY})
  target_include_directories(NCCL::nccl BEFORE INTERFACE ${NCCL_INCLUDE_DIR})
endif()
mark_as_advanced(NCCL_LIBRARY NCCL_INCLUDE_DIR)
