# install(): headers, the exported targets (probe::probe, header-only; probe::compiled, the
# static library; their CUDA twins when CUDA was found) and a package config, so that
# find_package(probe) works from the install prefix. The package holds a compiled library,
# so it lives under LIBDIR (per architecture), not DATADIR.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PROBE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/probe)
install(TARGETS probe probe_compiled EXPORT probeTargets)
# The CUDA twins in an export set of their own, loaded where the consumer's project finds the
# CUDA toolkit: a package built on a machine with CUDA is still whole on one without.
if(PROBE_WITH_CUDA)
  install(TARGETS probe_cuda probe_compiled_cuda EXPORT probeCudaTargets)
  install(EXPORT probeCudaTargets NAMESPACE probe:: DESTINATION ${PROBE_CMAKE_DIR})
endif()
# probe::mpi (libprobe_mpi.a), where MPI was found, in an export set of its own: the package
# loads it only where the consumer's project finds MPI for C++, so a project without C++ or
# without MPI still finds probe.
if(TARGET probe_mpi)
  install(TARGETS probe_mpi EXPORT probeMpiTargets)
  install(EXPORT probeMpiTargets NAMESPACE probe:: DESTINATION ${PROBE_CMAKE_DIR})
  set(PROBE_WITH_MPI ON)
else()
  set(PROBE_WITH_MPI OFF)
endif()
install(DIRECTORY include/probe DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT probeTargets NAMESPACE probe:: DESTINATION ${PROBE_CMAKE_DIR})

# What a C linker must add for the C++ inside libprobe.a (probe::c in the package).
set(PROBE_CXX_RUNTIME_LIBS "${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES}")
set(PROBE_CXX_RUNTIME_DIRS "${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES}")
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/probeConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/probeConfig.cmake
  INSTALL_DESTINATION ${PROBE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/probeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/probeConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/probeConfigVersion.cmake
        DESTINATION ${PROBE_CMAKE_DIR})
