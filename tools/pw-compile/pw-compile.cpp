//===- pw-compile.cpp - Ahead-of-time compilation of kernel families ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Compiles every function holding a pointwise.map into a kernel family
// (include/Pointwise/Compiler/Family.h): GPU binaries embedded in host code,
// a `pw_family_<name>` table and a C entry point `<name>` per function. The
// output depends only on libPointwiseRuntime:
//
//   pw-compile kernels.mlir -o kernels.so     shared library (links the
//                                             runtime with an $ORIGIN rpath)
//   pw-compile kernels.mlir -o kernels.o      relocatable object
//   pw-compile kernels.mlir -o kernels.ll     host LLVM IR
//   pw-compile kernels.mlir -o variants.mlir  the variants, before lowering
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Compiler/Family.h"
#include "Pointwise/InitAllDialects.h"
#include "Pointwise/InitAllPasses.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace pointwise;

namespace {

llvm::cl::OptionCategory compileOptions("pw-compile options");

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::init("-"),
                                         llvm::cl::cat(compileOptions));
llvm::cl::opt<std::string>
    outputFilename("o",
                   llvm::cl::desc("Output: .so (shared library), .o (object), "
                                  ".ll (host LLVM IR) or .mlir (the variants, "
                                  "before lowering)"),
                   llvm::cl::value_desc("file"), llvm::cl::cat(compileOptions));
llvm::cl::opt<std::string>
    runtimeDir("runtime-dir",
               llvm::cl::desc("Directory of libPointwiseRuntime.so for .so "
                              "outputs (default: ../lib next to pw-compile)"),
               llvm::cl::init(""), llvm::cl::cat(compileOptions));
