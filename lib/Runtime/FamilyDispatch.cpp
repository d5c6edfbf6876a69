//===- FamilyDispatch.cpp - Run-time layout analysis and rank dispatch ----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pwFamilyLaunch follows the run-time contract of docs/Layout.md: check the
// outputs for overlap, analyze (broadcast, order, coalesce) the actual
// layouts with the layout library, rebase every pointer by its offset, pick
// the index width and the strategy, and pass each variant the coalesced
// sizes and strides. Every layout rule lives in the layout library; this file
// only moves descriptors in and out of it.
//
// A launch costs the few allocations of the layout functions: the vectors
// handed to them are thread-local scratch that keeps its capacity, and the
// variant's descriptors are built on the stack.
//
//===----------------------------------------------------------------------===//

#include "ErrorState.h"

#include "Pointwise/Layout/IndexWidth.h"
#include "Pointwise/Layout/LayoutAnalysis.h"
#include "Pointwise/Layout/Overlap.h"
#include "Pointwise/Layout/TransposeDetection.h"

#include <cstring>
#include <memory>
#include <utility>

using namespace pointwise::layout;
using namespace pointwise::runtime;

namespace {
/// Family tables come from compiled code; these bound what a sane one holds.
constexpr int32_t kMaxArguments = 4096;
constexpr int32_t kMaxRank = 64;
/// Descriptors of up to this many words (and argument arrays of up to this
/// many entries) are built on the stack.
constexpr size_t kInlineDescriptorWords = 512;
constexpr size_t kInlineArguments = 64;

/// Per-thread buffers whose capacity survives from one launch to the next.
struct DispatchScratch {
  /// Memref operands in map order, outputs first; scalars take no part.
  std::vector<StridedLayout> operands;
  std::vector<OperandBuffer> buffers;
  std::vector<int64_t> elementBytes;
  /// The argument index of each memref operand.
  std::vector<int32_t> operandArguments;
  /// Per argument, its first memref operand (outputs come first), or -1.
  std::vector<int32_t> argumentOperands;
  /// Per map operand (outputs, then every input), its memref operand or -1.
  std::vector<int32_t> mapOperands;
  /// The coalesced strides per map operand, empty for scalars.
  std::vector<std::vector<int64_t>> transposeStrides;
  std::vector<int64_t> iterationShape;
  /// Each memref operand's pointer advanced by its offset.
  std::vector<uint64_t> rebased;
  std::vector<int64_t> descriptorWords;
  std::vector<void *> packedArguments;
  /// What pwGetLastVariant returns.
  int lastVariant = -1;
};

// Behind a pointer, so that a launch looks the thread-local up once and then
// passes a plain pointer around (a thread-local object's address is looked
// up again at each use in a shared library).
thread_local std::unique_ptr<DispatchScratch> threadScratch;

DispatchScratch &getScratch() {
  if (!threadScratch)
    threadScratch = std::make_unique<DispatchScratch>();
  return *threadScratch;
}

int64_t elementByteSize(int32_t elementType) {
  switch (elementType) {
  case PW_I1:
  case PW_I8:
    return 1;
  case PW_I16:
  case PW_F16:
  case PW_BF16:
    return 2;
  case PW_I32:
  case PW_F32:
    return 4;
  case PW_I64:
  case PW_F64:
    return 8;
  default:
    return 0;
  }
}

/// Errors of a launch of `family`, named after the function it came from.
class LaunchErrors {
public:
  LaunchErrors(const pwFamily &family, const DispatchScratch &scratch)
      : name(family.name ? family.name : "<unnamed>"), scratch(scratch) {}

  pwStatus operator()(pwStatus status, const std::string &message) const {
    return recordError(status, name + (": " + message));
  }

