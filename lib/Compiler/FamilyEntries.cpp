//===- FamilyEntries.cpp - Packed entries and family tables in LLVM IR ----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// After translation, each variant is an LLVM function with MLIR's expanded
// memref arguments. This file adds what the runtime calls: a packed entry per
// variant (`void(void **args)`, args[i] the rank-r descriptor of memref
// argument i or the address of scalar argument i), the `pw_family_<name>`
// table laid out as `pwFamily` (include/Pointwise/Runtime/Runtime.h), and the
// C entry point `<name>` that takes descriptors and scalars and calls
// `pwFamilyLaunch`.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Compiler/Family.h"
#include "Pointwise/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace pointwise;

namespace {

/// Offsets inside a memref descriptor: two pointers, the offset, then sizes
/// and strides, all 8 bytes.
constexpr uint64_t kOffsetField = 16;
constexpr uint64_t kSizesField = 24;

llvm::Value *loadField(llvm::IRBuilder<> &builder, llvm::Type *type,
                       llvm::Value *base, uint64_t byteOffset) {
  llvm::Value *address =
      builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), base, byteOffset);
  return builder.CreateAlignedLoad(type, address, llvm::Align(8));
}

/// The name of a variant's packed entry.
std::string getPackedEntryName(const FamilyVariant &variant) {
  return variant.function + "_entry";
}

/// `void <variant>_entry(ptr args)`: unpacks args and calls the variant.
/// Internal, or hidden where `shared` (the tables are in another object).
llvm::Function *createPackedEntry(llvm::Module &module,
                                  const FamilySpec &family,
                                  const FamilyVariant &variant, bool shared,
                                  std::string &error) {
  llvm::Function *callee = module.getFunction(variant.function);
  if (!callee) {
    error = "variant function '" + variant.function + "' vanished in lowering";
    return nullptr;
  }
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *pointer = llvm::PointerType::getUnqual(context);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {pointer}, /*isVarArg=*/false);
  auto *entry =
      llvm::Function::Create(type,
                             shared ? llvm::GlobalValue::ExternalLinkage
                                    : llvm::GlobalValue::InternalLinkage,
                             getPackedEntryName(variant), module);
  if (shared)
    entry->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", entry));
  llvm::Value *args = entry->getArg(0);
  llvm::SmallVector<llvm::Value *> operands;
  llvm::Type *i64 = builder.getInt64Ty();
  for (auto [index, argument] : llvm::enumerate(family.arguments)) {
    llvm::Value *slot = builder.CreateAlignedLoad(
        pointer, builder.CreateConstInBoundsGEP1_64(pointer, args, index),
        llvm::Align(8));
    if (!argument.isMemRef) {
      if (operands.size() >= callee->arg_size())
        break;
      operands.push_back(
          builder.CreateLoad(callee->getArg(operands.size())->getType(), slot));
      continue;
    }
    operands.push_back(loadField(builder, pointer, slot, 0));
    operands.push_back(loadField(builder, pointer, slot, 8));
    operands.push_back(loadField(builder, i64, slot, kOffsetField));
    for (int64_t dim = 0; dim < 2 * variant.rank; ++dim)
      operands.push_back(loadField(builder, i64, slot, kSizesField + 8 * dim));
  }
  if (operands.size() != callee->arg_size()) {
    error = "variant function '" + variant.function + "' takes " +
            std::to_string(callee->arg_size()) + " parameters, expected " +
            std::to_string(operands.size());
    return nullptr;
  }
  builder.CreateCall(callee, operands);
  builder.CreateRetVoid();
  callee->setLinkage(llvm::GlobalValue::InternalLinkage);
  return entry;
}

llvm::Constant *createPrivateArray(llvm::Module &module, llvm::Type *element,
                                   llvm::ArrayRef<llvm::Constant *> values,
                                   const llvm::Twine &name,
                                   bool isConstant = true) {
  auto *type = llvm::ArrayType::get(element, values.size());
  auto *global = new llvm::GlobalVariable(
      module, type, isConstant, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantArray::get(type, values), name);
  global->setAlignment(llvm::Align(8));
  return global;
}

