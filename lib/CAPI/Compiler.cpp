//===- Compiler.cpp - The pointwise compiler's C API ----------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pwcCompile parses MLIR text, runs the family compiler
// (compileFamiliesToObjects: the host code of each lowered part compiled to
// an object on the thread that lowered it, then the family tables') and
// hands the objects to a HostJit; pwcSave/pwcLoad keep them behind a
// header naming the compiler
// version, so that loading a saved library compiles nothing; pwcAddVariants
// and pwcLoadVariants fill a library's missing variants with those of
// another, compiled or saved.
//
//===----------------------------------------------------------------------===//

#include "pointwise-c/Compiler.h"

#include "HostJit.h"
#include "Pointwise/Compiler/Family.h"
#include "Pointwise/InitAllDialects.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>
#include <vector>

using namespace pointwise;

struct pwcLibrary {
  std::unique_ptr<capi::HostJit> jit;
  /// The host code as relocatable objects (one per lowered part, then the
  /// family tables), for pwcSave.
  std::vector<std::string> objects;
  /// Libraries whose variants pwcAddVariants stored in this one's tables:
  /// their code must live as long as these tables.
  std::mutex donorsMutex;
  std::vector<std::unique_ptr<pwcLibrary>> donors;
};

namespace {

/// A saved library: the magic, the compiler version, a NUL, the host target
/// (getHostTargetName), a NUL, then each object: its size in bytes (8 bytes,
/// little-endian) and its bytes.
constexpr llvm::StringLiteral kSavedMagic("pointwise-host-objects\n");

thread_local std::string lastError;

pwStatus fail(pwStatus status, const llvm::Twine &message) {
  lastError = message.str();
  return status;
}

llvm::ThreadPoolInterface &getCompilerThreadPool() {
  static llvm::DefaultThreadPool pool(llvm::hardware_concurrency());
  return pool;
}

const std::string &getVersion() {
  static const std::string version =
      "pointwise 0.1 (LLVM " LLVM_VERSION_STRING ")";
  return version;
}

/// Parses pwcCompile's option string, space-separated `key=value` words,
/// into `options` (FamilyOptions: the definitions of pw-compile's flags),
/// one word at a time so that an error names the word.
pwStatus parseOptions(const char *text, FamilyOptions &options) {
  if (!text)
    return PW_SUCCESS;
  llvm::SmallVector<llvm::StringRef> words;
  llvm::StringRef(text).split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef word : words) {
    if (!word.contains('='))
      return fail(PW_ERROR_INVALID_VALUE,
                  "option '" + word + "' is not of the form key=value");
    std::string message;
    llvm::raw_string_ostream errors(message);
    if (mlir::failed(options.parseFromString(word, errors)))
      return fail(PW_ERROR_INVALID_VALUE,
                  "invalid option '" + word + "'" +
                      (message.empty()
                           ? ""
                           : ": " + llvm::StringRef(message).trim().str()));
  }
  return PW_SUCCESS;
}

/// `<pointwise>:3:7` for file locations (the source has no file name), the
/// MLIR form for others.
void printLocation(llvm::raw_ostream &os, mlir::Location location) {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(location)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return;
  }
  os << location;
}

/// Creates the library from the objects of its host code.
pwStatus finishLibrary(std::vector<std::string> objects, pwcLibrary **result) {
  std::string error;
  auto library = std::make_unique<pwcLibrary>();
  library->objects = std::move(objects);
  library->jit = capi::HostJit::create(library->objects, error);
  if (!library->jit)
    return fail(PW_ERROR_INVALID_VALUE, "loading host code: " + error);
  *result = library.release();
  return PW_SUCCESS;
}

/// The objects of the library saved at `path` (pwcSave's format), checked
/// to come from this compiler version and for this host.
pwStatus readSavedObjects(const char *path, std::vector<std::string> &objects) {
  capi::initializeHostTarget();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail(PW_ERROR_INVALID_VALUE, llvm::Twine("cannot read ") + path +
                                            ": " + buffer.getError().message());
  llvm::StringRef content = (*buffer)->getBuffer();
  if (!content.consume_front(kSavedMagic))
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine(path) + " is not a saved pointwise library");
  auto [version, rest] = content.split('\0');
  if (version != getVersion())
    return fail(PW_ERROR_INVALID_VALUE, llvm::Twine(path) + " was saved by " +
                                            version + ", not by " +
                                            getVersion());
  auto [target, code] = rest.split('\0');
  if (target != capi::getHostTargetName())
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine(path) + " holds machine code for " + target +
                    ", not for this host (" + capi::getHostTargetName() + ")");
  objects.clear();
  while (!code.empty()) {
    uint64_t size = 0;
    if (code.size() < 8 || (size = llvm::support::endian::read64le(code.data()),
                            code = code.drop_front(8), size > code.size()))
      return fail(PW_ERROR_INVALID_VALUE, llvm::Twine(path) + " is truncated");
    objects.push_back(code.take_front(size).str());
    code = code.drop_front(size);
  }
  if (objects.empty())
    return fail(PW_ERROR_INVALID_VALUE, llvm::Twine(path) + " holds no object");
  return PW_SUCCESS;
}

