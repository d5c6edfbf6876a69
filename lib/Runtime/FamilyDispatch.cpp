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
// The decision is a function of the family table and the words of the memref
// descriptors alone (scalars take no part), so each thread remembers its last
// few decisions, keyed on those bytes: a call with the same family (its
// struct, arguments and the entry of the variant chosen) and the same
// descriptors (pointers, offsets, sizes, strides) reuses the chosen variant
// and its rank-k descriptors without running the analysis.
//
// A launch that misses allocates nothing either once the thread's scratch
// has grown: the vectors handed to the layout library keep their capacity,
// and the variant's descriptors are built on the stack.
//
// A table may lack variants (a null entry): the choice never depends on
// which entries are there, so a family whose variants arrive on demand
// launches exactly what the complete family would. A chosen variant without
// an entry is asked of the family's variant loader (pwSetVariantLoader), and
// the launch starts over once the loader has stored it.
//
//===----------------------------------------------------------------------===//

#include "ErrorState.h"

#include "Pointwise/Layout/IndexWidth.h"
#include "Pointwise/Layout/LayoutAnalysis.h"
#include "Pointwise/Layout/Overlap.h"
#include "Pointwise/Layout/TransposeDetection.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

using namespace pointwise::layout;
using namespace pointwise::runtime;

