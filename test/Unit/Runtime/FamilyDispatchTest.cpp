//===- FamilyDispatchTest.cpp - Tests of pwFamilyLaunch's dispatch --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Families here are tables built by hand whose variant entries record the
// descriptors and scalars they receive instead of launching kernels, so the
// dispatch runs without a GPU. Data pointers are fake addresses: nothing
// dereferences them.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include "MgpuAbi.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct RecordedMemRef {
  uintptr_t allocated = 0;
  uintptr_t aligned = 0;
  int64_t offset = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

/// What one call of a variant entry received, per argument.
struct RecordedCall {
  int rank = 0;
  std::vector<RecordedMemRef> memrefs;
  std::vector<void *> scalars;
};

bool operator==(const RecordedMemRef &a, const RecordedMemRef &b) {
  return a.allocated == b.allocated && a.aligned == b.aligned &&
         a.offset == b.offset && a.sizes == b.sizes && a.strides == b.strides;
}

bool operator==(const RecordedCall &a, const RecordedCall &b) {
  return a.rank == b.rank && a.memrefs == b.memrefs && a.scalars == b.scalars;
}

/// The family the entries decode their arguments with: the last one built
/// (families launched together on several threads share one signature).
const pwFamily *recordingFamily = nullptr;
/// Per thread, for the tests that launch on several threads.
thread_local std::vector<RecordedCall> recordedCalls;
/// Called by the entries after recording, to leave pending errors.
void (*entryAction)() = nullptr;
/// Called by the entries before they read their arguments, to launch a
/// family from inside a variant as compiled code may.
void (*entryPrologue)() = nullptr;

template <int Rank> void recordingEntry(void **args) {
  if (entryPrologue)
    entryPrologue();
  RecordedCall call;
  call.rank = Rank;
  for (int32_t i = 0; i < recordingFamily->numArguments; ++i) {
    RecordedMemRef memref;
    void *scalar = nullptr;
    if (recordingFamily->arguments[i].kind == PW_ARGUMENT_MEMREF) {
      const auto *words = static_cast<const int64_t *>(args[i]);
      std::memcpy(&memref.allocated, &words[0], sizeof(int64_t));
      std::memcpy(&memref.aligned, &words[1], sizeof(int64_t));
      memref.offset = words[2];
      memref.sizes.assign(words + 3, words + 3 + Rank);
      memref.strides.assign(words + 3 + Rank, words + 3 + 2 * Rank);
    } else {
      scalar = args[i];
    }
    call.memrefs.push_back(memref);
    call.scalars.push_back(scalar);
  }
  recordedCalls.push_back(call);
  if (entryAction)
    entryAction();
}

using Entry = void (*)(void **);
Entry entryOfRank(int rank) {
  static const Entry entries[] = {nullptr, recordingEntry<1>, recordingEntry<2>,
                                  recordingEntry<3>, recordingEntry<4>};
  return entries[rank];
}

/// A family table under construction.
class FamilyBuilder {
public:
  explicit FamilyBuilder(std::string name) : name(std::move(name)) {}

  int memref(pwElementType type, int rank,
             std::vector<int64_t> staticSizes = {}) {
    staticSizeLists.push_back(std::move(staticSizes));
    staticStrideLists.emplace_back();
    arguments.push_back({PW_ARGUMENT_MEMREF, type, rank, PW_FAMILY_ABI_VERSION,
                         nullptr, nullptr, 0});
    return static_cast<int>(arguments.size()) - 1;
  }
  /// A memref whose type fixes strides or the offset (PW_DYNAMIC where
  /// dynamic), as pw-compile describes `strided<[...], offset: ...>`.
  int memrefWithLayout(pwElementType type, int rank,
                       std::vector<int64_t> staticStrides,
                       int64_t staticOffset) {
    int index = memref(type, rank);
    staticStrideLists.back() = std::move(staticStrides);
    arguments.back().staticOffset = staticOffset;
    return index;
  }
  int scalar(pwElementType type) {
    staticSizeLists.emplace_back();
    staticStrideLists.emplace_back();
    arguments.push_back({PW_ARGUMENT_SCALAR, type, 0, PW_FAMILY_ABI_VERSION,
                         nullptr, nullptr, 0});
    return static_cast<int>(arguments.size()) - 1;
  }
  FamilyBuilder &output(int argument) {
    outputs.push_back(argument);
    return *this;
  }
  FamilyBuilder &input(int argument) {
    inputs.push_back(argument);
    return *this;
  }
  /// Adds linear variants of `ranks`, 32- and 64-bit.
  FamilyBuilder &linear(std::vector<int> ranks,
                        std::vector<int> widths = {32, 64}) {
    for (int rank : ranks)
      for (int bits : widths)
        variants.push_back(
            {rank, bits, PW_STRATEGY_LINEAR, -1, entryOfRank(rank)});
    return *this;
  }
  /// Adds linear-narrow variants (8-byte vectors) of `ranks`.
  FamilyBuilder &narrow(std::vector<int> ranks,
                        std::vector<int> widths = {32, 64}) {
    for (int rank : ranks)
      for (int bits : widths)
        variants.push_back(
            {rank, bits, PW_STRATEGY_LINEAR_NARROW, -1, entryOfRank(rank)});
    return *this;
  }
  FamilyBuilder &transpose(int rank, int argument,
                           std::vector<int> widths = {32, 64}) {
    for (int bits : widths)
      variants.push_back(
          {rank, bits, PW_STRATEGY_TRANSPOSE, argument, entryOfRank(rank)});
    return *this;
  }

  /// The table; valid while the builder lives and is not changed.
  const pwFamily *get() {
    for (size_t i = 0; i < arguments.size(); ++i) {
      arguments[i].staticSizes =
          staticSizeLists[i].empty() ? nullptr : staticSizeLists[i].data();
      arguments[i].staticStrides =
          staticStrideLists[i].empty() ? nullptr : staticStrideLists[i].data();
    }
    family = {name.c_str(),
              static_cast<int32_t>(arguments.size()),
              static_cast<int32_t>(outputs.size()),
              static_cast<int32_t>(inputs.size()),
              static_cast<int32_t>(variants.size()),
              arguments.data(),
              outputs.data(),
              inputs.data(),
              variants.data()};
    recordingFamily = &family;
    return &family;
  }

  /// Leaves variant `index` without an entry, as a family compiled on
  /// demand has it before the variant arrives; returns the entry it had.
  Entry removeEntry(int index) {
    Entry entry = variants[index].entry;
    variants[index].entry = nullptr;
    return entry;
  }

  /// The index of the variant (rank, bits, strategy).
  int variantIndex(int rank, int bits, int strategy) const {
    for (size_t i = 0; i < variants.size(); ++i)
      if (variants[i].rank == rank && variants[i].indexBitwidth == bits &&
          variants[i].strategy == strategy)
        return static_cast<int>(i);
    return -2;
  }

private:
  std::string name;
  std::vector<pwFamilyArgument> arguments;
  std::vector<std::vector<int64_t>> staticSizeLists;
  std::vector<std::vector<int64_t>> staticStrideLists;
  std::vector<int32_t> outputs;
  std::vector<int32_t> inputs;
  std::vector<pwVariant> variants;
  pwFamily family{};
};

/// A ranked memref descriptor: pointers, offset, sizes, strides.
class MemRef {
public:
  MemRef(uintptr_t data, std::vector<int64_t> sizes,
         std::vector<int64_t> strides, int64_t offset = 0) {
    words.push_back(static_cast<int64_t>(data));
    words.push_back(static_cast<int64_t>(data));
    words.push_back(offset);
    words.insert(words.end(), sizes.begin(), sizes.end());
    words.insert(words.end(), strides.begin(), strides.end());
  }
  void *get() { return words.data(); }
  const std::vector<int64_t> &getWords() const { return words; }

private:
  std::vector<int64_t> words;
};

constexpr uintptr_t kA = 0x10000000;
constexpr uintptr_t kB = 0x20000000;
constexpr uintptr_t kC = 0x30000000;

class FamilyDispatchTest : public ::testing::Test {
protected:
  void SetUp() override {
    recordedCalls.clear();
    entryAction = nullptr;
    entryPrologue = nullptr;
  }

  /// Launches and expects success with exactly one call.
  const RecordedCall &launchOnce(const pwFamily *family,
                                 std::vector<void *> args) {
    pwStatus status = pwFamilyLaunch(family, args.data());
    EXPECT_EQ(status, PW_SUCCESS) << pwGetLastErrorMessage();
    EXPECT_EQ(recordedCalls.size(), 1u);
    if (recordedCalls.empty())
      recordedCalls.emplace_back();
    return recordedCalls.front();
  }

