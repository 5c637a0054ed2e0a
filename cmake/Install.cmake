# `cmake --install build --prefix P`: the CLI, the shared libraries, the public headers (include/warpforge/), the
# Python module (cmake/Python.cmake) and a relocatable CMake package (no absolute paths; move P anywhere):
#   find_package(warpforge REQUIRED)
#   target_link_libraries(app PRIVATE warpforge::runtime)     # run plans (plan files, the plan cache): NVRTC + the driver
#   target_link_libraries(app PRIVATE warpforge::generator)   # parse specs, verify, emit plans: no CUDA
include(CMakePackageConfigHelpers)

set_target_properties(warpforge_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(warpforge_generator PROPERTIES EXPORT_NAME generator)
set_target_properties(warpforge_plan PROPERTIES EXPORT_NAME plan)

install(TARGETS warpforge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS warpforge_plan warpforge_runtime warpforge_generator EXPORT warpforgeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
install(DIRECTORY include/warpforge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES LICENSE docs/dependencies.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/warpforge)
install(EXPORT warpforgeTargets NAMESPACE warpforge:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpforge)
configure_package_config_file(cmake/warpforgeConfig.cmake.in ${CMAKE_BINARY_DIR}/warpforgeConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpforge)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/warpforgeConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/warpforgeConfig.cmake ${CMAKE_BINARY_DIR}/warpforgeConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpforge)
