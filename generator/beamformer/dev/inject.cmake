# Private dev build of the beamformer family (not part of the project's build):
#   cmake -S . -B build-bf -DCMAKE_PROJECT_INCLUDE=$PWD/generator/beamformer/dev/inject.cmake
# Once the top-level CMakeLists.txt is processed, targets.cmake adds the family library
# (from family.cmake.wip while the family is not registered) and the beamformer test executables.
set(_bf_targets "${CMAKE_CURRENT_LIST_DIR}/targets.cmake")
cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\" CALL include \"${_bf_targets}\")")