  /// Launches and expects `expected` and a message containing `fragment`.
  void expectError(const pwFamily *family, std::vector<void *> args,
                   pwStatus expected, const std::string &fragment) {
    pwStatus status = pwFamilyLaunch(family, args.data());
    EXPECT_EQ(status, expected) << pwGetStatusName(status);
    EXPECT_NE(std::string(pwGetLastErrorMessage()).find(fragment),
              std::string::npos)
        << "message: " << pwGetLastErrorMessage();
    EXPECT_TRUE(recordedCalls.empty());
    EXPECT_EQ(pwGetLastVariant(), -1);
  }
};

/// c = a + b on f32 matrices of rank 2.
struct AddFamily {
  FamilyBuilder builder{"add"};
  int a, b, c;
  AddFamily() {
    a = builder.memref(PW_F32, 2);
    b = builder.memref(PW_F32, 2);
    c = builder.memref(PW_F32, 2);
    builder.output(c).input(a).input(b).linear({1, 2});
    builder.transpose(2, a).transpose(2, b);
  }
};

TEST_F(FamilyDispatchTest, ContiguousAddIsRank1Linear32Bit) {
  AddFamily add;
  MemRef a(kA, {4, 5}, {5, 1}), b(kB, {4, 5}, {5, 1}), c(kC, {4, 5}, {5, 1});
  const RecordedCall &call =
      launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(1, 32, PW_STRATEGY_LINEAR));
  EXPECT_EQ(call.rank, 1);
  for (int argument : {add.a, add.b, add.c}) {
    EXPECT_EQ(call.memrefs[argument].sizes, std::vector<int64_t>{20});
    EXPECT_EQ(call.memrefs[argument].strides, std::vector<int64_t>{1});
    EXPECT_EQ(call.memrefs[argument].offset, 0);
  }
  EXPECT_EQ(call.memrefs[add.a].aligned, kA);
  EXPECT_EQ(call.memrefs[add.b].aligned, kB);
  EXPECT_EQ(call.memrefs[add.c].aligned, kC);
  EXPECT_EQ(call.memrefs[add.c].allocated, kC);
}

TEST_F(FamilyDispatchTest, Prefers32BitVariantsWhateverTheirOrder) {
  FamilyBuilder builder("copy");
  int a = builder.memref(PW_F16, 1);
  int c = builder.memref(PW_F16, 1);
  builder.output(c).input(a).linear({1}, {64, 32});
  MemRef am(kA, {8}, {1}), cm(kC, {8}, {1});
  launchOnce(builder.get(), {am.get(), cm.get()});
  EXPECT_EQ(pwGetLastVariant(),
            builder.variantIndex(1, 32, PW_STRATEGY_LINEAR));
}

TEST_F(FamilyDispatchTest, Uses64BitVariantWhenThereIsNo32BitOne) {
  FamilyBuilder builder("copy");
  int a = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  builder.output(c).input(a).linear({1}, {64});
  MemRef am(kA, {8}, {1}), cm(kC, {8}, {1});
  launchOnce(builder.get(), {am.get(), cm.get()});
  EXPECT_EQ(pwGetLastVariant(), 0);
}

TEST_F(FamilyDispatchTest, RowBroadcastIsRank2) {
  FamilyBuilder builder("addRow");
  int a = builder.memref(PW_F32, 2);
  int b = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 2);
  builder.output(c).input(a).input(b).linear({1, 2});
  MemRef am(kA, {4, 5}, {5, 1}), bm(kB, {5}, {1}), cm(kC, {4, 5}, {5, 1});
  const RecordedCall &call =
      launchOnce(builder.get(), {am.get(), bm.get(), cm.get()});
  EXPECT_EQ(pwGetLastVariant(),
            builder.variantIndex(2, 32, PW_STRATEGY_LINEAR));
  EXPECT_EQ(call.memrefs[c].sizes, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(call.memrefs[a].strides, (std::vector<int64_t>{5, 1}));
  EXPECT_EQ(call.memrefs[b].strides, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(call.memrefs[c].strides, (std::vector<int64_t>{5, 1}));
}

TEST_F(FamilyDispatchTest, ColumnBroadcastIsRank2) {
  AddFamily add;
  MemRef a(kA, {4, 5}, {5, 1}), b(kB, {4, 1}, {1, 1}), c(kC, {4, 5}, {5, 1});
  const RecordedCall &call =
      launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(2, 32, PW_STRATEGY_LINEAR));
  EXPECT_EQ(call.memrefs[add.b].sizes, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(call.memrefs[add.b].strides, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(call.memrefs[add.a].strides, (std::vector<int64_t>{5, 1}));
}

/// c = a + b on f32 matrices of rank 2, with linear-narrow variants.
struct NarrowAddFamily {
  FamilyBuilder builder{"add"};
  int a, b, c;
  NarrowAddFamily() {
    a = builder.memref(PW_F32, 2);
    b = builder.memref(PW_F32, 2);
    c = builder.memref(PW_F32, 2);
    builder.output(c).input(a).input(b).linear({1, 2}).narrow({2});
    builder.transpose(2, a).transpose(2, b);
  }
};

TEST_F(FamilyDispatchTest, RowsOff16BytesPickTheNarrowVariant) {
  NarrowAddFamily add;
  // Rows of 8 floats at a pitch of 9 (36 bytes): not coalesced, rank 2.
  MemRef a(kA, {4, 8}, {9, 1}), b(kB, {4, 8}, {8, 1}), c(kC, {4, 8}, {8, 1});
  const RecordedCall &call =
      launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(2, 32, PW_STRATEGY_LINEAR_NARROW));
  EXPECT_EQ(call.rank, 2);
  EXPECT_EQ(call.memrefs[add.a].strides, (std::vector<int64_t>{9, 1}));
}

TEST_F(FamilyDispatchTest, AFirstElementOff16BytesPicksTheNarrowVariant) {
  NarrowAddFamily add;
  // 16-byte row pitches, but a starts one float into its buffer.
  MemRef a(kA, {4, 8}, {12, 1}, /*offset=*/1), b(kB, {4, 8}, {8, 1}),
      c(kC, {4, 8}, {8, 1});
  launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(2, 32, PW_STRATEGY_LINEAR_NARROW));
}

TEST_F(FamilyDispatchTest, AlignedRowsKeepTheLinearVariant) {
  NarrowAddFamily add;
  // A pitch of 12 floats (48 bytes) and one of 8: every row 16-byte aligned.
  MemRef a(kA, {4, 8}, {12, 1}), b(kB, {4, 8}, {8, 1}), c(kC, {4, 8}, {8, 1});
  launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(2, 32, PW_STRATEGY_LINEAR));
}

TEST_F(FamilyDispatchTest, BroadcastAndStridedLastDimsDoNotPickNarrow) {
  NarrowAddFamily add;
  // b broadcast along the rows (last stride 0) and a read every other
  // column (last stride 2, at a pitch of 25 floats): neither has
  // contiguous rows to misalign.
  MemRef a(kA, {4, 8}, {25, 2}), b(kB, {4, 1}, {1, 1}), c(kC, {4, 8}, {8, 1});
  launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(2, 32, PW_STRATEGY_LINEAR));
}

TEST_F(FamilyDispatchTest, AlignedRowsOfAnOddLengthKeepTheLinearVariant) {
  NarrowAddFamily add;
  // Aligned pitches, rows of 6 floats: not whole 16-byte vectors, but the
  // narrow variant is no faster there (docs/Performance.md, row
  // `narrow-variants`).
  MemRef a(kA, {4, 6}, {8, 1}), b(kB, {4, 6}, {8, 1}), c(kC, {4, 6}, {12, 1});
  launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(2, 32, PW_STRATEGY_LINEAR));
}

TEST_F(FamilyDispatchTest, A64BitLayoutTakesThe64BitNarrowVariant) {
  NarrowAddFamily add;
  // 3 x 2^30 rows of 8 floats at a pitch of 9: 64-bit indices (no memory is
  // touched: the entries only record their descriptors).
  int64_t rows = int64_t(3) << 30;
  constexpr uintptr_t kTiB = uintptr_t(1) << 40; // buffers ~100 GB apart
  MemRef a(kTiB, {rows, 8}, {9, 1}), b(2 * kTiB, {rows, 8}, {8, 1}),
      c(3 * kTiB, {rows, 8}, {8, 1});
  launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(2, 64, PW_STRATEGY_LINEAR_NARROW));
}

