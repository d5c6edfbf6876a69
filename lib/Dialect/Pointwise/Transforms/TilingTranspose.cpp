//===- TilingTranspose.cpp - Transpose strategy ---------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The transpose strategy stages the inputs contiguous along another dim
// than the outputs through shared-memory tiles, so that reads and writes
// are both coalesced.
//
//===----------------------------------------------------------------------===//

#include "TilingInternal.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace pointwise;
using namespace pointwise::tiling;

int64_t KernelEmitter::chooseTransposeVectorWidth(int64_t tileEdge) {
  int64_t widest = 1;
  for (const FlatOperand &operand :
       llvm::concat<const FlatOperand>(inputs, outputs)) {
    if (!operand.flat)
      continue;
    // LLVM packs vectors of i1 into bits; their bytes move one by one.
    if (operand.elementType.isInteger(1))
      return 1;
    widest = std::max(widest, getElementByteWidth(operand.elementType));
  }
  int64_t width = kTransposeVectorBytes / widest;
  // Every thread moves the same whole number of vectors per tile.
  if (width < 2 || tileEdge % width ||
      (tileEdge * tileEdge / width) % kTileThreads)
    return 1;
  return width;
}

Value KernelEmitter::computeTransposeVectorCondition(
    const TransposeTiles &tiles) {
  Value safe = arith::ConstantIntOp::create(builder, loc, 1, 1);
  auto memrefs = llvm::concat<Value>(map.getInputs(), map.getOutputs());
  auto operands = llvm::concat<const FlatOperand>(inputs, outputs);
  for (auto [index, pair] : llvm::enumerate(llvm::zip(memrefs, operands))) {
    auto [memref, operand] = pair;
    if (!operand.flat)
      continue;
    bool staged = index < inputs.size() && tiles.buffers[index];
    // The dim the operand's vectors run along: P for the staged inputs
    // (statically contiguous there), L for the others. Those with a static
    // stride other than 1 along L move element by element: no condition.
    int64_t along = staged ? tiles.transposedDim : tiles.last;
    if (!staged && !operand.vectorized)
      continue;
    // Vectors start at multiples of the width along `along` inside the
    // tile, so the first element and every other stride must be multiples
    // of it too.
    safe = bothTrue(
        safe, equal(computeMisalignment(memref, operand, tiles.vectorWidth),
                    constant(0)));
    for (auto [dim, stride] : llvm::enumerate(operand.strides))
      if (static_cast<int64_t>(dim) != along)
        safe = bothTrue(safe, isMultiple(stride, tiles.vectorWidth));
    if (!staged && operand.lastStrideIsDynamic)
      safe = bothTrue(safe, equal(operand.strides.back(), constant(1)));
    // A staged input's stride along P is 1 unless P broadcasts at run time
    // (see isTransposedInput); a constant 1 folds away.
    if (staged)
      safe = bothTrue(safe,
                      equal(operand.strides[tiles.transposedDim], constant(1)));
  }
  return safe;
}

Value KernelEmitter::getTileElementOffset(const TransposeTiles &tiles,
                                          unsigned operand, Value p, Value l) {
  const FlatOperand &flat = operand < inputs.size()
                                ? inputs[operand]
                                : outputs[operand - inputs.size()];
  // Named terms, so that the order of the ops does not depend on the C++
  // compiler's order of evaluating arguments: the one measured
  // (docs/Performance.md, row `offset-no-wrap`); the other order gives
  // ptxas a different schedule (r4 i32 transpose: 664 SASS instructions
  // against 600).
  Value alongL = mulOffset(l, flat.strides[tiles.last]);
  Value alongP = mulOffset(p, flat.strides[tiles.transposedDim]);
  return addOffset(tiles.offsets[operand], addOffset(alongP, alongL));
}

SmallVector<Value> KernelEmitter::loadAlongLastDim(const FlatOperand &input,
                                                   Value offset,
                                                   int64_t count) {
  if (count > 1 && input.vectorized)
    return loadVector(input, offset, count);
  SmallVector<Value> values;
  for (int64_t lane = 0; lane < count; ++lane)
    values.push_back(load(input, laneOffset(input, offset, lane)));
  return values;
}

SmallVector<Value> KernelEmitter::loadVector(const FlatOperand &input,
                                             Value offset, int64_t count) {
  if (count == 1)
    return {load(input, offset)};
  SmallVector<Value> values;
  auto type = VectorType::get({count}, input.elementType);
  Value vector = vector::LoadOp::create(
      builder, loc, type, input.flat, ValueRange{toIndex(offset)},
      /*nontemporal=*/false,
      llvm::MaybeAlign(count * getElementByteWidth(input.elementType)));
  for (int64_t lane = 0; lane < count; ++lane)
    values.push_back(vector::ExtractOp::create(builder, loc, vector, lane));
  return values;
}

