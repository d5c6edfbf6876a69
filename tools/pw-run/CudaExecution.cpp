//===- CudaExecution.cpp - pw-run's CUDA target ---------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "CudaExecution.h"
#include "JitExecution.h"

#include "Pointwise/Compiler/Family.h"
#include "Pointwise/Pipelines/Pipelines.h"
#include "Pointwise/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Module.h"

#include <algorithm>

using namespace mlir;
using namespace pointwise;
using namespace pointwise::run;

namespace {

llvm::Error runtimeError(pwStatus status, const llvm::Twine &what) {
  return llvm::createStringError(what + ": " + pwGetStatusName(status) + ": " +
                                 pwGetLastErrorMessage());
}

#define PW_CHECK(call, what)                                                   \
  if (pwStatus status = (call); status != PW_SUCCESS)                          \
  return runtimeError(status, what)

} // namespace

/// The runtime's release in a stream's order, the legacy default stream
/// (null) included, of what the lowered host code allocated on it (the
/// runtime exports it; MgpuAbi.h is private).
extern "C" void pwMemFreeOnStream(void *pointer, void *stream);

/// Lowers `module` with pw-gpu-pipeline for `arch` and JIT-compiles its
/// host code, which launches on the runtime's current stream.
llvm::Expected<std::unique_ptr<ExecutionEngine>>
compilePipeline(ModuleOp module, llvm::StringRef entry, llvm::StringRef arch,
                BinaryFormat gpuFormat, unsigned &launchSites) {
  auto prepared = prepareForJit(module, entry);
  if (!prepared)
    return prepared.takeError();
  OwningOpRef<ModuleOp> copy = std::move(*prepared);
  PassManager pm(module.getContext());
  GpuPipelineOptions options;
  options.chip = arch.str();
  options.format = gpuFormat;
  options.launchOnCurrentStream = true;
  buildGpuPipeline(pm, options);
  if (failed(pm.run(*copy)))
    return llvm::createStringError(
        "--target=cuda: pw-gpu-pipeline failed (diagnostics above)");
  launchSites = 0;
  copy->walk([&](gpu::LaunchFuncOp) { ++launchSites; });
  auto engine = createEngine(*copy);
  if (!engine) {
    llvm::consumeError(engine.takeError());
    return llvm::createStringError("--target=cuda: JIT compilation of the "
                                   "pipeline's host code failed");
  }
  return engine;
}

llvm::Expected<std::unique_ptr<CudaExecution>>
CudaExecution::create(ModuleOp module, llvm::StringRef entry,
                      BinaryFormat gpuFormat, GpuPath path) {
  int devices = 0;
  PW_CHECK(pwGetDeviceCount(&devices), "--target=cuda");
  if (devices == 0)
    return llvm::createStringError("--target=cuda: the CUDA driver reports no "
                                   "device");
  char arch[16] = {0};
  PW_CHECK(pwGetDeviceArch(0, arch, sizeof(arch)), "--target=cuda");

  std::unique_ptr<CudaExecution> execution(new CudaExecution());
  execution->path = path;
  execution->entry = entry.str();
  if (path == GpuPath::Pipeline) {
    auto function = module.lookupSymbol<func::FuncOp>(entry);
    execution->resultTypes.assign(function.getResultTypes().begin(),
                                  function.getResultTypes().end());
    auto engine =
        compilePipeline(module, entry, arch, gpuFormat, execution->launchSites);
    if (!engine)
      return engine.takeError();
    execution->engine = std::move(*engine);
    return execution;
  }
  OwningOpRef<ModuleOp> copy = module.clone();
  FamilyOptions options;
  options.chip = arch;
  options.format = gpuFormat;
  options.functions = {entry.str()};
  std::vector<FamilySpec> families;
  bool compiled = false;
  // A named object: the options keep only a function_ref to it, which a
  // lambda assigned there directly would leave dangling once the statement
  // ended (every --target=cuda run crashed reading freed stack).
  auto buildHostModule =
      [&](Operation *op,
          llvm::LLVMContext &context) -> std::unique_ptr<llvm::Module> {
    std::unique_ptr<llvm::Module> host = compileFamilies(
        cast<ModuleOp>(op), context, options, families, nullptr);
    compiled = host != nullptr;
    return host;
  };
  ExecutionEngineOptions engineOptions;
  engineOptions.llvmModuleBuilder = buildHostModule;
  auto transformer = makeOptimizingTransformer(2, 0, nullptr);
  engineOptions.transformer = transformer;
  auto engine = ExecutionEngine::create(*copy, engineOptions);
  if (!engine) {
    llvm::consumeError(engine.takeError());
    return llvm::createStringError(
        compiled ? "--target=cuda: JIT compilation failed"
                 : "--target=cuda: compiling the kernel family failed "
                   "(diagnostics above)");
  }
  (*engine)->registerSymbols(getHostBuiltinSymbols);
  execution->engine = std::move(*engine);
  // Runs the host module's constructors: they register its GPU binary
  // (mgpuModuleLoad), which the family's variants launch from.
  execution->engine->initialize();
  auto table = execution->engine->lookup(("pw_family_" + entry).str());
  if (!table)
    return table.takeError();
  execution->family = *table;
  return execution;
}