TEST_F(FamilyDispatchTest, RememberedDecisionsFollowTheAlignment) {
  NarrowAddFamily add;
  // The same layout at offsets 0 and 1, twice each: the remembered
  // decisions (keyed on every descriptor word) keep their own variants.
  for (int round = 0; round < 2; ++round)
    for (int64_t offset : {0, 1}) {
      recordedCalls.clear();
      MemRef a(kA, {4, 8}, {12, 1}, offset), b(kB, {4, 8}, {8, 1}),
          c(kC, {4, 8}, {8, 1});
      launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
      EXPECT_EQ(pwGetLastVariant(),
                add.builder.variantIndex(2, 32,
                                         offset ? PW_STRATEGY_LINEAR_NARROW
                                                : PW_STRATEGY_LINEAR));
      EXPECT_EQ(pwGetLastLaunchCached(), round == 1 ? 1 : 0);
    }
}

TEST_F(FamilyDispatchTest, Rank1AndFamiliesWithoutNarrowKeepLinear) {
  NarrowAddFamily add;
  // Contiguous but one float in: coalesced to rank 1, which has no narrow
  // variant (rank 1 peels a head instead).
  MemRef a(kA, {4, 8}, {8, 1}, /*offset=*/1), b(kB, {4, 8}, {8, 1}),
      c(kC, {4, 8}, {8, 1});
  launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(1, 32, PW_STRATEGY_LINEAR));
  recordedCalls.clear();
  AddFamily plain;
  MemRef a2(kA, {4, 8}, {9, 1}), b2(kB, {4, 8}, {8, 1}), c2(kC, {4, 8}, {8, 1});
  launchOnce(plain.builder.get(), {a2.get(), b2.get(), c2.get()});
  EXPECT_EQ(pwGetLastVariant(),
            plain.builder.variantIndex(2, 32, PW_STRATEGY_LINEAR));
}