TilePlacement KernelEmitter::placeInTile(const TransposeTiles &tiles,
                                         Value thread, bool vector) {
  TilePlacement placement;
  placement.width = vector ? tiles.vectorWidth : 1;
  int64_t threadsPerRow = tiles.edge / placement.width;
  placement.rowsPerStep = kTileThreads / threadsPerRow;
  placement.column = mul(remainder(thread, constant(threadsPerRow)),
                         constant(placement.width));
  placement.firstRow = divide(thread, constant(threadsPerRow));
  return placement;
}

void KernelEmitter::emitTransposeStaging(const TransposeTiles &tiles,
                                         Value thread, bool vector,
                                         bool guarded) {
  // Each step covers the tile in rows of consecutive threads along the
  // staged inputs' contiguous dim P: `width` elements per thread, `edge /
  // width` threads per row. All loads come before the stores, so a thread
  // has every element of its steps in flight at once.
  auto [width, rowsPerStep, column, firstRow] =
      placeInTile(tiles, thread, vector);
  struct Staged {
    SmallVector<Value> values;
    Value buffer, p, l;
  };
  if (guarded) {
    OpBuilder::InsertionGuard rows(builder);
    Value l = add(firstRow, createEdgeTileRowLoop(tiles, rowsPerStep));
    for (auto [index, buffer] : llvm::enumerate(tiles.buffers)) {
      if (!buffer)
        continue;
      // Named operands: a fixed order of the ops (see getTileElementOffset).
      Value inL = lessThan(add(tiles.firstL, l), sizes[tiles.last]);
      Value inP =
          lessThan(add(tiles.firstP, column), sizes[tiles.transposedDim]);
      auto guard = scf::IfOp::create(builder, loc, bothTrue(inP, inL));
      OpBuilder::InsertionGuard inside(builder);
      builder.setInsertionPointToStart(guard.thenBlock());
      Value offset = getTileElementOffset(tiles, index, column, l);
      memref::StoreOp::create(builder, loc, load(inputs[index], offset), buffer,
                              ValueRange{toIndex(l), toIndex(column)});
    }
    return;
  }
  SmallVector<Staged> staged;
  for (int64_t row = 0; row < tiles.edge; row += rowsPerStep) {
    Value l = add(firstRow, constant(row));
    for (auto [index, buffer] : llvm::enumerate(tiles.buffers)) {
      if (!buffer)
        continue;
      Value offset = getTileElementOffset(tiles, index, column, l);
      staged.push_back(
          {loadVector(inputs[index], offset, width), buffer, column, l});
    }
  }
  for (const Staged &element : staged)
    for (auto [lane, value] : llvm::enumerate(element.values))
      memref::StoreOp::create(
          builder, loc, value, element.buffer,
          ValueRange{toIndex(element.l),
                     toIndex(add(element.p, constant(lane)))});
}