CudaExecution::~CudaExecution() {
  freeOwnedResults();
  for (void *buffer : deviceBuffers)
    if (buffer)
      pwFree(buffer);
}

llvm::Error CudaExecution::upload(std::vector<HostArgument> &arguments) {
  descriptors.assign(arguments.size(), {});
  packed.assign(arguments.size(), nullptr);
  deviceBuffers.assign(arguments.size(), nullptr);
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    if (!argument.isMemRef()) {
      // A scalar's bits, as the entry loads them from its address.
      packed[index] = argument.getPackedArgument();
      continue;
    }
    int64_t bytes = std::max<int64_t>(argument.getBufferByteSize(), 1);
    PW_CHECK(pwMalloc(&deviceBuffers[index], bytes),
             "allocating " + llvm::Twine(bytes) + " device bytes");
    PW_CHECK(pwMemcpyHostToDevice(deviceBuffers[index],
                                  argument.getBufferBytes(),
                                  argument.getBufferByteSize()),
             "copying argument #" + llvm::Twine(index) + " to the device");
    descriptors[index] = argument.getDescriptorWords();
    auto address = reinterpret_cast<int64_t>(deviceBuffers[index]);
    descriptors[index][0] = descriptors[index][1] = address;
    packed[index] = descriptors[index].data();
  }
  descriptorAddresses = packed;
  entryArguments.assign(arguments.size(), nullptr);
  for (auto [index, argument] : llvm::enumerate(arguments))
    entryArguments[index] =
        argument.isMemRef() ? &descriptorAddresses[index] : packed[index];
  return llvm::Error::success();
}

llvm::Error CudaExecution::launch() {
  if (path == GpuPath::Family) {
    PW_CHECK(
        pwFamilyLaunch(static_cast<const pwFamily *>(family), packed.data()),
        "launch");
    return llvm::Error::success();
  }
  freeOwnedResults();
  resultWords.assign(countResultWords(resultTypes), 0);
  if (llvm::Error error = callEntry(*engine, entry, entryArguments, resultWords,
                                    !resultTypes.empty()))
    return error;
  // The host code records a failed driver call (a launch, an allocation) as
  // the runtime's pending error instead of stopping.
  PW_CHECK(pwTakePendingError(), "'" + entry + "'");
  return llvm::Error::success();
}

void CudaExecution::freeOwnedResults() {
  // Nothing returned yet (or already freed).
  if (resultWords.empty())
    return;
  llvm::SmallDenseSet<int64_t> owned;
  for (const ReturnedMemRef &result : decodeResults(resultWords, resultTypes))
    if (result.allocated &&
        !llvm::is_contained(deviceBuffers,
                            reinterpret_cast<void *>(result.allocated)))
      owned.insert(result.allocated);
  for (int64_t allocated : owned)
    pwMemFreeOnStream(reinterpret_cast<void *>(allocated), pwGetStream());
  resultWords.clear();
}

