//===- TilingInternal.h - What pw-tile's parts share ----------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pw-tile in parts: the heuristics (TilingHeuristics.cpp), division by
// run-time sizes (TilingDivider.cpp), the kernel emitter's core
// (TilingEmitter.cpp) and one emitter per strategy (TilingLinear.cpp for
// the linear and general strategies, TilingTranspose.cpp); Tiling.cpp is
// the pass.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_DIALECT_POINTWISE_TRANSFORMS_TILINGINTERNAL_H
#define POINTWISE_LIB_DIALECT_POINTWISE_TRANSFORMS_TILINGINTERNAL_H

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "Pointwise/Dialect/Pointwise/Transforms/WorkEstimate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace pointwise::tiling {

/// The strategy a map is tiled with: TileStrategy's cases but Auto.
using Strategy = TileStrategy;

/// Threads of a block of the transpose strategy: a tile of edge E is
/// covered in passes of kTileThreads / E rows (docs/Performance.md, row
/// `transpose-tile`).
constexpr int64_t kTileThreads = 256;

/// Bytes of a vector access of the transpose strategy's interior tiles
/// (docs/Performance.md, row `transpose-vectors`).
constexpr int64_t kTransposeVectorBytes = 16;

/// Elements a thread of the linear strategy keeps in flight at most
/// (docs/Performance.md, row `elements-in-flight`).
constexpr int64_t kElementsInFlight = 16;

/// Bounds of the options: CUDA's threads per block, the widest vector
/// access (32 bytes on sm_100; wider ones would be split), and the steps of
/// one thread (the general strategy's unroll is not capped otherwise).
constexpr int64_t kMaxBlockSize = 1024;
constexpr int64_t kMaxVectorBytes = 32;
constexpr int64_t kMaxUnroll = 16;

/// Threads per block and bytes per vector access of the linear strategy.
struct LinearShape {
  int64_t blockSize;
  int64_t vectorBytes;
};

//===----------------------------------------------------------------------===//
// Heuristics (TilingHeuristics.cpp)
//===----------------------------------------------------------------------===//

/// The dim the transpose strategy tiles together with the last one; nothing
/// when no input disagrees with the outputs on the fastest dim.
std::optional<int64_t> findTransposedDim(MapOp map);
/// Whether the transpose strategy stages `input` through a tile.
bool isTransposedInput(mlir::Value input, int64_t transposedDim);
/// The strategy of option value `auto`.
Strategy chooseStrategy(MapOp map);
/// 32 or 64 when the static layout decides the index bitwidth, else nothing.
std::optional<unsigned> decideIndexBitwidthStatically(MapOp map);
/// The index bitwidth of option value 0.
unsigned chooseIndexBitwidth(MapOp map);
/// The largest tile edge up to `requested` whose tiles fit.
int64_t fitTileEdge(MapOp map, int64_t transposedDim, int64_t requested);
/// The unroll of option value 0, for vectors of `vectorBytes`.
int64_t chooseUnroll(MapOp map, Strategy strategy, int64_t vectorBytes);
/// The linear strategy's shape for option values 0.
LinearShape chooseLinearShape(MapOp map, Strategy strategy);

//===----------------------------------------------------------------------===//
// Kernel emitter
//===----------------------------------------------------------------------===//

/// A memref operand as kernels address it: a flat 1-D view of its buffer
/// from the aligned pointer, its offset and strides in the index type.
struct FlatOperand {
  mlir::Value flat;
  mlir::Type elementType;
  mlir::Value offset;
  llvm::SmallVector<mlir::Value> strides;
  /// Moved with vector accesses by the linear strategy (stride 1 along the
  /// last dim, statically or checked at run time, and not i1, whose vectors
  /// LLVM packs into bits).
  bool vectorized = false;
  bool lastStrideIsDynamic = false;
  /// For a vectorized operand whose last stride is dynamic: a host-computed
  /// i1, true when its vectors are whole and aligned at run time. Otherwise
  /// the vector path moves its lanes one by one (any last stride).
  mlir::Value vectorFlag;
  /// Stride 0 along the last dim: one load serves a whole vector.
  bool broadcastAlongLastDim = false;
};

/// Division by a size that is the same for every thread. The host computes
/// a magic multiplier and shift once (Granlund-Montgomery, as PyTorch's
/// IntDivider, in twice the index width) and each thread divides with a
/// multiply-high, an add and a shift; dividends stay below 2^31 in 32-bit
/// kernels and below 2^63 in 64-bit ones, so the add cannot overflow.
/// Constant divisors use plain division (LLVM strength-reduces them).
struct Divider {
  mlir::Value divisor;
  mlir::Value magic; // null: plain division
  mlir::Value shift;
};

