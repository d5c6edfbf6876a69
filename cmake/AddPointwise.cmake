# Helpers shared by the project's CMake files.

# Every MLIR-facing target links the shared libMLIR/libLLVM (seconds to link on
# two cores) instead of hundreds of static archives.
function(pointwise_link_mlir target)
  target_link_libraries(${target} PUBLIC MLIR LLVM)
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
