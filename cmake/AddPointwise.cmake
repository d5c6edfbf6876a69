# Helpers shared by the project's CMake files.

# Every MLIR-facing target links the shared libMLIR/libLLVM (seconds to link on
# two cores) instead of hundreds of static archives.
function(pointwise_link_mlir target)
  target_link_libraries(${target} PUBLIC MLIR LLVM)
endfunction()

# add_pointwise_library(name source... [ADDITIONAL_HEADER_DIRS dir...]
#                       [DEPENDS target...] [LINK_LIBS PUBLIC lib...])
# A library of the compiler, with add_mlir_library's arguments: built as
# add_mlir_library builds one, linked against the shared libMLIR, installed,
# and part of the installed package's Pointwise::Pointwise (its own target
# there is Pointwise::<name without the Pointwise prefix>). Its object files
# join POINTWISE_COMPILER_OBJECTS, which the statically linked targets link.
# add_mlir_library's own installation is turned off: it would put the library
# into MLIR's export set.
function(add_pointwise_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  pointwise_link_mlir(${name})
  pointwise_install_target(${name})
  set_property(GLOBAL APPEND PROPERTY POINTWISE_PACKAGE_LIBRARIES ${name})
  set_property(GLOBAL APPEND PROPERTY POINTWISE_COMPILER_OBJECTS
    "$<TARGET_OBJECTS:obj.${name}>")
endfunction()

# pointwise_install_target(target [EXPORT_NAME name])
# Installs `target` (an executable into bin/, a library or plugin into lib/)
# and adds it to the export set of lib/cmake/pointwise, where CMake projects
# find it as Pointwise::<name>; `name` defaults to the target's without its
# Pointwise prefix (PointwiseRuntime is Pointwise::Runtime). Include
# directories the target gives its users name the source or build tree: the
# installed target names the prefix's include/ instead. Installed libraries
# find the project's shared libraries next to them and executables in
# ../lib; both find MLIR's where the build found them.
function(pointwise_install_target target)
  cmake_parse_arguments(ARG "" "EXPORT_NAME" "" ${ARGN})
  if(NOT ARG_EXPORT_NAME)
    string(REGEX REPLACE "^Pointwise(.)" "\\1" ARG_EXPORT_NAME ${target})
  endif()
  set_target_properties(${target} PROPERTIES
    EXPORT_NAME ${ARG_EXPORT_NAME}
    INSTALL_RPATH_USE_LINK_PATH ON)

  get_target_property(type ${target} TYPE)
  get_target_property(rpath ${target} INSTALL_RPATH)
  if(NOT rpath)
    set(rpath)
  endif()
  if(type STREQUAL "EXECUTABLE")
    list(APPEND rpath "\$ORIGIN/../lib")
  elseif(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    list(APPEND rpath "\$ORIGIN")
  endif()
  list(REMOVE_DUPLICATES rpath)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${rpath}")

  get_target_property(include_dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(include_dirs)
    list(TRANSFORM include_dirs PREPEND "$<BUILD_INTERFACE:")
    list(TRANSFORM include_dirs APPEND ">")
    set_target_properties(${target} PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${include_dirs}")
  endif()

  set(includes)
  if(type MATCHES "^(STATIC|SHARED|INTERFACE)_LIBRARY$")
    set(includes INCLUDES DESTINATION include)
  endif()
  install(TARGETS ${target} EXPORT PointwiseTargets
    RUNTIME DESTINATION bin
    LIBRARY DESTINATION lib
    ARCHIVE DESTINATION lib
    ${includes})
  set_property(GLOBAL APPEND PROPERTY POINTWISE_INSTALLED_TARGETS ${target})
endfunction()

# pointwise_link_mlir_static(target)
# Links MLIR and LLVM into `target` statically instead, for machines without
# them (the GPU machine of test/gpu-bundle/gpu-bundle.sh, Python wheels): needs
# libzstd-dev and zlib1g-dev. Debian's MLIR archives name the shared
# libLLVM/libMLIR in their CMake link interfaces, so the archives are linked
# by path, in one group: the linker takes from them only what the target
# references. lld is used when installed (the link is long); sections
# nothing references are dropped and the result is stripped.
function(pointwise_link_mlir_static target)
  find_package(zstd REQUIRED)
  find_package(ZLIB REQUIRED)
  file(GLOB archives
    ${LLVM_LIBRARY_DIR}/libMLIR*.a ${LLVM_LIBRARY_DIR}/libLLVM*.a)
  list(FILTER archives EXCLUDE REGEX "libMLIR(Test|CAPI)")
  target_link_libraries(${target} PRIVATE
    -Wl,--start-group ${archives} -Wl,--end-group
    ZLIB::ZLIB
    zstd::libzstd_shared
    ${CMAKE_DL_LIBS}
    pthread
    m
    )
  find_program(POINTWISE_LLD NAMES ld.lld PATHS ${LLVM_TOOLS_BINARY_DIR}
    NO_DEFAULT_PATH)
  if(POINTWISE_LLD)
    get_filename_component(lld_dir ${POINTWISE_LLD} DIRECTORY)
    target_link_options(${target} PRIVATE "-B${lld_dir}/" "-fuse-ld=lld")
  endif()
  target_link_options(${target} PRIVATE "LINKER:--gc-sections" "-s")
endfunction()

# add_pointwise_unittest(name source...)
# A GoogleTest executable placed under the build's test/Unit tree, where the
# lit GoogleTest suite finds and runs it as part of check-pointwise.
function(add_pointwise_unittest name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_property(GLOBAL APPEND PROPERTY POINTWISE_UNITTESTS ${name})
endfunction()