llvm::Error CudaExecution::download(std::vector<HostArgument> &arguments,
                                    std::vector<HostArgument> &results) {
  PW_CHECK(pwStreamSynchronize(pwGetStream()), "waiting for the kernel");
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    if (!argument.isMemRef())
      continue;
    PW_CHECK(pwMemcpyDeviceToHost(argument.getBufferBytes(),
                                  deviceBuffers[index],
                                  argument.getBufferByteSize()),
             "copying argument #" + llvm::Twine(index) + " back");
  }
  results.clear();
  for (auto [index, result] :
       llvm::enumerate(decodeResults(resultWords, resultTypes))) {
    // The elements the view reaches, copied to the host; the view is then
    // read from that copy.
    auto [low, high] = result.getElementSpan();
    int64_t width = result.elementType.isIndex()
                        ? 8
                        : (result.elementType.getIntOrFloatBitWidth() + 7) / 8;
    std::vector<uint8_t> span(std::max<int64_t>(high - low, 1) * width);
    if (high > low)
      PW_CHECK(pwMemcpyDeviceToHost(
                   span.data(),
                   reinterpret_cast<uint8_t *>(result.aligned) + low * width,
                   (high - low) * width),
               "copying result #" + llvm::Twine(index) + " back");
    results.push_back(HostArgument::copyResult(
        result.elementType, index, result.sizes, result.strides,
        result.offset - low, span.data()));
  }
  freeOwnedResults();
  PW_CHECK(pwStreamSynchronize(pwGetStream()), "freeing the results");
  return llvm::Error::success();
}

llvm::Expected<double> CudaExecution::timeMedianSeconds(unsigned iterations) {
  pwEvent start, end;
  PW_CHECK(pwEventCreate(&start), "timing");
  PW_CHECK(pwEventCreate(&end), "timing");
  std::vector<double> times;
  // Warm-up: module load and first-launch costs stay out of the numbers.
  for (unsigned i = 0; i < 3; ++i)
    if (llvm::Error error = launch())
      return std::move(error);
  for (unsigned i = 0; i < iterations; ++i) {
    PW_CHECK(pwEventRecord(start, pwGetStream()), "timing");
    if (llvm::Error error = launch())
      return std::move(error);
    PW_CHECK(pwEventRecord(end, pwGetStream()), "timing");
    PW_CHECK(pwEventSynchronize(end), "timing");
    float milliseconds = 0;
    PW_CHECK(pwEventElapsedMilliseconds(&milliseconds, start, end), "timing");
    times.push_back(milliseconds * 1e-3);
  }
  pwEventDestroy(start);
  pwEventDestroy(end);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

llvm::Expected<double> CudaExecution::measureCopyBandwidth() {
  constexpr size_t kBytes = size_t(256) << 20;
  void *from = nullptr, *to = nullptr;
  PW_CHECK(pwMalloc(&from, kBytes), "copy bandwidth");
  if (pwStatus status = pwMalloc(&to, kBytes); status != PW_SUCCESS) {
    pwFree(from);
    return runtimeError(status, "copy bandwidth");
  }
  pwMemsetBytes(from, 1, kBytes);
  pwEvent start, end;
  pwEventCreate(&start);
  pwEventCreate(&end);
  std::vector<double> times;
  for (int i = 0; i < 12; ++i) {
    pwEventRecord(start, nullptr);
    pwMemcpyDeviceToDevice(to, from, kBytes);
    pwEventRecord(end, nullptr);
    pwEventSynchronize(end);
    float milliseconds = 0;
    pwEventElapsedMilliseconds(&milliseconds, start, end);
    if (i >= 2)
      times.push_back(milliseconds * 1e-3);
  }
  pwEventDestroy(start);
  pwEventDestroy(end);
  pwFree(from);
  pwFree(to);
  std::sort(times.begin(), times.end());
  return 2.0 * kBytes / times[times.size() / 2];
}

std::string CudaExecution::describeLastVariant() const {
  if (path == GpuPath::Pipeline)
    return "pw-gpu-pipeline, " + std::to_string(launchSites) +
           " kernel launch site" + (launchSites == 1 ? "" : "s");
  int index = pwGetLastVariant();
  if (index < 0)
    return "nothing launched";
  const auto *table = static_cast<const pwFamily *>(family);
  const pwVariant &variant = table->variants[index];
  std::string text = "rank " + std::to_string(variant.rank) + ", " +
                     std::to_string(variant.indexBitwidth) + "-bit indices, ";
  if (variant.strategy == PW_STRATEGY_TRANSPOSE)
    text +=
        "transpose of argument #" + std::to_string(variant.transposedArgument);
  else if (variant.strategy == PW_STRATEGY_LINEAR_NARROW)
    text += "linear, 8-byte vectors";
  else
    text += "linear";
  return text;
}

std::string CudaExecution::getDeviceName() const {
  char name[256] = {0};
  if (pwGetDeviceName(0, name, sizeof(name)) != PW_SUCCESS)
    return "unknown device";
  return name;
}
