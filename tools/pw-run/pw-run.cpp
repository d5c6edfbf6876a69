//===- pw-run.cpp - Execute a pointwise module's entry function -----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// JIT-compiles a module through the pointwise pipeline and calls its entry
// function on buffers laid out as the user asks, filled from a seed, once
// those layouts pass the checks the runtime makes before a launch
// (LayoutCheck.h). With --check it also runs the reference lowering (no
// layout transformation) on identical inputs and compares every buffer bit
// for bit. --dump-inputs and --dump-outputs write the buffers and a
// manifest, for replaying a case elsewhere (the differential suite's GPU
// mode, docs/Testing.md).
//
//===----------------------------------------------------------------------===//

#include "ArgumentSpec.h"
#include "CudaExecution.h"
#include "HostArgument.h"
#include "JitExecution.h"
#include "LayoutCheck.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/InitAllDialects.h"
#include "Pointwise/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#ifdef POINTWISE_RUN_C_RUNNER_UTILS
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#endif
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unistd.h>

using namespace mlir;
using namespace pointwise;
using namespace pointwise::run;

namespace {

enum class Target { Cpu, Cuda };

llvm::cl::OptionCategory runOptions("pw-run options");

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir file>"),
                                         llvm::cl::Required,
                                         llvm::cl::cat(runOptions));
llvm::cl::opt<std::string>
    entryName("entry",
              llvm::cl::desc("Function to run (default: the only function "
                             "with a body)"),
              llvm::cl::cat(runOptions));
llvm::cl::opt<Target>
    target("target", llvm::cl::desc("Where to run"),
           llvm::cl::values(
               clEnumValN(Target::Cpu, "cpu",
                          "JIT-compile for and run on the host CPU"),
               clEnumValN(Target::Cuda, "cuda",
                          "run on the GPU (see --gpu-path); --check compares "
                          "with the CPU reference lowering")),
           llvm::cl::init(Target::Cpu), llvm::cl::cat(runOptions));
llvm::cl::opt<GpuPath> gpuPath(
    "gpu-path", llvm::cl::desc("How --target=cuda compiles and runs the entry"),
    llvm::cl::values(
        clEnumValN(GpuPath::Pipeline, "pipeline",
                   "lower the whole module with pw-gpu-pipeline and run the "
                   "entry's host code, which allocates, launches and frees "
                   "through the runtime (the default: any module the CPU "
                   "pipeline runs, tensors and several maps included, as an "
                   "embedding compiler would run it)"),
        clEnumValN(GpuPath::Family, "family",
                   "compile the entry as a kernel family, as pw-compile "
                   "does, and launch it with pwFamilyLaunch, which picks a "
                   "variant for the actual layout (one map over memref "
                   "arguments)")),
    llvm::cl::init(GpuPath::Pipeline), llvm::cl::cat(runOptions));
llvm::cl::list<std::string> argumentSpecs(
    "arg",
    llvm::cl::desc("One per entry argument, in order: '-' (from the type), "
                   "'=VALUE' (scalar; an iN takes -2^(N-1) .. 2^N-1, an i1 "
                   "true, false, 1 or 0), or SIZES[@STRIDES][+OFFSET] (memref "
                   "view, e.g. 4x8, 4x8@1,4, 3x4@-4,-1+11, ()+2)"),
    llvm::cl::cat(runOptions));
llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Seed of the input values"),
                             llvm::cl::init(0), llvm::cl::cat(runOptions));
enum class Lowering { Loops, Tiled };
llvm::cl::opt<Lowering> lowering(
    "lowering", llvm::cl::desc("How the optimized CPU path lowers maps"),
    llvm::cl::values(
        clEnumValN(Lowering::Loops, "loops", "plain loops (pw-lower-to-loops)"),
        clEnumValN(Lowering::Tiled, "tiled",
                   "the GPU kernels' tiled code (pw-tile), run on the CPU")),
    llvm::cl::init(Lowering::Loops), llvm::cl::cat(runOptions));