llvm::Constant *createIndexArray(llvm::Module &module,
                                 llvm::ArrayRef<int32_t> values,
                                 const llvm::Twine &name) {
  llvm::SmallVector<llvm::Constant *> constants;
  llvm::Type *i32 = llvm::Type::getInt32Ty(module.getContext());
  for (int32_t value : values)
    constants.push_back(llvm::ConstantInt::getSigned(i32, value));
  return createPrivateArray(module, i32, constants, name);
}

/// `pw_family_<name>`, a `pwFamily`.
llvm::GlobalVariable *
createFamilyTable(llvm::Module &module, const FamilySpec &family,
                  llvm::ArrayRef<llvm::Function *> entries) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  llvm::Type *pointer = llvm::PointerType::getUnqual(context);
  auto i32Value = [&](int64_t value) {
    return llvm::ConstantInt::getSigned(i32, value);
  };
  std::string prefix = "pw_family_" + family.name;

  // pwFamilyArgument {i32 kind, i32 elementType, i32 rank, i32 abiVersion,
  // ptr staticSizes, ptr staticStrides, i64 staticOffset}.
  auto *argumentType = llvm::StructType::get(
      context, {i32, i32, i32, i32, pointer, pointer, i64});
  // A private i64 array of `values`, or null when there are none.
  auto createI64Array = [&](llvm::ArrayRef<int64_t> values,
                            const llvm::Twine &name) -> llvm::Constant * {
    if (values.empty())
      return llvm::ConstantPointerNull::get(
          llvm::PointerType::getUnqual(context));
    llvm::SmallVector<llvm::Constant *> constants;
    for (int64_t value : values)
      constants.push_back(llvm::ConstantInt::getSigned(i64, value));
    return createPrivateArray(module, i64, constants, name);
  };
  llvm::SmallVector<llvm::Constant *> arguments;
  for (auto [index, argument] : llvm::enumerate(family.arguments)) {
    llvm::Constant *sizes = createI64Array(
        argument.staticSizes, prefix + ".sizes" + llvm::Twine(index));
    // A rank-0 memref's static offset still needs a non-null (unread)
    // strides array.
    llvm::SmallVector<int64_t> staticStrides(argument.staticStrides.begin(),
                                             argument.staticStrides.end());
    if (argument.hasStaticLayout && staticStrides.empty())
      staticStrides.push_back(PW_DYNAMIC);
    llvm::Constant *strides =
        createI64Array(staticStrides, prefix + ".strides" + llvm::Twine(index));
    int64_t offset = argument.hasStaticLayout ? argument.staticOffset : 0;
    arguments.push_back(llvm::ConstantStruct::get(
        argumentType,
        {i32Value(argument.isMemRef ? 1 : 0), i32Value(argument.elementType),
         i32Value(argument.rank), i32Value(PW_FAMILY_ABI_VERSION), sizes,
         strides, llvm::ConstantInt::getSigned(i64, offset)}));
  }
  // pwVariant {i32 rank, i32 indexBitwidth, i32 strategy, i32
  // transposedArgument, ptr entry}.
  auto *variantType =
      llvm::StructType::get(context, {i32, i32, i32, i32, pointer});
  llvm::SmallVector<llvm::Constant *> variants;
  for (auto [variant, entry] : llvm::zip_equal(family.variants, entries)) {
    llvm::Constant *entryValue =
        entry ? static_cast<llvm::Constant *>(entry)
              : llvm::ConstantPointerNull::get(
                    llvm::PointerType::getUnqual(context));
    variants.push_back(llvm::ConstantStruct::get(
        variantType, {i32Value(variant.rank), i32Value(variant.indexBitwidth),
                      i32Value(variant.transpose ? PW_STRATEGY_TRANSPOSE
                               : variant.narrow  ? PW_STRATEGY_LINEAR_NARROW
                                                 : PW_STRATEGY_LINEAR),
                      i32Value(variant.transposedArgument), entryValue}));
  }

  llvm::Constant *name =
      llvm::ConstantDataArray::getString(context, family.name);
  auto *nameGlobal = new llvm::GlobalVariable(module, name->getType(), true,
                                              llvm::GlobalValue::PrivateLinkage,
                                              name, prefix + ".name");
  // pwFamily {ptr name, i32 numArguments, i32 numOutputs, i32 numInputs, i32
  // numVariants, ptr arguments, ptr outputs, ptr inputs, ptr variants}.
  auto *familyType =
      llvm::StructType::get(context, {pointer, i32, i32, i32, i32, pointer,
                                      pointer, pointer, pointer});
  llvm::Constant *table = llvm::ConstantStruct::get(
      familyType,
      {nameGlobal, i32Value(family.arguments.size()),
       i32Value(family.outputs.size()), i32Value(family.inputs.size()),
       i32Value(family.variants.size()),
       createPrivateArray(module, argumentType, arguments,
                          prefix + ".arguments"),
       createIndexArray(module, family.outputs, prefix + ".outputs"),
       createIndexArray(module, family.inputs, prefix + ".inputs"),
       // Writable: the entries of variants compiled later are filled in
       // (pwcAddVariants).
       createPrivateArray(module, variantType, variants, prefix + ".variants",
                          /*isConstant=*/false)});
  auto *global = new llvm::GlobalVariable(module, familyType, true,
                                          llvm::GlobalValue::ExternalLinkage,
                                          table, prefix);
  global->setAlignment(llvm::Align(8));
  return global;
}

