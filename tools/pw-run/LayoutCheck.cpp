//===- LayoutCheck.cpp - Run-time layout checks of the CPU path -----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "LayoutCheck.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Layout/LayoutAnalysis.h"
#include "Pointwise/Layout/Overlap.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace pointwise;
using namespace pointwise::run;

namespace {

/// The entry argument `value` is, looking through memref.cast.
std::optional<unsigned> getEntryArgument(Value value, Block &entryBlock) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != &entryBlock)
    return std::nullopt;
  return argument.getArgNumber();
}

/// The memref operands of one map that are entry arguments, in the runtime's
/// order: outputs, then inputs.
struct CheckedOperands {
  std::vector<layout::StridedLayout> layouts;
  std::vector<layout::OperandBuffer> buffers;
  std::vector<unsigned> arguments;
  unsigned numOutputs = 0;

  void add(const HostArgument &argument) {
    layouts.push_back(argument.getLayout());
    buffers.push_back(argument.getOperandBuffer());
    arguments.push_back(argument.getIndex());
  }
};

/// A layout library message with the arguments its operands are, as the
/// runtime's LaunchErrors::layout writes it.
llvm::Error layoutError(StringRef where, const std::string &message,
                        ArrayRef<unsigned> arguments) {
  bool one = arguments.size() == 1;
  std::string operands, argumentList;
  for (auto [operand, argument] : llvm::enumerate(arguments)) {
    operands += (operand ? ", #" : "#") + std::to_string(operand);
    argumentList += (operand ? ", " : "") + std::to_string(argument);
  }
  return llvm::createStringError(
      "layout error: " + where + ": " + message +
      (one ? " (operand " : " (operands ") + operands +
      (one ? " is argument " : " are arguments ") + argumentList + ")");
}

} // namespace

llvm::Error pointwise::run::checkArgumentLayouts(
    func::FuncOp entry, const std::vector<HostArgument> &arguments) {
  Block &entryBlock = entry.getBody().front();
  SmallVector<MapOp> maps;
  entry.walk([&](MapOp map) { maps.push_back(map); });
  for (auto [index, map] : llvm::enumerate(maps)) {
    // A map under control flow (an scf.if, a loop, a later block) may not
    // run with these arguments: rejecting it here would reject a valid
    // call. The pipelines' run-time checks check it if the run reaches it.
    if (map->getBlock() != &entryBlock)
      continue;
    CheckedOperands checked;
    for (Value output : map.getOutputs())
      if (std::optional<unsigned> argument =
              getEntryArgument(output, entryBlock))
        checked.add(arguments[*argument]);
    checked.numOutputs = checked.layouts.size();
    if (checked.numOutputs == 0)
      continue;
    for (Value input : map.getInputs())
      if (isa<MemRefType>(input.getType()))
        if (std::optional<unsigned> argument =
                getEntryArgument(input, entryBlock))
          checked.add(arguments[*argument]);

    std::string where = entry.getName().str();
    if (maps.size() > 1)
      where += ", pointwise.map #" + std::to_string(index);
    layout::LayoutResult<void> overlap = layout::checkOutputOverlap(
        checked.layouts, checked.buffers, checked.numOutputs);
    if (!overlap)
      return layoutError(where, overlap.error(), checked.arguments);
    layout::LayoutResult<layout::CoalescedLayout> analyzed =
        layout::analyzeLayout(checked.layouts.front().sizes, checked.layouts,
                              checked.numOutputs);
    if (!analyzed)
      return layoutError(where, analyzed.error(), checked.arguments);
  }
  return llvm::Error::success();
}
