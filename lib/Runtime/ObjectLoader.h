//===- ObjectLoader.h - Links relocatable host objects in memory -*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The host half of a compiled library (family tables, packed entries, the
// launch code with its embedded GPU binaries) is a set of x86-64 ELF
// relocatable objects compiled position-independent for the small code
// model. Linking them needs only their sections laid out in one mapping,
// their symbols resolved (among the objects first, then through a caller's
// resolver) and a handful of relocation kinds applied, which this file does
// without LLVM: a process that loads a cached library needs no compiler.
//
// Calls to symbols outside the mapping go through trampolines in it, and
// loads of addresses through a global offset table in it, so that 32-bit
// displacements reach them wherever the mapping lies. Code ends up
// read-execute, constants read-only, data read-write.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_OBJECTLOADER_H
#define POINTWISE_LIB_RUNTIME_OBJECTLOADER_H

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pointwise::runtime {

/// The address of an undefined symbol `name`, or null when it is unknown.
using SymbolResolver = void *(*)(const char *name, void *context);

/// Objects linked into memory: their global symbols and the mapping that
/// holds them (unmapped on destruction; the caller runs any finalizers
/// first).
class LoadedObjects {
public:
  ~LoadedObjects();
  LoadedObjects(const LoadedObjects &) = delete;
  LoadedObjects &operator=(const LoadedObjects &) = delete;

  /// The address of the global symbol `name` one of the objects defines, or
  /// null.
  void *lookup(std::string_view name) const;

private:
  friend std::unique_ptr<LoadedObjects>
  loadObjects(const std::vector<std::string_view> &, SymbolResolver, void *,
              std::string &);
  LoadedObjects() = default;

  void *mapping = nullptr;
  size_t mappingSize = 0;
  std::unordered_map<std::string, void *> globals;
};

/// Links `objects` (ELF64 x86-64 relocatable objects) into one new mapping:
/// a symbol they leave undefined resolves to a global one of them defines,
/// else to `resolve(name, context)`; an undefined weak symbol may stay null.
/// Null with `error` set when an object is malformed, of another kind, or
/// needs a relocation this loader does not apply, or a strong symbol stays
/// undefined.
std::unique_ptr<LoadedObjects>
loadObjects(const std::vector<std::string_view> &objects,
            SymbolResolver resolve, void *context, std::string &error);

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_OBJECTLOADER_H
