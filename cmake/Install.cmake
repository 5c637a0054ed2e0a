# `cmake --install build --prefix P`: the CLI, the public headers (include/warpforge/) and a CMake package:
#   find_package(warpforge REQUIRED)
#   target_link_libraries(app PRIVATE warpforge::runtime)     # run plans: NVRTC + the driver, nothing else
#   target_link_libraries(app PRIVATE warpforge::generator)   # parse specs, verify, emit plans: no CUDA
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(warpforge_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(warpforge_generator PROPERTIES EXPORT_NAME generator)
set_target_properties(warpforge_plan PROPERTIES EXPORT_NAME plan)
set_target_properties(warpforge_layout PROPERTIES EXPORT_NAME layout)
set_target_properties(warpforge_complexmma PROPERTIES EXPORT_NAME complexmma)
foreach(t ${WARPFORGE_FAMILY_TARGETS})
  string(REPLACE "warpforge_" "" exported ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${exported})
endforeach()

install(TARGETS warpforge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS warpforge_plan warpforge_runtime warpforge_layout warpforge_complexmma warpforge_generator ${WARPFORGE_FAMILY_TARGETS}
        EXPORT warpforgeTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/warpforge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT warpforgeTargets NAMESPACE warpforge:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpforge)
configure_package_config_file(cmake/warpforgeConfig.cmake.in ${CMAKE_BINARY_DIR}/warpforgeConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpforge)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/warpforgeConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/warpforgeConfig.cmake ${CMAKE_BINARY_DIR}/warpforgeConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpforge)