  /// A layout library message about memref operands, with the arguments
  /// they are, since the library numbers operands and not arguments.
  pwStatus layout(const std::string &message) const {
    const std::vector<int32_t> &arguments = scratch.operandArguments;
    bool one = arguments.size() == 1;
    std::string operands, argumentList;
    for (size_t i = 0; i < arguments.size(); ++i) {
      operands += (i ? ", #" : "#") + std::to_string(i);
      argumentList += (i ? ", " : "") + std::to_string(arguments[i]);
    }
    return (*this)(PW_ERROR_LAYOUT,
                   message + (one ? " (operand " : " (operands ") + operands +
                       (one ? " is argument " : " are arguments ") +
                       argumentList + ")");
  }

private:
  const char *name;
  const DispatchScratch &scratch;
};

/// Checks the family table itself, which compiled code emits.
pwStatus verifyFamily(const pwFamily &family, const LaunchErrors &error) {
  if (family.numArguments < 0 || family.numArguments > kMaxArguments ||
      family.numOutputs < 1 || family.numInputs < 0 || family.numVariants < 0 ||
      (family.numArguments > 0 && !family.arguments) || !family.outputs ||
      (family.numInputs > 0 && !family.inputs) ||
      (family.numVariants > 0 && !family.variants))
    return error(PW_ERROR_INVALID_VALUE, "malformed family table");
  for (int32_t i = 0; i < family.numArguments; ++i) {
    const pwFamilyArgument &argument = family.arguments[i];
    if (elementByteSize(argument.elementType) == 0 ||
        (argument.kind != PW_ARGUMENT_SCALAR &&
         argument.kind != PW_ARGUMENT_MEMREF) ||
        (argument.kind == PW_ARGUMENT_MEMREF &&
         (argument.rank < 0 || argument.rank > kMaxRank)))
      return error(PW_ERROR_INVALID_VALUE,
                   "malformed family table: argument " + std::to_string(i));
  }
  auto badIndex = [&](int32_t index) {
    return index < 0 || index >= family.numArguments;
  };
  for (int32_t i = 0; i < family.numOutputs; ++i)
    if (badIndex(family.outputs[i]) ||
        family.arguments[family.outputs[i]].kind != PW_ARGUMENT_MEMREF)
      return error(PW_ERROR_INVALID_VALUE,
                   "malformed family table: output " + std::to_string(i));
  for (int32_t i = 0; i < family.numInputs; ++i)
    if (badIndex(family.inputs[i]))
      return error(PW_ERROR_INVALID_VALUE,
                   "malformed family table: input " + std::to_string(i));
  return PW_SUCCESS;
}

/// Reads memref argument `argument` into memref operand `operand`, checking
/// its sizes against the declared ones.
pwStatus readOperand(DispatchScratch &scratch, const pwFamily &family,
                     void **args, int32_t argument, size_t operand,
                     const LaunchErrors &error) {
  const pwFamilyArgument &declared = family.arguments[argument];
  const auto *descriptor =
      static_cast<const pwMemRefDescriptor *>(args[argument]);
  if (!descriptor)
    return error(PW_ERROR_INVALID_VALUE,
                 "argument " + std::to_string(argument) +
                     " is a memref but its descriptor pointer is null");
  const auto *sizes = reinterpret_cast<const int64_t *>(descriptor + 1);
  const int64_t *strides = sizes + declared.rank;
  for (int32_t d = 0; d < declared.rank; ++d) {
    if (sizes[d] < 0)
      return error(PW_ERROR_LAYOUT, "argument " + std::to_string(argument) +
                                        " dim " + std::to_string(d) +
                                        " has negative size " +
                                        std::to_string(sizes[d]));
    if (declared.staticSizes && declared.staticSizes[d] >= 0 &&
        declared.staticSizes[d] != sizes[d])
      return error(PW_ERROR_LAYOUT,
                   "argument " + std::to_string(argument) + " dim " +
                       std::to_string(d) + " has size " +
                       std::to_string(sizes[d]) +
                       " but the function declares " +
                       std::to_string(declared.staticSizes[d]));
  }
  StridedLayout &layout = scratch.operands[operand];
  layout.sizes.assign(sizes, sizes + declared.rank);
  layout.strides.assign(strides, strides + declared.rank);
  layout.offset = descriptor->offset;
  int64_t bytes = elementByteSize(declared.elementType);
  scratch.elementBytes[operand] = bytes;
  scratch.buffers[operand] = {
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(descriptor->aligned)),
      bytes};
  scratch.operandArguments[operand] = argument;
  if (scratch.argumentOperands[argument] < 0)
    scratch.argumentOperands[argument] = static_cast<int32_t>(operand);
  return PW_SUCCESS;
}

