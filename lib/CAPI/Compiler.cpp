//===- Compiler.cpp - The pointwise compiler's C API ----------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pwcCompile parses MLIR text, runs the family compiler
// (compileFamiliesToObjects: the host code of each lowered part compiled to
// an object on the thread that lowered it, then the family tables') and
// hands the objects to the runtime's linker (pwLibraryLink); pwcSave/pwcLoad
// keep them in the runtime's saved-library format (pwLibrarySave,
// pwLibraryOpen), so that loading a saved library compiles nothing and
// needs no LLVM; pwcAddVariants and pwcLoadVariants fill a library's missing
// variants with those of another, compiled or saved
// (pwFamilyTakeVariants).
//
//===----------------------------------------------------------------------===//

#include "pointwise-c/Compiler.h"

#include "HostCode.h"
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
  ~pwcLibrary() {
    // The donors' code before the tables that point into it.
    for (pwLibrary file : llvm::reverse(loadedDonors))
      pwLibraryClose(file);
    donors.clear();
    pwLibraryClose(code);
  }
  pwLibrary code = nullptr;
  /// The host code as relocatable objects (one per lowered part, then the
  /// family tables), for pwcSave; empty for a library pwcLoad read.
  std::vector<std::string> objects;
  /// Libraries whose variants pwcAddVariants and pwcLoadVariants stored in
  /// this one's tables: their code must live as long as these tables.
  std::mutex donorsMutex;
  std::vector<std::unique_ptr<pwcLibrary>> donors;
  std::vector<pwLibrary> loadedDonors;
};

namespace {

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

/// The objects' addresses and sizes, as the runtime's pwLibrary* functions
/// take them.
struct ObjectSpans {
  explicit ObjectSpans(const std::vector<std::string> &objects) {
    for (const std::string &object : objects) {
      data.push_back(object.data());
      sizes.push_back(object.size());
    }
  }
  int32_t count() const { return static_cast<int32_t>(data.size()); }
  std::vector<const char *> data;
  std::vector<size_t> sizes;
};

/// Links the library from the objects of its host code.
pwStatus finishLibrary(std::vector<std::string> objects, pwcLibrary **result) {
  auto library = std::make_unique<pwcLibrary>();
  library->objects = std::move(objects);
  ObjectSpans spans(library->objects);
  if (pwLibraryLink(spans.data.data(), spans.sizes.data(), spans.count(),
                    &library->code))
    return fail(PW_ERROR_INVALID_VALUE, pwGetLastErrorMessage());
  *result = library.release();
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
  if (library->objects.empty())
    return fail(PW_ERROR_INVALID_VALUE,
                "pwcSave: a library pwcLoad read is saved already");
  ObjectSpans spans(library->objects);
  if (pwLibrarySave(spans.data.data(), spans.sizes.data(), spans.count(), path))
    return fail(PW_ERROR_INVALID_VALUE, pwGetLastErrorMessage());
  return PW_SUCCESS;
}

pwStatus pwcLoad(const char *path, pwcLibrary **library) {
  if (!library || !path)
    return fail(PW_ERROR_INVALID_VALUE, "pwcLoad: null argument");
  *library = nullptr;
  auto loaded = std::make_unique<pwcLibrary>();
  if (pwLibraryOpen(path, &loaded->code))
    return fail(PW_ERROR_INVALID_VALUE, pwGetLastErrorMessage());
  *library = loaded.release();
  return PW_SUCCESS;
}

const pwFamily *pwcGetFamily(pwcLibrary *library, const char *name) {
  if (!library || !name) {
    fail(PW_ERROR_INVALID_VALUE, "pwcGetFamily: null argument");
    return nullptr;
  }
  void *table = pwLibraryGetSymbol(library->code,
                                   (std::string("pw_family_") + name).c_str());
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
  if (pwFamilyTakeVariants(into, from))
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine("pwcAddVariants: ") + pwGetLastErrorMessage());
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
  pwLibrary file = nullptr;
  if (pwLibraryOpen(path, &file))
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine("pwcLoadVariants: ") + pwGetLastErrorMessage());
  auto *from = static_cast<const pwFamily *>(
      pwLibraryGetSymbol(file, (std::string("pw_family_") + name).c_str()));
  pwStatus status = PW_SUCCESS;
  if (!from)
    status =
        fail(PW_ERROR_NOT_FOUND, llvm::Twine("pwcLoadVariants: ") + path +
                                     " has no family named '" + name + "'");
  std::lock_guard<std::mutex> lock(library->donorsMutex);
  if (from && pwFamilyTakeVariants(into, from))
    status = fail(PW_ERROR_INVALID_VALUE,
                  llvm::Twine("pwcLoadVariants: ") + pwGetLastErrorMessage());
  if (status != PW_SUCCESS) {
    pwLibraryClose(file);
    return status;
  }
  library->loadedDonors.push_back(file);
  return PW_SUCCESS;
}

void pwcDestroy(pwcLibrary *library) { delete library; }