llvm::cl::opt<TileStrategy> tileStrategy(
    "strategy",
    llvm::cl::desc("pw-tile strategy with --lowering=tiled: auto, linear, "
                   "transpose or general"),
    llvm::cl::init(TileStrategy::Auto), tileStrategyValues(),
    llvm::cl::cat(runOptions));
llvm::cl::opt<unsigned> indexBitwidth(
    "index-bitwidth",
    llvm::cl::desc("Index arithmetic of --lowering=tiled: 32, 64, or 0 to "
                   "decide from the static layout"),
    llvm::cl::init(0), llvm::cl::cat(runOptions));
llvm::cl::opt<int64_t>
    tileEdge("tile-edge",
             llvm::cl::desc("Transpose tile edge of --lowering=tiled (16, "
                            "32, 64)"),
             llvm::cl::init(64), llvm::cl::cat(runOptions));
llvm::cl::opt<FillMode> fillMode(
    "fill", llvm::cl::desc("Initial contents of memref buffers"),
    llvm::cl::values(
        clEnumValN(FillMode::Random, "random", "values drawn from --seed"),
        clEnumValN(FillMode::Iota, "iota",
                   "each buffer element holds its own offset (0, 1, 2, ...)")),
    llvm::cl::init(FillMode::Random), llvm::cl::cat(runOptions));
llvm::cl::opt<bool> printOutputs("print", llvm::cl::desc("Print the outputs"),
                                 llvm::cl::cat(runOptions));
llvm::cl::opt<bool>
    check("check",
          llvm::cl::desc("Compare with the reference lowering on identical "
                         "inputs; exit status 1 on any difference"),
          llvm::cl::cat(runOptions));
llvm::cl::opt<unsigned>
    benchIterations("bench",
                    llvm::cl::desc("Time this many calls and print the median "
                                   "time and effective bandwidth"),
                    llvm::cl::init(0), llvm::cl::cat(runOptions));