/// The C library functions that compiled code may call: the libcalls LLVM
/// emits for float intrinsics and the math dialect's lowering (in double,
/// float and long double forms), memory and allocation routines, and what a
/// failed run-time check calls.
constexpr llvm::StringLiteral kMathFunctions[] = {
    "exp",    "exp2",      "exp10", "expm1",  "log",      "log2",   "log10",
    "log1p",  "pow",       "sqrt",  "cbrt",   "sin",      "cos",    "tan",
    "asin",   "acos",      "atan",  "atan2",  "sinh",     "cosh",   "tanh",
    "asinh",  "acosh",     "atanh", "erf",    "erfc",     "fmod",   "fma",
    "fmin",   "fmax",      "floor", "ceil",   "trunc",    "round",  "roundeven",
    "rint",   "nearbyint", "ldexp", "frexp",  "copysign", "fabs",   "hypot",
    "sincos", "modf",      "lrint", "llrint", "lround",   "llround"};
constexpr llvm::StringLiteral kOtherLibraryFunctions[] = {
    "memcpy",        "memmove", "memset", "malloc", "calloc", "realloc",
    "aligned_alloc", "free",    "abort",  "puts",   "printf"};

bool isLibraryFunction(llvm::StringRef name) {
  if (llvm::is_contained(kOtherLibraryFunctions, name))
    return true;
  // sinf and sinl are sin's float and long double forms.
  return llvm::any_of(kMathFunctions, [&](llvm::StringRef function) {
    return name == function ||
           (name.size() == function.size() + 1 && name.starts_with(function) &&
            (name.back() == 'f' || name.back() == 'l'));
  });
}

/// Whether `name` may be a family's C entry point; if not, `error` says why.
/// The entry is an exported symbol of the object, library or JIT: a name
/// that the compiled code or the runtime itself calls would be bound to the
/// entry instead (a family `exp` whose body calls exp() recursing forever,
/// and replacing libm's exp for the whole process).
bool checkEntryName(llvm::StringRef name, std::string &error) {
  auto reject = [&](const llvm::Twine &why) {
    error = ("a kernel family exports a C function named after it, and '" +
             name + "' " + why + "; rename the function")
                .str();
    return false;
  };
  // Bytes from 0x80 on are UTF-8 letters, which C identifiers may hold.
  auto isIdentifierChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
  };
  if (name.empty() || llvm::isDigit(name.front()) ||
      !llvm::all_of(name, isIdentifierChar))
    return reject("is not a C identifier (letters, digits and _, not "
                  "starting with a digit)");
  if (isLibraryFunction(name))
    return reject("is a C library function that compiled code may call");
  if (name.starts_with("__"))
    return reject("starts with '__', as the compiler's helper routines "
                  "(__truncsfbf2, __powisf2...) do");
  // The runtime's functions are pwFamilyLaunch, mgpuLaunchKernel, ... and the
  // C API's pwcCompile, ...; Python's families are pw_fn_<name>.
  bool runtimeName =
      name.starts_with("mgpu") || name.starts_with("pw_family_") ||
      (name.starts_with("pw") && name.size() > 2 && llvm::isUpper(name[2])) ||
      (name.starts_with("pwc") && name.size() > 3 && llvm::isUpper(name[3]));
  if (runtimeName)
    return reject("is reserved for the runtime (names starting with pw and "
                  "an upper-case letter, pwc and an upper-case letter, mgpu or "
                  "pw_family_)");
  return true;
}

