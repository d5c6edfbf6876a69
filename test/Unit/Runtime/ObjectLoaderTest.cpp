//===- ObjectLoaderTest.cpp - Tests of the runtime's object linker --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Two objects compiled by llc from ObjectLoaderFirst.ll and
// ObjectLoaderSecond.ll, linked by loadObjects with a resolver of the
// test's own: calls between the objects and out of the mapping, the global
// offset table, data relocations, weak symbols, and the errors.
//
//===----------------------------------------------------------------------===//

#include "ObjectLoader.h"

#include "Pointwise/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace pointwise::runtime;

namespace {

std::string readFile(const char *path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file) << path;
  return {std::istreambuf_iterator<char>(file),
          std::istreambuf_iterator<char>()};
}

int finalized = -1;

} // namespace

// What the objects leave undefined, exported from the test (ENABLE_EXPORTS)
// for the runtime's resolver, which searches the process.
extern "C" {
__attribute__((visibility("default"))) int external_value = 1234;
__attribute__((visibility("default"))) void record_fini(int value) {
  finalized = value;
}
}

namespace {

void *resolve(const char *name, void *context) {
  ++*static_cast<int *>(context);
  if (std::strcmp(name, "external_value") == 0)
    return &external_value;
  if (std::strcmp(name, "record_fini") == 0)
    return reinterpret_cast<void *>(&record_fini);
  if (std::strcmp(name, "strlen") == 0)
    return reinterpret_cast<void *>(&strlen);
  return nullptr;
}

template <typename F> F symbol(const LoadedObjects &objects, const char *name) {
  void *address = objects.lookup(name);
  EXPECT_TRUE(address) << name;
  return reinterpret_cast<F>(address);
}

class ObjectLoaderTest : public ::testing::Test {
protected:
  std::string first = readFile(POINTWISE_OBJECT_LOADER_FIRST);
  std::string second = readFile(POINTWISE_OBJECT_LOADER_SECOND);
};

TEST_F(ObjectLoaderTest, LinksTwoObjects) {
  int resolved = 0;
  std::string error;
  std::unique_ptr<LoadedObjects> objects =
      loadObjects({first, second}, resolve, &resolved, error);
  ASSERT_TRUE(objects) << error;
  // Only what neither object defines goes to the resolver: strlen,
  // external_value, record_fini and the missing weak symbol.
  EXPECT_EQ(resolved, 4);
  EXPECT_EQ(symbol<int (*)(int)>(*objects, "add_one")(1), 2);
  EXPECT_EQ(symbol<int (*)(int)>(*objects, "add_two")(1), 3);
  EXPECT_EQ(symbol<long (*)()>(*objects, "message_length")(), 5);
  EXPECT_EQ(symbol<int (*)()>(*objects, "read_external")(), 1234);
  external_value = 99;
  EXPECT_EQ(symbol<int (*)()>(*objects, "read_external")(), 99);
  external_value = 1234;
  EXPECT_FALSE(symbol<bool (*)()>(*objects, "has_weak")());
  // The data table points at a function and at the counter.
  auto *table = symbol<void **>(*objects, "table");
  EXPECT_EQ(table[0], objects->lookup("add_one"));
  EXPECT_EQ(table[1], objects->lookup("counter"));
  // The second object's reads of the first's data.
  symbol<void (*)()>(*objects, "__pwc_library_init_0")();
  symbol<void (*)()>(*objects, "__pwc_library_init_1")();
  EXPECT_EQ(symbol<int (*)()>(*objects, "get_counter")(), 42);
  EXPECT_EQ(objects->lookup("message"), nullptr); // private: not global
  EXPECT_EQ(objects->lookup("strlen"), nullptr);  // not defined here
}

TEST_F(ObjectLoaderTest, LibraryRunsConstructorsAndDestructors) {
  // Through the C API, which resolves in the runtime and the process.
  const char *objects[] = {first.data(), second.data()};
  size_t sizes[] = {first.size(), second.size()};
  pwLibrary library = nullptr;
  ASSERT_EQ(pwLibraryLink(objects, sizes, 2, &library), PW_SUCCESS)
      << pwGetLastErrorMessage();
  // Object 0's constructor stored 41, object 1's added one.
  auto getCounter =
      reinterpret_cast<int (*)()>(pwLibraryGetSymbol(library, "get_counter"));
  ASSERT_TRUE(getCounter);
  EXPECT_EQ(getCounter(), 42);
  EXPECT_EQ(pwLibraryGetSymbol(library, "no_such_symbol"), nullptr);
  finalized = -1;
  pwLibraryClose(library);
  EXPECT_EQ(finalized, 42);
}

TEST_F(ObjectLoaderTest, SavedLibraryOpensOnThisHostOnly) {
  const char *objects[] = {first.data(), second.data()};
  size_t sizes[] = {first.size(), second.size()};
  std::string path = ::testing::TempDir() + "/pointwise-object-loader.pwlib";
  ASSERT_EQ(pwLibrarySave(objects, sizes, 2, path.c_str()), PW_SUCCESS)
      << pwGetLastErrorMessage();
  pwLibrary library = nullptr;
  ASSERT_EQ(pwLibraryOpen(path.c_str(), &library), PW_SUCCESS)
      << pwGetLastErrorMessage();
  EXPECT_EQ(
      reinterpret_cast<int (*)(int)>(pwLibraryGetSymbol(library, "add_two"))(5),
      7);
  pwLibraryClose(library);

  std::string saved = readFile(path.c_str());
  std::string header = "pointwise-host-objects-2\n";
  ASSERT_EQ(saved.compare(0, header.size(), header), 0);
  std::string fingerprint = pwGetHostFingerprint();
  ASSERT_EQ(saved.compare(header.size(), fingerprint.size(), fingerprint), 0);
  auto rewrite = [&](const std::string &content) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << content;
  };
  rewrite(header + "another-cpu" +
          saved.substr(header.size() + fingerprint.size()));
  EXPECT_EQ(pwLibraryOpen(path.c_str(), &library), PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(library, nullptr);
  EXPECT_NE(std::string(pwGetLastErrorMessage()).find("not for this host"),
            std::string::npos)
      << pwGetLastErrorMessage();
  rewrite(saved.substr(0, saved.size() - 1));
  EXPECT_EQ(pwLibraryOpen(path.c_str(), &library), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwGetLastErrorMessage()).find("is truncated"),
            std::string::npos)
      << pwGetLastErrorMessage();
  std::remove(path.c_str());
  EXPECT_EQ(pwLibraryOpen(path.c_str(), &library), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwGetLastErrorMessage()).find("cannot read"),
            std::string::npos);
}