TEST_F(FamilyDispatchTest, TransposedInputPicksItsTransposeVariant) {
  AddFamily add;
  // b is the transpose of a column-major 4 x 6 matrix.
  MemRef a(kA, {4, 6}, {6, 1}), b(kB, {4, 6}, {1, 4}), c(kC, {4, 6}, {6, 1});
  const RecordedCall &call =
      launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  const pwVariant &variant = add.builder.get()->variants[pwGetLastVariant()];
  EXPECT_EQ(variant.strategy, PW_STRATEGY_TRANSPOSE);
  EXPECT_EQ(variant.transposedArgument, add.b);
  EXPECT_EQ(variant.indexBitwidth, 32);
  EXPECT_EQ(call.memrefs[add.c].sizes, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(call.memrefs[add.b].strides, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(call.memrefs[add.c].strides, (std::vector<int64_t>{6, 1}));
}

TEST_F(FamilyDispatchTest, TransposeMovesTheContiguousDimToRankMinus2) {
  FamilyBuilder builder("add3");
  int a = builder.memref(PW_F32, 3);
  int b = builder.memref(PW_F32, 3);
  int c = builder.memref(PW_F32, 3);
  builder.output(c).input(a).input(b).linear({1, 2, 3}).transpose(3, b);
  // b is fully reversed: contiguous along dim 0, which must become dim 1.
  MemRef am(kA, {2, 3, 4}, {12, 4, 1}), bm(kB, {2, 3, 4}, {1, 2, 6}),
      cm(kC, {2, 3, 4}, {12, 4, 1});
  const RecordedCall &call =
      launchOnce(builder.get(), {am.get(), bm.get(), cm.get()});
  EXPECT_EQ(pwGetLastVariant(),
            builder.variantIndex(3, 32, PW_STRATEGY_TRANSPOSE));
  EXPECT_EQ(call.memrefs[c].sizes, (std::vector<int64_t>{3, 2, 4}));
  EXPECT_EQ(call.memrefs[c].strides, (std::vector<int64_t>{4, 12, 1}));
  EXPECT_EQ(call.memrefs[a].strides, (std::vector<int64_t>{4, 12, 1}));
  EXPECT_EQ(call.memrefs[b].strides, (std::vector<int64_t>{2, 1, 6}));
}

TEST_F(FamilyDispatchTest, TransposedInputWithoutItsVariantRunsLinear) {
  FamilyBuilder builder("add");
  int a = builder.memref(PW_F32, 2);
  int b = builder.memref(PW_F32, 2);
  int c = builder.memref(PW_F32, 2);
  // Only a transpose variant for `a`, but `b` is the transposed one.
  builder.output(c).input(a).input(b).linear({1, 2}).transpose(2, a);
  MemRef am(kA, {4, 6}, {6, 1}), bm(kB, {4, 6}, {1, 4}), cm(kC, {4, 6}, {6, 1});
  const RecordedCall &call =
      launchOnce(builder.get(), {am.get(), bm.get(), cm.get()});
  EXPECT_EQ(pwGetLastVariant(),
            builder.variantIndex(2, 32, PW_STRATEGY_LINEAR));
  EXPECT_EQ(call.memrefs[b].strides, (std::vector<int64_t>{1, 4}));
}

TEST_F(FamilyDispatchTest, ScalarsArePassedThrough) {
  FamilyBuilder builder("axpy");
  int x = builder.memref(PW_F32, 1);
  int alpha = builder.scalar(PW_F32);
  int scale = builder.scalar(PW_F64);
  int y = builder.memref(PW_F32, 1);
  // `scale` is an argument the map does not read; it passes through too.
  builder.output(y).input(x).input(alpha).linear({1});
  float alphaValue = 2.0f;
  double scaleValue = 3.0;
  MemRef xm(kA, {16}, {1}), ym(kC, {16}, {1});
  const RecordedCall &call =
      launchOnce(builder.get(), {xm.get(), &alphaValue, &scaleValue, ym.get()});
  EXPECT_EQ(call.scalars[alpha], &alphaValue);
  EXPECT_EQ(call.scalars[scale], &scaleValue);
  EXPECT_EQ(call.memrefs[x].sizes, std::vector<int64_t>{16});
  EXPECT_EQ(call.memrefs[y].aligned, kC);
}

TEST_F(FamilyDispatchTest, ScalarInputsDoNotCountAsTransposeOperands) {
  FamilyBuilder builder("scaleT");
  int alpha = builder.scalar(PW_F32);
  int a = builder.memref(PW_F32, 2);
  int c = builder.memref(PW_F32, 2);
  builder.output(c).input(alpha).input(a).linear({1, 2}).transpose(2, a);
  float alphaValue = 1.0f;
  MemRef am(kA, {4, 6}, {1, 4}), cm(kC, {4, 6}, {6, 1});
  const RecordedCall &call =
      launchOnce(builder.get(), {&alphaValue, am.get(), cm.get()});
  EXPECT_EQ(pwGetLastVariant(),
            builder.variantIndex(2, 32, PW_STRATEGY_TRANSPOSE));
  EXPECT_EQ(call.scalars[alpha], &alphaValue);
}

TEST_F(FamilyDispatchTest, InPlaceArgumentGetsOneDescriptor) {
  FamilyBuilder builder("addInPlace");
  int a = builder.memref(PW_F32, 2);
  int b = builder.memref(PW_F32, 2);
  builder.output(a).input(a).input(b).linear({1, 2});
  // a[:, ::2] += b, with an offset view of a.
  MemRef am(kA, {3, 4}, {16, 2}, 1), bm(kB, {3, 4}, {4, 1});
  const RecordedCall &call = launchOnce(builder.get(), {am.get(), bm.get()});
  EXPECT_EQ(call.rank, 2);
  EXPECT_EQ(call.memrefs[a].aligned, kA + 4);
  EXPECT_EQ(call.memrefs[a].sizes, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(call.memrefs[a].strides, (std::vector<int64_t>{16, 2}));
  EXPECT_EQ(call.memrefs[b].strides, (std::vector<int64_t>{4, 1}));
}

TEST_F(FamilyDispatchTest, Rank0LaunchesRank1OfSize1) {
  FamilyBuilder builder("scalarAdd");
  int a = builder.memref(PW_I64, 0);
  int c = builder.memref(PW_I64, 0);
  builder.output(c).input(a).linear({1});
  MemRef am(kA, {}, {}), cm(kC, {}, {});
  const RecordedCall &call = launchOnce(builder.get(), {am.get(), cm.get()});
  EXPECT_EQ(call.rank, 1);
  EXPECT_EQ(call.memrefs[c].sizes, std::vector<int64_t>{1});
  EXPECT_EQ(call.memrefs[a].sizes, std::vector<int64_t>{1});
  EXPECT_EQ(call.memrefs[a].aligned, kA);
}

TEST_F(FamilyDispatchTest, AllUnitDimsLaunchRank1OfSize1) {
  AddFamily add;
  MemRef a(kA, {1, 1}, {7, 3}), b(kB, {1, 1}, {1, 1}), c(kC, {1, 1}, {1, 1});
  const RecordedCall &call =
      launchOnce(add.builder.get(), {a.get(), b.get(), c.get()});
  EXPECT_EQ(call.rank, 1);
  EXPECT_EQ(call.memrefs[add.c].sizes, std::vector<int64_t>{1});
}

TEST_F(FamilyDispatchTest, EmptyLaunchesNothing) {
  AddFamily add;
  // Null data is fine when nothing is accessed.
  MemRef a(0, {0, 5}, {5, 1}), b(kB, {1, 5}, {5, 1}), c(kC, {0, 5}, {5, 1});
  EXPECT_EQ(
      pwFamilyLaunch(add.builder.get(),
                     std::vector<void *>{a.get(), b.get(), c.get()}.data()),
      PW_SUCCESS)
      << pwGetLastErrorMessage();
  EXPECT_TRUE(recordedCalls.empty());
  EXPECT_EQ(pwGetLastVariant(), -1);
}

TEST_F(FamilyDispatchTest, OffsetsAreRebasedIntoPointers) {
  FamilyBuilder builder("addOffsets");
  int a = builder.memref(PW_F64, 1);
  int b = builder.memref(PW_BF16, 1);
  int c = builder.memref(PW_F64, 1);
  builder.output(c).input(a).input(b).linear({1});
  // A negative offset with a flipped stride: a[::-1] of a 10-element view.
  MemRef am(kA, {10}, {-1}, 9), bm(kB, {10}, {1}, 3), cm(kC, {10}, {1}, 2);
  const RecordedCall &call =
      launchOnce(builder.get(), {am.get(), bm.get(), cm.get()});
  EXPECT_EQ(call.memrefs[a].aligned, kA + 9 * 8);
  EXPECT_EQ(call.memrefs[a].allocated, kA + 9 * 8);
  EXPECT_EQ(call.memrefs[a].strides, std::vector<int64_t>{-1});
  EXPECT_EQ(call.memrefs[b].aligned, kB + 3 * 2);
  EXPECT_EQ(call.memrefs[c].aligned, kC + 2 * 8);
  for (int argument : {a, b, c})
    EXPECT_EQ(call.memrefs[argument].offset, 0);
}

TEST_F(FamilyDispatchTest, HugeLayoutUses64BitVariant) {
  FamilyBuilder builder("fill");
  int value = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  builder.output(c).input(value).linear({1});
  // 2^31 elements: one more than int32 counts.
  const int64_t n = int64_t(1) << 31;
  MemRef vm(0x7f0000000000, {1}, {1}), cm(0x100000000, {n}, {1});
  const RecordedCall &call = launchOnce(builder.get(), {vm.get(), cm.get()});
  EXPECT_EQ(pwGetLastVariant(),
            builder.variantIndex(1, 64, PW_STRATEGY_LINEAR));
  EXPECT_EQ(call.memrefs[c].sizes, std::vector<int64_t>{n});
  EXPECT_EQ(call.memrefs[value].strides, std::vector<int64_t>{0});
}

/// `c = value` broadcast over 2^31 floats, with 32-bit variants only: the
/// launch runs in chunks of at most INT32_MAX elements.
struct Fill32Family {
  FamilyBuilder builder{"fill32"};
  int value = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  static constexpr uintptr_t base = 0x100000000;
  MemRef vm{0x7f0000000000, {1}, {1}}, cm{base, {int64_t(1) << 31}, {1}};
  Fill32Family() { builder.output(c).input(value).linear({1}, {32}); }
};

TEST_F(FamilyDispatchTest, Only32BitVariantRunsInChunks) {
  Fill32Family fill;
  FamilyBuilder &builder = fill.builder;
  const int value = fill.value, c = fill.c;
  const int64_t n = int64_t(1) << 31;
  const uintptr_t base = Fill32Family::base;
  MemRef &vm = fill.vm, &cm = fill.cm;
  ASSERT_EQ(pwFamilyLaunch(builder.get(),
                           std::vector<void *>{vm.get(), cm.get()}.data()),
            PW_SUCCESS)
      << pwGetLastErrorMessage();
  EXPECT_EQ(pwGetLastVariant(), 0);
  ASSERT_GT(recordedCalls.size(), 1u);
  int64_t covered = 0;
  for (const RecordedCall &call : recordedCalls) {
    EXPECT_EQ(call.memrefs[c].aligned, base + covered * 4);
    EXPECT_EQ(call.memrefs[value].aligned, 0x7f0000000000u);
    // Each chunk is 32-bit: its element count and offsets fit in int32.
    EXPECT_LE(call.memrefs[c].sizes[0], INT32_MAX);
    covered += call.memrefs[c].sizes[0];
  }
  EXPECT_EQ(covered, n);
}

/// A family `out = in` of two rank-1 f32 memrefs and `numScalars` f32
/// scalars whose variant does nothing: what a variant launches from inside.
struct InnerFamily {
  std::vector<pwFamilyArgument> arguments;
  int32_t outputs[1] = {0};
  int32_t inputs[1] = {1};
  pwVariant variants[1] = {{1, 64, PW_STRATEGY_LINEAR, -1, [](void **) {}}};
  pwFamily family;
  MemRef out{0x5000, {7}, {1}}, in{0x6000, {7}, {1}};
  std::vector<float> scalars;
  std::vector<void *> args;

  explicit InnerFamily(int numScalars) : scalars(numScalars) {
    arguments.assign(
        2, {PW_ARGUMENT_MEMREF, PW_F32, 1, PW_FAMILY_ABI_VERSION, nullptr});
    arguments.resize(2 + numScalars, {PW_ARGUMENT_SCALAR, PW_F32, 0,
                                      PW_FAMILY_ABI_VERSION, nullptr});
    family = {"inner", static_cast<int32_t>(arguments.size()),
              1,       1,
              1,       arguments.data(),
              outputs, inputs,
              variants};
    args = {out.get(), in.get()};
    for (float &scalar : scalars)
      args.push_back(&scalar);
  }
};

/// The inner family the entries launch, through entryPrologue.
InnerFamily *innerFamily = nullptr;

void launchInnerFamily() {
  EXPECT_EQ(pwFamilyLaunch(&innerFamily->family, innerFamily->args.data()),
            PW_SUCCESS)
      << pwGetLastErrorMessage();
}

TEST_F(FamilyDispatchTest, ChunksAreRightAfterAVariantLaunchedAFamily) {
  InnerFamily inner(0);
  innerFamily = &inner;
  Fill32Family fill;
  FamilyBuilder &builder = fill.builder;
  const int value = fill.value, c = fill.c;
  const int64_t n = int64_t(1) << 31;
  const uintptr_t base = Fill32Family::base;
  MemRef &vm = fill.vm, &cm = fill.cm;
  const pwFamily *family = builder.get();
  // Every chunk's entry launches the inner family before it reads its
  // arguments (and the launch after the first misses in the analysis).
  entryPrologue = launchInnerFamily;
  ASSERT_EQ(
      pwFamilyLaunch(family, std::vector<void *>{vm.get(), cm.get()}.data()),
      PW_SUCCESS)
      << pwGetLastErrorMessage();
  ASSERT_GT(recordedCalls.size(), 1u);
  int64_t covered = 0;
  for (const RecordedCall &call : recordedCalls) {
    EXPECT_EQ(call.memrefs[c].aligned, base + covered * 4);
    EXPECT_EQ(call.memrefs[c].strides, std::vector<int64_t>{1});
    EXPECT_EQ(call.memrefs[value].aligned, 0x7f0000000000u);
    EXPECT_EQ(call.memrefs[value].strides, std::vector<int64_t>{0});
    covered += call.memrefs[c].sizes[0];
  }
  EXPECT_EQ(covered, n);
}

TEST_F(FamilyDispatchTest, ManyArgumentsAreRightAfterAVariantLaunchedAFamily) {
  // More arguments than fit on the stack: both launches need the thread's
  // buffers, and the inner one must not take the outer one's.
  constexpr int kScalars = 70;
  InnerFamily inner(kScalars);
  innerFamily = &inner;
  FamilyBuilder builder("manyScalars");
  int a = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  builder.output(c).input(a);
  std::vector<float> scalars(kScalars);
  std::vector<void *> args(2);
  for (float &scalar : scalars) {
    builder.input(builder.scalar(PW_F32));
    args.push_back(&scalar);
  }
  builder.linear({1});
  MemRef am(kA, {8}, {1}), cm(kC, {8}, {1});
  args[a] = am.get();
  args[c] = cm.get();
  const pwFamily *family = builder.get();
  entryPrologue = launchInnerFamily;
  for (int launch = 0; launch < 2; ++launch) {
    recordedCalls.clear();
    const RecordedCall &call = launchOnce(family, args);
    EXPECT_EQ(call.memrefs[a].aligned, kA);
    EXPECT_EQ(call.memrefs[c].aligned, kC);
    for (int i = 0; i < kScalars; ++i)
      EXPECT_EQ(call.scalars[2 + i], &scalars[i]) << i;
  }
}

TEST_F(FamilyDispatchTest, ShapesThatDoNotBroadcastAreAnError) {
  FamilyBuilder builder("addBad");
  int a = builder.memref(PW_F32, 2);
  int b = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 2);
  builder.output(c).input(a).input(b).linear({1, 2});
  MemRef am(kA, {4, 5}, {5, 1}), bm(kB, {3}, {1}), cm(kC, {4, 5}, {5, 1});
  expectError(builder.get(), {am.get(), bm.get(), cm.get()}, PW_ERROR_LAYOUT,
              "addBad: operand #2 dim 0 (size 3) does not broadcast");
  EXPECT_NE(std::string(pwGetLastErrorMessage())
                .find("operands #0, #1, #2 are arguments 2, 0, 1"),
            std::string::npos)
      << pwGetLastErrorMessage();
}

TEST_F(FamilyDispatchTest, OutputsThatOverlapAreAnError) {
  FamilyBuilder builder("twoOutputs");
  int a = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  int d = builder.memref(PW_F32, 1);
  builder.output(c).output(d).input(a).linear({1});
  MemRef am(kA, {8}, {1}), cm(kC, {8}, {1}), dm(kC, {8}, {1}, 4);
  expectError(builder.get(), {am.get(), cm.get(), dm.get()}, PW_ERROR_LAYOUT,
              "twoOutputs: output operands #0 and #1 overlap");
}

TEST_F(FamilyDispatchTest, OutputPartiallyOverlappingAnInputIsAnError) {
  AddFamily add;
  MemRef a(kC, {4, 5}, {5, 1}, 1), b(kB, {4, 5}, {5, 1}), c(kC, {4, 5}, {5, 1});
  expectError(add.builder.get(), {a.get(), b.get(), c.get()}, PW_ERROR_LAYOUT,
              "partially overlaps input operand #1");
}

TEST_F(FamilyDispatchTest, BroadcastOutputIsAnError) {
  AddFamily add;
  MemRef a(kA, {4, 5}, {5, 1}), b(kB, {4, 5}, {5, 1}), c(kC, {4, 5}, {0, 1});
  expectError(add.builder.get(), {a.get(), b.get(), c.get()}, PW_ERROR_LAYOUT,
              "overlaps itself");
}

TEST_F(FamilyDispatchTest, NullDataIsAnError) {
  AddFamily add;
  MemRef a(kA, {4, 5}, {5, 1}), b(0, {4, 5}, {5, 1}), c(kC, {4, 5}, {5, 1});
  expectError(add.builder.get(), {a.get(), b.get(), c.get()}, PW_ERROR_LAYOUT,
              "add: argument 1 has null data");
}

TEST_F(FamilyDispatchTest, MisalignedDataIsAnError) {
  AddFamily add;
  MemRef a(kA + 2, {4, 5}, {5, 1}), b(kB, {4, 5}, {5, 1}),
      c(kC, {4, 5}, {5, 1});
  expectError(add.builder.get(), {a.get(), b.get(), c.get()}, PW_ERROR_LAYOUT,
              "add: argument 0 is misaligned");
}

TEST_F(FamilyDispatchTest, StaticSizeMismatchIsAnError) {
  FamilyBuilder builder("addStatic");
  int a = builder.memref(PW_F32, 2, {4, -1});
  int c = builder.memref(PW_F32, 2);
  builder.output(c).input(a).linear({1, 2});
  MemRef am(kA, {3, 5}, {5, 1}), cm(kC, {3, 5}, {5, 1});
  expectError(builder.get(), {am.get(), cm.get()}, PW_ERROR_LAYOUT,
              "addStatic: argument 0 dim 0 has size 3 but the function "
              "declares 4");
}

/// A copy whose input is declared `memref<?x?xf32, strided<[?, 1], offset:
/// 2>>` and whose output is `memref<?x?xf32>` (strides [?, 1] with dynamic
/// sizes: row-major with a dynamic row stride, offset 0).
struct DeclaredLayoutCopy {
  FamilyBuilder builder{"declared"};
  int input = builder.memrefWithLayout(PW_F32, 2, {PW_DYNAMIC, 1}, 2);
  int output = builder.memrefWithLayout(PW_F32, 2, {PW_DYNAMIC, 1}, 0);
  DeclaredLayoutCopy() { builder.output(output).input(input).linear({1, 2}); }
};

TEST_F(FamilyDispatchTest, StaticStrideMismatchIsAnError) {
  DeclaredLayoutCopy copy;
  // A transposed input: stride 4 where the type says 1.
  MemRef in(kA, {4, 5}, {1, 4}, 2), out(kC, {4, 5}, {5, 1});
  expectError(copy.builder.get(), {in.get(), out.get()}, PW_ERROR_LAYOUT,
              "declared: argument 0 dim 1 has stride 4 but the function "
              "declares 1");
}

TEST_F(FamilyDispatchTest, StaticOffsetMismatchIsAnError) {
  DeclaredLayoutCopy copy;
  MemRef in(kA, {4, 5}, {5, 1}, 2), out(kC, {4, 5}, {5, 1}, 3);
  expectError(copy.builder.get(), {in.get(), out.get()}, PW_ERROR_LAYOUT,
              "declared: argument 1 has offset 3 but the function declares "
              "0");
}

TEST_F(FamilyDispatchTest, DeclaredLayoutsAcceptWhatCodeCannotTellApart) {
  DeclaredLayoutCopy copy;
  const pwFamily *family = copy.builder.get();
  auto launches = [&](MemRef &in, MemRef &out) {
    size_t before = recordedCalls.size();
    std::vector<void *> args = {in.get(), out.get()};
    pwStatus status = pwFamilyLaunch(family, args.data());
    EXPECT_EQ(status, PW_SUCCESS) << pwGetLastErrorMessage();
    return recordedCalls.size() - before;
  };
  // The declared layout itself, with any dynamic row stride.
  MemRef in(kA, {4, 5}, {8, 1}, 2), out(kC, {4, 5}, {5, 1});
  EXPECT_EQ(launches(in, out), 1u);
  // Columns of one element: their stride is never multiplied by an index
  // other than 0.
  MemRef column(kA, {4, 1}, {8, 3}, 2), columnOut(kC, {4, 1}, {1, 7});
  EXPECT_EQ(launches(column, columnOut), 1u);
  // Empty memrefs: nothing is read, so neither strides nor offsets count
  // (and nothing launches).
  MemRef empty(kA, {0, 5}, {1, 9}, 7), emptyOut(kC, {0, 5}, {1, 9}, 5);
  EXPECT_EQ(launches(empty, emptyOut), 0u);
}

TEST_F(FamilyDispatchTest, TablesOfAnotherAbiVersionAreRejected) {
  // A table of an older pw-compile: 0 where the version is, and arguments
  // laid out differently after the first.
  AddFamily add;
  const pwFamily *family = add.builder.get();
  const_cast<pwFamilyArgument *>(family->arguments)[0].abiVersion = 0;
  MemRef a(kA, {4, 5}, {5, 1}), b(kB, {4, 5}, {5, 1}), c(kC, {4, 5}, {5, 1});
  expectError(family, {a.get(), b.get(), c.get()}, PW_ERROR_INVALID_VALUE,
              "add: family table of ABI version 0, this runtime reads version "
              "2: rebuild the library with this version's pw-compile");
}

TEST_F(FamilyDispatchTest, NegativeSizeIsAnError) {
  AddFamily add;
  MemRef a(kA, {4, -5}, {5, 1}), b(kB, {4, 5}, {5, 1}), c(kC, {4, 5}, {5, 1});
  expectError(add.builder.get(), {a.get(), b.get(), c.get()}, PW_ERROR_LAYOUT,
              "argument 0 dim 1 has negative size -5");
}

TEST_F(FamilyDispatchTest, NoVariantOfTheRankIsNotFound) {
  FamilyBuilder builder("rank1Only");
  int a = builder.memref(PW_F32, 2);
  int c = builder.memref(PW_F32, 2);
  builder.output(c).input(a).linear({1});
  MemRef am(kA, {4, 6}, {1, 4}), cm(kC, {4, 6}, {6, 1});
  expectError(builder.get(), {am.get(), cm.get()}, PW_ERROR_NOT_FOUND,
              "rank1Only: no kernel variant of rank 2");
}

TEST_F(FamilyDispatchTest, NullArgumentsAreInvalid) {
  AddFamily add;
  EXPECT_EQ(pwFamilyLaunch(nullptr, nullptr), PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(pwFamilyLaunch(add.builder.get(), nullptr), PW_ERROR_INVALID_VALUE);
  MemRef a(kA, {4, 5}, {5, 1}), c(kC, {4, 5}, {5, 1});
  expectError(add.builder.get(), {a.get(), nullptr, c.get()},
              PW_ERROR_INVALID_VALUE,
              "argument 1 is a memref but its descriptor pointer is null");
}

TEST_F(FamilyDispatchTest, MalformedTableIsInvalid) {
  FamilyBuilder builder("noOutputs");
  int a = builder.memref(PW_F32, 1);
  builder.input(a).linear({1});
  MemRef am(kA, {4}, {1});
  expectError(builder.get(), {am.get()}, PW_ERROR_INVALID_VALUE,
              "noOutputs: malformed family table");
}

TEST_F(FamilyDispatchTest, PendingErrorOfTheEntryIsReturned) {
  FamilyBuilder builder("pending");
  int a = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  builder.output(c).input(a).linear({1});
  // What compiled code does without a driver: look its kernel up, launch.
  entryAction = [] {
    static char image[] = ".entry k(";
    static void *module = mgpuModuleLoad(image, sizeof(image));
    void *function = mgpuModuleGetFunction(module, "k");
    mgpuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
  };
  MemRef am(kA, {4}, {1}), cm(kC, {4}, {1});
  EXPECT_EQ(pwFamilyLaunch(builder.get(),
                           std::vector<void *>{am.get(), cm.get()}.data()),
            PW_ERROR_NO_DRIVER);
  EXPECT_NE(
      std::string(pwGetLastErrorMessage()).find("cannot load the CUDA driver"),
      std::string::npos)
      << pwGetLastErrorMessage();
  EXPECT_EQ(recordedCalls.size(), 1u);
  EXPECT_EQ(pwGetLastVariant(), 0);
  // Taken by pwFamilyLaunch: nothing is pending any more.
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS);
}

TEST_F(FamilyDispatchTest, StalePendingErrorsDoNotFailALaunch) {
  static char image[] = ".entry k(";
  void *module = mgpuModuleLoad(image, sizeof(image));
  EXPECT_EQ(mgpuModuleGetFunction(module, "k"), nullptr);
  FamilyBuilder builder("clean");
  int a = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  builder.output(c).input(a).linear({1});
  MemRef am(kA, {4}, {1}), cm(kC, {4}, {1});
  launchOnce(builder.get(), {am.get(), cm.get()});
  mgpuModuleUnload(module);
}

TEST_F(FamilyDispatchTest, I1ElementsAreBytes) {
  FamilyBuilder builder("mask");
  int a = builder.memref(PW_I1, 1);
  int c = builder.memref(PW_I1, 1);
  builder.output(c).input(a).linear({1});
  // Any address is aligned for 1-byte elements; offset 3 is 3 bytes.
  MemRef am(kA + 1, {5}, {1}, 3), cm(kC + 3, {5}, {1});
  const RecordedCall &call = launchOnce(builder.get(), {am.get(), cm.get()});
  EXPECT_EQ(call.memrefs[a].aligned, kA + 4);
}

//===----------------------------------------------------------------------===//
// The per-thread cache of dispatch decisions
//===----------------------------------------------------------------------===//

/// A data address no earlier launch of this thread used, 16 MiB apart, so
/// that a test's first launch cannot hit a decision of another test.
uintptr_t freshAddress() {
  static std::atomic<uintptr_t> next{0x100000000000};
  return next.fetch_add(uintptr_t(1) << 24);
}

/// The index of `add`'s transpose variant for argument `argument` of 32 bits.
int transposeVariant(AddFamily &add, int argument) {
  const pwFamily *family = add.builder.get();
  for (int i = 0; i < family->numVariants; ++i) {
    const pwVariant &variant = family->variants[i];
    if (variant.strategy == PW_STRATEGY_TRANSPOSE &&
        variant.transposedArgument == argument && variant.indexBitwidth == 32)
      return i;
  }
  return -2;
}

/// A launch's status, variant, whether it was cached, and what it received.
struct Outcome {
  pwStatus status = PW_SUCCESS;
  int variant = -1;
  bool cached = false;
  std::vector<RecordedCall> calls;
};

Outcome launch(const pwFamily *family, std::vector<void *> args) {
  recordedCalls.clear();
  Outcome outcome;
  outcome.status = pwFamilyLaunch(family, args.data());
  outcome.variant = pwGetLastVariant();
  outcome.cached = pwGetLastLaunchCached() != 0;
  outcome.calls = recordedCalls;
  recordedCalls.clear();
  return outcome;
}

using DispatchCacheTest = FamilyDispatchTest;

TEST_F(DispatchCacheTest, HitLaunchesWhatTheMissLaunched) {
  AddFamily add;
  struct Case {
    const char *name;
    std::vector<int64_t> aSizes, aStrides, bSizes, bStrides, cSizes, cStrides;
    int64_t aOffset;
  };
  const Case cases[] = {
      {"contiguous", {4, 5}, {5, 1}, {4, 5}, {5, 1}, {4, 5}, {5, 1}, 0},
      {"column broadcast", {4, 5}, {5, 1}, {4, 1}, {1, 1}, {4, 5}, {5, 1}, 0},
      {"transposed b", {4, 6}, {6, 1}, {4, 6}, {1, 4}, {4, 6}, {6, 1}, 0},
      {"all unit dims", {1, 1}, {7, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 0},
      {"flipped a", {4, 5}, {-5, -1}, {4, 5}, {5, 1}, {4, 5}, {5, 1}, 19},
      {"empty", {0, 5}, {5, 1}, {1, 5}, {5, 1}, {0, 5}, {5, 1}, 0},
  };
  for (const Case &test : cases) {
    SCOPED_TRACE(test.name);
    uintptr_t base = freshAddress();
    MemRef a(base, test.aSizes, test.aStrides, test.aOffset),
        b(base + 0x100000, test.bSizes, test.bStrides),
        c(base + 0x200000, test.cSizes, test.cStrides);
    Outcome miss = launch(add.builder.get(), {a.get(), b.get(), c.get()});
    ASSERT_EQ(miss.status, PW_SUCCESS) << pwGetLastErrorMessage();
    EXPECT_FALSE(miss.cached);
    // The same words in other descriptors: the key is their contents.
    MemRef a2(base, test.aSizes, test.aStrides, test.aOffset),
        b2(base + 0x100000, test.bSizes, test.bStrides),
        c2(base + 0x200000, test.cSizes, test.cStrides);
    for (void *aArgument : {a.get(), a2.get()}) {
      Outcome hit = launch(add.builder.get(), {aArgument, b2.get(), c2.get()});
      EXPECT_EQ(hit.status, PW_SUCCESS) << pwGetLastErrorMessage();
      EXPECT_TRUE(hit.cached);
      EXPECT_EQ(hit.variant, miss.variant);
      EXPECT_TRUE(hit.calls == miss.calls);
    }
  }
}

TEST_F(DispatchCacheTest, ScalarsAreNotPartOfTheKey) {
  FamilyBuilder builder("axpy");
  int x = builder.memref(PW_F32, 1);
  int alpha = builder.scalar(PW_F32);
  int y = builder.memref(PW_F32, 1);
  builder.output(y).input(x).input(alpha).linear({1});
  uintptr_t base = freshAddress();
  MemRef xm(base, {16}, {1}), ym(base + 0x1000, {16}, {1});
  float first = 1.0f, second = 2.0f;
  Outcome miss = launch(builder.get(), {xm.get(), &first, ym.get()});
  Outcome hit = launch(builder.get(), {xm.get(), &second, ym.get()});
  EXPECT_FALSE(miss.cached);
  EXPECT_TRUE(hit.cached);
  ASSERT_EQ(hit.calls.size(), 1u);
  EXPECT_EQ(hit.calls[0].scalars[alpha], &second);
  EXPECT_TRUE(hit.calls[0].memrefs == miss.calls[0].memrefs);
}

TEST_F(DispatchCacheTest, AnyChangedDescriptorWordMisses) {
  AddFamily add;
  uintptr_t base = freshAddress();
  const std::vector<int64_t> shape{4, 5}, strides{5, 1};
  std::vector<std::vector<int64_t>> original = {
      MemRef(base, shape, strides).getWords(),
      MemRef(base + 0x1000, shape, strides).getWords(),
      MemRef(base + 0x2000, shape, strides).getWords()};
  auto launchWords = [&](std::vector<std::vector<int64_t>> words) {
    return launch(add.builder.get(),
                  {words[0].data(), words[1].data(), words[2].data()});
  };
  ASSERT_EQ(launchWords(original).status, PW_SUCCESS);
  ASSERT_TRUE(launchWords(original).cached);
  // Word 0 and 1 are the pointers, 2 the offset, 3-4 the sizes, 5-6 the
  // strides. Every change either launches differently or is an error.
  for (size_t argument = 0; argument < 3; ++argument) {
    for (size_t word = 0; word < 7; ++word) {
      SCOPED_TRACE("argument " + std::to_string(argument) + " word " +
                   std::to_string(word));
      std::vector<std::vector<int64_t>> changed = original;
      int64_t &value = changed[argument][word];
      value = word < 2 ? value + 64 : word < 3 ? 1 : word < 5 ? 1 : value + 1;
      Outcome first = launchWords(changed);
      EXPECT_FALSE(first.cached);
      Outcome again = launchWords(changed);
      EXPECT_EQ(again.status, first.status);
      EXPECT_EQ(again.cached, first.status == PW_SUCCESS);
      EXPECT_TRUE(again.calls == first.calls);
    }
  }
}

TEST_F(DispatchCacheTest, ErrorsAreNotRemembered) {
  AddFamily add;
  uintptr_t base = freshAddress();
  MemRef a(base, {4, 5}, {5, 1}), b(base + 0x1000, {3, 5}, {5, 1}),
      c(base + 0x2000, {4, 5}, {5, 1});
  for (int i = 0; i < 3; ++i) {
    Outcome outcome = launch(add.builder.get(), {a.get(), b.get(), c.get()});
    EXPECT_EQ(outcome.status, PW_ERROR_LAYOUT);
    EXPECT_FALSE(outcome.cached);
    EXPECT_EQ(outcome.variant, -1);
    EXPECT_NE(std::string(pwGetLastErrorMessage()).find("does not broadcast"),
              std::string::npos)
        << pwGetLastErrorMessage();
  }
  // A null descriptor where a remembered launch had one is an error too.
  MemRef good(base + 0x1000, {4, 5}, {5, 1});
  ASSERT_EQ(launch(add.builder.get(), {a.get(), good.get(), c.get()}).status,
            PW_SUCCESS);
  Outcome null = launch(add.builder.get(), {a.get(), nullptr, c.get()});
  EXPECT_EQ(null.status, PW_ERROR_INVALID_VALUE);
  EXPECT_FALSE(null.cached);
  // Misaligned data: an error each time, the pointer being part of the key.
  MemRef misaligned(base + 0x1002, {4, 5}, {5, 1});
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(
        launch(add.builder.get(), {a.get(), misaligned.get(), c.get()}).status,
        PW_ERROR_LAYOUT);
}

TEST_F(DispatchCacheTest, EmptyLaunchesAreRemembered) {
  AddFamily add;
  uintptr_t base = freshAddress();
  MemRef a(0, {0, 5}, {5, 1}), b(base, {1, 5}, {5, 1}), c(base, {0, 5}, {5, 1});
  Outcome miss = launch(add.builder.get(), {a.get(), b.get(), c.get()});
  Outcome hit = launch(add.builder.get(), {a.get(), b.get(), c.get()});
  for (const Outcome &outcome : {miss, hit}) {
    EXPECT_EQ(outcome.status, PW_SUCCESS);
    EXPECT_EQ(outcome.variant, -1);
    EXPECT_TRUE(outcome.calls.empty());
  }
  EXPECT_FALSE(miss.cached);
  EXPECT_TRUE(hit.cached);
}

TEST_F(DispatchCacheTest, ChunkedLaunchesAreNotRemembered) {
  Fill32Family fill;
  FamilyBuilder &builder = fill.builder;
  MemRef &vm = fill.vm, &cm = fill.cm;
  Outcome first = launch(builder.get(), {vm.get(), cm.get()});
  Outcome second = launch(builder.get(), {vm.get(), cm.get()});
  EXPECT_EQ(second.status, PW_SUCCESS);
  EXPECT_FALSE(second.cached);
  EXPECT_GT(second.calls.size(), 1u);
  EXPECT_TRUE(second.calls == first.calls);
}

/// A copy `c = a` of rank 2 whose variants are 64-bit only: the same
/// descriptors pick other variants than AddFamily's.
struct Copy64Family {
  FamilyBuilder builder{"copy64"};
  Copy64Family() {
    int a = builder.memref(PW_F32, 2);
    int b = builder.memref(PW_F32, 2);
    int c = builder.memref(PW_F32, 2);
    builder.output(c).input(b).input(a).linear({2, 1}, {64});
  }
};

TEST_F(DispatchCacheTest, AlternatingFamiliesKeepTheirOwnDecisions) {
  AddFamily add;
  Copy64Family copy;
  const pwFamily *addFamily = add.builder.get();
  const pwFamily *copyFamily = copy.builder.get();
  uintptr_t base = freshAddress();
  MemRef a(base, {4, 6}, {6, 1}), b(base + 0x1000, {4, 6}, {1, 4}),
      c(base + 0x2000, {4, 6}, {6, 1});
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Outcome added = launch(addFamily, {a.get(), b.get(), c.get()});
    EXPECT_EQ(added.status, PW_SUCCESS);
    EXPECT_EQ(added.cached, round > 0);
    EXPECT_EQ(added.variant, transposeVariant(add, add.b));
    Outcome copied = launch(copyFamily, {a.get(), b.get(), c.get()});
    EXPECT_EQ(copied.status, PW_SUCCESS);
    EXPECT_EQ(copied.cached, round > 0);
    EXPECT_EQ(copied.variant,
              copy.builder.variantIndex(2, 64, PW_STRATEGY_LINEAR));
  }
}

TEST_F(DispatchCacheTest, ATableChangedInPlaceMisses) {
  // The key holds the table's contents: a table rebuilt at the same address
  // (a library loaded where another was, a table edited in place) is new.
  FamilyBuilder builder("copy");
  int a = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1, {-1});
  builder.output(c).input(a).linear({1}, {64});
  uintptr_t base = freshAddress();
  MemRef am(base, {8}, {1}), cm(base + 0x1000, {8}, {1});
  const pwFamily *family = builder.get();
  EXPECT_EQ(launch(family, {am.get(), cm.get()}).variant, 0);
  EXPECT_TRUE(launch(family, {am.get(), cm.get()}).cached);

  builder.linear({1}, {32});
  ASSERT_EQ(builder.get(), family);
  Outcome changed = launch(family, {am.get(), cm.get()});
  EXPECT_FALSE(changed.cached);
  EXPECT_EQ(changed.variant, 1);

  // The declared static sizes count too.
  const_cast<int64_t *>(family->arguments[c].staticSizes)[0] = 4;
  Outcome mismatch = launch(family, {am.get(), cm.get()});
  EXPECT_EQ(mismatch.status, PW_ERROR_LAYOUT);
  EXPECT_NE(
      std::string(pwGetLastErrorMessage())
          .find("argument 1 dim 0 has size 8 but the function declares 4"),
      std::string::npos)
      << pwGetLastErrorMessage();
}

TEST_F(DispatchCacheTest, TheLaunchedVariantIsOfTheKeyTheOthersAreNot) {
  // A decision stays right whatever the variants it did not launch are, so
  // only the launched one is compared (each call reads less of the table).
  FamilyBuilder builder("copy");
  int a = builder.memref(PW_F32, 1);
  int c = builder.memref(PW_F32, 1);
  builder.output(c).input(a).linear({1, 2});
  uintptr_t base = freshAddress();
  MemRef am(base, {8}, {1}), cm(base + 0x1000, {8}, {1});
  const pwFamily *family = builder.get();
  int launched = builder.variantIndex(1, 32, PW_STRATEGY_LINEAR);
  int other = builder.variantIndex(2, 64, PW_STRATEGY_LINEAR);
  EXPECT_EQ(launch(family, {am.get(), cm.get()}).variant, launched);
  ASSERT_TRUE(launch(family, {am.get(), cm.get()}).cached);

  auto *variants = const_cast<pwVariant *>(family->variants);
  variants[other].entry = entryOfRank(3);
  Outcome unchanged = launch(family, {am.get(), cm.get()});
  EXPECT_TRUE(unchanged.cached);
  EXPECT_EQ(unchanged.variant, launched);

  // Any word of the launched one counts: here its strategy, so that the
  // analysis picks another variant (the 64-bit linear one of rank 1).
  variants[launched].strategy = PW_STRATEGY_LINEAR_NARROW;
  Outcome changed = launch(family, {am.get(), cm.get()});
  EXPECT_FALSE(changed.cached);
  EXPECT_EQ(changed.status, PW_SUCCESS);
  EXPECT_EQ(changed.variant, launched + 1);
  ASSERT_EQ(changed.calls.size(), 1u);
  EXPECT_EQ(changed.calls[0].rank, 1);
}

TEST_F(DispatchCacheTest, DeclaredStridesAreOfTheKey) {
  DeclaredLayoutCopy copy;
  const pwFamily *family = copy.builder.get();
  uintptr_t base = freshAddress();
  MemRef in(base, {4, 5}, {5, 1}, 2), out(base + 0x1000, {4, 5}, {5, 1});
  EXPECT_EQ(launch(family, {in.get(), out.get()}).status, PW_SUCCESS);
  EXPECT_TRUE(launch(family, {in.get(), out.get()}).cached);
  // The same descriptors against a table now declaring stride 5 in dim 1.
  const_cast<int64_t *>(family->arguments[copy.input].staticStrides)[1] = 5;
  Outcome mismatch = launch(family, {in.get(), out.get()});
  EXPECT_EQ(mismatch.status, PW_ERROR_LAYOUT);
  EXPECT_NE(std::string(pwGetLastErrorMessage())
                .find("argument 0 dim 1 has stride 1 but the function "
                      "declares 5"),
            std::string::npos)
      << pwGetLastErrorMessage();
  // And the declared offset, which lives in the arguments array.
  const_cast<int64_t *>(family->arguments[copy.input].staticStrides)[1] = 1;
  EXPECT_EQ(launch(family, {in.get(), out.get()}).status, PW_SUCCESS);
  const_cast<pwFamilyArgument *>(family->arguments)[copy.input].staticOffset =
      PW_DYNAMIC;
  Outcome dynamicOffset = launch(family, {in.get(), out.get()});
  EXPECT_EQ(dynamicOffset.status, PW_SUCCESS);
  EXPECT_FALSE(dynamicOffset.cached);
}

TEST_F(DispatchCacheTest, MoreLayoutsThanSlotsStayCorrect) {
  AddFamily add;
  const pwFamily *family = add.builder.get();
  uintptr_t base = freshAddress();
  std::vector<MemRef> outputs;
  for (int i = 0; i < 12; ++i)
    outputs.emplace_back(base + 0x100000 * (i + 1), std::vector<int64_t>{4, 5},
                         std::vector<int64_t>{5, 1});
  MemRef a(base, {4, 5}, {5, 1}), b(base + 0x80000, {4, 5}, {5, 1});
  // Eight layouts in turn fit: the second round hits. Twelve do not, and
  // every launch still gets its own output.
  for (int count : {8, 12}) {
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < count; ++i) {
        Outcome outcome = launch(family, {a.get(), b.get(), outputs[i].get()});
        ASSERT_EQ(outcome.status, PW_SUCCESS);
        ASSERT_EQ(outcome.calls.size(), 1u);
        EXPECT_EQ(outcome.calls[0].memrefs[add.c].aligned,
                  base + 0x100000 * (i + 1));
        if (count == 8 && round > 0) {
          EXPECT_TRUE(outcome.cached);
        }
      }
    }
  }
}