/// The LLVM type of a scalar argument of pwElementType `code`, as the
/// lowering passes it to a variant.
llvm::Type *getScalarType(llvm::LLVMContext &context, int32_t code) {
  switch (code) {
  case PW_I1:
    return llvm::Type::getInt1Ty(context);
  case PW_I8:
    return llvm::Type::getInt8Ty(context);
  case PW_I16:
    return llvm::Type::getInt16Ty(context);
  case PW_I32:
    return llvm::Type::getInt32Ty(context);
  case PW_F16:
    return llvm::Type::getHalfTy(context);
  case PW_BF16:
    return llvm::Type::getBFloatTy(context);
  case PW_F32:
    return llvm::Type::getFloatTy(context);
  case PW_F64:
    return llvm::Type::getDoubleTy(context);
  case PW_I64:
    return llvm::Type::getInt64Ty(context);
  default:
    llvm_unreachable("getElementTypeCode gives family arguments these codes");
  }
}

/// `i32 <name>(descriptors and scalars)`: the C entry point.
bool createCEntry(llvm::Module &module, const FamilySpec &family,
                  llvm::GlobalVariable *table,
                  llvm::ArrayRef<llvm::Type *> scalarTypes,
                  std::string &error) {
  if (!checkEntryName(family.name, error))
    return false;
  if (module.getNamedValue(family.name)) {
    error = "the symbol '" + family.name + "' is already defined";
    return false;
  }
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *pointer = llvm::PointerType::getUnqual(context);
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::SmallVector<llvm::Type *> parameters;
  for (auto [argument, scalar] : llvm::zip_equal(family.arguments, scalarTypes))
    parameters.push_back(argument.isMemRef ? pointer : scalar);
  auto *type = llvm::FunctionType::get(i32, parameters, false);
  auto *entry = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                       family.name, module);
  llvm::FunctionCallee launch = module.getOrInsertFunction(
      "pwFamilyLaunch",
      llvm::FunctionType::get(i32, {pointer, pointer}, false));
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", entry));
  llvm::Value *args = builder.CreateAlloca(
      pointer, builder.getInt64(family.arguments.size()), "args");
  for (auto [index, argument] : llvm::enumerate(family.arguments)) {
    llvm::Value *value = entry->getArg(index);
    if (!argument.isMemRef) {
      if (value->getType()->isIntegerTy(1))
        entry->addParamAttr(index, llvm::Attribute::ZExt);
      llvm::Value *slot = builder.CreateAlloca(value->getType());
      builder.CreateStore(value, slot);
      value = slot;
    }
    builder.CreateStore(
        value, builder.CreateConstInBoundsGEP1_64(pointer, args, index));
  }
  builder.CreateRet(builder.CreateCall(launch, {table, args}));
  return true;
}

} // namespace

mlir::LogicalResult
pointwise::addPackedEntries(llvm::Module &module,
                            llvm::ArrayRef<FamilySpec> families,
                            std::string &error) {
  for (const FamilySpec &family : families)
    for (const FamilyVariant &variant : family.variants)
      if (variant.compiled && module.getFunction(variant.function) &&
          !module.getFunction(variant.function)->isDeclaration() &&
          !createPackedEntry(module, family, variant, /*shared=*/true, error))
        return mlir::failure();
  return mlir::success();
}

