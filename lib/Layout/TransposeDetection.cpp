//===- TransposeDetection.cpp - When tiles through shared memory pay ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/TransposeDetection.h"

using namespace pointwise::layout;

std::optional<TransposedInput> pointwise::layout::findTransposedInput(
    const std::vector<std::vector<int64_t>> &strides, unsigned numOutputs,
    unsigned rank) {
  if (rank < 2 || numOutputs == 0 || strides.size() < numOutputs)
    return std::nullopt;
  for (unsigned output = 0; output < numOutputs; ++output)
    if (strides[output].size() != rank || strides[output].back() != 1)
      return std::nullopt;
  for (unsigned input = numOutputs; input < strides.size(); ++input) {
    const std::vector<int64_t> &operand = strides[input];
    if (operand.size() != rank || operand.back() == 1 || operand.back() == 0)
      continue;
    for (unsigned dim = 0; dim + 1 < rank; ++dim)
      if (operand[dim] == 1)
        return TransposedInput{input, dim};
  }
  return std::nullopt;
}
