# Strict warnings for probe's own targets (never imposed on users of the probe target).
add_library(probe_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set(PROBE_WARNING_FLAGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Werror)
  target_compile_options(probe_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${PROBE_WARNING_FLAGS}>)
  # The compiled library too, when probe builds its own tests: the suite's optimized build of
  # src/ is then the check of a user's usual one (-O2, C++17). As compile options, not a link
  # to probe_warnings, so that the installed package does not name this target.
  if(PROJECT_IS_TOP_LEVEL AND PROBE_BUILD_TESTS)
    foreach(lib probe_compiled probe_compiled_cuda probe_mpi)
      if(TARGET ${lib})
        target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${PROBE_WARNING_FLAGS}>)
      endif()
    endforeach()
  endif()
endif()