mlir::LogicalResult
pointwise::addFamilyEntries(llvm::Module &module,
                            llvm::ArrayRef<FamilySpec> families,
                            std::string &error) {
  llvm::LLVMContext &context = module.getContext();
  auto *entryType = llvm::FunctionType::get(
      llvm::Type::getVoidTy(context), {llvm::PointerType::getUnqual(context)},
      /*isVarArg=*/false);
  for (const FamilySpec &family : families) {
    // Null for the variants not compiled (FamilyOptions::variants).
    llvm::SmallVector<llvm::Function *> entries;
    for (const FamilyVariant &variant : family.variants) {
      if (!variant.compiled) {
        entries.push_back(nullptr);
        continue;
      }
      // A packed entry that addPackedEntries made in another module is
      // declared here: the objects are linked together.
      if (!module.getFunction(variant.function)) {
        entries.push_back(llvm::Function::Create(
            entryType, llvm::GlobalValue::ExternalLinkage,
            getPackedEntryName(variant), module));
        entries.back()->setVisibility(llvm::GlobalValue::HiddenVisibility);
        continue;
      }
      llvm::Function *entry =
          createPackedEntry(module, family, variant, /*shared=*/false, error);
      if (!entry)
        return mlir::failure();
      entries.push_back(entry);
    }
    llvm::SmallVector<llvm::Type *> scalarTypes;
    for (const FamilyArgument &argument : family.arguments)
      scalarTypes.push_back(
          argument.isMemRef
              ? nullptr
              : getScalarType(module.getContext(), argument.elementType));
    llvm::GlobalVariable *table = createFamilyTable(module, family, entries);
    if (!createCEntry(module, family, table, scalarTypes, error))
      return mlir::failure();
  }
  return mlir::success();
}

void pointwise::addFamilyIndex(llvm::Module &module,
                               llvm::ArrayRef<FamilySpec> families) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *pointer = llvm::PointerType::getUnqual(context);
  llvm::SmallVector<llvm::GlobalValue *> entries;
  for (const FamilySpec &family : families) {
    std::string name = "pw_family_" + family.name;
    llvm::GlobalVariable *table = module.getNamedGlobal(name);
    assert(table && "addFamilyEntries made the table");
    auto *entry = new llvm::GlobalVariable(module, pointer, /*isConstant=*/true,
                                           llvm::GlobalValue::PrivateLinkage,
                                           table, name + ".index");
    entry->setSection(kFamilyIndexSection);
    entry->setAlignment(llvm::Align(8));
    entries.push_back(entry);
  }
  // Referenced only through the section's bounds.
  llvm::appendToCompilerUsed(module, entries);

  // const pwFamily *const *pw_library_families(int64_t *count): weak, so
  // that the objects of one library share one definition.
  auto bound = [&](llvm::StringRef which) {
    auto *global = new llvm::GlobalVariable(
        module, pointer, /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, nullptr,
        (which + llvm::Twine("_") + kFamilyIndexSection).str());
    global->setVisibility(llvm::GlobalValue::HiddenVisibility);
    return global;
  };
  llvm::GlobalVariable *start = bound("__start");
  llvm::GlobalVariable *stop = bound("__stop");
  auto *type = llvm::FunctionType::get(pointer, {pointer}, /*isVarArg=*/false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::WeakODRLinkage, "pw_library_families", module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", function));
  llvm::Type *i64 = builder.getInt64Ty();
  llvm::Value *bytes = builder.CreateSub(builder.CreatePtrToInt(stop, i64),
                                         builder.CreatePtrToInt(start, i64));
  builder.CreateAlignedStore(
      builder.CreateExactUDiv(bytes, builder.getInt64(8)), function->getArg(0),
      llvm::Align(8));
  builder.CreateRet(start);
}

