# `cmake --install`: bin/plumb; lib/libplumb.so (every plumb library in one shared object, the C
# API of include/plumb.h included); the headers under include/plumb (#include "plumb.h",
# #include "runtime/session.h" with -I<prefix>/include/plumb);
# a CMake package (find_package(plumb) -> imported target plumb::plumb); a pkg-config file
# (pkg-config --cflags --libs plumb); and the Python package plumb (PLUMB_PYTHON_DIR).
# tests/package/consumer.sh builds a separate project against the installed tree both ways.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PLUMB_LIBS plumb_ir plumb_runtime plumb_c plumb_check)
if(TARGET plumb_check_onnx)
  list(APPEND PLUMB_LIBS plumb_onnx plumb_lower plumb_check_onnx)
endif()

# libplumb.so: the objects of every plumb library (so every kernel, lowering rule and backend
# registration is in it). Linking the libraries too brings their own dependencies (protobuf,
# onnx, re2, oneDNN, ...), which stay shared; nothing of the archives is linked twice, as the
# objects already define all their symbols.
set(PLUMB_OBJECTS)
foreach(lib ${PLUMB_LIBS})
  list(APPEND PLUMB_OBJECTS $<TARGET_OBJECTS:${lib}>)
endforeach()
add_library(plumb_shared SHARED ${PLUMB_OBJECTS})
set_target_properties(plumb_shared PROPERTIES OUTPUT_NAME plumb VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib LINKER_LANGUAGE CXX)
target_link_libraries(plumb_shared PRIVATE ${PLUMB_LIBS})
target_include_directories(plumb_shared INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/plumb>)
if(TARGET plumb_onnx)
  target_compile_definitions(plumb_shared INTERFACE ONNX_ML=1 ONNX_NAMESPACE=onnx)
endif()
set_target_properties(plumb_shared PROPERTIES EXPORT_NAME plumb)

install(TARGETS plumb RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS plumb_shared EXPORT plumbTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(PLUMB_INC ${CMAKE_INSTALL_INCLUDEDIR}/plumb)
foreach(dir ir runtime runtime/cpu/ref check check/onnx frontends/onnx lowering/onnx)
  file(GLOB headers ${PROJECT_SOURCE_DIR}/${dir}/*.h)
  install(FILES ${headers} DESTINATION ${PLUMB_INC}/${dir})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/include/plumb.h DESTINATION ${PLUMB_INC})  # the C API: #include "plumb.h"
install(DIRECTORY ${PROJECT_SOURCE_DIR}/spec/ DESTINATION ${PLUMB_INC}/spec FILES_MATCHING PATTERN "*.def")
install(FILES ${PLUMB_FBS_HEADER} DESTINATION ${PLUMB_INC}/ir/schema)
install(FILES ${PLUMB_GEN_DIR}/runtime/backends.def DESTINATION ${PLUMB_INC}/runtime)

set(PLUMB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/plumb)
install(EXPORT plumbTargets NAMESPACE plumb:: DESTINATION ${PLUMB_CMAKE_DIR})
file(WRITE ${CMAKE_BINARY_DIR}/package/plumbConfig.cmake.in
     "@PACKAGE_INIT@\ninclude(\"\${CMAKE_CURRENT_LIST_DIR}/plumbTargets.cmake\")\ncheck_required_components(plumb)\n")
configure_package_config_file(${CMAKE_BINARY_DIR}/package/plumbConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/plumbConfig.cmake INSTALL_DESTINATION ${PLUMB_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/plumbConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/plumbConfig.cmake ${CMAKE_BINARY_DIR}/package/plumbConfigVersion.cmake
        DESTINATION ${PLUMB_CMAKE_DIR})

set(PLUMB_PC_CFLAGS "")
if(TARGET plumb_onnx)
  set(PLUMB_PC_CFLAGS "-DONNX_ML=1 -DONNX_NAMESPACE=onnx")
endif()
file(WRITE ${CMAKE_BINARY_DIR}/package/plumb.pc.in
     "prefix=\${pcfiledir}/../..\nincludedir=\${prefix}/@PLUMB_INC@\nlibdir=\${prefix}/@CMAKE_INSTALL_LIBDIR@\n\n"
     "Name: plumb\nDescription: Model converter validation: a frozen core op set, ONNX lowering and a reference interpreter\n"
     "Version: @PROJECT_VERSION@\nCflags: -I\${includedir} @PLUMB_PC_CFLAGS@\nLibs: -L\${libdir} -Wl,-rpath,\${libdir} -lplumb\n")
configure_file(${CMAKE_BINARY_DIR}/package/plumb.pc.in ${CMAKE_BINARY_DIR}/package/plumb.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/plumb.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Python package: the interpreter's own dist-packages for prefix /usr, else
# <prefix>/lib/pythonX.Y/dist-packages (Debian's path for /usr/local; put it on PYTHONPATH otherwise).
if(TARGET plumb_python)
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(PLUMB_PYTHON_DIR_DEFAULT lib/python3/dist-packages)
  else()
    set(PLUMB_PYTHON_DIR_DEFAULT lib/python${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}/dist-packages)
  endif()
  set(PLUMB_PYTHON_DIR ${PLUMB_PYTHON_DIR_DEFAULT} CACHE STRING "Where, under the prefix, the Python package goes")
  install(TARGETS plumb_python LIBRARY DESTINATION ${PLUMB_PYTHON_DIR}/plumb)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/plumb/ DESTINATION ${PLUMB_PYTHON_DIR}/plumb
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()
