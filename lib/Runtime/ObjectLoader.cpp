//===- ObjectLoader.cpp - Links relocatable host objects in memory --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "ObjectLoader.h"

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace pointwise::runtime;

namespace {

/// The three parts of the mapping, each starting on a page: code, constants
/// (with the global offset table) and data.
enum Part : unsigned { kCode, kConstants, kData, kNumParts };

/// Bytes of a trampoline: `jmp *0(%rip)` (6), the 8-byte target it reads, and
/// two bytes of padding.
constexpr size_t kTrampolineBytes = 16;

struct SectionPlace {
  bool loaded = false;
  Part part = kData;
  size_t offset = 0; // within its part
};

/// One object's view: its sections and symbols, checked against its size.
struct Object {
  std::string_view bytes;
  const Elf64_Ehdr *header = nullptr;
  std::vector<const Elf64_Shdr *> sections;
  std::vector<SectionPlace> places;
  const Elf64_Sym *symbols = nullptr;
  size_t numSymbols = 0;
  const char *symbolNames = nullptr;
  size_t symbolNamesSize = 0;
  /// Per symbol: its address once resolved, whether it lies outside the
  /// mapping, its GOT slot and trampoline offsets (or SIZE_MAX).
  std::vector<uintptr_t> addresses;
  std::vector<bool> external;
  std::vector<size_t> gotSlots, trampolines;
  /// Offsets of the common symbols in the data part.
  std::vector<size_t> commons;