TEST_F(DispatchCacheTest, ThreadsHaveTheirOwnDecisions) {
  AddFamily add;
  Copy64Family copy;
  const pwFamily *addFamily = add.builder.get();
  const pwFamily *copyFamily = copy.builder.get();
  // Per family, the variant for a transposed b and for a row-major one.
  const int addVariants[2] = {
      add.builder.variantIndex(1, 32, PW_STRATEGY_LINEAR),
      transposeVariant(add, add.b)};
  const int copyVariants[2] = {
      copy.builder.variantIndex(1, 64, PW_STRATEGY_LINEAR),
      copy.builder.variantIndex(2, 64, PW_STRATEGY_LINEAR)};
  constexpr int kThreads = 4;
  std::atomic<int> failures{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    uintptr_t base = freshAddress();
    threads.emplace_back([=, &addVariants, &copyVariants, &failures, &hits] {
      // Per thread: its own outputs, two layouts of b.
      MemRef a(base, {4, 6}, {6, 1}), transposed(base + 0x1000, {4, 6}, {1, 4}),
          rowMajor(base + 0x2000, {4, 6}, {6, 1}),
          c(base + 0x3000, {4, 6}, {6, 1});
      for (int i = 0; i < 2000; ++i) {
        bool useAdd = i % 2 == 0;
        bool isTransposed = (i / 2) % 2 == 0;
        void *b = isTransposed ? transposed.get() : rowMajor.get();
        Outcome outcome =
            launch(useAdd ? addFamily : copyFamily, {a.get(), b, c.get()});
        int expected = (useAdd ? addVariants : copyVariants)[isTransposed];
        int expectedRank = isTransposed ? 2 : 1;
        bool right = outcome.status == PW_SUCCESS &&
                     outcome.variant == expected && outcome.calls.size() == 1 &&
                     outcome.calls[0].rank == expectedRank &&
                     outcome.calls[0].memrefs[2].aligned == base + 0x3000 &&
                     outcome.calls[0].memrefs[1].aligned ==
                         (isTransposed ? base + 0x1000 : base + 0x2000);
        failures += right ? 0 : 1;
        hits += outcome.cached ? 1 : 0;
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  // Four decisions per thread, each made once.
  EXPECT_EQ(hits.load(), kThreads * (2000 - 4));
}

TEST_F(FamilyDispatchTest, AVariantWithoutEntryIsNotFoundAndNamed) {
  AddFamily add;
  int transpose = add.builder.variantIndex(2, 32, PW_STRATEGY_TRANSPOSE) + 2;
  ASSERT_EQ(add.builder.get()->variants[transpose].transposedArgument, add.b);
  add.builder.removeEntry(transpose);
  const pwFamily *family = add.builder.get();
  MemRef a(kA, {4, 6}, {6, 1}), b(kB, {4, 6}, {1, 4}), c(kC, {4, 6}, {6, 1});
  std::vector<void *> args{a.get(), b.get(), c.get()};
  EXPECT_EQ(pwFamilyLaunch(family, args.data()), PW_ERROR_NOT_FOUND);
  EXPECT_EQ(std::string(pwGetLastErrorMessage()),
            "add: variant " + std::to_string(transpose) +
                " (rank 2, 32-bit indices, transpose of argument 1) is not "
                "compiled, and the family has no variant loader "
                "(pwSetVariantLoader)");
  // The variant it chose, for the caller to compile: the one a complete
  // family launches. Nothing ran, and nothing is remembered.
  EXPECT_EQ(pwGetLastVariant(), transpose);
  EXPECT_TRUE(recordedCalls.empty());
  EXPECT_EQ(pwFamilyLaunch(family, args.data()), PW_ERROR_NOT_FOUND);
  EXPECT_EQ(pwGetLastLaunchCached(), 0);
  // Other layouts launch the variants that are there.
  MemRef rowMajor(kB, {4, 6}, {6, 1});
  launchOnce(family, {a.get(), rowMajor.get(), c.get()});
  EXPECT_EQ(pwGetLastVariant(),
            add.builder.variantIndex(1, 32, PW_STRATEGY_LINEAR));
}

/// What the loader of LoaderStoresTheEntryAndTheLaunchStartsOver stores.
struct PendingVariant {
  Entry entry;
  int calls = 0;
};

TEST_F(FamilyDispatchTest, LoaderStoresTheEntryAndTheLaunchStartsOver) {
  AddFamily complete, onDemand;
  MemRef a(kA, {4, 6}, {6, 1}), b(kB, {4, 6}, {1, 4}), c(kC, {4, 6}, {6, 1});
  std::vector<void *> args{a.get(), b.get(), c.get()};
  RecordedCall expected = launchOnce(complete.builder.get(), args);
  int chosen = pwGetLastVariant();
  recordedCalls.clear();

  PendingVariant pending{onDemand.builder.removeEntry(chosen)};
  const pwFamily *family = onDemand.builder.get();
  InnerFamily inner(0);
  innerFamily = &inner;
  auto loader = [](const pwFamily *family, int32_t variant, void *context,
                   char *, size_t) -> pwStatus {
    auto &pending = *static_cast<PendingVariant *>(context);
    ++pending.calls;
    // Compiling may launch on this thread, which reuses its scratch.
    launchInnerFamily();
    __atomic_store_n(&const_cast<pwVariant &>(family->variants[variant]).entry,
                     pending.entry, __ATOMIC_RELEASE);
    return PW_SUCCESS;
  };
  ASSERT_EQ(pwSetVariantLoader(family, +loader, &pending), PW_SUCCESS);
  const RecordedCall &call = launchOnce(family, args);
  EXPECT_EQ(pending.calls, 1);
  EXPECT_EQ(pwGetLastVariant(), chosen);
  EXPECT_EQ(call, expected);
  // From now on it is an ordinary variant: remembered, no loader asked.
  recordedCalls.clear();
  launchOnce(family, args);
  EXPECT_EQ(pwGetLastLaunchCached(), 1);
  EXPECT_EQ(pending.calls, 1);
  EXPECT_EQ(pwSetVariantLoader(family, nullptr, nullptr), PW_SUCCESS);
}

} // namespace
