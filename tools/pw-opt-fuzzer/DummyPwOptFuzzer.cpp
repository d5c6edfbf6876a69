//===- DummyPwOptFuzzer.cpp - pw-opt-fuzzer without libFuzzer -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The main of pw-opt-fuzzer in builds without libFuzzer (any compiler): it
// runs the target once on each file named on the command line, so that the
// regular build replays a corpus or a crash reproducer.
//
//===----------------------------------------------------------------------===//

#include "llvm/FuzzMutate/FuzzerCLI.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char *argv[]) {
  return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput);
}