/// Null and misaligned data of a launch that accesses memory.
pwStatus checkData(const DispatchScratch &scratch, const LaunchErrors &error) {
  for (size_t op = 0; op < scratch.operands.size(); ++op) {
    uint64_t base = scratch.buffers[op].baseAddress;
    int64_t bytes = scratch.elementBytes[op];
    int32_t argument = scratch.operandArguments[op];
    if (base == 0)
      return error(PW_ERROR_LAYOUT, "argument " + std::to_string(argument) +
                                        " has null data but the launch is "
                                        "not empty");
    uint64_t first = base + static_cast<uint64_t>(scratch.operands[op].offset) *
                                static_cast<uint64_t>(bytes);
    if (first % static_cast<uint64_t>(bytes) != 0)
      return error(PW_ERROR_LAYOUT,
                   "argument " + std::to_string(argument) +
                       " is misaligned: its first element (aligned pointer + "
                       "offset " +
                       std::to_string(scratch.operands[op].offset) +
                       ") is not a multiple of its " + std::to_string(bytes) +
                       "-byte element size");
  }
  return PW_SUCCESS;
}

/// The index of the variant of `rank` and `strategy` (and transposed
/// `argument`) with index width `bits`, or -1.
int findVariant(const pwFamily &family, int32_t rank, int32_t strategy,
                int32_t argument, int32_t bits) {
  for (int32_t i = 0; i < family.numVariants; ++i) {
    const pwVariant &variant = family.variants[i];
    if (variant.rank == rank && variant.strategy == strategy &&
        variant.indexBitwidth == bits &&
        (strategy != PW_STRATEGY_TRANSPOSE ||
         variant.transposedArgument == argument))
      return i;
  }
  return -1;
}

/// Like findVariant, falling back from 32- to 64-bit indices.
int findVariantAtLeast(const pwFamily &family, int32_t rank, int32_t strategy,
                       int32_t argument, int32_t bits) {
  int index = findVariant(family, rank, strategy, argument, bits);
  if (index < 0 && bits == 32)
    index = findVariant(family, rank, strategy, argument, 64);
  return index;
}

std::string listRanks(const pwFamily &family) {
  std::string ranks;
  for (int32_t i = 0; i < family.numVariants; ++i) {
    std::string rank = std::to_string(family.variants[i].rank);
    if ((" " + ranks + ",").find(" " + rank + ",") == std::string::npos)
      ranks += (ranks.empty() ? "" : ", ") + rank;
  }
  return ranks.empty() ? "none" : ranks;
}

/// Swaps iteration dims `a` and `b` of `layout`: sizes and every operand's
/// strides. Any permutation of the iteration space is a valid schedule.
void swapDims(IterationLayout &layout, unsigned a, unsigned b) {
  std::swap(layout.sizes[a], layout.sizes[b]);
  unsigned rank = layout.rank();
  for (unsigned op = 0; op < layout.numOperands(); ++op)
    std::swap(layout.strides[op * rank + a], layout.strides[op * rank + b]);
}

