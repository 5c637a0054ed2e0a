# The Python module `warpforge` (python/): the package directory build/python/warpforge (importable from the build
# tree with PYTHONPATH=build/python), installed in the site-packages layout under the prefix. The interpreter is the
# one FindPython picks, or -DPython_EXECUTABLE=... (its headers are needed; libpython is not linked).
find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
if(Python_FOUND)
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 CONFIG QUIET)
endif()
if(NOT Python_FOUND OR NOT pybind11_FOUND)
  message(STATUS "warpforge: the Python module is not built (it needs pybind11-dev and Python's headers; -DWARPFORGE_PYTHON=OFF silences this)")
  set(WARPFORGE_PYTHON_MODULE OFF)
  return()
endif()
set(WARPFORGE_PYTHON_MODULE ON)

set(WARPFORGE_PYTHON_BUILD_DIR ${CMAKE_BINARY_DIR}/python)
pybind11_add_module(warpforge_python MODULE NO_EXTRAS python/module.cpp)
target_link_libraries(warpforge_python PRIVATE warpforge_generator warpforge_runtime fmt::fmt-header-only)
target_compile_options(warpforge_python PRIVATE ${WF_WARNINGS})
set_target_properties(warpforge_python PROPERTIES OUTPUT_NAME _warpforge LIBRARY_OUTPUT_DIRECTORY ${WARPFORGE_PYTHON_BUILD_DIR}/warpforge)
add_custom_command(TARGET warpforge_python POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${CMAKE_SOURCE_DIR}/python/warpforge/__init__.py ${WARPFORGE_PYTHON_BUILD_DIR}/warpforge/__init__.py)

# <prefix>/lib/python3.X/site-packages/warpforge, the module finding the libraries in <prefix>/lib relatively.
execute_process(COMMAND ${Python_EXECUTABLE} -c
  "import sysconfig; print(sysconfig.get_path('platlib', 'posix_prefix', {'base': '/', 'platbase': '/'}).lstrip('/'))"
  OUTPUT_VARIABLE _site OUTPUT_STRIP_TRAILING_WHITESPACE)
set(WARPFORGE_PYTHON_INSTALL_DIR ${_site} CACHE STRING "where the Python package goes, relative to the install prefix")
file(RELATIVE_PATH _to_lib /${WARPFORGE_PYTHON_INSTALL_DIR}/warpforge /${CMAKE_INSTALL_LIBDIR})
set_target_properties(warpforge_python PROPERTIES INSTALL_RPATH "$ORIGIN/${_to_lib}")
install(TARGETS warpforge_python LIBRARY DESTINATION ${WARPFORGE_PYTHON_INSTALL_DIR}/warpforge)
install(FILES python/warpforge/__init__.py DESTINATION ${WARPFORGE_PYTHON_INSTALL_DIR}/warpforge)
