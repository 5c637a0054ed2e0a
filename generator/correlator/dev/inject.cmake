# Private dev build of the correlator family (not part of the project's build):
#   cmake -S . -B build-corr -DCMAKE_PROJECT_INCLUDE=$PWD/generator/correlator/dev/inject.cmake
# Once the top-level CMakeLists.txt is processed, targets.cmake adds the family library
# (from family.cmake or family.cmake.wip) and the correlator test executables.
set(_corr_targets "${CMAKE_CURRENT_LIST_DIR}/targets.cmake")
cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\" CALL include \"${_corr_targets}\")")