void KernelEmitter::emitTransposeCompute(const TransposeTiles &tiles,
                                         Value thread, bool vector,
                                         bool guarded) {
  // Each step covers the tile in rows of consecutive threads along the
  // outputs' contiguous dim L, `width` elements per thread. The inputs
  // not staged are read here, all of a thread's first, then each element
  // takes the staged ones from their tiles. (Plain variables: the lambdas
  // below capture them, which structured bindings allow from C++20 only.)
  TilePlacement placement = placeInTile(tiles, thread, vector);
  int64_t width = placement.width, rowsPerStep = placement.rowsPerStep;
  Value column = placement.column, firstRow = placement.firstRow;
  Value sizeP = sizes[tiles.transposedDim];
  Value sizeL = sizes[tiles.last];
  auto emitStep = [&](Value p, ArrayRef<SmallVector<Value>> direct) {
    SmallVector<SmallVector<Value>> results(outputs.size());
    for (int64_t lane = 0; lane < width; ++lane) {
      Value l = add(column, constant(lane));
      SmallVector<Value> values;
      for (auto [index, buffer] : llvm::enumerate(tiles.buffers))
        values.push_back(buffer ? Value(memref::LoadOp::create(
                                      builder, loc, buffer,
                                      ValueRange{toIndex(l), toIndex(p)}))
                                : direct[index][lane]);
      for (auto [output, value] :
           llvm::enumerate(cloneBodyInOpMath(builder, loc, map, values)))
        results[output].push_back(value);
    }
    for (auto [index, output] : llvm::enumerate(outputs)) {
      Value offset =
          getTileElementOffset(tiles, inputs.size() + index, p, column);
      if (width > 1 && output.vectorized) {
        auto type = VectorType::get({width}, output.elementType);
        vector::StoreOp::create(
            builder, loc,
            vector::FromElementsOp::create(builder, loc, type, results[index]),
            output.flat, ValueRange{toIndex(offset)}, /*nontemporal=*/false,
            llvm::MaybeAlign(width * getElementByteWidth(output.elementType)));
        continue;
      }
      for (auto [lane, value] : llvm::enumerate(results[index]))
        memref::StoreOp::create(
            builder, loc, value, output.flat,
            ValueRange{toIndex(laneOffset(output, offset, lane))});
    }
  };
  // The direct inputs' values of one step: `width` lanes per input.
  auto loadDirect = [&](Value p) {
    SmallVector<SmallVector<Value>> direct;
    for (auto [index, input] : llvm::enumerate(inputs)) {
      if (tiles.buffers[index])
        direct.emplace_back();
      else if (!input.flat)
        direct.emplace_back(width, scalarInputs[index]);
      else
        direct.push_back(loadAlongLastDim(
            input, getTileElementOffset(tiles, index, p, column), width));
    }
    return direct;
  };

  if (!guarded) {
    SmallVector<std::pair<Value, SmallVector<SmallVector<Value>>>> steps;
    for (int64_t row = 0; row < tiles.edge; row += rowsPerStep) {
      Value p = add(firstRow, constant(row));
      steps.emplace_back(p, loadDirect(p));
    }
    for (auto &[p, direct] : steps)
      emitStep(p, direct);
    return;
  }
  OpBuilder::InsertionGuard rows(builder);
  Value p = add(firstRow, createEdgeTileRowLoop(tiles, rowsPerStep));
  Value inL = lessThan(add(tiles.firstL, column), sizeL);
  Value inP = lessThan(add(tiles.firstP, p), sizeP);
  auto guard = scf::IfOp::create(builder, loc, bothTrue(inP, inL));
  builder.setInsertionPointToStart(guard.thenBlock());
  emitStep(p, loadDirect(p));
}

// Edge tiles guard every element, and each guarded element waits for its
// own load, so unrolling their rows gains no loads in flight: a loop keeps
// one copy of the body instead of edge / rowsPerStep (docs/Performance.md,
// row `transpose-edge-loop`).
Value KernelEmitter::createEdgeTileRowLoop(const TransposeTiles &tiles,
                                           int64_t rowsPerStep) {
  auto rows = scf::ForOp::create(builder, loc, constant(0),
                                 constant(tiles.edge), constant(rowsPerStep));
  builder.setInsertionPointToStart(rows.getBody());
  return rows.getInductionVar();
}

