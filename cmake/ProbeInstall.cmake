# install(): headers, the exported target probe::probe, and a package config so that
# find_package(probe) works from the install prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS probe probe_compiled EXPORT probeTargets)
if(PROBE_WITH_CUDA)
  install(TARGETS probe_cuda EXPORT probeTargets)
endif()
install(DIRECTORY include/probe DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT probeTargets NAMESPACE probe:: DESTINATION ${CMAKE_INSTALL_DATADIR}/probe/cmake)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/probeConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/probeConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/probe/cmake)
# Header-only: any architecture can use it.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/probeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/probeConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/probeConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_DATADIR}/probe/cmake)
