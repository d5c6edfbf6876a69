//===- MapOpBuilderTest.cpp - Building pointwise.map from C++ -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Builds functions whose arguments are the map's operands and collects the
/// verifier's messages.
class MapOpBuilderTest : public ::testing::Test {
protected:
  MapOpBuilderTest() : builder(&context) {
    DialectRegistry registry;
    pointwise::registerPointwiseDialect(registry);
    registry.insert<func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler([this](Diagnostic &diagnostic) {
      messages.push_back(diagnostic.str());
      return success();
    });
    module = ModuleOp::create(builder.getUnknownLoc());
  }

  /// Creates `func.func @test(argumentTypes)` and leaves the builder before
  /// its `func.return`.
  ValueRange createFunction(ArrayRef<Type> argumentTypes) {
    builder.setInsertionPointToEnd(module->getBody());
    auto function =
        func::FuncOp::create(builder, builder.getUnknownLoc(), "test",
                             builder.getFunctionType(argumentTypes, {}));
    Block *entry = function.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    auto terminator = func::ReturnOp::create(builder, builder.getUnknownLoc());
    builder.setInsertionPoint(terminator);
    return entry->getArguments();
  }

  MemRefType memref(ArrayRef<int64_t> shape, Type elementType) {
    return MemRefType::get(shape, elementType);
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::vector<std::string> messages;
};

TEST_F(MapOpBuilderTest, AxpyWithBroadcastAndScalarVerifies) {
  Type f32 = builder.getF32Type();
  int64_t dynamic = ShapedType::kDynamic;
  ValueRange args = createFunction(
      {memref({dynamic, 8}, f32), memref({8}, f32), f32, memref({4, 8}, f32)});
  Location loc = builder.getUnknownLoc();

  auto map = pointwise::MapOp::create(
      builder, loc, args.take_front(3), args.drop_front(3),
      [](OpBuilder &b, Location bodyLoc, ValueRange scalars) {
        Value product =
            arith::MulFOp::create(b, bodyLoc, scalars[1], scalars[2]);
        Value sum = arith::AddFOp::create(b, bodyLoc, scalars[0], product);
        pointwise::YieldOp::create(b, bodyLoc, sum);
      });

  EXPECT_TRUE(succeeded(verify(*module))) << ::testing::PrintToString(messages);
  EXPECT_TRUE(messages.empty());
  EXPECT_EQ(map.getNumInputs(), 3u);
  EXPECT_EQ(map.getNumOutputs(), 1u);
  ASSERT_EQ(map.getBodyBlock()->getNumArguments(), 3u);
  for (BlockArgument argument : map.getBodyBlock()->getArguments())
    EXPECT_EQ(argument.getType(), f32);
  EXPECT_EQ(map.getIterationShape(), (SmallVector<int64_t>{4, 8}));
}

TEST_F(MapOpBuilderTest, IterationShapeTakesStaticSizesFromAnyOutput) {
  Type i32 = builder.getI32Type();
  int64_t dynamic = ShapedType::kDynamic;
  ValueRange args =
      createFunction({memref({dynamic, 5}, i32), memref({3, dynamic}, i32)});
  auto map = pointwise::MapOp::create(
      builder, builder.getUnknownLoc(), ValueRange(), args,
      [](OpBuilder &b, Location loc, ValueRange) {
        Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
        pointwise::YieldOp::create(b, loc, ValueRange{zero, zero});
      });
  EXPECT_TRUE(succeeded(verify(*module))) << ::testing::PrintToString(messages);
  EXPECT_EQ(map.getIterationShape(), (SmallVector<int64_t>{3, 5}));
}

TEST_F(MapOpBuilderTest, YieldOfTheWrongTypeIsRejectedWithItsMessage) {
  Type f32 = builder.getF32Type();
  Type f16 = builder.getF16Type();
  ValueRange args = createFunction({memref({16}, f32), memref({16}, f16)});
  pointwise::MapOp::create(builder, builder.getUnknownLoc(), args.take_front(1),
                           args.drop_front(1),
                           [](OpBuilder &b, Location loc, ValueRange scalars) {
                             pointwise::YieldOp::create(b, loc, scalars[0]);
                           });

  EXPECT_TRUE(failed(verify(*module)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "'pointwise.yield' op value #0 has type 'f32', but "
                         "output #0 has element type 'f16'");
}

TEST_F(MapOpBuilderTest, StaticBroadcastMismatchIsRejectedWithItsMessage) {
  Type f32 = builder.getF32Type();
  ValueRange args = createFunction({memref({3}, f32), memref({2, 4}, f32)});
  pointwise::MapOp::create(builder, builder.getUnknownLoc(), args.take_front(1),
                           args.drop_front(1),
                           [](OpBuilder &b, Location loc, ValueRange scalars) {
                             pointwise::YieldOp::create(b, loc, scalars[0]);
                           });

  EXPECT_TRUE(failed(verify(*module)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "'pointwise.map' op input #0 dim 0 has size 3, which "
                         "does not broadcast to size 4 of iteration dim 1");
}

TEST_F(MapOpBuilderTest, MemoryEffectsReadInputsAndWriteOutputs) {
  Type f64 = builder.getF64Type();
  ValueRange args = createFunction({memref({2}, f64), f64, memref({2}, f64)});
  auto map = pointwise::MapOp::create(
      builder, builder.getUnknownLoc(), args.take_front(2), args.drop_front(2),
      [](OpBuilder &b, Location loc, ValueRange scalars) {
        Value sum = arith::AddFOp::create(b, loc, scalars[0], scalars[1]);
        pointwise::YieldOp::create(b, loc, sum);
      });

  SmallVector<MemoryEffects::EffectInstance> effects;
  cast<MemoryEffectOpInterface>(map.getOperation()).getEffects(effects);
  ASSERT_EQ(effects.size(), 2u);
  EXPECT_TRUE(isa<MemoryEffects::Read>(effects[0].getEffect()));
  EXPECT_EQ(effects[0].getValue(), args[0]);
  EXPECT_TRUE(isa<MemoryEffects::Write>(effects[1].getEffect()));
  EXPECT_EQ(effects[1].getValue(), args[2]);
}

} // namespace
