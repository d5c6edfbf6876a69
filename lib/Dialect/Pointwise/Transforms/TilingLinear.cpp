//===- TilingLinear.cpp - Linear and general strategies -------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The linear strategy moves each thread's elements in vectors along the
// last dim, with a scalar path for misaligned data and the last block; the
// general strategy is its scalar path alone.
//
//===----------------------------------------------------------------------===//

#include "TilingInternal.h"

#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace pointwise;
using namespace pointwise::tiling;

Value KernelEmitter::computeHostVectorCondition() {
  Value ok = arith::ConstantIntOp::create(builder, loc, 1, 1);
  // Rank 1 may start with a scalar head: the elements before the first one
  // at a vector boundary, provided every vectorized operand reaches its
  // boundary at the same element (a[1:] + b[1:]). Higher ranks need every
  // row aligned, so no head.
  bool peelHead = sizes.size() == 1;
  if (sizes.size() > 1)
    ok = builder.createOrFold<arith::AndIOp>(
        loc, ok, isMultiple(sizes.back(), vectorWidth));
  // Outputs first: with run-time strides, the head aligns the first output.
  auto memrefs = llvm::concat<Value>(map.getOutputs(), map.getInputs());
  auto operands = llvm::concat<FlatOperand>(outputs, inputs);
  auto getMisalignment = [&](Value memref, const FlatOperand &operand) {
    return computeMisalignment(memref, operand, vectorWidth);
  };
  // The element misalignment every vectorized operand must share: that of
  // the first operand with a static unit stride, else of the first one with
  // a dynamic stride.
  Value misalignment = constant(0);
  if (peelHead) {
    std::optional<std::pair<Value, FlatOperand *>> anchor;
    for (bool dynamic : {false, true}) {
      for (auto [memref, operand] : llvm::zip(memrefs, operands))
        if (operand.flat && operand.vectorized &&
            operand.lastStrideIsDynamic == dynamic) {
          anchor = {memref, &operand};
          break;
        }
      if (anchor)
        break;
    }
    if (anchor)
      misalignment = getMisalignment(anchor->first, *anchor->second);
  }
  for (auto [memref, operand] : llvm::zip(memrefs, operands)) {
    if (!operand.flat || !operand.vectorized)
      continue;
    Value aligned = equal(getMisalignment(memref, operand), misalignment);
    for (Value stride : ArrayRef(operand.strides).drop_back())
      aligned = bothTrue(aligned, isMultiple(stride, vectorWidth));
    if (!operand.lastStrideIsDynamic) {
      ok = bothTrue(ok, aligned);
      continue;
    }
    // A run-time stride decides per operand: the others of the vector path
    // move lane by lane.
    operand.vectorFlag =
        bothTrue(aligned, equal(operand.strides.back(), constant(1)));
  }
  head = peelHead ? remainder(builder.createOrFold<arith::SubIOp>(
                                  loc, constant(vectorWidth), misalignment),
                              constant(vectorWidth))
                  : constant(0);
  return ok;
}

void KernelEmitter::emitScalarElement(Value linear) {
  SmallVector<Value> offsets = computeOffsets(linear);
  SmallVector<Value> values;
  for (auto [index, operand] : llvm::enumerate(inputs))
    values.push_back(operand.flat ? load(operand, offsets[index])
                                  : scalarInputs[index]);
  SmallVector<Value> results = cloneBodyInOpMath(builder, loc, map, values);
  for (auto [index, operand] : llvm::enumerate(outputs))
    memref::StoreOp::create(
        builder, loc, results[index], operand.flat,
        ValueRange{toIndex(offsets[inputs.size() + index])});
}

void KernelEmitter::emitScalarElements(ArrayRef<Value> linears) {
  SmallVector<SmallVector<Value>> offsets, values;
  for (Value linear : linears) {
    offsets.push_back(computeOffsets(linear));
    values.emplace_back();
    for (auto [index, operand] : llvm::enumerate(inputs))
      values.back().push_back(operand.flat
                                  ? load(operand, offsets.back()[index])
                                  : scalarInputs[index]);
  }
  for (auto [elementOffsets, elementValues] : llvm::zip(offsets, values)) {
    SmallVector<Value> results =
        cloneBodyInOpMath(builder, loc, map, elementValues);
    for (auto [index, operand] : llvm::enumerate(outputs))
      memref::StoreOp::create(
          builder, loc, results[index], operand.flat,
          ValueRange{toIndex(elementOffsets[inputs.size() + index])});
  }
}