/// Builds the variant's arguments for one launch of `sizes` starting
/// `adjustments[op]` elements past each rebased pointer (null: none), calls
/// it, and returns the pending error it left.
pwStatus callVariant(DispatchScratch &scratch, const pwFamily &family,
                     const pwVariant &variant, void **args,
                     const IterationLayout &layout, const int64_t *sizes,
                     const int64_t *adjustments) {
  int32_t numArguments = family.numArguments;
  unsigned rank = layout.rank();
  size_t numWords = 0;
  for (int32_t i = 0; i < numArguments; ++i)
    if (family.arguments[i].kind == PW_ARGUMENT_MEMREF)
      numWords += 3 + 2 * static_cast<size_t>(rank);

  int64_t inlineWords[kInlineDescriptorWords];
  void *inlineArguments[kInlineArguments];
  int64_t *words = inlineWords;
  void **packed = inlineArguments;
  if (numWords > kInlineDescriptorWords) {
    scratch.descriptorWords.resize(numWords);
    words = scratch.descriptorWords.data();
  }
  if (static_cast<size_t>(numArguments) > kInlineArguments) {
    scratch.packedArguments.resize(numArguments);
    packed = scratch.packedArguments.data();
  }

  int64_t *next = words;
  for (int32_t i = 0; i < numArguments; ++i) {
    int32_t op = scratch.argumentOperands[i];
    if (family.arguments[i].kind != PW_ARGUMENT_MEMREF || op < 0) {
      packed[i] = args[i];
      continue;
    }
    uint64_t pointer = scratch.rebased[op];
    if (adjustments)
      pointer += static_cast<uint64_t>(adjustments[op]) *
                 static_cast<uint64_t>(scratch.elementBytes[op]);
    pwMemRefDescriptor descriptor{reinterpret_cast<void *>(pointer),
                                  reinterpret_cast<void *>(pointer), 0};
    std::memcpy(next, &descriptor, sizeof(descriptor));
    std::memcpy(next + 3, sizes, rank * sizeof(int64_t));
    std::memcpy(next + 3 + rank, &layout.strides[op * rank],
                rank * sizeof(int64_t));
    packed[i] = next;
    next += 3 + 2 * rank;
  }
  clearPendingError();
  variant.entry(packed);
  return takePendingError();
}
} // namespace