llvm::cl::opt<std::string> gpuBinariesDir(
    "dump-gpu-binaries",
    llvm::cl::desc("Also write each GPU binary (the kernels of a few "
                   "variants) into this directory as <first kernel's "
                   "module>.{ptx,cubin,fatbin}"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(compileOptions));
llvm::cl::opt<bool> quiet("quiet", llvm::cl::desc("No progress lines"),
                          llvm::cl::cat(compileOptions));

int fail(const llvm::Twine &message) {
  llvm::errs() << "pw-compile: error: " << message << "\n";
  return 1;
}

/// Writes the objects of every gpu.binary of `module` into gpuBinariesDir.
LogicalResult writeGpuBinaries(ModuleOp module) {
  if (std::error_code ec = llvm::sys::fs::create_directories(gpuBinariesDir))
    return module.emitError()
           << "cannot create " << gpuBinariesDir << ": " << ec.message();
  WalkResult walk = module.walk([&](gpu::BinaryOp binary) {
    for (auto object : binary.getObjects().getAsRange<gpu::ObjectAttr>()) {
      llvm::StringRef extension =
          object.getFormat() == gpu::CompilationTarget::Assembly ? ".ptx"
          : object.getFormat() == gpu::CompilationTarget::Binary ? ".cubin"
                                                                 : ".fatbin";
      llvm::SmallString<256> path(gpuBinariesDir);
      llvm::sys::path::append(path, binary.getName() + extension);
      std::string error;
      auto output = openOutputFile(path, &error);
      if (!output) {
        binary.emitError(error);
        return WalkResult::interrupt();
      }
      output->os() << object.getObject().getValue();
      output->keep();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

bool isHelpFlag(llvm::StringRef argument) {
  return argument == "--help" || argument == "-help" || argument == "-h";
}

/// Prints pw-compile's own options, then those of FamilyOptions.
void printHelp() {
  llvm::cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
  llvm::outs()
      << "\nFamily options (--name=value; pwcCompile's name=value):\n\n";
  FamilyOptions options;
  options.printHelp(/*indent=*/2, /*descIndent=*/options.getOptionWidth() + 4);
}

/// Takes the arguments that name an option of the family compilation
/// (`--name=value` or `--name`; FamilyOptions: the GPU code generation
/// options and the family's own, defined there once for pw-compile, the C
/// API and the pipeline alike) out of `arguments` into `options`. Fails,
/// after printing why, on a bad value of such an option.
LogicalResult takeFamilyOptions(llvm::SmallVectorImpl<const char *> &arguments,
                                FamilyOptions &options) {
  llvm::SmallVector<const char *> others;
  for (const char *argument : arguments) {
    llvm::StringRef word = llvm::StringRef(argument).ltrim('-');
    if (others.empty() || word == argument || word.empty() ||
        word.starts_with("=")) {
      others.push_back(argument);
      continue;
    }
    std::string unknown;
    llvm::raw_string_ostream errors(unknown);
    if (succeeded(options.parseFromString(word, errors)))
      continue;
    if (!unknown.empty()) { // No such family option: pw-compile's or LLVM's.
      others.push_back(argument);
      continue;
    }
    llvm::errs() << "pw-compile: error: invalid option '" << argument
                 << "' (see --help)\n";
    return failure();
  }
  arguments.assign(others);
  return success();
}

/// Keeps `output` if everything written to it reached the file; otherwise
/// reports why and leaves it to be deleted. (A stream destroyed with an
/// unchecked error aborts the process with "IO failure".)
int finishOutput(llvm::ToolOutputFile &output, llvm::StringRef path) {
  llvm::raw_fd_ostream &os = output.os();
  // Closing reports what the last writes hit too (stdout stays open).
  if (path == "-")
    os.flush();
  else
    os.close();
  if (std::error_code error = os.error()) {
    os.clear_error();
    return fail("cannot write '" + path + "': " + error.message());
  }
  output.keep();
  return 0;
}

/// An x86-64 (host) target machine producing position-independent code that
/// runs on any CPU of the host's architecture.
std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(std::string &error) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, "generic", "", options, llvm::Reloc::PIC_));
}

/// The directory that holds libPointwiseRuntime.so: --runtime-dir, or the
/// build/install layout bin/../lib.
std::string findRuntimeDir(const char *argv0) {
  if (!runtimeDir.empty())
    return runtimeDir;
  std::string self =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&findRuntimeDir);
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(dir, "..", "lib");
  return std::string(dir);
}

/// The HostObjectEmitter of pw-compile: O2, then a relocatable object for
/// the host, with a target machine of the calling thread's own.
bool compileHostPart(llvm::Module &module, size_t, TimingScope *timing,
                     std::string &object, std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine = createHostTargetMachine(error);
  if (!machine) {
    error = "no host target: " + error;
    return false;
  }
  return compileHostModule(module, *machine, object, error, timing);
}

/// Links `objects` with the C/C++ compiler driver into `output`: a shared
/// library against the runtime in `runtime`, or (`runtime` empty) one
/// relocatable object. Messages name the output as `named`.
int linkObjects(llvm::ArrayRef<std::string> objects, llvm::StringRef output,
                const std::string &runtime, llvm::StringRef named) {
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("c++");
  if (!linker)
    linker = llvm::sys::findProgramByName("cc");
  if (!linker)
    return fail("no C/C++ compiler driver (c++ or cc) in PATH to link " +
                named);
  std::string rpath = "-Wl,-rpath,$ORIGIN";
  std::string libraryDir = "-L" + runtime;
  llvm::SmallVector<llvm::StringRef> args = {*linker};
  if (runtime.empty()) {
    args.append({"-r", "-nostdlib"});
  } else {
    llvm::SmallString<256> library(runtime);
    llvm::sys::path::append(library, "libPointwiseRuntime.so");
    if (!llvm::sys::fs::exists(library))
      return fail("cannot find " + library +
                  " (build the PointwiseRuntime target or pass --runtime-dir)");
    args.push_back("-shared");
  }
  args.append({"-o", output});
  for (const std::string &object : objects)
    args.push_back(object);
  if (!runtime.empty())
    args.append({libraryDir, "-lPointwiseRuntime", rpath});
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return fail(
        "linking " + named + " failed: " +
        (message.empty() ? "exit status " + std::to_string(status) : message));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // --mlir-timing and its display options: the time of each step and pass.
  registerDefaultTimingManagerCLOptions();
  // --help lists this tool's options and the family's; LLVM's own stay
  // usable. The help flag is handled here since the family's options live
  // outside the command-line registry.
  llvm::SmallVector<const char *> arguments(argv, argv + argc);
  // Names the program in the messages of bad family option values, which
  // are parsed before the tool's own options.
  llvm::cl::ParseCommandLineOptions(1, argv);
  FamilyOptions options;
  if (failed(takeFamilyOptions(arguments, options)))
    return 1;
  bool help = llvm::any_of(llvm::drop_begin(arguments), isHelpFlag);
  llvm::erase_if(arguments,
                 [](const char *argument) { return isHelpFlag(argument); });
  llvm::cl::HideUnrelatedOptions(compileOptions);
  for (llvm::StringRef timingOption :
       {"mlir-timing", "mlir-timing-display", "mlir-output-format"})
    if (auto *option = llvm::cl::getRegisteredOptions().lookup(timingOption))
      option->setHiddenFlag(llvm::cl::NotHidden);
  llvm::cl::ParseCommandLineOptions(
      arguments.size(), arguments.data(),
      "pointwise ahead-of-time compiler: kernel families compiled per rank\n");
  if (help) {
    printHelp();
    return 0;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  if (outputFilename.getNumOccurrences() == 0)
    return fail("no output file: give -o <file>");
  llvm::StringRef extension = llvm::sys::path::extension(outputFilename);
  if (extension != ".so" && extension != ".o" && extension != ".ll" &&
      extension != ".mlir")
    return fail("the output must end in .so, .o, .ll or .mlir, got '" +
                outputFilename + "'");

  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  TimingScope parseTime = timing.nest("parse");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Errors name the function and rule at its location in the input; a dump
  // of the whole module (or of its lowered form) under each one hides them.
  context.printOpOnDiagnostic(false);
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  parseTime.stop();

  if (extension == ".mlir") {
    if (failed(buildFamilyVariants(*module, options)))
      return 1;
    auto output = openOutputFile(outputFilename, &error);
    if (!output)
      return fail(error);
    module->print(output->os());
    return finishOutput(*output, outputFilename);
  }

  llvm::LLVMContext llvmContext;
  std::vector<FamilySpec> families;
  auto progress = [](llvm::StringRef line) {
    if (!quiet)
      llvm::errs() << line << "\n";
  };
  std::function<LogicalResult(ModuleOp)> inspect;
  if (!gpuBinariesDir.empty())
    inspect = writeGpuBinaries;

  if (extension == ".ll") {
    std::unique_ptr<llvm::Module> host = compileFamilies(
        *module, llvmContext, options, families, progress, &timing, inspect);
    if (!host)
      return 1;
    addFamilyIndex(*host, families);
    std::unique_ptr<llvm::TargetMachine> machine =
        createHostTargetMachine(error);
    if (!machine)
      return fail("no host target: " + error);
    if (!optimizeHostModule(*host, *machine, error, &timing))
      return fail(error);
    auto output = openOutputFile(outputFilename, &error);
    if (!output)
      return fail(error);
    host->print(output->os(), nullptr);
    return finishOutput(*output, outputFilename);
  }

  // Each lowered part's host code is optimized and compiled on the thread
  // that lowered it; the family tables and the index come last.
  std::vector<std::string> objects;
  std::unique_ptr<llvm::Module> tables = compileFamiliesToObjects(
      *module, llvmContext, options, families, progress, &timing, inspect,
      compileHostPart, objects);
  if (!tables)
    return 1;
  addFamilyIndex(*tables, families);
  objects.emplace_back();
  if (!compileHostPart(*tables, objects.size() - 1, &timing, objects.back(),
                       error))
    return fail(error);

  // One object (one part, or one thread) is the output itself.
  if (extension == ".o" && objects.size() == 1) {
    auto output = openOutputFile(outputFilename, &error);
    if (!output)
      return fail(error);
    output->os() << objects.front();
    return finishOutput(*output, outputFilename);
  }

  // The objects in temporary files, linked into the output.
  std::vector<std::string> files;
  llvm::scope_exit removeFiles([&] {
    for (const std::string &file : files)
      llvm::sys::fs::remove(file);
  });
  for (const std::string &object : objects) {
    llvm::SmallString<256> file;
    int fd;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("pw-compile", "o", fd, file))
      return fail("cannot create a temporary object file: " + ec.message());
    files.push_back(std::string(file));
    llvm::raw_fd_ostream stream(fd, /*shouldClose=*/true);
    stream << object;
    stream.close();
    if (stream.has_error()) {
      std::string message = stream.error().message();
      stream.clear_error();
      return fail("cannot write " + file + ": " + message);
    }
  }
  if (extension == ".so") {
    TimingScope linkTime = timing.nest("shared library link");
    if (int status = linkObjects(files, outputFilename, findRuntimeDir(argv[0]),
                                 outputFilename))
      return status;
    if (!quiet)
      llvm::errs() << "pw-compile: wrote " << outputFilename << "\n";
    return 0;
  }
  // One relocatable object, linked in a temporary file and then written
  // out, so that a write error names the output.
  TimingScope linkTime = timing.nest("object link");
  llvm::SmallString<256> linked;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("pw-compile", "o", fd, linked))
    return fail("cannot create a temporary object file: " + ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  files.push_back(std::string(linked));
  if (int status = linkObjects(llvm::ArrayRef(files).drop_back(), linked,
                               std::string(), outputFilename))
    return status;
  linkTime.stop();
  auto buffer = llvm::MemoryBuffer::getFile(linked);
  if (!buffer)
    return fail("cannot read " + linked + ": " + buffer.getError().message());
  auto output = openOutputFile(outputFilename, &error);
  if (!output)
    return fail(error);
  output->os() << (*buffer)->getBuffer();
  return finishOutput(*output, outputFilename);
}
