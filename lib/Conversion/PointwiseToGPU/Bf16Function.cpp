//===- Bf16Function.cpp - f32 computations of one bf16 number -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Finds the f32 computation of one bf16 number around an op, and tries all
// 65,536 inputs of it with bounds on each op's result (Bf16Function.h).
//
// The bounds are sound for what NVPTX and ptxas make of the ops: each f32
// add, subtract, multiply, divide and fma is rounded to nearest, or, for a
// multiply that ptxas contracts into an fma, not rounded at all; both lie
// between the exact result rounded down and rounded up to f32, which is what
// each op's bounds are. Products of f32 values are exact in float64; sums,
// quotients and tanh are widened by a float64 ulp before they are rounded
// out to f32.
//
//===----------------------------------------------------------------------===//

#include "Bf16Function.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

using namespace mlir;

namespace pointwise {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// More ops than this are not tried: 65,536 inputs each.
constexpr size_t kMaxOps = 256;

/// Bounds that say nothing: a NaN is possible and so is any number. They
/// round to different bf16 values, so an input that reaches them fails.
constexpr F32Bounds kUnknown = {-kInfinity, kInfinity};

/// What an op of a function computes.
enum class Kind { Add, Sub, Mul, Div, Neg, Abs, Fma, Tanh };

bool isF32Elementwise(Type type) {
  auto vectorType = dyn_cast<VectorType>(type);
  if (vectorType && vectorType.getRank() != 1)
    return false;
  return getElementTypeOrSelf(type).isF32();
}

std::optional<Kind> kindOf(Operation *op) {
  if (op->getNumResults() != 1 || !isF32Elementwise(op->getResult(0).getType()))
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case([](arith::AddFOp) { return Kind::Add; })
      .Case([](arith::SubFOp) { return Kind::Sub; })
      .Case([](arith::MulFOp) { return Kind::Mul; })
      .Case([](arith::DivFOp) { return Kind::Div; })
      .Case([](arith::NegFOp) { return Kind::Neg; })
      .Case([](math::AbsFOp) { return Kind::Abs; })
      .Case([](math::FmaOp) { return Kind::Fma; })
      .Case([](math::TanhOp) { return Kind::Tanh; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The number an f32 constant (scalar or splat) holds.
std::optional<double> constantOf(Value value) {
  if (!isF32Elementwise(value.getType()))
    return std::nullopt;
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    attr = splat.getSplatValue<Attribute>();
  if (auto number = dyn_cast<FloatAttr>(attr))
    return number.getValueAsDouble();
  return std::nullopt;
}

/// The f32 value of a bf16 number: an `arith.extf` from bf16 to f32.
bool isBf16Extension(Value value) {
  auto extend = value.getDefiningOp<arith::ExtFOp>();
  return extend && getElementTypeOrSelf(extend.getIn().getType()).isBF16() &&
         isF32Elementwise(extend.getType());
}

/// A rounding to bf16, to nearest even, of an f32 value.
bool isRoundingToBf16(Operation *op) {
  auto truncate = dyn_cast<arith::TruncFOp>(op);
  if (!truncate || !getElementTypeOrSelf(truncate.getType()).isBF16() ||
      !isF32Elementwise(truncate.getIn().getType()))
    return false;
  std::optional<arith::RoundingMode> mode = truncate.getRoundingmode();
  return !mode || *mode == arith::RoundingMode::to_nearest_even;
}

/// Finds which values are computed from one bf16 number and constants.
class Slicer {
public:
  /// Whether `value` is computed from the input and constants alone; the
  /// first bf16 number met becomes the input.
  bool isComputed(Value value) {
    if (auto known = computed.find(value); known != computed.end())
      return known->second;
    bool result = false;
    if (isBf16Extension(value)) {
      if (!input)
        input = value;
      result = value == input;
    } else if (constantOf(value)) {
      result = true;
    } else if (Operation *op = value.getDefiningOp();
               op && kindOf(op) && ++visited <= kMaxOps) {
      result = llvm::all_of(op->getOperands(),
                            [&](Value operand) { return isComputed(operand); });
    }
    computed[value] = result;
    return result;
  }

  Value input;

private:
  llvm::DenseMap<Value, bool> computed;
  size_t visited = 0;
};

/// Adds the ops that compute `value` (constants and the input aside) to
/// `ops`.
void collectComputation(Value value, Value input,
                        llvm::SetVector<Operation *> &ops) {
  if (value == input || constantOf(value))
    return;
  Operation *op = value.getDefiningOp();
  if (!op || !ops.insert(op))
    return;
  for (Value operand : op->getOperands())
    collectComputation(operand, input, ops);
}

uint16_t roundToBf16(double value) {
  if (std::isnan(value))
    return 0x7fc0;
  uint32_t bits = llvm::bit_cast<uint32_t>(static_cast<float>(value));
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

double below(double value) { return std::nextafter(value, -kInfinity); }
double above(double value) { return std::nextafter(value, kInfinity); }

/// Bounds of an f32 result whose exact value lies in [low, high], the
/// float64 ends computed exactly or within a float64 ulp (`widen`): the
/// ends rounded to nearest when the op rounds to nearest (`nearest`), which
/// is monotonic, and rounded outward when it may also not round at all.
F32Bounds roundOut(double low, double high, bool widen, bool nearest) {
  if (std::isnan(low) || std::isnan(high))
    return kUnknown;
  if (widen) {
    low = below(low);
    high = above(high);
  }
  if (nearest)
    return {static_cast<float>(low), static_cast<float>(high)};
  return {roundDownToF32(low), roundUpToF32(high)};
}

F32Bounds boundProducts(F32Bounds a, F32Bounds b) {
  std::array<double, 4> products = {a.low * b.low, a.low * b.high,
                                    a.high * b.low, a.high * b.high};
  if (llvm::any_of(products, [](double p) { return std::isnan(p); }))
    return kUnknown;
  return {*std::min_element(products.begin(), products.end()),
          *std::max_element(products.begin(), products.end())};
}

/// Bounds on an op's result; NaN operands give NaN. `nearest`: every
/// multiply, add and subtract rounds to nearest (NVPTX emits `.rn`
/// instructions for ops without fast-math flags, which ptxas does not
/// contract); otherwise a multiply may stay unrounded inside an fma.
F32Bounds boundOp(Kind kind, llvm::ArrayRef<F32Bounds> operands, bool nearest) {
  if (llvm::any_of(operands, [](F32Bounds b) { return b.isNaN(); }))
    return {std::nan(""), std::nan("")};
  switch (kind) {
  case Kind::Add:
    return roundOut(operands[0].low + operands[1].low,
                    operands[0].high + operands[1].high, /*widen=*/true,
                    nearest);
  case Kind::Sub:
    return roundOut(operands[0].low - operands[1].high,
                    operands[0].high - operands[1].low, /*widen=*/true,
                    nearest);
  case Kind::Mul: {
    F32Bounds exact = boundProducts(operands[0], operands[1]);
    return roundOut(exact.low, exact.high, /*widen=*/false, nearest);
  }
  case Kind::Div: {
    F32Bounds divisor = operands[1];
    if (divisor.low <= 0 && divisor.high >= 0)
      return kUnknown;
    // Quotients of the ends, within a float64 ulp each.
    std::array<double, 4> quotients = {
        operands[0].low / divisor.low, operands[0].low / divisor.high,
        operands[0].high / divisor.low, operands[0].high / divisor.high};
    if (llvm::any_of(quotients, [](double q) { return std::isnan(q); }))
      return kUnknown;
    return roundOut(*std::min_element(quotients.begin(), quotients.end()),
                    *std::max_element(quotients.begin(), quotients.end()),
                    /*widen=*/true, /*nearest=*/true);
  }
  case Kind::Neg:
    return {-operands[0].high, -operands[0].low};
  case Kind::Abs: {
    F32Bounds a = operands[0];
    if (a.low >= 0)
      return a;
    if (a.high <= 0)
      return {-a.high, -a.low};
    return {0, std::max(-a.low, a.high)};
  }
  case Kind::Fma: {
    F32Bounds product = boundProducts(operands[0], operands[1]);
    if (product.low == -kInfinity && product.high == kInfinity)
      return kUnknown;
    return roundOut(product.low + operands[2].low,
                    product.high + operands[2].high, /*widen=*/true,
                    /*nearest=*/true);
  }
  case Kind::Tanh:
    return boundTanhf(operands[0]);
  }
  return kUnknown;
}

/// One op of a function, its values numbered: 0 is the input, then the
/// constants, then the ops' results.
struct Step {
  Operation *op;
  Kind kind;
  unsigned result;
  llvm::SmallVector<unsigned, 3> operands;
};

/// roundsAlikeOnEveryInput on the numbered steps of a function.
bool tryEveryInput(
    const std::vector<Step> &steps, llvm::ArrayRef<unsigned> outputs,
    const std::vector<F32Bounds> &initial, size_t candidate, bool nearest,
    BoundsRule reference, BoundsRule replacement,
    llvm::function_ref<bool(llvm::ArrayRef<F32Bounds>)> computesAlike);

} // namespace

bool F32Bounds::isNaN() const { return std::isnan(low) || std::isnan(high); }

double roundDownToF32(double value) {
  if (std::isnan(value))
    return value;
  float nearest = static_cast<float>(value);
  if (static_cast<double>(nearest) > value)
    nearest = std::nextafter(nearest, -std::numeric_limits<float>::infinity());
  return nearest;
}

double roundUpToF32(double value) {
  if (std::isnan(value))
    return value;
  float nearest = static_cast<float>(value);
  if (static_cast<double>(nearest) < value)
    nearest = std::nextafter(nearest, std::numeric_limits<float>::infinity());
  return nearest;
}

F32Bounds boundTanhf(F32Bounds operand) {
  if (operand.isNaN())
    return operand;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float low = roundDownToF32(below(std::tanh(operand.low)));
  float high = roundUpToF32(above(std::tanh(operand.high)));
  for (int ulp = 0; ulp < 2; ++ulp) {
    low = std::nextafter(low, -kInf);
    high = std::nextafter(high, kInf);
  }
  return {low, high};
}

std::optional<Bf16Function> findBf16Function(Operation *op) {
  if (!kindOf(op))
    return std::nullopt;
  Slicer slicer;
  if (!llvm::all_of(
          op->getOperands(),
          [&](Value operand) { return slicer.isComputed(operand); }) ||
      !slicer.input)
    return std::nullopt;

  // Every use of the op's result, transitively, until the roundings.
  Bf16Function function;
  function.input = slicer.input;
  llvm::SetVector<Operation *> reached;
  llvm::SmallVector<Value> pending = {op->getResult(0)};
  while (!pending.empty()) {
    Value value = pending.pop_back_val();
    if (value.use_empty())
      return std::nullopt;
    for (Operation *user : value.getUsers()) {
      if (user->getBlock() != op->getBlock())
        return std::nullopt;
      if (isRoundingToBf16(user)) {
        if (!llvm::is_contained(function.outputs, user))
          function.outputs.push_back(user);
        continue;
      }
      if (!kindOf(user) || reached.size() >= kMaxOps ||
          !llvm::all_of(user->getOperands(), [&](Value operand) {
            return slicer.isComputed(operand) ||
                   reached.contains(operand.getDefiningOp()) ||
                   operand == op->getResult(0);
          }))
        return std::nullopt;
      if (reached.insert(user))
        pending.push_back(user->getResult(0));
    }
  }

  // The ops that compute the rounded values, in program order.
  llvm::SetVector<Operation *> ops;
  for (Operation *output : function.outputs) {
    ops.insert(output);
    collectComputation(output->getOperand(0), function.input, ops);
  }
  if (ops.size() > kMaxOps || llvm::any_of(ops, [&](Operation *member) {
        return member->getBlock() != op->getBlock();
      }))
    return std::nullopt;
  function.ops.assign(ops.begin(), ops.end());
  llvm::sort(function.ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return function;
}

bool roundsAlikeOnEveryInput(
    const Bf16Function &function, Operation *op, llvm::StringRef rules,
    BoundsRule reference, BoundsRule replacement,
    llvm::function_ref<bool(llvm::ArrayRef<F32Bounds>)> computesAlike) {
  // Number the values: the input, the constants, the ops' results.
  llvm::DenseMap<Value, unsigned> numbers;
  std::vector<F32Bounds> initial = {{0, 0}};
  numbers[function.input] = 0;
  // A value neither computed by an earlier op nor a constant (which
  // findBf16Function does not give) ends the check: std::nullopt.
  auto numberOf = [&](Value value) -> std::optional<unsigned> {
    if (auto known = numbers.find(value); known != numbers.end())
      return known->second;
    std::optional<double> number = constantOf(value);
    if (!number)
      return std::nullopt;
    numbers[value] = initial.size();
    initial.push_back({*number, *number});
    return initial.size() - 1;
  };
  std::vector<Step> steps;
  std::vector<unsigned> outputs;
  size_t candidate = 0;
  for (Operation *member : function.ops) {
    if (isRoundingToBf16(member)) {
      std::optional<unsigned> rounded = numberOf(member->getOperand(0));
      if (!rounded)
        return false;
      outputs.push_back(*rounded);
      continue;
    }
    std::optional<Kind> kind = kindOf(member);
    if (!kind)
      return false;
    Step step{member, *kind, 0, {}};
    for (Value operand : member->getOperands()) {
      std::optional<unsigned> number = numberOf(operand);
      if (!number)
        return false;
      step.operands.push_back(*number);
    }
    step.result = initial.size();
    initial.push_back({0, 0});
    numbers[member->getResult(0)] = step.result;
    if (member == op)
      candidate = steps.size();
    steps.push_back(std::move(step));
  }
  if (steps.empty() || steps[candidate].op != op)
    return false;
  // `contract` lets a multiply stay unrounded inside an fma, which the
  // bounds allow for; any other fast-math flag lets LLVM compute other
  // values (reassociated, approximate reciprocals and functions), which they
  // do not.
  bool nearest = true;
  for (const Step &step : steps) {
    auto flags = step.op->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
    if (!flags || flags.getValue() == arith::FastMathFlags::none)
      continue;
    if (flags.getValue() != arith::FastMathFlags::contract)
      return false;
    nearest = false;
  }

  // The answer depends on the function's form alone: its steps, constants,
  // outputs and rounding, which candidate, and the rules. A kernel repeats
  // its body per vector lane and per path, and a family per variant.
  std::string form;
  llvm::raw_string_ostream key(form);
  key << rules << ';' << candidate << ';' << nearest << ';';
  for (F32Bounds constant : initial)
    key << llvm::bit_cast<uint64_t>(constant.low) << ',';
  for (const Step &step : steps) {
    key << ';' << static_cast<int>(step.kind);
    for (unsigned operand : step.operands)
      key << ',' << operand;
  }
  for (unsigned output : outputs)
    key << ';' << output;
  static std::mutex cacheMutex;
  static llvm::StringMap<bool> cache;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (auto known = cache.find(form); known != cache.end())
      return known->second;
  }
  bool alikeEverywhere =
      tryEveryInput(steps, outputs, initial, candidate, nearest, reference,
                    replacement, computesAlike);
  std::lock_guard<std::mutex> lock(cacheMutex);
  cache[form] = alikeEverywhere;
  return alikeEverywhere;
}

namespace {

bool tryEveryInput(
    const std::vector<Step> &steps, llvm::ArrayRef<unsigned> outputs,
    const std::vector<F32Bounds> &initial, size_t candidate, bool nearest,
    BoundsRule reference, BoundsRule replacement,
    llvm::function_ref<bool(llvm::ArrayRef<F32Bounds>)> computesAlike) {
  std::vector<F32Bounds> values, alternative;
  llvm::SmallVector<F32Bounds, 3> operands;
  auto gather = [&](const Step &step, const std::vector<F32Bounds> &from) {
    operands.clear();
    for (unsigned operand : step.operands)
      operands.push_back(from[operand]);
  };
  auto alike = [](F32Bounds a, F32Bounds b) {
    if (a.isNaN() || b.isNaN())
      return a.isNaN() && b.isNaN();
    uint16_t rounded = roundToBf16(a.low);
    return roundToBf16(a.high) == rounded && roundToBf16(b.low) == rounded &&
           roundToBf16(b.high) == rounded;
  };
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double input = llvm::bit_cast<float>(bits << 16);
    values = initial;
    values[0] = {input, input};
    bool same = false;
    for (size_t i = 0; i < steps.size() && !same; ++i) {
      gather(steps[i], values);
      if (i == candidate) {
        same = computesAlike(operands);
        if (!same)
          values[steps[i].result] = reference(operands);
        continue;
      }
      values[steps[i].result] = boundOp(steps[i].kind, operands, nearest);
    }
    if (same)
      continue;
    alternative = values;
    gather(steps[candidate], values);
    alternative[steps[candidate].result] = replacement(operands);
    for (size_t i = candidate + 1; i < steps.size(); ++i) {
      gather(steps[i], alternative);
      alternative[steps[i].result] = boundOp(steps[i].kind, operands, nearest);
    }
    for (unsigned output : outputs)
      if (!alike(values[output], alternative[output]))
        return false;
  }
  return true;
}

} // namespace

} // namespace pointwise