pwStatus pwFamilyLaunch(const pwFamily *family, void **args) {
  DispatchScratch &scratch = getScratch();
  scratch.lastVariant = -1;
  if (!family)
    return recordNullArgument("pwFamilyLaunch", "family");
  LaunchErrors error(*family, scratch);
  if (!args)
    return error(PW_ERROR_INVALID_VALUE, "the argument array is null");
  if (pwStatus status = verifyFamily(*family, error))
    return status;

  // Memref operands: the outputs, then the memref inputs.
  int32_t numOutputs = family->numOutputs;
  size_t numOperands = numOutputs;
  for (int32_t i = 0; i < family->numInputs; ++i)
    if (family->arguments[family->inputs[i]].kind == PW_ARGUMENT_MEMREF)
      ++numOperands;
  scratch.operands.resize(numOperands);
  scratch.buffers.resize(numOperands);
  scratch.elementBytes.resize(numOperands);
  scratch.operandArguments.resize(numOperands);
  scratch.argumentOperands.assign(family->numArguments, -1);
  scratch.mapOperands.resize(numOutputs + family->numInputs);
  size_t operand = 0;
  for (int32_t i = 0; i < numOutputs + family->numInputs; ++i) {
    int32_t argument =
        i < numOutputs ? family->outputs[i] : family->inputs[i - numOutputs];
    if (family->arguments[argument].kind != PW_ARGUMENT_MEMREF) {
      scratch.mapOperands[i] = -1;
      continue;
    }
    if (pwStatus status =
            readOperand(scratch, *family, args, argument, operand, error))
      return status;
    scratch.mapOperands[i] = static_cast<int32_t>(operand++);
  }
  for (int32_t i = 0; i < family->numArguments; ++i)
    if (family->arguments[i].kind == PW_ARGUMENT_MEMREF &&
        scratch.argumentOperands[i] < 0)
      return error(PW_ERROR_INVALID_VALUE,
                   "argument " + std::to_string(i) +
                       " is a memref that is neither an input nor an output");

  // The iteration space is the first output's shape.
  scratch.iterationShape = scratch.operands[0].sizes;
  bool empty = false;
  for (int64_t size : scratch.iterationShape)
    empty |= size == 0;
  if (!empty)
    if (pwStatus status = checkData(scratch, error))
      return status;

  LayoutResult<void> overlap =
      checkOutputOverlap(scratch.operands, scratch.buffers, numOutputs);
  if (!overlap)
    return error.layout(overlap.error());
  LayoutResult<CoalescedLayout> coalesced =
      analyzeLayout(scratch.iterationShape, scratch.operands, numOutputs);
  if (!coalesced)
    return error.layout(coalesced.error());
  IterationLayout &layout = coalesced->layout;
  if (empty || (layout.rank() == 1 && layout.sizes[0] == 0))
    return PW_SUCCESS;
  if (layout.rank() == 0) {
    layout.sizes.assign(1, 1);
    layout.strides.assign(numOperands, 1);
  }
  int32_t rank = static_cast<int32_t>(layout.rank());

  // Rebase: the kernels see offset 0, so the offsets do not count against
  // 32-bit indexing.
  scratch.rebased.resize(numOperands);
  for (size_t op = 0; op < numOperands; ++op) {
    scratch.rebased[op] = scratch.buffers[op].baseAddress +
                          static_cast<uint64_t>(layout.offsets[op]) *
                              static_cast<uint64_t>(scratch.elementBytes[op]);
    layout.offsets[op] = 0;
  }
  LayoutResult<IndexWidth> width =
      computeIndexWidth(layout, scratch.elementBytes);
  if (!width)
    return error.layout(width.error());
  int32_t bits = static_cast<int32_t>(*width);

  // Strategy: a transpose variant when an input is contiguous along another
  // dim than the outputs, else the linear one.
  scratch.transposeStrides.resize(scratch.mapOperands.size());
  for (size_t i = 0; i < scratch.mapOperands.size(); ++i) {
    int32_t op = scratch.mapOperands[i];
    std::vector<int64_t> &strides = scratch.transposeStrides[i];
    if (op < 0)
      strides.clear();
    else
      strides.assign(layout.strides.begin() + op * rank,
                     layout.strides.begin() + (op + 1) * rank);
  }
  std::optional<TransposedInput> transposed =
      findTransposedInput(scratch.transposeStrides, numOutputs, rank);
  int chosen = -1;
  if (transposed) {
    int32_t argument = family->inputs[transposed->operand - numOutputs];
    chosen = findVariantAtLeast(*family, rank, PW_STRATEGY_TRANSPOSE, argument,
                                bits);
    // A variant that needs 64-bit indices but only has 32 runs in chunks.
    if (chosen < 0 && bits == 64)
      chosen = findVariant(*family, rank, PW_STRATEGY_TRANSPOSE, argument, 32);
    // The transpose tile has the input's contiguous dim at rank - 2.
    if (chosen >= 0 && static_cast<int32_t>(transposed->dim) != rank - 2)
      swapDims(layout, transposed->dim, rank - 2);
  }
  if (chosen < 0)
    chosen = findVariantAtLeast(*family, rank, PW_STRATEGY_LINEAR, -1, bits);
  if (chosen < 0 && bits == 64)
    chosen = findVariant(*family, rank, PW_STRATEGY_LINEAR, -1, 32);
  if (chosen < 0)
    return error(PW_ERROR_NOT_FOUND,
                 "no kernel variant of rank " + std::to_string(rank) +
                     " (the coalesced rank of this launch); the family has "
                     "variants of rank " +
                     listRanks(*family));
  const pwVariant &variant = family->variants[chosen];
  if (!variant.entry)
    return error(PW_ERROR_INVALID_VALUE,
                 "variant " + std::to_string(chosen) + " has no entry");
  scratch.lastVariant = chosen;

  if (variant.indexBitwidth >= bits)
    return callVariant(scratch, *family, variant, args, layout,
                       layout.sizes.data(),
                       /*adjustments=*/nullptr);

  // A 32-bit variant for a layout that needs 64-bit indices: one launch per
  // chunk that is 32-bit once rebased.
  LayoutResult<std::vector<IndexChunk>> chunks =
      splitFor32BitIndexing(layout, scratch.elementBytes);
  if (!chunks)
    return error.layout(chunks.error());
  for (const IndexChunk &chunk : *chunks)
    if (pwStatus status =
            callVariant(scratch, *family, variant, args, layout,
                        chunk.sizes.data(), chunk.offsetAdjustments.data()))
      return status;
  return PW_SUCCESS;
}

int pwGetLastVariant() {
  return threadScratch ? threadScratch->lastVariant : -1;
}