/// Stores the entries that `from` has and `into` lacks into `into`, a
/// family of the same function (checked) whose variant array is writable
/// (addFamilyEntries makes it so). The caller keeps the code behind `from`
/// alive as long as `into`, and serializes the calls on one library.
pwStatus addEntries(const pwFamily *into, const pwFamily *from,
                    const char *name) {
  // The same function compiled with the same options but `variants=`: the
  // same arguments and the same variant rows.
  auto sameRow = [](const pwVariant &a, const pwVariant &b) {
    return a.rank == b.rank && a.indexBitwidth == b.indexBitwidth &&
           a.strategy == b.strategy &&
           a.transposedArgument == b.transposedArgument;
  };
  auto sameArgument = [](const pwFamilyArgument &a, const pwFamilyArgument &b) {
    return a.kind == b.kind && a.elementType == b.elementType &&
           a.rank == b.rank;
  };
  bool same =
      into->numArguments == from->numArguments &&
      into->numOutputs == from->numOutputs &&
      into->numInputs == from->numInputs &&
      into->numVariants == from->numVariants &&
      std::equal(into->arguments, into->arguments + into->numArguments,
                 from->arguments, sameArgument) &&
      std::equal(into->outputs, into->outputs + into->numOutputs,
                 from->outputs) &&
      std::equal(into->inputs, into->inputs + into->numInputs, from->inputs) &&
      std::equal(into->variants, into->variants + into->numVariants,
                 from->variants, sameRow);
  if (!same)
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine("the two libraries' families '") + name +
                    "' differ; both must be compiled from one function with "
                    "the same options but for variants=");
  // Launches on other threads read the entries with acquire loads: an entry
  // appears only after the code behind it is linked and initialized, and a
  // present one is never replaced.
  auto *rows = const_cast<pwVariant *>(into->variants);
  for (int32_t i = 0; i < into->numVariants; ++i) {
    auto entry = __atomic_load_n(&from->variants[i].entry, __ATOMIC_ACQUIRE);
    if (entry && !__atomic_load_n(&rows[i].entry, __ATOMIC_ACQUIRE))
      __atomic_store_n(&rows[i].entry, entry, __ATOMIC_RELEASE);
  }
  return PW_SUCCESS;
}

} // namespace

const char *pwcGetVersion(void) { return getVersion().c_str(); }

const char *pwcGetHostTarget(void) { return capi::getHostTargetName().c_str(); }

const char *pwcGetLastError(void) { return lastError.c_str(); }

pwStatus pwcCompile(const char *source, size_t length, const char *options,
                    pwcLibrary **library) {
  if (!library)
    return fail(PW_ERROR_INVALID_VALUE, "pwcCompile: library is null");
  *library = nullptr;
  if (!source)
    return fail(PW_ERROR_INVALID_VALUE, "pwcCompile: source is null");
  FamilyOptions familyOptions;
  if (pwStatus status = parseOptions(options, familyOptions))
    return status;
  capi::initializeHostTarget();

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // The variants lower in parallel on threads that every compilation of the
  // process shares.
  context.setThreadPool(getCompilerThreadPool());
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &diagnostic) {
        if (!diagnostics.empty())
          diagnosticStream << "\n";
        printLocation(diagnosticStream, diagnostic.getLocation());
        diagnosticStream << (diagnostic.getSeverity() ==
                                     mlir::DiagnosticSeverity::Error
                                 ? ": error: "
                                 : ": note: ")
                         << diagnostic;
        for (const mlir::Diagnostic &note : diagnostic.getNotes()) {
          diagnosticStream << "\n";
          printLocation(diagnosticStream, note.getLocation());
          diagnosticStream << ": note: " << note;
        }
        return mlir::success();
      });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(llvm::StringRef(source, length),
                                              &context, "<pointwise>");
  if (!module)
    return fail(PW_ERROR_INVALID_VALUE,
                "parsing the module failed:\n" + diagnostics);

  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  std::vector<FamilySpec> families;
  std::vector<std::string> objects;
  // Each lowered part's host code compiles on the thread that lowered it.
  auto emit = [](llvm::Module &part, size_t index, mlir::TimingScope *,
                 std::string &object, std::string &error) {
    return capi::compileHostObject(part, index, object, error);
  };
  std::unique_ptr<llvm::Module> tables = compileFamiliesToObjects(
      *module, *llvmContext, familyOptions, families, /*progress=*/nullptr,
      /*timing=*/nullptr, /*inspectLowered=*/nullptr, emit, objects);
  if (!tables)
    return fail(PW_ERROR_INVALID_VALUE,
                "compiling the kernel families failed:\n" + diagnostics);

  std::string error;
  objects.emplace_back();
  if (!capi::compileHostObject(*tables, objects.size() - 1, objects.back(),
                               error))
    return fail(PW_ERROR_INVALID_VALUE, "compiling host code: " + error);
  return finishLibrary(std::move(objects), library);
}