namespace {

/// Step 1 of compileFamilies and its checks and progress line.
mlir::LogicalResult
buildAndAnnounce(mlir::ModuleOp module, const FamilyOptions &options,
                 std::vector<FamilySpec> &families,
                 const std::function<void(llvm::StringRef)> &progress,
                 mlir::TimingScope *timing) {
  auto report = [&](const llvm::Twine &line) {
    if (progress)
      progress(line.str());
  };
  mlir::TimingScope variantsTime =
      timing ? timing->nest("family variants") : mlir::TimingScope();
  mlir::FailureOr<std::vector<FamilySpec>> built =
      buildFamilyVariants(module, options);
  variantsTime.stop();
  if (mlir::failed(built))
    return mlir::failure();
  families = std::move(*built);
  // Checked again with the entries, but reported here at the function, before
  // the lowering's minutes for a GPU target.
  for (const FamilySpec &family : families) {
    std::string error;
    if (checkEntryName(family.name, error))
      continue;
    auto variant =
        module.lookupSymbol<mlir::func::FuncOp>(family.variants[0].function);
    mlir::emitError(variant ? variant.getLoc() : module.getLoc()) << error;
    return mlir::failure();
  }
  size_t variants = 0;
  for (const FamilySpec &family : families)
    variants += llvm::count_if(
        family.variants, [](const FamilyVariant &v) { return v.compiled; });
  report("pw-compile: " + llvm::Twine(families.size()) + " famil" +
         (families.size() == 1 ? "y" : "ies") + ", " + llvm::Twine(variants) +
         " variants; generating " +
         (options.target == FamilyTarget::Cpu
              ? std::string("host code")
              : "GPU code for " + options.chip) +
         " ...");
  return mlir::success();
}

/// Step 3 on `translated`, reported at `module` on failure.
std::unique_ptr<llvm::Module>
finishEntries(mlir::ModuleOp module, std::unique_ptr<llvm::Module> translated,
              llvm::ArrayRef<FamilySpec> families, mlir::TimingScope *timing) {
  mlir::TimingScope entriesTime =
      timing ? timing->nest("family entries") : mlir::TimingScope();
  std::string error;
  if (mlir::failed(addFamilyEntries(*translated, families, error))) {
    module.emitError() << "pw-compile: " << error;
    return nullptr;
  }
  return translated;
}

} // namespace

std::unique_ptr<llvm::Module> pointwise::compileFamilies(
    mlir::ModuleOp module, llvm::LLVMContext &context,
    const FamilyOptions &options, std::vector<FamilySpec> &families,
    const std::function<void(llvm::StringRef)> &progress,
    mlir::TimingScope *timing,
    const std::function<mlir::LogicalResult(mlir::ModuleOp)> &inspectLowered) {
  if (mlir::failed(
          buildAndAnnounce(module, options, families, progress, timing)))
    return nullptr;
  std::unique_ptr<llvm::Module> translated = lowerAndTranslateFamilies(
      module, context, options, families, timing, inspectLowered);
  if (!translated)
    return nullptr;
  return finishEntries(module, std::move(translated), families, timing);
}

std::unique_ptr<llvm::Module> pointwise::compileFamiliesToObjects(
    mlir::ModuleOp module, llvm::LLVMContext &context,
    const FamilyOptions &options, std::vector<FamilySpec> &families,
    const std::function<void(llvm::StringRef)> &progress,
    mlir::TimingScope *timing,
    const std::function<mlir::LogicalResult(mlir::ModuleOp)> &inspectLowered,
    const HostObjectEmitter &emit, std::vector<std::string> &objects) {
  if (mlir::failed(
          buildAndAnnounce(module, options, families, progress, timing)))
    return nullptr;
  // One variant, or one thread, lowers as one part: its host code and the
  // tables make one module, compiled once by the caller.
  size_t compiled = 0;
  for (const FamilySpec &family : families)
    compiled += llvm::count_if(
        family.variants, [](const FamilyVariant &v) { return v.compiled; });
  mlir::MLIRContext *mlirContext = module.getContext();
  if (compiled <= 1 || !mlirContext->isMultithreadingEnabled() ||
      mlirContext->getNumThreads() <= 1) {
    objects.clear();
    std::unique_ptr<llvm::Module> translated = lowerAndTranslateFamilies(
        module, context, options, families, timing, inspectLowered);
    if (!translated)
      return nullptr;
    return finishEntries(module, std::move(translated), families, timing);
  }
  mlir::FailureOr<std::vector<std::string>> parts = lowerFamiliesToObjects(
      module, options, families, timing, inspectLowered, emit);
  if (mlir::failed(parts))
    return nullptr;
  objects = std::move(*parts);
  return finishEntries(module,
                       std::make_unique<llvm::Module>("pointwise", context),
                       families, timing);
}