TEST_F(ObjectLoaderTest, UndefinedStrongSymbolIsAnError) {
  int resolved = 0;
  std::string error;
  // The second object alone lacks add_one and counter.
  EXPECT_FALSE(loadObjects({second}, resolve, &resolved, error));
  EXPECT_NE(error.find("undefined symbol '"), std::string::npos) << error;
}

TEST_F(ObjectLoaderTest, WhatIsNoX86ObjectIsAnError) {
  int resolved = 0;
  std::string error;
  EXPECT_FALSE(loadObjects({std::string_view("not an object")}, resolve,
                           &resolved, error));
  EXPECT_EQ(error, "object 0: not an ELF file");
  std::string other = first;
  other[18] = 0x28; // e_machine: EM_ARM
  EXPECT_FALSE(loadObjects({first, other}, resolve, &resolved, error));
  EXPECT_EQ(error, "object 1: not an x86-64 relocatable object");
  std::string truncated = first.substr(0, first.size() / 2);
  EXPECT_FALSE(loadObjects({truncated}, resolve, &resolved, error));
  EXPECT_NE(error.find("out of bounds"), std::string::npos) << error;
}

TEST_F(ObjectLoaderTest, UnsupportedRelocationIsAnError) {
  // The first relocation of the first object, made a TLS one
  // (R_X86_64_TPOFF32), which host code never has.
  std::string patched = first;
  auto *header = reinterpret_cast<Elf64_Ehdr *>(patched.data());
  auto *sections =
      reinterpret_cast<Elf64_Shdr *>(patched.data() + header->e_shoff);
  Elf64_Rela *relocation = nullptr;
  for (unsigned i = 0; i < header->e_shnum && !relocation; ++i)
    if (sections[i].sh_type == SHT_RELA && sections[i].sh_size)
      relocation = reinterpret_cast<Elf64_Rela *>(patched.data() +
                                                  sections[i].sh_offset);
  ASSERT_TRUE(relocation);
  relocation->r_info =
      ELF64_R_INFO(ELF64_R_SYM(relocation->r_info), R_X86_64_TPOFF32);
  int resolved = 0;
  std::string error;
  EXPECT_FALSE(loadObjects({patched, second}, resolve, &resolved, error));
  EXPECT_NE(error.find("unsupported relocation type 23"), std::string::npos)
      << error;
}

TEST_F(ObjectLoaderTest, NothingToLinkIsAnEmptyLibrary) {
  std::string error;
  std::unique_ptr<LoadedObjects> objects =
      loadObjects({}, resolve, nullptr, error);
  ASSERT_TRUE(objects) << error;
  EXPECT_EQ(objects->lookup("add_one"), nullptr);
}

} // namespace
