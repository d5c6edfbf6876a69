//===- Libraries.cpp - Host code of compiled libraries, linked in memory --===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pwLibraryLink links a library's host objects with ObjectLoader and runs
// their constructors; pwLibrarySave and pwLibraryOpen keep the objects in a
// file behind a header naming the host's CPU; pwFamilyTakeVariants moves
// variant entries between the tables of two libraries of one function.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include "ErrorState.h"
#include "MgpuAbi.h"
#include "ObjectLoader.h"

#include <cpuid.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

using namespace pointwise;
using namespace pointwise::runtime;

// libgcc's unsigned 128-bit division, which LLVM calls for `udiv i128` on
// x86-64 (the 64-bit kernels' magic numbers): linked into the runtime here
// for the host code it links.
extern "C" unsigned __int128 __udivti3(unsigned __int128, unsigned __int128);
extern "C" uint16_t __truncsfbf2(float);
extern "C" uint16_t __truncdfbf2(double);

struct pwLibraryOpaque {
  std::unique_ptr<LoadedObjects> objects;
  int32_t count = 0;
};

namespace {

/// A saved library: the magic, the host's fingerprint, a NUL, then each
/// object: its size in bytes (8 bytes, little-endian) and its bytes.
constexpr char kSavedMagic[] = "pointwise-host-objects-2\n";

/// This runtime's own handle, for the symbols it exports (the process-wide
/// search misses them when a process loaded it privately, as ctypes does).
void *getOwnHandle() {
  static void *handle = [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&pwFamilyLaunch), &info) &&
        info.dli_fname)
      return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    return static_cast<void *>(nullptr);
  }();
  return handle;
}

/// The functions of this runtime that compiled host code calls, and the
/// compiler builtins it calls, by address: resolving them takes no call to
/// the dynamic loader, whose lock another thread may hold for long (one
/// loading the compiler library, docs/Performance.md, row
/// `compiler-prefetch`). Other names go to the dynamic loader.
void *resolveSymbol(const char *name, void *) {
#define PW_SYMBOL(function)                                                    \
  { #function, reinterpret_cast < void *>(&function) }
  static const struct {
    const char *name;
    void *address;
  } known[] = {
      PW_SYMBOL(pwFamilyLaunch),
      PW_SYMBOL(pwGetStream),
      PW_SYMBOL(pwOccupancySharedMemory),
      PW_SYMBOL(pwCheckMapOverlap),
      PW_SYMBOL(pwMemAllocOnStream),
      PW_SYMBOL(pwMemFreeOnStream),
      PW_SYMBOL(mgpuModuleLoad),
      PW_SYMBOL(mgpuModuleLoadJIT),
      PW_SYMBOL(mgpuModuleUnload),
      PW_SYMBOL(mgpuModuleGetFunction),
      PW_SYMBOL(mgpuLaunchKernel),
      PW_SYMBOL(mgpuStreamCreate),
      PW_SYMBOL(mgpuStreamDestroy),
      PW_SYMBOL(mgpuStreamSynchronize),
      PW_SYMBOL(mgpuStreamWaitEvent),
      PW_SYMBOL(mgpuEventCreate),
      PW_SYMBOL(mgpuEventDestroy),
      PW_SYMBOL(mgpuEventSynchronize),
      PW_SYMBOL(mgpuEventRecord),
      PW_SYMBOL(mgpuMemAlloc),
      PW_SYMBOL(mgpuMemFree),
      PW_SYMBOL(mgpuMemcpy),
      PW_SYMBOL(mgpuMemset32),
      PW_SYMBOL(mgpuMemset16),
      PW_SYMBOL(mgpuSetDefaultDevice),
      PW_SYMBOL(__udivti3),
      PW_SYMBOL(__truncsfbf2),
      PW_SYMBOL(__truncdfbf2),
  };
#undef PW_SYMBOL
  for (const auto &symbol : known)
    if (std::strcmp(name, symbol.name) == 0)
      return symbol.address;
  if (void *handle = getOwnHandle())
    if (void *address = dlsym(handle, name))
      return address;
  return dlsym(RTLD_DEFAULT, name);
}

std::string initName(const char *prefix, int32_t index) {
  return prefix + std::to_string(index);
}

void runFinalizers(pwLibraryOpaque &library, int32_t count) {
  for (int32_t index = count; index-- > 0;)
    if (void *fini =
            library.objects->lookup(initName(PW_LIBRARY_FINI_PREFIX, index)))
      reinterpret_cast<void (*)()>(fini)();
}

pwStatus link(const std::vector<std::string_view> &objects, pwLibrary *result) {
  std::string error;
  auto library = std::make_unique<pwLibraryOpaque>();
  library->objects = loadObjects(objects, resolveSymbol, nullptr, error);
  if (!library->objects)
    return recordError(PW_ERROR_INVALID_VALUE, "linking host code: " + error);
  library->count = static_cast<int32_t>(objects.size());
  for (int32_t index = 0; index < library->count; ++index)
    if (void *init =
            library->objects->lookup(initName(PW_LIBRARY_INIT_PREFIX, index)))
      reinterpret_cast<void (*)()>(init)();
  *result = library.release();
  return PW_SUCCESS;
}

} // namespace

