//===- LayoutQueries.cpp - The layout library's rules for callers ---------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The layout library's rules for callers other than pwFamilyLaunch, from the
// same library that it and the passes use:
//
//   * pwPlanOutputLayout: what a front end (the Python package) needs before
//     a launch whose outputs it allocates: the broadcast of the inputs'
//     shapes and dense strides for new outputs in the inputs' memory order;
//   * pwCheckMapOverlap: the output overlap checks of a map whose operands a
//     compiled program computed, called from the code that the pass
//     pw-runtime-overlap-checks puts before the map.
//
//===----------------------------------------------------------------------===//

#include "ErrorState.h"
#include "Pointwise/Layout/Broadcast.h"
#include "Pointwise/Layout/DenseLayout.h"
#include "Pointwise/Runtime/Runtime.h"

#include "Pointwise/Layout/Overlap.h"

#include <algorithm>
#include <cstdio>

using namespace pointwise::layout;
using namespace pointwise::runtime;

pwStatus pwPlanOutputLayout(int32_t numInputs, const int32_t *ranks,
                            const int64_t *sizes, const int64_t *strides,
                            int32_t capacity, int32_t *rank, int64_t *shape,
                            int64_t *outputStrides) {
  if (numInputs < 0 || capacity < 0)
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwPlanOutputLayout: negative count");
  if (!rank || (capacity > 0 && (!shape || !outputStrides)) ||
      (numInputs > 0 && !ranks))
    return recordNullArgument("pwPlanOutputLayout", "an array argument");
  std::vector<StridedLayout> inputs(numInputs);
  std::vector<std::vector<int64_t>> shapes(numInputs);
  size_t next = 0;
  for (int32_t i = 0; i < numInputs; ++i) {
    if (ranks[i] < 0)
      return recordError(PW_ERROR_INVALID_VALUE, "pwPlanOutputLayout: input " +
                                                     std::to_string(i) +
                                                     " has a negative rank");
    if (ranks[i] > 0 && (!sizes || !strides))
      return recordNullArgument("pwPlanOutputLayout", "sizes or strides");
    inputs[i].sizes.assign(sizes + next, sizes + next + ranks[i]);
    inputs[i].strides.assign(strides + next, strides + next + ranks[i]);
    shapes[i] = inputs[i].sizes;
    next += ranks[i];
  }
  LayoutResult<std::vector<int64_t>> iteration = broadcastShapes(shapes);
  if (!iteration)
    return recordError(PW_ERROR_LAYOUT,
                       "the inputs' shapes do not broadcast: " +
                           iteration.error());
  if (iteration->size() > static_cast<size_t>(capacity))
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwPlanOutputLayout: the iteration rank " +
                           std::to_string(iteration->size()) +
                           " exceeds the capacity " + std::to_string(capacity));
  LayoutResult<std::vector<int64_t>> dense =
      computeOutputStrides(*iteration, inputs);
  if (!dense)
    return recordError(PW_ERROR_LAYOUT, dense.error());
  *rank = static_cast<int32_t>(iteration->size());
  std::copy(iteration->begin(), iteration->end(), shape);
  std::copy(dense->begin(), dense->end(), outputStrides);
  return PW_SUCCESS;
}

namespace {

/// Reads the packet of pwCheckMapOverlap into layouts and buffers, or says
/// what is wrong with it (a defect of the code that built it).
class OverlapPacket {
public:
  OverlapPacket(const int64_t *words, int64_t size, int64_t stride)
      : words(words), size(size), stride(stride) {}

  /// The message of a malformed packet, "" if it was read.
  std::string read(std::vector<StridedLayout> &operands,
                   std::vector<OperandBuffer> &buffers, unsigned &numOutputs) {
    int64_t outputs, count;
    if (!next(outputs) || !next(count))
      return "shorter than its two counts";
    if (count < 0 || count > kMaxOperands || outputs < 0 || outputs > count)
      return "its counts (" + std::to_string(outputs) + " outputs of " +
             std::to_string(count) + " operands) are out of range";
    numOutputs = static_cast<unsigned>(outputs);
    operands.resize(count);
    buffers.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      int64_t address, elementBytes, rank;
      if (!next(address) || !next(elementBytes) || !next(rank) ||
          !next(operands[i].offset))
        return "operand #" + std::to_string(i) + " is cut short";
      if (elementBytes < 1 || rank < 0 || rank > kMaxRank)
        return "operand #" + std::to_string(i) + " has element size " +
               std::to_string(elementBytes) + " and rank " +
               std::to_string(rank);
      buffers[i] = {static_cast<uint64_t>(address), elementBytes};
      operands[i].sizes.resize(rank);
      operands[i].strides.resize(rank);
      for (int64_t &value : operands[i].sizes)
        if (!next(value))
          return "operand #" + std::to_string(i) + " is cut short";
      for (int64_t &value : operands[i].strides)
        if (!next(value))
          return "operand #" + std::to_string(i) + " is cut short";
    }
    if (position != size)
      return std::to_string(size - position) + " words are left over";
    return "";
  }

private:
  bool next(int64_t &value) {
    if (position >= size)
      return false;
    value = words[position++ * stride];
    return true;
  }

  static constexpr int64_t kMaxOperands = 1 << 16;
  static constexpr int64_t kMaxRank = 1 << 10;
  const int64_t *words;
  int64_t size, stride;
  int64_t position = 0;
};

/// Records `message` as the thread's error and prints it: the program stops
/// at a cf.assert next, whose own message cannot say which operands.
int32_t failCheck(const std::string &message) {
  std::fprintf(stderr, "pointwise.map: %s\n", message.c_str());
  std::fflush(stderr);
  recordError(PW_ERROR_LAYOUT, message);
  return 0;
}

} // namespace

int32_t pwCheckMapOverlap(int64_t *allocated, int64_t *aligned, int64_t offset,
                          int64_t size, int64_t stride) {
  (void)allocated;
  if (!aligned || size < 0)
    return failCheck("pwCheckMapOverlap: no packet (a defect of the code "
                     "that called it)");
  std::vector<StridedLayout> operands;
  std::vector<OperandBuffer> buffers;
  unsigned numOutputs = 0;
  OverlapPacket packet(aligned + offset, size, stride);
  if (std::string problem = packet.read(operands, buffers, numOutputs);
      !problem.empty())
    return failCheck("pwCheckMapOverlap: the packet is malformed (" + problem +
                     "; a defect of the code that built it)");
  if (LayoutResult<void> checked =
          checkOutputOverlap(operands, buffers, numOutputs);
      !checked)
    return failCheck(checked.error());
  return 1;
}
