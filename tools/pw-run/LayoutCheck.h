//===- LayoutCheck.h - Run-time layout checks of the CPU path ---*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The CPU lowerings trust the layouts they are given: an input that does not
// broadcast to the outputs' shape, outputs of different shapes, or an output
// that overlaps itself or partially overlaps an input makes the JIT-compiled
// code read and write out of bounds or race with itself. On the GPU the
// runtime checks each launch (docs/Layout.md, "Contract with the run-time
// dispatch"); pw-run makes the same checks, with the same layout library,
// before it calls the entry on the CPU, against the maps every call runs.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_TOOLS_PWRUN_LAYOUTCHECK_H
#define POINTWISE_TOOLS_PWRUN_LAYOUTCHECK_H

#include "HostArgument.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace pointwise::run {

/// Checks the layouts of `arguments` against every pointwise.map that a call
/// of `entry` runs, as the runtime's dispatch does: output overlap
/// (checkOutputOverlap), then broadcasting into the first output's shape
/// (analyzeLayout). Operands are numbered like the runtime numbers them
/// (outputs, then memref inputs) and the message says which arguments they
/// are; with several maps, the message numbers the map among all of the
/// entry's.
///
/// The maps checked are those of the entry block, which every call runs. A
/// map under control flow (in an scf.if or a loop, or in a later block) may
/// not run with these arguments, and a check here would reject calls that
/// never run it; nor is a map checked whose outputs are none of the entry's
/// arguments (it has no known iteration shape). Of the others, only operands
/// that are arguments of the entry (possibly through memref.cast, which keeps
/// the descriptor) are checked: the layout of a view the function computes
/// (a subview, a reinterpret_cast, an allocation) is unknown before the call.
/// The pipelines' run-time checks check what is left here when the run
/// reaches it: the maps' shapes (pointwise.map's
/// RuntimeVerifiableOpInterface) and their operands' overlaps
/// (pw-runtime-overlap-checks, through the runtime's pwCheckMapOverlap and
/// the same layout library).
llvm::Error checkArgumentLayouts(mlir::func::FuncOp entry,
                                 const std::vector<HostArgument> &arguments);

} // namespace pointwise::run

#endif // POINTWISE_TOOLS_PWRUN_LAYOUTCHECK_H