void KernelEmitter::emitGuardedScalarElement(Value linear) {
  auto guard = scf::IfOp::create(builder, loc, lessThan(linear, total));
  OpBuilder::InsertionGuard insertion(builder);
  builder.setInsertionPointToStart(guard.thenBlock());
  emitScalarElement(linear);
}

/// Full vectors for every chunk: all loads first, so that each thread has
/// `unroll` independent accesses per operand in flight, then compute and
/// store. An operand whose run-time stride decides between its vectors and
/// its lanes loads every chunk under one branch: with a branch per chunk,
/// ptxas if-converts them and schedules a later chunk's load after the
/// computation of the earlier ones.
void KernelEmitter::emitVectorChunks(ArrayRef<Value> chunkIndices,
                                     Value first) {
  SmallVector<SmallVector<Value>> offsets;
  for (Value chunk : chunkIndices)
    offsets.push_back(
        computeOffsets(add(first, mul(chunk, constant(vectorWidth)))));

  // Per input with a vector flag, its vector of each chunk.
  SmallVector<SmallVector<Value>> flaggedVectors(inputs.size());
  for (auto [index, operand] : llvm::enumerate(inputs)) {
    if (!operand.flat || !operand.vectorized || !operand.vectorFlag)
      continue;
    auto type = VectorType::get({vectorWidth}, operand.elementType);
    int64_t alignment = vectorWidth * getElementByteWidth(operand.elementType);
    SmallVector<Type> types(chunkIndices.size(), type);
    // A uniform branch: the whole vectors, or their lanes one by one along
    // the run-time stride.
    auto ifVector = scf::IfOp::create(builder, loc, types, operand.vectorFlag,
                                      /*withElseRegion=*/true);
    OpBuilder::InsertionGuard branches(builder);
    builder.setInsertionPointToStart(ifVector.thenBlock());
    SmallVector<Value> vectors;
    for (SmallVector<Value> &chunkOffsets : offsets)
      vectors.push_back(vector::LoadOp::create(
          builder, loc, type, operand.flat,
          ValueRange{toIndex(chunkOffsets[index])},
          /*nontemporal=*/false, llvm::MaybeAlign(alignment)));
    scf::YieldOp::create(builder, loc, vectors);
    builder.setInsertionPointToStart(ifVector.elseBlock());
    vectors.clear();
    for (SmallVector<Value> &chunkOffsets : offsets) {
      SmallVector<Value> laneValues;
      for (int64_t lane = 0; lane < vectorWidth; ++lane)
        laneValues.push_back(
            load(operand, laneOffset(operand, chunkOffsets[index], lane)));
      vectors.push_back(
          vector::FromElementsOp::create(builder, loc, type, laneValues));
    }
    scf::YieldOp::create(builder, loc, vectors);
    flaggedVectors[index].assign(ifVector.getResults().begin(),
                                 ifVector.getResults().end());
  }

  SmallVector<SmallVector<SmallVector<Value>>> lanes; // chunk, input, lane
  for (auto [chunk, chunkOffsets] : llvm::enumerate(offsets)) {
    SmallVector<SmallVector<Value>> chunkLanes;
    for (auto [index, operand] : llvm::enumerate(inputs)) {
      SmallVector<Value> values;
      Value offset = chunkOffsets[index];
      if (!operand.flat) {
        values.assign(vectorWidth, scalarInputs[index]);
      } else if (operand.vectorized) {
        Value vector;
        if (operand.vectorFlag) {
          vector = flaggedVectors[index][chunk];
        } else {
          auto type = VectorType::get({vectorWidth}, operand.elementType);
          int64_t alignment =
              vectorWidth * getElementByteWidth(operand.elementType);
          vector = vector::LoadOp::create(
              builder, loc, type, operand.flat, ValueRange{toIndex(offset)},
              /*nontemporal=*/false, llvm::MaybeAlign(alignment));
        }
        for (int64_t lane = 0; lane < vectorWidth; ++lane)
          values.push_back(
              vector::ExtractOp::create(builder, loc, vector, lane));
      } else {
        // Stride 0 along the last dim: one value for the whole vector; i1
        // operands step element by element.
        bool broadcast = operand.broadcastAlongLastDim;
        for (int64_t lane = 0; lane < vectorWidth; ++lane) {
          if (broadcast && lane > 0) {
            values.push_back(values.front());
            continue;
          }
          values.push_back(load(operand, laneOffset(operand, offset, lane)));
        }
      }
      chunkLanes.push_back(std::move(values));
    }
    lanes.push_back(std::move(chunkLanes));
  }

  for (auto [chunk, chunkLanes] : llvm::enumerate(lanes)) {
    SmallVector<SmallVector<Value>> results(outputs.size());
    if (vectorBody) {
      // The chunk's lanes as vectors (from_elements of the lanes extracted
      // from a loaded vector folds back to that vector), one body for all.
      SmallVector<Value> vectors;
      for (SmallVector<Value> &inputLanes : chunkLanes)
        vectors.push_back(vector::FromElementsOp::create(
            builder, loc,
            VectorType::get({vectorWidth}, inputLanes.front().getType()),
            inputLanes));
      for (auto [output, vector] : llvm::enumerate(cloneBodyInOpMathOnVectors(
               builder, loc, map, vectors, vectorWidth)))
        for (int64_t lane = 0; lane < vectorWidth; ++lane)
          results[output].push_back(
              vector::ExtractOp::create(builder, loc, vector, lane));
    } else {
      for (int64_t lane = 0; lane < vectorWidth; ++lane) {
        SmallVector<Value> values;
        for (SmallVector<Value> &inputLanes : chunkLanes)
          values.push_back(inputLanes[lane]);
        SmallVector<Value> laneResults =
            cloneBodyInOpMath(builder, loc, map, values);
        for (auto [output, value] : llvm::enumerate(laneResults))
          results[output].push_back(value);
      }
    }
    for (auto [index, operand] : llvm::enumerate(outputs)) {
      Value offset = offsets[chunk][inputs.size() + index];
      if (!operand.vectorized) {
        // i1 outputs go element by element, along their own last stride
        // (which the vector path's condition does not constrain).
        for (int64_t lane = 0; lane < vectorWidth; ++lane) {
          memref::StoreOp::create(
              builder, loc, results[index][lane], operand.flat,
              ValueRange{toIndex(laneOffset(operand, offset, lane))});
        }
        continue;
      }
      auto type = VectorType::get({vectorWidth}, operand.elementType);
      int64_t alignment =
          vectorWidth * getElementByteWidth(operand.elementType);
      OpBuilder::InsertionGuard branches(builder);
      if (operand.vectorFlag) {
        auto ifVector = scf::IfOp::create(builder, loc, operand.vectorFlag,
                                          /*withElseRegion=*/true);
        builder.setInsertionPointToStart(ifVector.elseBlock());
        for (int64_t lane = 0; lane < vectorWidth; ++lane)
          memref::StoreOp::create(
              builder, loc, results[index][lane], operand.flat,
              ValueRange{toIndex(laneOffset(operand, offset, lane))});
        builder.setInsertionPointToStart(ifVector.thenBlock());
      }
      Value vector =
          vector::FromElementsOp::create(builder, loc, type, results[index]);
      vector::StoreOp::create(
          builder, loc, vector, operand.flat, ValueRange{toIndex(offset)},
          /*nontemporal=*/false, llvm::MaybeAlign(alignment));
    }
  }
}