/// The block's tile of the transpose strategy: E x E elements of dims P
/// (`transposedDim`) and L (the last), at (firstP, firstL) of a batch index.
struct TransposeTiles {
  int64_t transposedDim = 0;
  int64_t last = 0;
  int64_t edge = 0;
  /// Elements per vector of the vector path; 1 when there is none.
  int64_t vectorWidth = 1;
  mlir::Value firstP, firstL;
  /// Per operand (inputs, then outputs): the offset of the tile's first
  /// element; null for scalars.
  llvm::SmallVector<mlir::Value> offsets;
  /// Per input: the tile buffer it is staged through, null for the inputs
  /// read directly (scalars, and memrefs contiguous along L).
  llvm::SmallVector<mlir::Value> buffers;
  /// Kernel side: the tile lies inside the iteration space.
  mlir::Value full;
  /// Host side: every operand allows the vector path.
  mlir::Value vectorSafe;
};

/// Where a thread of a transpose pass works in the tile: `width` elements
/// from `column` of rows `firstRow`, `firstRow + rowsPerStep`, ...
struct TilePlacement {
  int64_t width;
  int64_t rowsPerStep;
  mlir::Value column, firstRow;
};

/// Emits the code of one map: host-side preparation at construction, then
/// the per-thread code of a strategy. Index arithmetic folds as it is built,
/// so that what the types know (static sizes, strides and offsets) stays a
/// constant, which pw-lower-to-gpu makes an immediate of the kernel rather
/// than a parameter (docs/Performance.md, row `static-immediates`).
class KernelEmitter {
public:
  KernelEmitter(mlir::OpBuilder &builder, MapOp map, mlir::Type indexType)
      : builder(builder), loc(map.getLoc()), map(map), indexType(indexType) {}

  mlir::LogicalResult prepare(Strategy strategy, int64_t vectorBytes);
  int64_t getVectorWidth() const { return vectorWidth; }
  /// Builds the block and thread loops and their bodies.
  void emit(Strategy strategy, int64_t blockSize, int64_t unroll);
  /// The transpose strategy: square tiles of dims `transposedDim` and the
  /// last, staged through a tile buffer per transposed input.
  void emitTranspose(int64_t transposedDim, int64_t tileEdge);

private:
  mlir::Value constant(int64_t value) {
    return mlir::arith::ConstantOp::create(
        builder, loc, builder.getIntegerAttr(indexType, value));
  }
  mlir::Value toIndexType(mlir::Value index) {
    return index.getType() == indexType
               ? index
               : builder.createOrFold<mlir::arith::IndexCastOp>(loc, indexType,
                                                                index);
  }
  /// `value` as an index. Element offsets may be negative: the family
  /// runtime passes each operand's pointer to its first element, whose
  /// strides may be negative (lib/Runtime/FamilyDispatch.cpp, rebasing).
  mlir::Value toIndex(mlir::Value value) {
    return value.getType().isIndex()
               ? value
               : builder.createOrFold<mlir::arith::IndexCastOp>(
                     loc, builder.getIndexType(), value);
  }
  mlir::Value add(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::AddIOp>(loc, a, b);
  }
  mlir::Value mul(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::MulIOp>(loc, a, b);
  }
  /// A sum and a product of an operand's element offset: its offset plus
  /// coordinates (each below its dim's size) times its strides. The index
  /// type is chosen so that |offset| + sum (size - 1) * |stride| fits it
  /// (pointwise::layout::computeIndexWidth), which bounds every partial sum
  /// and product: neither wraps as a signed number. Where a guarded element
  /// is out of range the value may wrap, but it then reaches no access.
  /// Saying so (nsw) spares LLVM's analyses of the 32-bit kernels'
  /// addresses part of their work (docs/Performance.md, row
  /// `offset-no-wrap`).
  mlir::Value addOffset(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::AddIOp>(
        loc, a, b, mlir::arith::IntegerOverflowFlags::nsw);
  }
  mlir::Value mulOffset(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::MulIOp>(
        loc, a, b, mlir::arith::IntegerOverflowFlags::nsw);
  }
  mlir::Value divide(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::DivUIOp>(loc, a, b);
  }
  mlir::Value remainder(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::RemUIOp>(loc, a, b);
  }
  mlir::Value bothTrue(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::AndIOp>(loc, a, b);
  }
  /// A loop from 0 to `upperBound` mapped to `processor`, with the
  /// insertion point moved into it.
  mlir::scf::ParallelOp createMappedLoop(mlir::Value upperBound,
                                         mlir::gpu::Processor processor);
  /// A block loop over `grid` with a strategy, each block computing
  /// `elementsPerBlock` elements, and the insertion point in it.
  mlir::scf::ParallelOp createBlockLoop(mlir::Value grid, Strategy strategy,
                                        int64_t elementsPerBlock);
  /// A thread loop over `threads` at the insertion point, which moves into
  /// its body; returns its induction variable in indexType.
  mlir::Value createThreadLoop(int64_t threads);
  /// a < b for indices, which are never negative: unsigned, so that an
  /// index past 2^31 - 1 in a 32-bit kernel (the last block's elements
  /// beyond the end, shifted by the head, reach total + perBlock + head) is
  /// out of range rather than negative and in range.
  mlir::Value lessThan(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::CmpIOp>(
        loc, mlir::arith::CmpIPredicate::ult, a, b);
  }
  mlir::Value equal(mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::CmpIOp>(
        loc, mlir::arith::CmpIPredicate::eq, a, b);
  }
  mlir::Value isMultiple(mlir::Value value, int64_t of) {
    return equal(remainder(value, constant(of)), constant(0));
  }

