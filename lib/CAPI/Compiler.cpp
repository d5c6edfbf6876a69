//===- Compiler.cpp - The pointwise compiler's C API ----------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pwcCompile parses MLIR text, runs the family compiler (compileFamilies),
// optimizes the host module and hands it to a HostJit; pwcSave/pwcLoad keep
// the optimized host module as bitcode, tagged with the compiler version.
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
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace pointwise;

struct pwcLibrary {
  std::unique_ptr<capi::HostJit> jit;
  /// The optimized host module as bitcode, for pwcSave.
  std::string bitcode;
};

namespace {

constexpr const char *kVersionMetadata = "pointwise.compiler_version";

thread_local std::string lastError;

pwStatus fail(pwStatus status, const llvm::Twine &message) {
  lastError = message.str();
  return status;
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

/// Creates the library from an optimized host module.
pwStatus finishLibrary(std::unique_ptr<llvm::LLVMContext> context,
                       std::unique_ptr<llvm::Module> module,
                       std::string bitcode, pwcLibrary **result) {
  std::string error;
  auto library = std::make_unique<pwcLibrary>();
  library->bitcode = std::move(bitcode);
  library->jit =
      capi::HostJit::create(std::move(context), std::move(module), error);
  if (!library->jit)
    return fail(PW_ERROR_INVALID_VALUE, "loading host code: " + error);
  *result = library.release();
  return PW_SUCCESS;
}

} // namespace

const char *pwcGetVersion(void) { return getVersion().c_str(); }

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
  std::unique_ptr<llvm::Module> host = compileFamilies(
      *module, *llvmContext, familyOptions, families, /*progress=*/nullptr);
  if (!host)
    return fail(PW_ERROR_INVALID_VALUE,
                "compiling the kernel families failed:\n" + diagnostics);

  std::string error;
  if (!capi::optimizeHostModule(*host, error))
    return fail(PW_ERROR_INVALID_VALUE, "optimizing host code: " + error);
  host->addModuleFlag(llvm::Module::Error, kVersionMetadata,
                      llvm::MDString::get(*llvmContext, getVersion()));
  std::string bitcode;
  {
    llvm::raw_string_ostream stream(bitcode);
    llvm::WriteBitcodeToFile(*host, stream);
  }
  return finishLibrary(std::move(llvmContext), std::move(host),
                       std::move(bitcode), library);
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
    stream << library->bitcode;
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
  capi::initializeHostTarget();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail(PW_ERROR_INVALID_VALUE, llvm::Twine("cannot read ") + path +
                                            ": " + buffer.getError().message());
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), *context);
  if (!module)
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine(path) + " is not a saved pointwise library: " +
                    llvm::toString(module.takeError()));
  auto *version = llvm::dyn_cast_or_null<llvm::MDString>(
      (*module)->getModuleFlag(kVersionMetadata));
  if (!version || version->getString() != getVersion())
    return fail(PW_ERROR_INVALID_VALUE,
                llvm::Twine(path) + " was saved by " +
                    (version ? version->getString() : "an unknown compiler") +
                    ", not by " + getVersion());
  return finishLibrary(std::move(context), std::move(*module),
                       (*buffer)->getBuffer().str(), library);
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

void pwcDestroy(pwcLibrary *library) { delete library; }
