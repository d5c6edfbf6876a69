# Helpers shared by the project's CMake files.

# Every MLIR-facing target links the shared libMLIR/libLLVM (seconds to link on
# two cores) instead of hundreds of static archives.
function(pointwise_link_mlir target)
  target_link_libraries(${target} PUBLIC MLIR LLVM)
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