  FlatOperand flatten(mlir::Value memref);
  /// Host side: prepares division by `divisor`.
  Divider createDivider(mlir::Value divisor);
  /// Kernel side: quotient and remainder of `dividend` by a divider.
  std::pair<mlir::Value, mlir::Value>
  divideWithRemainder(mlir::Value dividend, const Divider &divider);
  /// Host side: the first element of `operand`, modulo `width` elements.
  mlir::Value computeMisalignment(mlir::Value memref,
                                  const FlatOperand &operand, int64_t width);
  mlir::Value computeHostVectorCondition();
  /// The widest vector of at most `width` elements, halving, whose whole
  /// number fills a row of static size (rank 2 and more). A vectorized
  /// operand whose static row stride is not a whole number of such vectors
  /// moves its lanes one by one, so that the others keep their vectors.
  int64_t fitVectorsToStaticLayout(int64_t width);
  /// Whether the vector path computes the body on vectors of its width
  /// rather than lane by lane.
  bool chooseVectorBody() const;
  /// The elements of a 16-byte vector of the transpose strategy, or 1 when
  /// its tiles cannot move vectors (i1 operands, tiles too small).
  int64_t chooseTransposeVectorWidth(int64_t tileEdge);
  /// Host side: the transpose strategy's vector path is safe (see
  /// emitTranspose).
  mlir::Value computeTransposeVectorCondition(const TransposeTiles &tiles);
  /// The offset of element (p, l) of the block's tile in operand `operand`
  /// (inputs, then outputs).
  mlir::Value getTileElementOffset(const TransposeTiles &tiles,
                                   unsigned operand, mlir::Value p,
                                   mlir::Value l);
  /// `count` loads of `input` from `offset` along its last dim: one vector
  /// when it is contiguous there, else element by element along its stride.
  llvm::SmallVector<mlir::Value>
  loadAlongLastDim(const FlatOperand &input, mlir::Value offset, int64_t count);
  /// The lanes of one aligned vector of `count` elements at `offset` (one
  /// scalar load when `count` is 1).
  llvm::SmallVector<mlir::Value> loadVector(const FlatOperand &input,
                                            mlir::Value offset, int64_t count);
  /// A thread's place in the tile for one pass: rows of consecutive threads
  /// along the pass's contiguous dim, one element or vector each.
  TilePlacement placeInTile(const TransposeTiles &tiles, mlir::Value thread,
                            bool vector);
  /// Thread-loop bodies of the transpose strategy: pass 1 stages the
  /// transposed inputs into their tiles, pass 2 computes and stores.
  void emitTransposeStaging(const TransposeTiles &tiles, mlir::Value thread,
                            bool vector, bool guarded);
  void emitTransposeCompute(const TransposeTiles &tiles, mlir::Value thread,
                            bool vector, bool guarded);
  /// A loop over an edge tile's rows, 0 to E by `rowsPerStep`, with the
  /// insertion point moved into it; returns its induction variable.
  mlir::Value createEdgeTileRowLoop(const TransposeTiles &tiles,
                                    int64_t rowsPerStep);
  /// Element offsets of every operand at linear iteration index `linear`.
  llvm::SmallVector<mlir::Value> computeOffsets(mlir::Value linear);
  mlir::Value load(const FlatOperand &operand, mlir::Value offset);
  /// The offset of lane `lane` of a vector chunk starting at `offset`.
  mlir::Value laneOffset(const FlatOperand &operand, mlir::Value offset,
                         int64_t lane) {
    return lane ? addOffset(offset,
                            mulOffset(constant(lane), operand.strides.back()))
                : offset;
  }
  void emitScalarElement(mlir::Value linear);
  void emitGuardedScalarElement(mlir::Value linear);
  /// Unguarded elements: every input of every element loaded first, then
  /// computed and stored.
  void emitScalarElements(llvm::ArrayRef<mlir::Value> linears);
  void emitVectorChunks(llvm::ArrayRef<mlir::Value> chunkIndices,
                        mlir::Value first);

  mlir::OpBuilder &builder;
  mlir::Location loc;
  MapOp map;
  mlir::Type indexType;
  llvm::SmallVector<mlir::Value> sizes; // iteration sizes, in indexType
  llvm::SmallVector<Divider> sizeDividers;
  mlir::Value total;                     // number of elements, in indexType
  llvm::SmallVector<FlatOperand> inputs; // null flat for scalar inputs
  llvm::SmallVector<mlir::Value> scalarInputs; // the map's operand for scalars
  llvm::SmallVector<FlatOperand> outputs;
  int64_t vectorWidth = 1;
  /// The linear strategy's vector path computes each chunk's body once, on
  /// vectors (chooseVectorBody).
  bool vectorBody = false;
  mlir::Value vectorCondition; // host-side i1: the vector path is safe
  mlir::Value head;            // host-side: scalar elements before the vectors
};

} // namespace pointwise::tiling

#endif // POINTWISE_LIB_DIALECT_POINTWISE_TRANSFORMS_TILINGINTERNAL_H