const char *pwGetHostFingerprint(void) {
  static const std::string fingerprint = [] {
    std::string text;
    auto add = [&](unsigned value) {
      char word[10];
      std::snprintf(word, sizeof(word), "%08x.", value);
      text += word;
    };
    unsigned a = 0, b = 0, c = 0, d = 0;
    unsigned maxLeaf = __get_cpuid_max(0, nullptr);
    __cpuid(0, a, b, c, d);
    add(b), add(d), add(c); // vendor
    if (maxLeaf >= 1) {
      __cpuid_count(1, 0, a, b, c, d);
      add(a), add(c), add(d);
      // The OS's enabled register state (AVX, AVX-512), as LLVM checks it.
      if (c & (1u << 27)) {
        unsigned low, high;
        __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
        add(low);
      }
    }
    if (maxLeaf >= 7) {
      __cpuid_count(7, 0, a, b, c, d);
      add(b), add(c), add(d);
      __cpuid_count(7, 1, a, b, c, d);
      add(a);
    }
    if (__get_cpuid_max(0x80000000, nullptr) >= 0x80000001) {
      __cpuid_count(0x80000001, 0, a, b, c, d);
      add(c), add(d);
    }
    text.pop_back();
    return text;
  }();
  return fingerprint.c_str();
}

pwStatus pwLibraryLink(const char *const *objects, const size_t *sizes,
                       int32_t count, pwLibrary *library) {
  if (!library)
    return recordNullArgument("pwLibraryLink", "library");
  *library = nullptr;
  if (count < 0 || (count > 0 && (!objects || !sizes)))
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwLibraryLink: invalid object list");
  std::vector<std::string_view> views;
  for (int32_t i = 0; i < count; ++i) {
    if (!objects[i])
      return recordError(PW_ERROR_INVALID_VALUE, "pwLibraryLink: null object");
    views.emplace_back(objects[i], sizes[i]);
  }
  return link(views, library);
}

pwStatus pwLibrarySave(const char *const *objects, const size_t *sizes,
                       int32_t count, const char *path) {
  if (!path)
    return recordNullArgument("pwLibrarySave", "path");
  if (count < 0 || (count > 0 && (!objects || !sizes)))
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwLibrarySave: invalid object list");
  // A name of its own beside the target, renamed onto it: a reader never
  // sees a partial file.
  std::string temporary =
      std::string(path) + ".tmp" + std::to_string(static_cast<long>(getpid()));
  {
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    stream << kSavedMagic << pwGetHostFingerprint() << '\0';
    for (int32_t i = 0; i < count; ++i) {
      unsigned char size[8];
      for (int byte = 0; byte < 8; ++byte)
        size[byte] =
            static_cast<unsigned char>(uint64_t(sizes[i]) >> (8 * byte));
      stream.write(reinterpret_cast<const char *>(size), 8);
      stream.write(objects[i], static_cast<std::streamsize>(sizes[i]));
    }
    stream.close();
    if (!stream) {
      std::remove(temporary.c_str());
      return recordError(PW_ERROR_INVALID_VALUE,
                         "writing " + temporary + " failed");
    }
  }
  if (std::rename(temporary.c_str(), path) != 0) {
    std::remove(temporary.c_str());
    return recordError(PW_ERROR_INVALID_VALUE,
                       std::string("renaming to ") + path +
                           " failed: " + std::strerror(errno));
  }
  return PW_SUCCESS;
}

