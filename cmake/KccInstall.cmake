# Install rules, the exported CMake package and the CPack .deb.
#   cmake --install build --prefix /opt/kcc    then, in another project:
#   find_package(kcc CONFIG REQUIRED)          (CMAKE_PREFIX_PATH=/opt/kcc)
#   cpack --config build/CPackConfig.cmake     kcc_<version>_<arch>.deb
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KCC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kcc)

install(EXPORT kccTargets NAMESPACE kcc::
        DESTINATION ${KCC_INSTALL_CMAKEDIR} COMPONENT kcc)
configure_package_config_file(
  ${CMAKE_SOURCE_DIR}/cmake/kccConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/kccConfig.cmake
  INSTALL_DESTINATION ${KCC_INSTALL_CMAKEDIR})
# Before 1.0 a minor version may change the stubs' ABI.
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/cmake/kccConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/kccConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/kccConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/KccKernelLibrary.cmake
        DESTINATION ${KCC_INSTALL_CMAKEDIR} COMPONENT kcc)

# The bundled kernels and the language reference, as examples.
file(GLOB KCC_KERNEL_SOURCES ${CMAKE_SOURCE_DIR}/kernels/*.kc)
install(FILES ${KCC_KERNEL_SOURCES}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kcc/kernels COMPONENT kcc)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/language.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT kcc)

set(CPACK_PACKAGE_NAME kcc)
set(CPACK_PACKAGE_VENDOR "kcc developers")
set(CPACK_PACKAGE_CONTACT "kcc developers <kcc@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "ahead-of-time GPU kernel compiler (tile language to NVIDIA fatbins and launch stubs)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# libMLIR/libLLVM 22 and the C++ runtime, found by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake (>= 3.20)")
# ptxas and fatbinary come from a CUDA toolkit (/usr/local/cuda or CUDA_PATH);
# programs using the HIP stubs link libamdhip64.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit, libamdhip64-dev")
include(CPack)
