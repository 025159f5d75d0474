# FindNCCL: NVIDIA's collective communication library, for the optional histtune::nccl component.
#
# Looks in, in order: NCCL_ROOT (a CMake or environment variable: a prefix with include/nccl.h and
# lib/libnccl.so*), the CUDA toolkit (which ships NCCL in recent releases), the system paths, and
# the nvidia-nccl-cu* Python wheel of the Python on PATH (site-packages/nvidia/nccl). The wheel has
# only libnccl.so.2, no libnccl.so link: that name is searched too.
#
# Defines NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION and the imported target
# NCCL::nccl (shared: the binary takes whatever libnccl.so.2 the loader finds at run time, the
# wheel's included, through LD_LIBRARY_PATH).
set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_hints ${CUDAToolkit_LIBRARY_ROOT})
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(_dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    get_filename_component(_up ${_dir} DIRECTORY)
    list(APPEND _nccl_hints ${_up})
  endforeach()
endif()
# The wheel, last: asked of the Python on PATH only when nothing else has NCCL.
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
if(NOT NCCL_INCLUDE_DIR)
  find_program(_nccl_python NAMES python3 python)
  if(_nccl_python)
    execute_process(COMMAND ${_nccl_python} -c
      "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))"
      OUTPUT_VARIABLE _nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_nccl_wheel)
      list(APPEND _nccl_hints ${_nccl_wheel})
      find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
    endif()
  endif()
endif()
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
  HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu lib/sbsa-linux)

if(NCCL_INCLUDE_DIR AND EXISTS ${NCCL_INCLUDE_DIR}/nccl.h)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_part} +([0-9]+)" _m "${_nccl_lines}")
    set(_nccl_${_part} ${CMAKE_MATCH_1})
  endforeach()
  set(NCCL_VERSION ${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH})
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
  VERSION_VAR NCCL_VERSION)
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)

if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl SHARED IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES
    IMPORTED_LOCATION ${NCCL_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
endif()