llvm::cl::opt<std::string> dumpInputs(
    "dump-inputs",
    llvm::cl::desc("Before the run, write each memref argument's whole buffer "
                   "to DIR/argN.bin and every argument's view or scalar bits "
                   "to DIR/manifest.json"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(runOptions));
llvm::cl::opt<std::string> dumpOutputs(
    "dump-outputs",
    llvm::cl::desc("After the run, write the buffers and manifest as "
                   "--dump-inputs does; with --check, those of the reference "
                   "lowering"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(runOptions));
llvm::cl::opt<std::string> gpuFormat(
    "gpu-format",
    llvm::cl::desc("GPU code of --target=cuda, as pw-compile's --format: "
                   "fatbin (cubin + PTX, needs the CUDA toolkit's ptxas), bin "
                   "(cubin) or isa (PTX, compiled by the driver)"),
    llvm::cl::init("fatbin"), llvm::cl::cat(runOptions));
llvm::cl::opt<unsigned> maxMismatches(
    "max-mismatches",
    llvm::cl::desc("Differences printed per argument with --check"),
    llvm::cl::init(8), llvm::cl::cat(runOptions));

std::string describeType(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "pw-run: " << message << "\n";
  return 1;
}

FailureOr<func::FuncOp> findEntry(ModuleOp module) {
  SmallVector<func::FuncOp> candidates;
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal() &&
        (entryName.empty() || function.getName() == entryName))
      candidates.push_back(function);
  if (candidates.size() == 1)
    return candidates.front();
  if (!entryName.empty())
    return emitError(module.getLoc())
           << "no function named '" << entryName << "' with a body";
  return emitError(module.getLoc())
         << (candidates.empty() ? "no function with a body"
                                : "several functions; choose one with "
                                  "--entry");
}

/// The indices of the entry's memref arguments that a pointwise.map writes
/// (a tensor map's destinations are values, whatever buffer it reuses).
llvm::SmallDenseSet<unsigned> findOutputArguments(func::FuncOp entry) {
  llvm::SmallDenseSet<unsigned> outputs;
  entry.walk([&](MapOp map) {
    for (Value output : map.getOutputs())
      if (auto argument = dyn_cast<BlockArgument>(output);
          argument && isa<MemRefType>(output.getType()))
        if (argument.getOwner() == &entry.getBody().front())
          outputs.insert(argument.getArgNumber());
  });
  return outputs;
}

/// Lowers a copy of `module` with `pw-cpu-pipeline`, as the reference
/// lowering or as --lowering chooses, and JIT-compiles it.
llvm::Expected<std::unique_ptr<ExecutionEngine>>
compile(ModuleOp module, StringRef entry, bool reference) {
  auto prepared = prepareForJit(module, entry);
  if (!prepared)
    return prepared.takeError();
  OwningOpRef<ModuleOp> copy = std::move(*prepared);
  PassManager pm(module.getContext());
  CpuPipelineOptions options;
  if (reference) {
    // The oracle lowers the original layout as it is: none of the optimized
    // lowering's options (--lowering and pw-tile's) apply to it, and
    // pw-cpu-pipeline rejects reference=1 with tiled=1.
    options.reference = true;
  } else if (lowering == Lowering::Tiled) {
    // pw-cpu-pipeline rejects pw-tile's options without tiled=1, even at
    // their defaults: any assignment counts as given.
    options.tiled = true;
    options.strategy = tileStrategy;
    options.indexBitwidth = indexBitwidth;
    options.tileEdge = tileEdge;
  }
  buildCpuPipeline(pm, options);
  if (failed(pm.run(*copy)))
    return llvm::createStringError(llvm::Twine("the ") +
                                   (reference ? "reference" : "optimized") +
                                   " CPU pipeline failed (diagnostics above)");
  return createEngine(*copy);
}

/// The entry's arguments as the specs describe them, without the views'
/// storage; each view gets a planned address range of its own, as its
/// buffer will have.
llvm::Expected<std::vector<HostArgument>>
planArguments(func::FuncOp entry, ArrayRef<ArgumentSpec> specs) {
  std::vector<HostArgument> arguments;
  uint64_t nextAddress = 4096;
  for (auto [index, type] : llvm::enumerate(entry.getArgumentTypes())) {
    ArgumentSpec spec = index < specs.size() ? specs[index] : ArgumentSpec();
    auto argument = HostArgument::plan(type, spec, index, seed);
    if (!argument)
      return argument.takeError();
    argument->setPlannedAddress(nextAddress);
    nextAddress += argument->getBufferByteSize() + 4096;
    arguments.push_back(std::move(*argument));
  }
  return arguments;
}

llvm::Expected<std::vector<HostArgument>>
createArguments(func::FuncOp entry, ArrayRef<ArgumentSpec> specs) {
  auto arguments = planArguments(entry, specs);
  if (arguments)
    for (HostArgument &argument : *arguments)
      argument.allocate(fillMode, seed);
  return arguments;
}

/// The memory this process may still take without swapping: Linux's
/// MemAvailable, else the free physical pages.
std::optional<uint64_t> getAvailableMemory() {
  if (auto meminfo = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo")) {
    StringRef text = (*meminfo)->getBuffer();
    size_t at = text.find("MemAvailable:");
    if (at != StringRef::npos) {
      StringRef line = text.substr(at + 13).ltrim();
      uint64_t kilobytes;
      if (!line.take_while(llvm::isDigit).getAsInteger(10, kilobytes))
        return kilobytes * 1024;
    }
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
  return std::nullopt;
}

/// Checks that the buffers of `arguments`, twice over with --check (the
/// reference lowering runs on copies), fit in the memory available.
llvm::Error checkArgumentMemory(const std::vector<HostArgument> &arguments) {
  uint64_t bytes = 0;
  for (const HostArgument &argument : arguments)
    if (argument.isMemRef())
      bytes += argument.getBufferByteSize();
  if (check)
    bytes *= 2;
  std::optional<uint64_t> available = getAvailableMemory();
  if (!available || bytes <= *available)
    return llvm::Error::success();
  return llvm::createStringError(llvm::formatv(
      "the argument buffers need {0} bytes{1}, more than the {2} bytes of "
      "memory available; give smaller views",
      bytes, check ? " (twice over: --check runs the reference on copies)" : "",
      *available));
}

llvm::Error writeFile(StringRef path, StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (!error) {
    os << bytes;
    os.close();
    error = os.error();
    os.clear_error();
  }
  if (error)
    return llvm::createStringError("cannot write '" + path +
                                   "': " + error.message());
  return llvm::Error::success();
}

/// --dump-inputs/--dump-outputs: DIR/argN.bin per memref argument (its
/// buffer's bytes, from element 0), DIR/resultN.bin per returned memref (its
/// elements in row-major order) and DIR/manifest.json describing them.
llvm::Error dumpArguments(StringRef directory, StringRef entry,
                          StringRef contents,
                          std::vector<HostArgument> &arguments,
                          std::vector<HostArgument> &results) {
  // DIR itself only: a mistyped path must not create directories anywhere
  // above it.
  if (std::error_code error = llvm::sys::fs::create_directory(directory))
    return llvm::createStringError("cannot create directory '" + directory +
                                   "': " + error.message());
  llvm::json::Array entries;
  std::vector<HostArgument *> dumped;
  for (HostArgument &argument : arguments)
    dumped.push_back(&argument);
  for (HostArgument &result : results)
    dumped.push_back(&result);
  for (HostArgument *dumpedArgument : dumped) {
    HostArgument &argument = *dumpedArgument;
    llvm::json::Object described = argument.getManifestEntry();
    if (argument.isMemRef()) {
      std::string file = (argument.isReturned() ? "result" : "arg") +
                         std::to_string(argument.getIndex()) + ".bin";
      llvm::SmallString<256> path(directory);
      llvm::sys::path::append(path, file);
      StringRef bytes(reinterpret_cast<const char *>(argument.getBufferBytes()),
                      argument.getBufferByteSize());
      if (llvm::Error error = writeFile(path, bytes))
        return error;
      described["file"] = file;
      described["bytes"] = argument.getBufferByteSize();
    }
    entries.push_back(std::move(described));
  }
  llvm::json::Object manifest{{"format", "pw-run-dump-1"},
                              {"entry", entry},
                              {"contents", contents},
                              {"seed", seed.getValue()},
                              {"arguments", std::move(entries)}};
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, "manifest.json");
  return writeFile(
      path,
      llvm::formatv("{0:2}\n", llvm::json::Value(std::move(manifest))).str());
}

/// The allocated pointer of memref.get_global's descriptors, which no one
/// frees.
constexpr int64_t kGlobalMemRefAllocation = 0xdeadbeef;

/// Copies the memrefs the entry returned (descriptors in `words`, one after
/// the other, of the types `resultTypes`) into `results`, then frees the
/// buffers the caller owns: every one that is not a view of an argument's
/// buffer or a global. The pipelines' deallocation makes every buffer a
/// tensor function returns the caller's.
void takeResults(ArrayRef<int64_t> words, TypeRange resultTypes,
                 std::vector<HostArgument> &arguments,
                 std::vector<HostArgument> &results) {
  results.clear();
  llvm::SmallDenseSet<int64_t> owned;
  for (auto [index, result] :
       llvm::enumerate(decodeResults(words, resultTypes))) {
    results.push_back(HostArgument::copyResult(
        result.elementType, index, result.sizes, result.strides, result.offset,
        reinterpret_cast<const uint8_t *>(result.aligned)));
    int64_t allocated = result.allocated;
    bool isArgumentView = llvm::any_of(arguments, [&](HostArgument &argument) {
      auto begin = reinterpret_cast<int64_t>(argument.getBufferBytes());
      return argument.isMemRef() && allocated >= begin &&
             allocated < begin + argument.getBufferByteSize();
    });
    if (!isArgumentView && allocated != kGlobalMemRefAllocation)
      owned.insert(allocated);
  }
  for (int64_t allocated : owned)
    std::free(reinterpret_cast<void *>(allocated));
}

llvm::Error invoke(ExecutionEngine &engine, StringRef entry,
                   std::vector<HostArgument> &arguments, TypeRange resultTypes,
                   std::vector<HostArgument> &results) {
  std::vector<int64_t> resultWords(countResultWords(resultTypes), 0);
  SmallVector<void *> packed;
  for (HostArgument &argument : arguments)
    packed.push_back(argument.getPackedArgument());
  if (llvm::Error error =
          callEntry(engine, entry, packed, resultWords, !resultTypes.empty()))
    return error;
  takeResults(resultWords, resultTypes, arguments, results);
  return llvm::Error::success();
}

/// How far a GPU result may be from the CPU reference, relative to
/// 1 + |reference|: libdevice's functions differ from the host's libm by a
/// few ulps, and NVPTX contracts a * b + c into one fma.
double getGpuTolerance(Type element) {
  if (!element)
    return 0.0;
  if (element.isF64())
    return 1e-12;
  if (element.isF32())
    return 1e-5;
  if (element.isF16() || element.isBF16())
    return 1e-2;
  return 0.0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // --help lists this tool's options; LLVM's own stay usable.
  llvm::cl::HideUnrelatedOptions(runOptions);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "pw-run: execute a pointwise module's entry function\n\n"
      "  pw-run axpy.mlir --arg 3x4@1,3 --arg 4 --arg =0.5 --arg 3x4 "
      "--print --check\n");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  // pw-tile's options steer only the tiled CPU lowering; anywhere else they
  // would change nothing, silently.
  if (target == Target::Cuda && lowering.getNumOccurrences())
    return fail("--lowering applies to --target=cpu (--target=cuda runs the "
                "kernel family, checked against the reference lowering)");
  if (target != Target::Cuda && gpuFormat.getNumOccurrences())
    return fail("--gpu-format needs --target=cuda (the CPU runs no GPU code)");
  if (target != Target::Cuda && gpuPath.getNumOccurrences())
    return fail("--gpu-path needs --target=cuda (it chooses how the GPU runs "
                "the entry)");
  if (!symbolizeBinaryFormat(gpuFormat))
    return fail("--gpu-format must be fatbin, bin or isa, not '" + gpuFormat +
                "'");
  for (const llvm::cl::Option *option :
       std::initializer_list<const llvm::cl::Option *>{
           &tileStrategy, &indexBitwidth, &tileEdge})
    if (option->getNumOccurrences() && lowering != Lowering::Tiled)
      return fail("--" + option->ArgStr + " needs --lowering=tiled (it is " +
                  "an option of the tiled CPU lowering)");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);

  std::vector<ArgumentSpec> specs;
  for (const std::string &text : argumentSpecs) {
    auto spec = parseArgumentSpec(text);
    if (!spec)
      return fail(llvm::toString(spec.takeError()));
    specs.push_back(std::move(*spec));
  }

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFilename, sourceMgr, &context);
  if (!module)
    return 1;
  FailureOr<func::FuncOp> entry = findEntry(*module);
  if (failed(entry))
    return 1;
  StringRef name = entry->getName();
  TypeRange resultTypes = entry->getResultTypes();
  for (auto [index, type] : llvm::enumerate(resultTypes))
    if (!isa<RankedTensorType, MemRefType>(type))
      return fail("entry '" + name + "' returns a " + describeType(type) +
                  " as result #" + llvm::Twine(index) +
                  "; pw-run takes results that are ranked tensors or memrefs");
  bool takesTensors =
      llvm::any_of(entry->getArgumentTypes(), llvm::IsaPred<TensorType>) ||
      llvm::any_of(resultTypes, llvm::IsaPred<TensorType>);
  if (target == Target::Cuda && gpuPath == GpuPath::Family &&
      (takesTensors || !resultTypes.empty()))
    return fail("entry '" + name +
                "' takes or returns tensors or returns memrefs; "
                "--gpu-path=family runs kernel families, whose outputs are "
                "memref arguments (--gpu-path=pipeline runs tensor programs)");
  if (!specs.empty() && specs.size() != entry->getNumArguments())
    return fail("entry '" + name + "' takes " +
                llvm::Twine(entry->getNumArguments()) + " arguments but " +
                llvm::Twine(specs.size()) + " --arg were given");

  // Everything about the views is checked before their buffers exist: the
  // memory they need and, but for kernel families (whose dispatch makes
  // these checks at each launch), that they broadcast and do not overlap.
  auto arguments = planArguments(*entry, specs);
  if (!arguments)
    return fail(llvm::toString(arguments.takeError()));
  if (llvm::Error error = checkArgumentMemory(*arguments))
    return fail(llvm::toString(std::move(error)));
  if (target == Target::Cpu || gpuPath == GpuPath::Pipeline)
    if (llvm::Error error = checkArgumentLayouts(*entry, *arguments))
      return fail(llvm::toString(std::move(error)));
  for (HostArgument &argument : *arguments)
    argument.allocate(fillMode, seed);
  // Copies of the memrefs the entry returns, once it has run.
  std::vector<HostArgument> results;
  if (!dumpInputs.empty())
    if (llvm::Error error =
            dumpArguments(dumpInputs, name, "inputs", *arguments, results))
      return fail(llvm::toString(std::move(error)));
  std::unique_ptr<ExecutionEngine> engine;
  std::unique_ptr<CudaExecution> cuda;
  if (target == Target::Cuda) {
    auto created = CudaExecution::create(
        *module, name, *symbolizeBinaryFormat(gpuFormat), gpuPath);
    if (!created)
      return fail(llvm::toString(created.takeError()));
    cuda = std::move(*created);
    if (llvm::Error error = cuda->upload(*arguments))
      return fail(llvm::toString(std::move(error)));
    if (llvm::Error error = cuda->launch())
      return fail(llvm::toString(std::move(error)));
    if (llvm::Error error = cuda->download(*arguments, results))
      return fail(llvm::toString(std::move(error)));
  } else {
    auto compiled = compile(*module, name, /*reference=*/false);
    if (!compiled)
      return fail(llvm::toString(compiled.takeError()));
    engine = std::move(*compiled);
    if (llvm::Error error =
            invoke(*engine, name, *arguments, resultTypes, results))
      return fail(llvm::toString(std::move(error)));
  }

  if (!dumpOutputs.empty() && !check)
    if (llvm::Error error = dumpArguments(
            dumpOutputs, name, cuda ? "cuda outputs" : "optimized outputs",
            *arguments, results))
      return fail(llvm::toString(std::move(error)));

  if (printOutputs) {
    // The arguments that maps write, or all of them when none is found and
    // the entry returns nothing; then the results.
    llvm::SmallDenseSet<unsigned> outputs = findOutputArguments(*entry);
    for (HostArgument &argument : *arguments) {
      if (outputs.empty() ? !results.empty()
                          : !outputs.contains(argument.getIndex()))
        continue;
      llvm::outs() << argument.getLabel() << " (" << argument.describe()
                   << "):\n";
      argument.print(llvm::outs());
      llvm::outs() << "\n";
    }
    for (HostArgument &result : results) {
      llvm::outs() << result.getLabel() << " (" << result.describe() << "):\n";
      result.print(llvm::outs());
      llvm::outs() << "\n";
    }
  }

  if (check) {
    auto referenceArguments = createArguments(*entry, specs);
    if (!referenceArguments)
      return fail(llvm::toString(referenceArguments.takeError()));
    auto referenceEngine = compile(*module, name, /*reference=*/true);
    if (!referenceEngine)
      return fail(llvm::toString(referenceEngine.takeError()));
    std::vector<HostArgument> referenceResults;
    if (llvm::Error error = invoke(**referenceEngine, name, *referenceArguments,
                                   resultTypes, referenceResults))
      return fail(llvm::toString(std::move(error)));
    // The reference lowering is the oracle: its results are the ones to
    // replay elsewhere, whatever the comparison says.
    if (!dumpOutputs.empty())
      if (llvm::Error error =
              dumpArguments(dumpOutputs, name, "reference outputs",
                            *referenceArguments, referenceResults))
        return fail(llvm::toString(std::move(error)));
    bool identical = true;
    for (auto [optimized, reference] :
         llvm::zip(*arguments, *referenceArguments))
      identical &= optimized.compare(
          reference, llvm::errs(), maxMismatches,
          cuda ? getGpuTolerance(optimized.getElementType()) : 0.0);
    for (auto [optimized, reference] : llvm::zip(results, referenceResults))
      identical &= optimized.compare(
          reference, llvm::errs(), maxMismatches,
          cuda ? getGpuTolerance(optimized.getElementType()) : 0.0);
    if (!identical)
      return fail(cuda ? "check FAILED: the GPU result differs from the CPU "
                         "reference beyond the tolerance"
                       : "check FAILED: the optimized lowering differs from "
                         "the reference");
    if (cuda)
      llvm::outs() << "check passed: the GPU (" << cuda->describeLastVariant()
                   << ") agrees with the CPU reference on every buffer\n";
    else
      llvm::outs() << "check passed: optimized and reference lowerings agree "
                      "on every buffer\n";
  }

  if (benchIterations && cuda) {
    auto median = cuda->timeMedianSeconds(benchIterations);
    if (!median)
      return fail(llvm::toString(median.takeError()));
    auto copy = cuda->measureCopyBandwidth();
    if (!copy)
      return fail(llvm::toString(copy.takeError()));
    int64_t bytes = 0;
    for (const HostArgument &argument : *arguments)
      bytes += argument.getViewBytes();
    // Returned tensors are written once each.
    for (const HostArgument &result : results)
      bytes += result.getViewBytes();
    double bandwidth = bytes / *median;
    llvm::outs() << llvm::format(
        "bench: %s, %s: %u launches, median %.3f us, %.1f GB/s = %.1f %% of "
        "the copy bandwidth (%.1f GB/s)\n",
        cuda->getDeviceName().c_str(), cuda->describeLastVariant().c_str(),
        benchIterations.getValue(), *median * 1e6, bandwidth / 1e9,
        100.0 * bandwidth / *copy, *copy / 1e9);
  } else if (benchIterations) {
    std::vector<double> seconds;
    for (unsigned i = 0; i < benchIterations; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (llvm::Error error =
              invoke(*engine, name, *arguments, resultTypes, results))
        return fail(llvm::toString(std::move(error)));
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    }
    std::sort(seconds.begin(), seconds.end());
    double median = seconds[seconds.size() / 2];
    int64_t bytes = 0;
    for (const HostArgument &argument : *arguments)
      bytes += argument.getViewBytes();
    // Returned tensors are written once each.
    for (const HostArgument &result : results)
      bytes += result.getViewBytes();
    llvm::outs() << llvm::format("bench: %u calls, median %.3f us, %.2f GB/s "
                                 "effective (%lld bytes moved per call)\n",
                                 benchIterations.getValue(), median * 1e6,
                                 bytes / median / 1e9,
                                 static_cast<long long>(bytes));
  }
  return 0;
}