// One chunk per block, no persistent grid (docs/Performance.md, row
// `linear-grid`).
void KernelEmitter::emit(Strategy strategy, int64_t blockSize, int64_t unroll) {
  int64_t elementsPerThread =
      unroll * (strategy == Strategy::Linear ? vectorWidth : 1);
  Value perBlock = constant(blockSize * elementsPerThread);
  Value grid =
      toIndex(builder.createOrFold<arith::CeilDivUIOp>(loc, total, perBlock));

  // CUDA rejects empty grids: an empty iteration space launches nothing.
  Value nonEmpty = lessThan(constant(0), total);
  auto ifNonEmpty = scf::IfOp::create(builder, loc, nonEmpty);
  OpBuilder::InsertionGuard insertion(builder);
  builder.setInsertionPointToStart(ifNonEmpty.thenBlock());
  scf::ParallelOp blocks =
      createBlockLoop(grid, strategy, blockSize * elementsPerThread);
  Value block = toIndexType(blocks.getInductionVars()[0]);
  Value thread = createThreadLoop(blockSize);
  Value blockThreads = constant(blockSize);

  // Scalar elements of this thread from element `first` on: coalesced
  // across the block for each step, `elementsPerThread` steps. A block whose
  // elements are all in range loads every step's inputs before computing
  // (independent loads in flight, as on the vector path); the last, partial
  // block loops over the steps, one guarded element each: a guarded element
  // waits for its own load either way, so the loop keeps no load out of
  // flight and the kernel one copy of the element's code instead of
  // `elementsPerThread` (docs/Performance.md, row `linear-edge-loop`).
  auto emitScalarSteps = [&](Value first) {
    Value base = mul(block, constant(elementsPerThread));
    auto linearOf = [&](Value step) {
      return add(first, add(mul(add(base, step), blockThreads), thread));
    };
    SmallVector<Value> linears;
    for (int64_t step = 0; step < elementsPerThread; ++step)
      linears.push_back(linearOf(constant(step)));
    Value blockEnd = add(first, mul(add(block, constant(1)), perBlock));
    auto ifFull =
        scf::IfOp::create(builder, loc,
                          builder.createOrFold<arith::CmpIOp>(
                              loc, arith::CmpIPredicate::ule, blockEnd, total),
                          /*withElseRegion=*/true);
    OpBuilder::InsertionGuard paths(builder);
    builder.setInsertionPointToStart(ifFull.thenBlock());
    emitScalarElements(linears);
    builder.setInsertionPointToStart(ifFull.elseBlock());
    auto steps = scf::ForOp::create(builder, loc, constant(0),
                                    constant(elementsPerThread), constant(1));
    builder.setInsertionPointToStart(steps.getBody());
    emitGuardedScalarElement(linearOf(steps.getInductionVar()));
  };

  if (strategy == Strategy::General) {
    emitScalarSteps(constant(0));
    return;
  }

  auto ifVector = scf::IfOp::create(builder, loc, vectorCondition,
                                    /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard vectorPath(builder);
    builder.setInsertionPointToStart(ifVector.thenBlock());
    // The head, fewer elements than a vector, goes to the first threads of
    // the first block; everything after it is shifted by the head (none at
    // rank 2 and more).
    if (!isConstantIntValue(head, 0)) {
      // Named operands: a fixed order of the ops, whatever compiler builds
      // pw-tile.
      Value inHead = lessThan(thread, head);
      Value firstBlock = builder.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, block, constant(0));
      auto ifHead =
          scf::IfOp::create(builder, loc, bothTrue(firstBlock, inHead));
      OpBuilder::InsertionGuard headPath(builder);
      builder.setInsertionPointToStart(ifHead.thenBlock());
      emitGuardedScalarElement(thread);
    }
    // A block whose chunks are all in range takes the unguarded vector
    // code; the last, partial block takes the scalar code.
    Value blockEnd = add(mul(add(block, constant(1)), perBlock), head);
    Value full = builder.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ule, blockEnd, total);
    auto ifFull =
        scf::IfOp::create(builder, loc, full, /*withElseRegion=*/true);
    builder.setInsertionPointToStart(ifFull.thenBlock());
    SmallVector<Value> chunks;
    Value firstChunk = add(mul(block, constant(unroll * blockSize)), thread);
    for (int64_t step = 0; step < unroll; ++step)
      chunks.push_back(add(firstChunk, constant(step * blockSize)));
    emitVectorChunks(chunks, head);
    builder.setInsertionPointToStart(ifFull.elseBlock());
    emitScalarSteps(head);
  }
  builder.setInsertionPointToStart(ifVector.elseBlock());
  emitScalarSteps(constant(0));
}
