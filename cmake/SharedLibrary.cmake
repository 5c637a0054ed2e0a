# warpforge_shared_library(<target>): a versioned shared library (libwarpforge_x.so.MAJOR.MINOR -> .so.MAJOR.MINOR.PATCH;
# the SONAME carries MAJOR.MINOR while the major version is 0) that finds its sibling libraries through a relative
# RUNPATH, so an installed prefix can be moved.
# Its calls to functions it defines bind to its own definitions (-Bsymbolic-functions). Without it, a template
# instantiation that another library in the process exports first replaces ours: PyTorch's libraries (libtorch_cpu,
# libc10, ...) export std::regex's compiler and are loaded with RTLD_GLOBAL, and our calls into it crashed there.
function(warpforge_shared_library target)
  set_target_properties(${target} PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    INSTALL_RPATH "$ORIGIN")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${target} PRIVATE "LINKER:-Bsymbolic-functions")
  endif()
endfunction()

# warpforge_generator_id(<out.cpp>): generatorVersion() and generatorId() (the version and a hash of every source
# the generator's output depends on), regenerated whenever one of them changes. The plan cache keys on the id, so a
# plan cached by another build of the generator is never taken for this one's.
function(warpforge_generator_id out)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS
       ${CMAKE_SOURCE_DIR}/generator/*.cpp ${CMAKE_SOURCE_DIR}/generator/*.h ${CMAKE_SOURCE_DIR}/generator/*.cmake
       ${CMAKE_SOURCE_DIR}/ast/*.cpp ${CMAKE_SOURCE_DIR}/ast/*.h ${CMAKE_SOURCE_DIR}/templates/*.cuh ${CMAKE_SOURCE_DIR}/templates/*.h
       ${CMAKE_SOURCE_DIR}/include/warpforge/*.h)
  list(SORT sources)
  set(list_file ${CMAKE_BINARY_DIR}/generated/GeneratorSources.txt)
  file(WRITE ${list_file}.new "${sources}")
  file(COPY_FILE ${list_file}.new ${list_file} ONLY_IF_DIFFERENT)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DLIST=${list_file} -DROOT=${CMAKE_SOURCE_DIR} -DVERSION=${PROJECT_VERSION}
            -P ${CMAKE_SOURCE_DIR}/cmake/GeneratorId.cmake
    DEPENDS ${sources} ${list_file} ${CMAKE_SOURCE_DIR}/cmake/GeneratorId.cmake
    COMMENT "Hashing the generator's sources (the plan cache's key)")
endfunction()