pwStatus pwcSave(const pwcLibrary *library, const char *path) {
  if (!library || !path)
    return fail(PW_ERROR_INVALID_VALUE, "pwcSave: null argument");
  llvm::SmallString<256> temporary;
  int fd = -1;
  llvm::StringRef directory = llvm::sys::path::parent_path(path);
  llvm::SmallString<256> model(directory.empty() ? "." : directory);
  llvm::sys::path::append(model, ".pwc-%%%%%%%%.tmp");
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return fail(PW_ERROR_INVALID_VALUE, "cannot create a temporary file in " +
                                            model + ": " + ec.message());
  {
    llvm::raw_fd_ostream stream(fd, /*shouldClose=*/true);
    stream << kSavedMagic << getVersion() << '\0' << capi::getHostTargetName()
           << '\0';
    for (const std::string &object : library->objects) {
      char size[8];
      llvm::support::endian::write64le(size, object.size());
      stream.write(size, sizeof(size)) << object;
    }
    stream.close();
    if (stream.has_error()) {
      std::string message = stream.error().message();
      stream.clear_error();
      llvm::sys::fs::remove(temporary);
      return fail(PW_ERROR_INVALID_VALUE,
                  "writing " + temporary + " failed: " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return fail(PW_ERROR_INVALID_VALUE, llvm::Twine("renaming to ") + path +
                                            " failed: " + ec.message());
  }
  return PW_SUCCESS;
}

pwStatus pwcLoad(const char *path, pwcLibrary **library) {
  if (!library || !path)
    return fail(PW_ERROR_INVALID_VALUE, "pwcLoad: null argument");
  *library = nullptr;
  std::vector<std::string> objects;
  if (pwStatus status = readSavedObjects(path, objects))
    return status;
  return finishLibrary(std::move(objects), library);
}

const pwFamily *pwcGetFamily(pwcLibrary *library, const char *name) {
  if (!library || !name) {
    fail(PW_ERROR_INVALID_VALUE, "pwcGetFamily: null argument");
    return nullptr;
  }
  std::string error;
  void *table = library->jit->lookup(std::string("pw_family_") + name, error);
  if (!table) {
    fail(PW_ERROR_NOT_FOUND,
         llvm::Twine("the library has no family named '") + name + "'");
    return nullptr;
  }
  return static_cast<const pwFamily *>(table);
}

pwStatus pwcAddVariants(pwcLibrary *library, const char *name,
                        pwcLibrary *variants) {
  if (!library || !name || !variants)
    return fail(PW_ERROR_INVALID_VALUE, "pwcAddVariants: null argument");
  if (library == variants)
    return fail(PW_ERROR_INVALID_VALUE,
                "pwcAddVariants: a library cannot take its own variants");
  const pwFamily *into = pwcGetFamily(library, name);
  if (!into)
    return PW_ERROR_NOT_FOUND;
  const pwFamily *from = pwcGetFamily(variants, name);
  if (!from)
    return PW_ERROR_NOT_FOUND;
  std::lock_guard<std::mutex> lock(library->donorsMutex);
  if (pwStatus status = addEntries(into, from, name))
    return fail(status, llvm::Twine("pwcAddVariants: ") + lastError);
  library->donors.emplace_back(variants);
  return PW_SUCCESS;
}

pwStatus pwcLoadVariants(pwcLibrary *library, const char *name,
                         const char *path) {
  if (!library || !name || !path)
    return fail(PW_ERROR_INVALID_VALUE, "pwcLoadVariants: null argument");
  const pwFamily *into = pwcGetFamily(library, name);
  if (!into)
    return PW_ERROR_NOT_FOUND;
  std::vector<std::string> objects;
  if (pwStatus status = readSavedObjects(path, objects))
    return status;
  std::lock_guard<std::mutex> lock(library->donorsMutex);
  std::string error;
  llvm::orc::JITDylib *dylib = library->jit->addObjects(objects, error);
  if (!dylib)
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine("loading ") + path + ": " + error);
  auto *from = static_cast<const pwFamily *>(
      library->jit->lookup(*dylib, std::string("pw_family_") + name, error));
  pwStatus status =
      from ? addEntries(into, from, name)
           : fail(PW_ERROR_NOT_FOUND,
                  llvm::Twine(path) + " has no family named '" + name + "'");
  if (status != PW_SUCCESS) {
    library->jit->removeObjects(dylib);
    return fail(status, llvm::Twine("pwcLoadVariants: ") + lastError);
  }
  return PW_SUCCESS;
}

void pwcDestroy(pwcLibrary *library) { delete library; }