// Tiles along the outputs' last dim vary fastest in the grid
// (docs/Performance.md, rows `transpose-tile` and `transpose-block-order`).
void KernelEmitter::emitTranspose(int64_t transposedDim, int64_t tileEdge) {
  TransposeTiles tiles;
  tiles.transposedDim = transposedDim;
  tiles.last = sizes.size() - 1;
  tiles.edge = tileEdge;
  tiles.vectorWidth = chooseTransposeVectorWidth(tileEdge);
  Value edge = constant(tileEdge);
  Value tilesAlongP =
      builder.createOrFold<arith::CeilDivUIOp>(loc, sizes[transposedDim], edge);
  Value tilesAlongL =
      builder.createOrFold<arith::CeilDivUIOp>(loc, sizes[tiles.last], edge);
  SmallVector<int64_t> batchDims;
  Value batch = constant(1);
  for (int64_t dim = 0; dim < tiles.last; ++dim)
    if (dim != transposedDim) {
      batchDims.push_back(dim);
      batch = mul(batch, sizes[dim]);
    }
  Value grid = toIndex(mul(mul(batch, tilesAlongP), tilesAlongL));
  Divider byTilesAlongL = createDivider(tilesAlongL);
  Divider byTilesAlongP = createDivider(tilesAlongP);

  auto ifNonEmpty =
      scf::IfOp::create(builder, loc, lessThan(constant(0), total));
  OpBuilder::InsertionGuard insertion(builder);
  builder.setInsertionPointToStart(ifNonEmpty.thenBlock());
  // One tile per transposed input (contiguous along P, not along L); the
  // other inputs are read directly, along L like the outputs. The buffers
  // are allocated before the block loop and marked block-local:
  // pw-lower-to-gpu gives every block its own copy in workgroup memory,
  // while on the CPU, where blocks run one after another, one copy serves
  // them all.
  tiles.buffers.assign(inputs.size(), Value());
  for (auto [index, input] : llvm::enumerate(map.getInputs())) {
    if (!isTransposedInput(input, transposedDim))
      continue;
    auto buffer = memref::AllocaOp::create(
        builder, loc,
        MemRefType::get({tileEdge, tileEdge + 1}, inputs[index].elementType));
    buffer->setAttr(PointwiseDialect::BlockLocalAttrHelper::getNameStr(),
                    builder.getUnitAttr());
    tiles.buffers[index] = buffer;
  }
  if (tiles.vectorWidth > 1)
    tiles.vectorSafe = computeTransposeVectorCondition(tiles);
  scf::ParallelOp blocks =
      createBlockLoop(grid, Strategy::Transpose, tileEdge * tileEdge);

  // Which tile this block computes, and every operand's offset to it.
  Value block = toIndexType(blocks.getInductionVars()[0]);
  auto [rest, tileL] = divideWithRemainder(block, byTilesAlongL);
  Value tileP;
  std::tie(rest, tileP) = divideWithRemainder(rest, byTilesAlongP);
  SmallVector<Value> batchIndices(batchDims.size());
  for (int64_t position = batchDims.size() - 1; position >= 0; --position) {
    if (position == 0) {
      batchIndices[position] = rest;
      break;
    }
    std::tie(rest, batchIndices[position]) =
        divideWithRemainder(rest, sizeDividers[batchDims[position]]);
  }
  tiles.firstP = mul(tileP, edge);
  tiles.firstL = mul(tileL, edge);
  for (FlatOperand &operand : llvm::concat<FlatOperand>(inputs, outputs)) {
    if (!operand.flat) {
      tiles.offsets.push_back(Value());
      continue;
    }
    // In the order of getTileElementOffset's terms.
    Value alongL = mulOffset(tiles.firstL, operand.strides[tiles.last]);
    Value alongP = mulOffset(tiles.firstP, operand.strides[transposedDim]);
    Value offset = addOffset(operand.offset, addOffset(alongP, alongL));
    for (auto [position, dim] : llvm::enumerate(batchDims))
      offset = addOffset(
          offset, mulOffset(batchIndices[position], operand.strides[dim]));
    tiles.offsets.push_back(offset);
  }
  // The interior tiles, all but those at the high edges, need no bounds
  // checks; with the vector path safe they move whole vectors.
  Value fullAlongL = builder.createOrFold<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ule, add(tiles.firstL, edge),
      sizes[tiles.last]);
  Value fullAlongP = builder.createOrFold<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ule, add(tiles.firstP, edge),
      sizes[transposedDim]);
  tiles.full = bothTrue(fullAlongP, fullAlongL);

  // Each pass is a thread loop of kTileThreads threads with three paths:
  // vectors (interior tiles, vector path safe), unguarded scalars
  // (interior tiles) and guarded scalars (edge tiles). pw-lower-to-gpu puts
  // a barrier between the two passes.
  using PassBody =
      void (KernelEmitter::*)(const TransposeTiles &, Value, bool, bool);
  auto emitPass = [&](PassBody body) {
    OpBuilder::InsertionGuard pass(builder);
    Value thread = createThreadLoop(kTileThreads);
    auto ifFull =
        scf::IfOp::create(builder, loc, tiles.full, /*withElseRegion=*/true);
    builder.setInsertionPointToStart(ifFull.elseBlock());
    (this->*body)(tiles, thread, /*vector=*/false, /*guarded=*/true);
    builder.setInsertionPointToStart(ifFull.thenBlock());
    if (tiles.vectorSafe) {
      auto ifVector = scf::IfOp::create(builder, loc, tiles.vectorSafe,
                                        /*withElseRegion=*/true);
      builder.setInsertionPointToStart(ifVector.elseBlock());
      (this->*body)(tiles, thread, /*vector=*/false, /*guarded=*/false);
      builder.setInsertionPointToStart(ifVector.thenBlock());
      (this->*body)(tiles, thread, /*vector=*/true, /*guarded=*/false);
      return;
    }
    (this->*body)(tiles, thread, /*vector=*/false, /*guarded=*/false);
  };
  emitPass(&KernelEmitter::emitTransposeStaging);
  emitPass(&KernelEmitter::emitTransposeCompute);
}