namespace {
/// Family tables come from compiled code; these bound what a sane one holds.
constexpr int32_t kMaxArguments = 4096;
constexpr int32_t kMaxRank = 64;
/// Descriptors of up to this many words (and argument arrays of up to this
/// many entries) are built on the stack (docs/Performance.md, row
/// `inline-buffers`).
constexpr size_t kInlineDescriptorWords = 512;
constexpr size_t kInlineArguments = 64;
/// The dispatch decisions each thread remembers, least recently used first
/// out (docs/Performance.md, row `dispatch-decision-cache`).
constexpr unsigned kCachedDecisions = 8;
/// Decisions whose key (the family table and the descriptors) is larger are
/// not remembered: families of hundreds of arguments (docs/Performance.md,
/// row `dispatch-decision-cache`).
constexpr size_t kMaxKeyBytes = 16384;

// The key compares these structs as bytes, so they must have no padding.
static_assert(sizeof(pwFamily) ==
                  sizeof(void *) + 4 * sizeof(int32_t) + 4 * sizeof(void *),
              "pwFamily has padding");
static_assert(sizeof(pwFamilyArgument) == 4 * sizeof(int32_t) +
                                              2 * sizeof(const int64_t *) +
                                              sizeof(int64_t),
              "pwFamilyArgument has padding");
static_assert(sizeof(pwVariant) == 4 * sizeof(int32_t) + sizeof(void (*)()),
              "pwVariant has padding");
static_assert(sizeof(pwMemRefDescriptor) == 3 * sizeof(int64_t),
              "pwMemRefDescriptor has padding");

/// A dispatch decision, with everything it was computed from.
struct CachedDecision {
  /// Null: a free slot.
  const pwFamily *family = nullptr;
  /// The bytes visitFamilyArguments and visitOperandsAndVariant visited
  /// when the decision was made.
  std::vector<unsigned char> key;
  /// hashDescriptors of the descriptors in the key, to skip slots quickly.
  uint64_t descriptorHash = 0;
  /// The variant launched, or -1 for an empty launch (nothing to launch).
  int variant = -1;
  /// The coalesced rank of the variant's descriptors.
  int32_t rank = 0;
  /// The rank-`rank` descriptors, one per memref argument in argument order.
  std::vector<int64_t> descriptorWords;
  /// When it was last made or reused (DispatchScratch::clock); 0 when free.
  uint64_t lastUse = 0;
};

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
  /// The analysis: its result and intermediate steps.
  CoalescedLayout coalesced;
  LayoutAnalysisScratch analysis;
  /// Each memref operand's pointer advanced by its offset.
  std::vector<uint64_t> rebased;
  /// A variant's descriptors and arguments when they do not fit the stack.
  std::vector<int64_t> descriptorWords;
  std::vector<void *> packedArguments;
  /// Whether a variant running now was given the two above: a launch from
  /// inside it (a variant may launch families) must not overwrite them.
  bool argumentBuffersInUse = false;
  /// What pwGetLastVariant returns.
  int lastVariant = -1;
  /// What pwGetLastLaunchCached returns.
  bool lastCached = false;
  /// The decisions this thread remembers.
  CachedDecision decisions[kCachedDecisions];
  /// The slot that hit or was filled last, looked at first.
  unsigned lastDecision = 0;
  uint64_t clock = 0;
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
  // The first argument's version fields sit where every layout had them;
  // the arguments after it are only where this runtime expects them if the
  // version matches.
  if (family.numArguments > 0 &&
      family.arguments[0].abiVersion != PW_FAMILY_ABI_VERSION)
    return error(PW_ERROR_INVALID_VALUE,
                 "family table of ABI version " +
                     std::to_string(family.arguments[0].abiVersion) +
                     ", this runtime reads version " +
                     std::to_string(PW_FAMILY_ABI_VERSION) +
                     ": rebuild the library with this version's pw-compile");
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

/// Checks the strides and offset of memref argument `argument`'s descriptor
/// against its declared type. Only what compiled code for that type could
/// tell apart is compared: nothing of an empty memref, and no stride of a
/// dim of one element.
pwStatus checkDeclaredLayout(const pwFamilyArgument &declared, int32_t argument,
                             const pwMemRefDescriptor &descriptor,
                             const int64_t *sizes, const LaunchErrors &error) {
  if (!declared.staticStrides)
    return PW_SUCCESS;
  for (int32_t d = 0; d < declared.rank; ++d)
    if (sizes[d] == 0)
      return PW_SUCCESS;
  const int64_t *strides = sizes + declared.rank;
  for (int32_t d = 0; d < declared.rank; ++d) {
    int64_t expected = declared.staticStrides[d];
    if (expected != PW_DYNAMIC && sizes[d] > 1 && strides[d] != expected)
      return error(
          PW_ERROR_LAYOUT,
          "argument " + std::to_string(argument) + " dim " + std::to_string(d) +
              " has stride " + std::to_string(strides[d]) +
              " but the function declares " + std::to_string(expected));
  }
  if (declared.staticOffset != PW_DYNAMIC &&
      descriptor.offset != declared.staticOffset)
    return error(PW_ERROR_LAYOUT, "argument " + std::to_string(argument) +
                                      " has offset " +
                                      std::to_string(descriptor.offset) +
                                      " but the function declares " +
                                      std::to_string(declared.staticOffset));
  return PW_SUCCESS;
}

/// Reads memref argument `argument` into memref operand `operand`, checking
/// its sizes, strides and offset against the declared ones.
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
  if (pwStatus status =
          checkDeclaredLayout(declared, argument, *descriptor, sizes, error))
    return status;
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

/// Whether some operand of `layout` (rank >= 2) has contiguous rows (last
/// stride 1) that do not start at 16-byte boundaries: a first element or a
/// row stride off a multiple of 16 bytes. A linear variant with 16-byte
/// vectors moves such an operand's lanes one by one; the linear-narrow
/// variant's 8-byte vectors do better there (PW_STRATEGY_LINEAR_NARROW).
/// Rows whose length alone is off (6 floats at an aligned pitch) gain
/// nothing from it and keep the wide one (docs/Performance.md, row
/// `narrow-variants`).
bool hasRowsOff16Bytes(const IterationLayout &layout,
                       const std::vector<uint64_t> &addresses,
                       const std::vector<int64_t> &elementBytes) {
  constexpr int64_t kWideVectorBytes = 16;
  size_t rank = layout.rank();
  for (size_t op = 0; op < addresses.size(); ++op) {
    const int64_t *strides = layout.strides.data() + op * rank;
    if (strides[rank - 1] != 1)
      continue;
    if (addresses[op] % kWideVectorBytes != 0)
      return true;
    for (size_t dim = 0; dim + 1 < rank; ++dim)
      if ((strides[dim] * elementBytes[op]) % kWideVectorBytes != 0)
        return true;
  }
  return false;
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

/// Calls `visit(data, bytes)` on the family struct and its arguments array,
/// the start of what a dispatch decision depends on.
template <typename Visit>
bool visitFamilyArguments(const pwFamily &family, Visit &visit) {
  return visit(&family, sizeof(pwFamily)) &&
         visit(family.arguments, static_cast<size_t>(family.numArguments) *
                                     sizeof(pwFamilyArgument));
}

/// Calls `visit(data, bytes)` on the rest of what the decision to launch
/// `variant` (-1: nothing) of `family` on `args` depends on, in a fixed
/// order, and stops at the first `false`: every memref argument's descriptor
/// words (pointers, offset, sizes, strides) and declared static sizes and
/// strides, the outputs, the inputs and the launched variant's entry in the
/// table. Scalars take no part, and neither do the other variants: the
/// launched one (its rank, strategy, index width, transposed argument and
/// entry) stays right for these descriptors whatever they are. Returns false
/// when a visit did, or a memref argument's descriptor pointer is null.
///
/// The arrays are read with the counts and ranks of the struct and arguments
/// visited first, so a table that matches a remembered key is read exactly
/// as far as the verified table that key was made from (`variant` is below
/// its variant count). Only the launched variant's entry is part of the key
/// (docs/Performance.md, row `dispatch-key-launched-variant`).
template <typename Visit>
bool visitOperandsAndVariant(const pwFamily &family, void **args, int variant,
                             Visit &visit) {
  for (int32_t i = 0; i < family.numArguments; ++i) {
    const pwFamilyArgument &argument = family.arguments[i];
    if (argument.kind != PW_ARGUMENT_MEMREF)
      continue;
    size_t rank = static_cast<size_t>(argument.rank);
    if (!args[i] || !visit(args[i], sizeof(pwMemRefDescriptor) +
                                        2 * rank * sizeof(int64_t)))
      return false;
    if (argument.staticSizes &&
        !visit(argument.staticSizes, rank * sizeof(int64_t)))
      return false;
    if (argument.staticStrides &&
        !visit(argument.staticStrides, rank * sizeof(int64_t)))
      return false;
  }
  return visit(family.outputs,
               static_cast<size_t>(family.numOutputs) * sizeof(int32_t)) &&
         visit(family.inputs,
               static_cast<size_t>(family.numInputs) * sizeof(int32_t)) &&
         (variant < 0 || visit(&family.variants[variant], sizeof(pwVariant)));
}

/// A visitor that compares the visited bytes with a remembered key.
struct KeyMatcher {
  const unsigned char *next;
  const unsigned char *end;

  bool operator()(const void *data, size_t bytes) {
    if (bytes == 0)
      return true;
    if (static_cast<size_t>(end - next) < bytes ||
        std::memcmp(next, data, bytes) != 0)
      return false;
    next += bytes;
    return true;
  }
};

/// A visitor that counts the visited bytes, up to kMaxKeyBytes.
struct KeySizer {
  size_t bytes = 0;

  bool operator()(const void *, size_t size) {
    if (size > kMaxKeyBytes - bytes)
      return false;
    bytes += size;
    return true;
  }
};

/// A visitor that copies the visited bytes to a key of the right size.
struct KeyWriter {
  unsigned char *next;

  bool operator()(const void *data, size_t bytes) {
    if (bytes == 0)
      return true;
    std::memcpy(next, data, bytes);
    next += bytes;
    return true;
  }
};

/// A cheap hash of the memref descriptors' words, to skip remembered
/// decisions before the exact comparison: any one word that changes changes
/// it (its multiplier is odd). False when a descriptor pointer is null.
/// `family`'s struct and arguments must be those of a verified table.
bool hashDescriptors(const pwFamily &family, void **args, uint64_t &hash) {
  hash = 0;
  uint64_t multiplier = 1;
  for (int32_t i = 0; i < family.numArguments; ++i) {
    const pwFamilyArgument &argument = family.arguments[i];
    if (argument.kind != PW_ARGUMENT_MEMREF)
      continue;
    if (!args[i])
      return false;
    const auto *words = static_cast<const unsigned char *>(args[i]);
    size_t numWords = 3 + 2 * static_cast<size_t>(argument.rank);
    for (size_t w = 0; w < numWords; ++w, multiplier += 2) {
      uint64_t word;
      std::memcpy(&word, words + w * sizeof(word), sizeof(word));
      hash += word * multiplier;
    }
  }
  return true;
}

/// The decision this thread made for exactly these inputs, or null. The
/// slot that hit last is compared first as it is; the others are skipped by
/// their descriptor hash unless it is the same.
CachedDecision *findDecision(DispatchScratch &scratch, const pwFamily &family,
                             void **args) {
  auto hit = [&](unsigned slot) {
    CachedDecision &decision = scratch.decisions[slot];
    decision.lastUse = ++scratch.clock;
    scratch.lastDecision = slot;
    return &decision;
  };
  // Whether the struct and arguments of `family` are those of a table
  // verified before: then the descriptors can be read with its ranks.
  bool verified = false;
  unsigned last = scratch.lastDecision;
  const CachedDecision &recent = scratch.decisions[last];
  if (recent.family == &family) {
    KeyMatcher matcher{recent.key.data(),
                       recent.key.data() + recent.key.size()};
    if (visitFamilyArguments(family, matcher)) {
      verified = true;
      if (visitOperandsAndVariant(family, args, recent.variant, matcher) &&
          matcher.next == matcher.end)
        return hit(last);
    }
  }

  bool hashed = false;
  uint64_t hash = 0;
  for (unsigned n = 1; n < kCachedDecisions; ++n) {
    unsigned slot = (last + n) % kCachedDecisions;
    const CachedDecision &decision = scratch.decisions[slot];
    if (decision.family != &family)
      continue;
    KeyMatcher matcher{decision.key.data(),
                       decision.key.data() + decision.key.size()};
    bool argumentsMatched = false;
    if (!verified) {
      if (!visitFamilyArguments(family, matcher))
        continue;
      verified = argumentsMatched = true;
    }
    if (!hashed) {
      if (!hashDescriptors(family, args, hash))
        return nullptr;
      hashed = true;
    }
    if (decision.descriptorHash != hash ||
        (!argumentsMatched && !visitFamilyArguments(family, matcher)) ||
        !visitOperandsAndVariant(family, args, decision.variant, matcher) ||
        matcher.next != matcher.end)
      continue;
    return hit(slot);
  }
  return nullptr;
}

/// Remembers that `family` on `args` (a launch that succeeded so far) runs
/// `variant` with the `numWords` descriptor words `words` of rank `rank`, or
/// launches nothing (variant -1), in place of the least recently used one.
void rememberDecision(DispatchScratch &scratch, const pwFamily &family,
                      void **args, int variant, int32_t rank,
                      const int64_t *words, size_t numWords) {
  unsigned slot = 0;
  for (unsigned i = 1; i < kCachedDecisions; ++i)
    if (scratch.decisions[i].lastUse < scratch.decisions[slot].lastUse)
      slot = i;
  CachedDecision &decision = scratch.decisions[slot];
  decision.family = nullptr;
  decision.lastUse = 0;
  KeySizer sizer;
  if (!visitFamilyArguments(family, sizer) ||
      !visitOperandsAndVariant(family, args, variant, sizer))
    return;
  decision.key.resize(sizer.bytes);
  KeyWriter writer{decision.key.data()};
  if (!visitFamilyArguments(family, writer) ||
      !visitOperandsAndVariant(family, args, variant, writer) ||
      !hashDescriptors(family, args, decision.descriptorHash))
    return;
  decision.family = &family;
  decision.variant = variant;
  decision.rank = rank;
  decision.descriptorWords.assign(words, words + numWords);
  decision.lastUse = ++scratch.clock;
  scratch.lastDecision = slot;
}

/// The entry of `variant`, which another thread may be storing (a variant
/// compiled on demand): null, or a variant whose code is completely loaded.
auto loadEntry(const pwVariant &variant) {
  return __atomic_load_n(&variant.entry, __ATOMIC_ACQUIRE);
}

/// Calls the variant with the arguments `packed`, and returns the pending
/// error it left.
pwStatus invokeVariant(const pwVariant &variant, void **packed) {
  clearPendingError();
  loadEntry(variant)(packed);
  return takePendingError();
}

/// The families' variant loaders (pwSetVariantLoader). Consulted only when a
/// chosen variant has no entry; never destroyed, so that launches from the
/// global destructors of compiled libraries find it.
struct VariantLoaders {
  struct Loader {
    const pwFamily *family;
    pwVariantLoader loader;
    void *context;
  };
  std::mutex mutex;
  std::vector<Loader> loaders;
};

VariantLoaders &getVariantLoaders() {
  static auto *loaders = new VariantLoaders;
  return *loaders;
}

/// "variant 3 (rank 2, 32-bit indices, transpose of argument 1)".
std::string describeVariant(const pwFamily &family, int index) {
  const pwVariant &variant = family.variants[index];
  std::string strategy = variant.strategy == PW_STRATEGY_TRANSPOSE
                             ? "transpose of argument " +
                                   std::to_string(variant.transposedArgument)
                         : variant.strategy == PW_STRATEGY_LINEAR_NARROW
                             ? "linear-narrow"
                             : "linear";
  return "variant " + std::to_string(index) + " (rank " +
         std::to_string(variant.rank) + ", " +
         std::to_string(variant.indexBitwidth) + "-bit indices, " + strategy +
         ")";
}

/// Launches a remembered decision with the scalars of `args`.
pwStatus launchDecision(DispatchScratch &scratch, const pwFamily &family,
                        const CachedDecision &decision, void **args) {
  scratch.lastVariant = decision.variant;
  scratch.lastCached = true;
  if (decision.variant < 0)
    return PW_SUCCESS;
  // Copies, so that the variant may launch families itself.
  int64_t words[kInlineDescriptorWords];
  void *packed[kInlineArguments];
  std::memcpy(words, decision.descriptorWords.data(),
              decision.descriptorWords.size() * sizeof(int64_t));
  size_t descriptorWords = 3 + 2 * static_cast<size_t>(decision.rank);
  int64_t *next = words;
  for (int32_t i = 0; i < family.numArguments; ++i) {
    if (family.arguments[i].kind != PW_ARGUMENT_MEMREF) {
      packed[i] = args[i];
      continue;
    }
    packed[i] = next;
    next += descriptorWords;
  }
  return invokeVariant(family.variants[decision.variant], packed);
}

/// What callVariant reads of the analysis: the operand of each argument,
/// and each operand's rebased pointer, element size and coalesced strides.
struct AnalyzedOperands {
  const int32_t *argumentOperands;
  const uint64_t *rebased;
  const int64_t *elementBytes;
  const IterationLayout &layout;
};

/// Builds the arguments of variant `chosen` for one launch of `sizes`
/// starting `adjustments[op]` elements past each rebased pointer (null:
/// none), calls it, and returns the pending error it left. With `remember`,
/// the decision is remembered first (when its arguments fit on the stack).
pwStatus callVariant(DispatchScratch &scratch, const pwFamily &family,
                     int chosen, void **args, const AnalyzedOperands &analyzed,
                     const int64_t *sizes, const int64_t *adjustments,
                     bool remember) {
  int32_t numArguments = family.numArguments;
  const IterationLayout &layout = analyzed.layout;
  unsigned rank = layout.rank();
  size_t numWords = 0;
  for (int32_t i = 0; i < numArguments; ++i)
    if (family.arguments[i].kind == PW_ARGUMENT_MEMREF)
      numWords += 3 + 2 * static_cast<size_t>(rank);

  int64_t inlineWords[kInlineDescriptorWords];
  void *inlineArguments[kInlineArguments];
  int64_t *words = inlineWords;
  void **packed = inlineArguments;
  bool largeWords = numWords > kInlineDescriptorWords;
  bool largeArguments = static_cast<size_t>(numArguments) > kInlineArguments;
  // Inside a variant that has the thread's buffers, a launch allocates its
  // own.
  bool useScratch = !scratch.argumentBuffersInUse;
  std::vector<int64_t> ownWords;
  std::vector<void *> ownArguments;
  std::vector<int64_t> &wordBuffer =
      useScratch ? scratch.descriptorWords : ownWords;
  std::vector<void *> &argumentBuffer =
      useScratch ? scratch.packedArguments : ownArguments;
  if (largeWords) {
    wordBuffer.resize(numWords);
    words = wordBuffer.data();
  }
  if (largeArguments) {
    argumentBuffer.resize(numArguments);
    packed = argumentBuffer.data();
  }

  int64_t *next = words;
  for (int32_t i = 0; i < numArguments; ++i) {
    int32_t op = analyzed.argumentOperands[i];
    if (family.arguments[i].kind != PW_ARGUMENT_MEMREF || op < 0) {
      packed[i] = args[i];
      continue;
    }
    uint64_t pointer = analyzed.rebased[op];
    if (adjustments)
      pointer += static_cast<uint64_t>(adjustments[op]) *
                 static_cast<uint64_t>(analyzed.elementBytes[op]);
    pwMemRefDescriptor descriptor{reinterpret_cast<void *>(pointer),
                                  reinterpret_cast<void *>(pointer), 0};
    std::memcpy(next, &descriptor, sizeof(descriptor));
    std::memcpy(next + 3, sizes, rank * sizeof(int64_t));
    std::memcpy(next + 3 + rank, &layout.strides[op * rank],
                rank * sizeof(int64_t));
    packed[i] = next;
    next += 3 + 2 * rank;
  }
  if (remember && words == inlineWords && packed == inlineArguments)
    rememberDecision(scratch, family, args, chosen, static_cast<int32_t>(rank),
                     words, numWords);
  bool claimed = useScratch && (largeWords || largeArguments);
  if (claimed)
    scratch.argumentBuffersInUse = true;
  pwStatus status = invokeVariant(family.variants[chosen], packed);
  if (claimed)
    scratch.argumentBuffersInUse = false;
  return status;
}

/// Has the variant loader of `family` store the entry of variant `chosen`,
/// and launches again. Without a loader, says which variant is missing.
pwStatus loadVariantAndLaunch(DispatchScratch &scratch, const pwFamily &family,
                              int chosen, void **args,
                              const LaunchErrors &error) {
  pwVariantLoader loader = nullptr;
  void *context = nullptr;
  {
    VariantLoaders &loaders = getVariantLoaders();
    std::lock_guard<std::mutex> lock(loaders.mutex);
    for (const VariantLoaders::Loader &registered : loaders.loaders)
      if (registered.family == &family) {
        loader = registered.loader;
        context = registered.context;
      }
  }
  if (!loader)
    return error(PW_ERROR_NOT_FOUND,
                 describeVariant(family, chosen) +
                     " is not compiled, and the family has no variant "
                     "loader (pwSetVariantLoader)");
  char message[2048] = "";
  pwStatus status = loader(&family, chosen, context, message, sizeof(message));
  message[sizeof(message) - 1] = '\0';
  // The loader may have launched on this thread: its failure still names
  // the variant this launch chose.
  scratch.lastVariant = chosen;
  scratch.lastCached = false;
  if (status != PW_SUCCESS)
    return error(status, "loading " + describeVariant(family, chosen) +
                             " failed: " + message);
  if (!loadEntry(family.variants[chosen]))
    return error(PW_ERROR_INVALID_VALUE,
                 "the variant loader reported success, but " +
                     describeVariant(family, chosen) + " has no entry");
  // From the start: the loader may have launched on this thread, which
  // reuses the thread's scratch.
  return pwFamilyLaunch(&family, args);
}
} // namespace

pwStatus pwSetVariantLoader(const pwFamily *family, pwVariantLoader loader,
                            void *context) {
  if (!family)
    return recordNullArgument("pwSetVariantLoader", "family");
  VariantLoaders &loaders = getVariantLoaders();
  std::lock_guard<std::mutex> lock(loaders.mutex);
  std::vector<VariantLoaders::Loader> &registered = loaders.loaders;
  registered.erase(std::remove_if(registered.begin(), registered.end(),
                                  [&](const VariantLoaders::Loader &entry) {
                                    return entry.family == family;
                                  }),
                   registered.end());
  if (loader)
    loaders.loaders.push_back({family, loader, context});
  return PW_SUCCESS;
}

pwStatus pwFamilyLaunch(const pwFamily *family, void **args) {
  DispatchScratch &scratch = getScratch();
  if (family && args)
    if (const CachedDecision *decision = findDecision(scratch, *family, args))
      return launchDecision(scratch, *family, *decision, args);
  scratch.lastVariant = -1;
  scratch.lastCached = false;
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
  LayoutResult<void> analyzed =
      analyzeLayoutInto(scratch.iterationShape, scratch.operands, numOutputs,
                        scratch.coalesced, scratch.analysis);
  if (!analyzed)
    return error.layout(analyzed.error());
  IterationLayout &layout = scratch.coalesced.layout;
  if (empty || (layout.rank() == 1 && layout.sizes[0] == 0)) {
    rememberDecision(scratch, *family, args, /*variant=*/-1, /*rank=*/0,
                     nullptr, 0);
    return PW_SUCCESS;
  }
  if (layout.rank() == 0) {
    layout.sizes.assign(1, 1);
    layout.strides.assign(numOperands, 1);
  }
  int32_t rank = static_cast<int32_t>(layout.rank());

  // Rebase: the kernels see offset 0, so the offsets do not count against
  // 32-bit indexing, which the launch takes where it fits
  // (docs/Performance.md, row `index-bitwidth`).
  scratch.rebased.resize(numOperands);
  for (size_t op = 0; op < numOperands; ++op) {
    scratch.rebased[op] = scratch.buffers[op].baseAddress +
                          static_cast<uint64_t>(layout.offsets[op]) *
                              static_cast<uint64_t>(scratch.elementBytes[op]);
    layout.offsets[op] = 0;
  }
  LayoutResult<IndexWidth> width = computeIndexWidth(layout);
  if (!width)
    return error.layout(width.error());
  int32_t bits = static_cast<int32_t>(*width);

  // Strategy: a transpose variant when an input is contiguous along another
  // dim than the outputs, else the linear one (docs/Performance.md, row
  // `transpose-detection`).
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
  if (chosen < 0) {
    chosen = findVariantAtLeast(*family, rank, PW_STRATEGY_LINEAR, -1, bits);
    if (chosen < 0 && bits == 64)
      chosen = findVariant(*family, rank, PW_STRATEGY_LINEAR, -1, 32);
    // Its narrow twin of the same index width, for rows off 16 bytes
    // (docs/Performance.md, row `narrow-variants`).
    if (chosen >= 0 && rank >= 2 &&
        hasRowsOff16Bytes(layout, scratch.rebased, scratch.elementBytes)) {
      int narrow = findVariant(*family, rank, PW_STRATEGY_LINEAR_NARROW, -1,
                               family->variants[chosen].indexBitwidth);
      if (narrow >= 0)
        chosen = narrow;
    }
  }
  if (chosen < 0)
    return error(PW_ERROR_NOT_FOUND,
                 "no kernel variant of rank " + std::to_string(rank) +
                     " (the coalesced rank of this launch); the family has "
                     "variants of rank " +
                     listRanks(*family));
  const pwVariant &variant = family->variants[chosen];
  scratch.lastVariant = chosen;
  if (!loadEntry(variant))
    return loadVariantAndLaunch(scratch, *family, chosen, args, error);

  if (variant.indexBitwidth >= bits) {
    // One launch: its arguments are built before the variant runs, so they
    // may come from the scratch.
    AnalyzedOperands operands{scratch.argumentOperands.data(),
                              scratch.rebased.data(),
                              scratch.elementBytes.data(), layout};
    return callVariant(scratch, *family, chosen, args, operands,
                       layout.sizes.data(), /*adjustments=*/nullptr,
                       /*remember=*/true);
  }

  // A 32-bit variant for a layout that needs 64-bit indices: one launch per
  // chunk that is 32-bit once rebased. Such launches move gigabytes, so
  // their decisions are not remembered, and the chunks use copies of the
  // analysis: a variant that launches a family itself overwrites the
  // scratch before the next chunk's arguments are built.
  LayoutResult<std::vector<IndexChunk>> chunks = splitFor32BitIndexing(layout);
  if (!chunks)
    return error.layout(chunks.error());
  const std::vector<int32_t> argumentOperands = scratch.argumentOperands;
  const std::vector<uint64_t> rebased = scratch.rebased;
  const std::vector<int64_t> elementBytes = scratch.elementBytes;
  const IterationLayout chunkedLayout = layout;
  AnalyzedOperands operands{argumentOperands.data(), rebased.data(),
                            elementBytes.data(), chunkedLayout};
  for (const IndexChunk &chunk : *chunks)
    if (pwStatus status =
            callVariant(scratch, *family, chosen, args, operands,
                        chunk.sizes.data(), chunk.offsetAdjustments.data(),
                        /*remember=*/false))
      return status;
  return PW_SUCCESS;
}

int pwGetLastVariant() {
  return threadScratch ? threadScratch->lastVariant : -1;
}

int pwGetLastLaunchCached() {
  return threadScratch && threadScratch->lastCached ? 1 : 0;
}