  const char *name(const Elf64_Sym &symbol) const {
    return symbol.st_name < symbolNamesSize ? symbolNames + symbol.st_name : "";
  }
};

bool within(std::string_view bytes, uint64_t offset, uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

size_t alignUp(size_t value, size_t alignment) {
  return alignment > 1 ? (value + alignment - 1) / alignment * alignment
                       : value;
}

bool parse(std::string_view bytes, size_t index, Object &object,
           std::string &error) {
  auto fail = [&](const std::string &what) {
    error = "object " + std::to_string(index) + ": " + what;
    return false;
  };
  object.bytes = bytes;
  if (bytes.size() < sizeof(Elf64_Ehdr) ||
      std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    return fail("not an ELF file");
  // The buffer is a std::string's or an mmap'ed file's: aligned for the
  // header, and the section headers are checked for alignment below.
  auto *header = reinterpret_cast<const Elf64_Ehdr *>(bytes.data());
  if (header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_ident[EI_DATA] != ELFDATA2LSB ||
      header->e_machine != EM_X86_64 || header->e_type != ET_REL)
    return fail("not an x86-64 relocatable object");
  if (header->e_shentsize != sizeof(Elf64_Shdr) ||
      header->e_shoff % alignof(Elf64_Shdr) != 0 ||
      !within(bytes, header->e_shoff,
              uint64_t(header->e_shnum) * sizeof(Elf64_Shdr)))
    return fail("section headers out of bounds");
  object.header = header;
  auto *table =
      reinterpret_cast<const Elf64_Shdr *>(bytes.data() + header->e_shoff);
  for (unsigned i = 0; i < header->e_shnum; ++i) {
    const Elf64_Shdr &section = table[i];
    if (section.sh_type != SHT_NOBITS &&
        !within(bytes, section.sh_offset, section.sh_size))
      return fail("section " + std::to_string(i) + " out of bounds");
    object.sections.push_back(&section);
  }
  object.places.resize(object.sections.size());
  for (const Elf64_Shdr *section : object.sections) {
    if (section->sh_type != SHT_SYMTAB)
      continue;
    if (object.symbols)
      return fail("more than one symbol table");
    if (section->sh_entsize != sizeof(Elf64_Sym) ||
        section->sh_offset % alignof(Elf64_Sym) != 0 ||
        section->sh_link >= object.sections.size())
      return fail("malformed symbol table");
    const Elf64_Shdr *names = object.sections[section->sh_link];
    if (names->sh_type != SHT_STRTAB || names->sh_size == 0 ||
        bytes[names->sh_offset + names->sh_size - 1] != '\0')
      return fail("malformed symbol names");
    object.symbols =
        reinterpret_cast<const Elf64_Sym *>(bytes.data() + section->sh_offset);
    object.numSymbols = section->sh_size / sizeof(Elf64_Sym);
    object.symbolNames = bytes.data() + names->sh_offset;
    object.symbolNamesSize = names->sh_size;
  }
  object.addresses.assign(object.numSymbols, 0);
  object.external.assign(object.numSymbols, false);
  object.gotSlots.assign(object.numSymbols, SIZE_MAX);
  object.trampolines.assign(object.numSymbols, SIZE_MAX);
  object.commons.assign(object.numSymbols, SIZE_MAX);
  return true;
}

bool fitsInt32(int64_t value) {
  return value >= std::numeric_limits<int32_t>::min() &&
         value <= std::numeric_limits<int32_t>::max();
}

} // namespace

LoadedObjects::~LoadedObjects() {
  if (mapping)
    munmap(mapping, mappingSize);
}

void *LoadedObjects::lookup(std::string_view name) const {
  auto found = globals.find(std::string(name));
  return found == globals.end() ? nullptr : found->second;
}

std::unique_ptr<LoadedObjects>
pointwise::runtime::loadObjects(const std::vector<std::string_view> &objects,
                                SymbolResolver resolve, void *context,
                                std::string &error) {
  std::vector<Object> parsed(objects.size());
  for (size_t i = 0; i < objects.size(); ++i)
    if (!parse(objects[i], i, parsed[i], error))
      return nullptr;

  // Lay out the allocated sections by kind, and the common symbols.
  size_t partSizes[kNumParts] = {0, 0, 0};
  size_t partAlign[kNumParts] = {1, 1, 1};
  for (Object &object : parsed) {
    for (size_t i = 0; i < object.sections.size(); ++i) {
      const Elf64_Shdr &section = *object.sections[i];
      if (!(section.sh_flags & SHF_ALLOC) || section.sh_size == 0)
        continue;
      if (section.sh_flags & SHF_TLS) {
        error = "thread-local storage in host code is not supported";
        return nullptr;
      }
      Part part = (section.sh_flags & SHF_EXECINSTR) ? kCode
                  : (section.sh_flags & SHF_WRITE)   ? kData
                                                     : kConstants;
      size_t alignment = section.sh_addralign ? section.sh_addralign : 1;
      partAlign[part] = std::max(partAlign[part], alignment);
      partSizes[part] = alignUp(partSizes[part], alignment);
      object.places[i] = {true, part, partSizes[part]};
      partSizes[part] += section.sh_size;
    }
    for (size_t s = 0; s < object.numSymbols; ++s) {
      const Elf64_Sym &symbol = object.symbols[s];
      if (symbol.st_shndx != SHN_COMMON)
        continue;
      size_t alignment = symbol.st_value ? symbol.st_value : 1;
      partAlign[kData] = std::max(partAlign[kData], alignment);
      partSizes[kData] = alignUp(partSizes[kData], alignment);
      object.commons[s] = partSizes[kData];
      partSizes[kData] += symbol.st_size;
    }
  }

  // A GOT slot per symbol reached through the GOT, a trampoline per undefined
  // symbol called: counted before the mapping exists, so that it can hold
  // them.
  for (Object &object : parsed) {
    for (const Elf64_Shdr *section : object.sections) {
      if (section->sh_type != SHT_RELA)
        continue;
      if (section->sh_entsize != sizeof(Elf64_Rela) ||
          section->sh_offset % alignof(Elf64_Rela) != 0) {
        error = "malformed relocation section";
        return nullptr;
      }
      auto *relocations = reinterpret_cast<const Elf64_Rela *>(
          object.bytes.data() + section->sh_offset);
      for (size_t r = 0; r < section->sh_size / sizeof(Elf64_Rela); ++r) {
        size_t s = ELF64_R_SYM(relocations[r].r_info);
        if (s >= object.numSymbols) {
          error = "relocation of a symbol out of range";
          return nullptr;
        }
        switch (ELF64_R_TYPE(relocations[r].r_info)) {
        case R_X86_64_GOTPCREL:
        case R_X86_64_GOTPCRELX:
        case R_X86_64_REX_GOTPCRELX:
          if (object.gotSlots[s] == SIZE_MAX) {
            partSizes[kConstants] = alignUp(partSizes[kConstants], 8);
            object.gotSlots[s] = partSizes[kConstants];
            partSizes[kConstants] += 8;
            partAlign[kConstants] = std::max<size_t>(partAlign[kConstants], 8);
          }
          break;
        case R_X86_64_PLT32:
          if (object.symbols[s].st_shndx == SHN_UNDEF &&
              object.trampolines[s] == SIZE_MAX) {
            partSizes[kCode] = alignUp(partSizes[kCode], kTrampolineBytes);
            object.trampolines[s] = partSizes[kCode];
            partSizes[kCode] += kTrampolineBytes;
          }
          break;
        default:
          break;
        }
      }
    }
  }

  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t partOffsets[kNumParts];
  size_t total = 0;
  for (unsigned part = 0; part < kNumParts; ++part) {
    if (partAlign[part] > page) {
      error = "a section asks for an alignment above the page size";
      return nullptr;
    }
    partOffsets[part] = total;
    total += alignUp(partSizes[part], page);
  }
  std::unique_ptr<LoadedObjects> loaded(new LoadedObjects());
  if (total == 0)
    return loaded;
  void *mapping = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    error = "mapping " + std::to_string(total) + " bytes failed";
    return nullptr;
  }
  loaded->mapping = mapping;
  loaded->mappingSize = total;
  auto *base = static_cast<char *>(mapping);
  auto at = [&](Part part, size_t offset) {
    return base + partOffsets[part] + offset;
  };

  // Contents, then the addresses of the symbols defined here.
  for (Object &object : parsed) {
    for (size_t i = 0; i < object.sections.size(); ++i) {
      const SectionPlace &place = object.places[i];
      const Elf64_Shdr &section = *object.sections[i];
      if (place.loaded && section.sh_type != SHT_NOBITS)
        std::memcpy(at(place.part, place.offset),
                    object.bytes.data() + section.sh_offset, section.sh_size);
    }
    for (size_t s = 1; s < object.numSymbols; ++s) {
      const Elf64_Sym &symbol = object.symbols[s];
      uintptr_t address = 0;
      if (symbol.st_shndx == SHN_UNDEF)
        continue;
      if (symbol.st_shndx == SHN_ABS) {
        address = symbol.st_value;
      } else if (symbol.st_shndx == SHN_COMMON) {
        address = reinterpret_cast<uintptr_t>(at(kData, object.commons[s]));
      } else if (symbol.st_shndx < object.places.size() &&
                 object.places[symbol.st_shndx].loaded) {
        const SectionPlace &place = object.places[symbol.st_shndx];
        address = reinterpret_cast<uintptr_t>(at(place.part, place.offset)) +
                  symbol.st_value;
      } else if (symbol.st_shndx >= SHN_LORESERVE) {
        error = std::string("symbol '") + object.name(symbol) +
                "' has an unsupported section index";
        return nullptr;
      } else {
        continue; // a section not loaded (debug information and the like)
      }
      object.addresses[s] = address;
      unsigned binding = ELF64_ST_BIND(symbol.st_info);
      if ((binding == STB_GLOBAL || binding == STB_WEAK) &&
          ELF64_ST_TYPE(symbol.st_info) != STT_SECTION)
        loaded->globals.emplace(object.name(symbol),
                                reinterpret_cast<void *>(address));
    }
  }

  // Undefined symbols: the objects' globals, then the resolver.
  for (Object &object : parsed)
    for (size_t s = 1; s < object.numSymbols; ++s) {
      const Elf64_Sym &symbol = object.symbols[s];
      if (symbol.st_shndx != SHN_UNDEF)
        continue;
      const char *name = object.name(symbol);
      if (void *own = loaded->lookup(name)) {
        object.addresses[s] = reinterpret_cast<uintptr_t>(own);
        continue;
      }
      void *address = resolve ? resolve(name, context) : nullptr;
      if (!address && ELF64_ST_BIND(symbol.st_info) != STB_WEAK) {
        error = std::string("undefined symbol '") + name + "'";
        return nullptr;
      }
      object.addresses[s] = reinterpret_cast<uintptr_t>(address);
      object.external[s] = true;
    }

  // GOT slots and trampolines, then the relocations.
  for (Object &object : parsed)
    for (size_t s = 0; s < object.numSymbols; ++s) {
      if (object.gotSlots[s] != SIZE_MAX)
        std::memcpy(at(kConstants, object.gotSlots[s]), &object.addresses[s],
                    8);
      if (object.trampolines[s] != SIZE_MAX) {
        // jmp *0(%rip); .quad target
        static const unsigned char jump[6] = {0xff, 0x25, 0, 0, 0, 0};
        char *trampoline = at(kCode, object.trampolines[s]);
        std::memcpy(trampoline, jump, sizeof(jump));
        std::memcpy(trampoline + sizeof(jump), &object.addresses[s], 8);
        std::memset(trampoline + sizeof(jump) + 8, 0xcc, 2);
      }
    }
  for (Object &object : parsed) {
    for (const Elf64_Shdr *section : object.sections) {
      if (section->sh_type != SHT_RELA ||
          section->sh_info >= object.places.size())
        continue;
      const SectionPlace &target = object.places[section->sh_info];
      if (!target.loaded)
        continue;
      const Elf64_Shdr &targetSection = *object.sections[section->sh_info];
      auto *relocations = reinterpret_cast<const Elf64_Rela *>(
          object.bytes.data() + section->sh_offset);
      for (size_t r = 0; r < section->sh_size / sizeof(Elf64_Rela); ++r) {
        const Elf64_Rela &relocation = relocations[r];
        size_t s = ELF64_R_SYM(relocation.r_info);
        unsigned type = ELF64_R_TYPE(relocation.r_info);
        size_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
        if (type == R_X86_64_NONE)
          continue;
        if (relocation.r_offset > targetSection.sh_size ||
            width > targetSection.sh_size - relocation.r_offset) {
          error = "relocation out of its section";
          return nullptr;
        }
        char *place = at(target.part, target.offset) + relocation.r_offset;
        int64_t p = static_cast<int64_t>(reinterpret_cast<uintptr_t>(place));
        int64_t symbol = static_cast<int64_t>(object.addresses[s]);
        int64_t addend = relocation.r_addend;
        int64_t value;
        switch (type) {
        case R_X86_64_64:
          value = symbol + addend;
          break;
        case R_X86_64_PC64:
          value = symbol + addend - p;
          break;
        case R_X86_64_PC32:
          value = symbol + addend - p;
          break;
        case R_X86_64_PLT32:
          // Calls out of the mapping go through their trampoline, reached or
          // not: one path, whatever the distance.
          value = symbol + addend - p;
          if (object.external[s] && object.trampolines[s] != SIZE_MAX)
            value = static_cast<int64_t>(reinterpret_cast<uintptr_t>(
                        at(kCode, object.trampolines[s]))) +
                    addend - p;
          break;
        case R_X86_64_GOTPCREL:
        case R_X86_64_GOTPCRELX:
        case R_X86_64_REX_GOTPCRELX:
          value = static_cast<int64_t>(reinterpret_cast<uintptr_t>(
                      at(kConstants, object.gotSlots[s]))) +
                  addend - p;
          break;
        default:
          error = "unsupported relocation type " + std::to_string(type) +
                  " against '" + object.name(object.symbols[s]) + "'";
          return nullptr;
        }
        if (width == 4) {
          if (!fitsInt32(value)) {
            error = std::string("relocation against '") +
                    object.name(object.symbols[s]) + "' out of range";
            return nullptr;
          }
          int32_t narrow = static_cast<int32_t>(value);
          std::memcpy(place, &narrow, 4);
        } else {
          std::memcpy(place, &value, 8);
        }
      }
    }
  }

  // Code read-execute, constants read-only, data read-write.
  const int protections[kNumParts] = {PROT_READ | PROT_EXEC, PROT_READ,
                                      PROT_READ | PROT_WRITE};
  for (unsigned part = 0; part < kNumParts; ++part) {
    size_t size = alignUp(partSizes[part], page);
    if (size && mprotect(base + partOffsets[part], size, protections[part])) {
      error = "protecting the loaded code failed";
      return nullptr;
    }
  }
  return loaded;
}