pwStatus pwLibraryOpen(const char *path, pwLibrary *library) {
  if (!library)
    return recordNullArgument("pwLibraryOpen", "library");
  *library = nullptr;
  if (!path)
    return recordNullArgument("pwLibraryOpen", "path");
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    return recordError(PW_ERROR_INVALID_VALUE,
                       std::string("cannot read ") + path);
  std::string content((std::istreambuf_iterator<char>(stream)),
                      std::istreambuf_iterator<char>());
  std::string_view rest(content);
  std::string_view magic(kSavedMagic);
  if (rest.substr(0, magic.size()) != magic)
    return recordError(PW_ERROR_INVALID_VALUE,
                       std::string(path) + " is not a saved pointwise library");
  rest.remove_prefix(magic.size());
  size_t end = rest.find('\0');
  if (end == std::string_view::npos)
    return recordError(PW_ERROR_INVALID_VALUE,
                       std::string(path) + " is truncated");
  std::string_view fingerprint = rest.substr(0, end);
  if (fingerprint != pwGetHostFingerprint())
    return recordError(
        PW_ERROR_INVALID_VALUE,
        std::string(path) + " holds machine code for a CPU of fingerprint " +
            std::string(fingerprint) + ", not for this host's (" +
            pwGetHostFingerprint() + ")");
  rest.remove_prefix(end + 1);
  // The objects are copied into aligned buffers: the ELF reader needs its
  // headers aligned, which a position in the file is not.
  std::vector<std::string> objects;
  while (!rest.empty()) {
    uint64_t size = 0;
    if (rest.size() < 8)
      return recordError(PW_ERROR_INVALID_VALUE,
                         std::string(path) + " is truncated");
    for (int byte = 0; byte < 8; ++byte)
      size |= uint64_t(static_cast<unsigned char>(rest[byte])) << (8 * byte);
    rest.remove_prefix(8);
    if (size > rest.size())
      return recordError(PW_ERROR_INVALID_VALUE,
                         std::string(path) + " is truncated");
    objects.emplace_back(rest.substr(0, size));
    rest.remove_prefix(size);
  }
  if (objects.empty())
    return recordError(PW_ERROR_INVALID_VALUE,
                       std::string(path) + " holds no object");
  std::vector<std::string_view> views(objects.begin(), objects.end());
  if (pwStatus status = link(views, library))
    return recordError(status,
                       std::string(path) + ": " + pwGetLastErrorMessage());
  return PW_SUCCESS;
}

void *pwLibraryGetSymbol(pwLibrary library, const char *name) {
  if (!library || !name)
    return nullptr;
  return library->objects->lookup(name);
}

void pwLibraryClose(pwLibrary library) {
  if (!library)
    return;
  runFinalizers(*library, library->count);
  delete library;
}

pwStatus pwFamilyTakeVariants(const pwFamily *into, const pwFamily *from) {
  if (!into)
    return recordNullArgument("pwFamilyTakeVariants", "into");
  if (!from)
    return recordNullArgument("pwFamilyTakeVariants", "from");
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
    return recordError(PW_ERROR_INVALID_VALUE,
                       std::string("the two libraries' families '") +
                           (into->name ? into->name : "") +
                           "' differ; both must be compiled from one function "
                           "with the same options but for variants=");
  // Launches on other threads read the entries with acquire loads: an entry
  // appears only after the code behind it is linked and initialized, and a
  // present one is never replaced. The compiled tables are writable data.
  auto *rows = const_cast<pwVariant *>(into->variants);
  for (int32_t i = 0; i < into->numVariants; ++i) {
    auto entry = __atomic_load_n(&from->variants[i].entry, __ATOMIC_ACQUIRE);
    if (entry && !__atomic_load_n(&rows[i].entry, __ATOMIC_ACQUIRE))
      __atomic_store_n(&rows[i].entry, entry, __ATOMIC_RELEASE);
  }
  return PW_SUCCESS;
}
