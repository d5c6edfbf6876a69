//===- HostArgument.h - One argument of a JIT-compiled entry ------*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The storage pw-run passes for one argument of the entry function: a scalar
// value, or a memref view (sizes, strides, offset) over a host buffer that
// covers every element the view can reach, filled deterministically from a
// seed. Memrefs, and tensors (which the pipeline bufferizes into memrefs of
// any strided layout), are passed as the descriptor of the `_mlir_ciface_`
// ABI. A copy of a memref the entry returns uses the same class.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_TOOLS_PWRUN_HOSTARGUMENT_H
#define POINTWISE_TOOLS_PWRUN_HOSTARGUMENT_H

#include "ArgumentSpec.h"

#include "Pointwise/Layout/Overlap.h"
#include "Pointwise/Layout/StridedLayout.h"

#include "mlir/IR/Types.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <vector>

namespace pointwise::run {

/// How memref buffers are filled: seeded random values, or each buffer
/// element's own offset (0, 1, 2, ...), which makes layouts visible in
/// printed results.
enum class FillMode { Random, Iota };

class HostArgument {
public:
  /// Checks `spec` against `type` (argument `index`) and allocates and fills
  /// the storage; values depend only on `fill`, `seed` and `index`.
  static llvm::Expected<HostArgument> create(mlir::Type type,
                                             const ArgumentSpec &spec,
                                             unsigned index, FillMode fill,
                                             uint64_t seed);

  /// The checks of create, and a scalar's value, without a view's storage:
  /// getLayout, getBufferByteSize and getOperandBuffer (an address that
  /// setPlannedAddress gives) describe the view; allocate() makes it.
  static llvm::Expected<HostArgument> plan(mlir::Type type,
                                           const ArgumentSpec &spec,
                                           unsigned index, uint64_t seed);
  /// Allocates and fills the storage of a planned view (nothing for a
  /// scalar).
  void allocate(FillMode fill, uint64_t seed);
  /// The address getOperandBuffer reports before allocate(): distinct
  /// arguments get disjoint ranges, as their buffers will be.
  void setPlannedAddress(uint64_t address) { plannedAddress = address; }

  /// A contiguous copy of the elements of result `index` of the entry: the
  /// view `sizes`/`strides`/`offset` of `elementType` elements from
  /// `aligned` (a returned memref descriptor's aligned pointer).
  static HostArgument copyResult(mlir::Type elementType, unsigned index,
                                 llvm::ArrayRef<int64_t> sizes,
                                 llvm::ArrayRef<int64_t> strides,
                                 int64_t offset, const uint8_t *aligned);

  bool isMemRef() const { return isView; }
  /// The element type of a view; null for a scalar.
  mlir::Type getElementType() const { return isView ? type : mlir::Type(); }
  unsigned getIndex() const { return index; }
  /// Whether this is a copy of a returned memref (copyResult).
  bool isReturned() const { return isResult; }
  /// "argument #N" or "result #N".
  std::string getLabel() const;

  /// What `invokePacked` expects for this argument: the address of the value
  /// (a scalar, or the pointer to the memref descriptor).
  void *getPackedArgument();

  /// Bytes of the elements the view addresses (not the whole buffer).
  int64_t getViewBytes() const;

  /// `4x8@8,1+0 xf32` or `f32 = 0.5`.
  std::string describe() const;

  /// Prints the view's elements as nested lists, or the scalar's value.
  void print(llvm::raw_ostream &os) const;

  /// Compares the whole buffers of two arguments created from the same
  /// spec; reports up to `maxReports` differing elements. Returns true when
  /// they are identical bit for bit.
  bool compare(const HostArgument &reference, llvm::raw_ostream &os,
               unsigned maxReports) const {
    return compare(reference, os, maxReports, 0.0);
  }
  /// The same with a tolerance for floating-point elements: equal when
  /// |mine - reference| <= tolerance * (1 + |reference|), NaN only equal to
  /// NaN. A tolerance of 0 compares bit for bit.
  bool compare(const HostArgument &reference, llvm::raw_ostream &os,
               unsigned maxReports, double tolerance) const;

  /// The whole buffer a view addresses into (for copies to a device).
  uint8_t *getBufferBytes() { return elements(); }
  int64_t getBufferByteSize() const { return bufferElements * byteWidth; }
  /// The view as the layout library takes it, and where its elements live
  /// (for the layout checks the runtime also makes before a launch).
  layout::StridedLayout getLayout() const { return {sizes, strides, offset}; }
  layout::OperandBuffer getOperandBuffer() const;
  /// The memref descriptor's words: allocated, aligned, offset, sizes,
  /// strides (a copy: callers point it at other memory).
  std::vector<int64_t> getDescriptorWords() const { return descriptor; }

  /// The entry of this argument in a --dump-inputs/--dump-outputs
  /// manifest: index, kind, element type and byte width; memrefs: sizes,
  /// strides, offset and buffer element count (the buffer is the bytes
  /// getBufferBytes() .. + getBufferByteSize()); scalars: their bits as an
  /// unsigned integer (the value's little-endian bytes, byte width of them).
  llvm::json::Object getManifestEntry() const;

private:
  HostArgument() = default;
  void fill(FillMode mode, uint64_t seed);
  /// The first element: the buffer's first 64-byte boundary.
  uint8_t *elements();
  const uint8_t *elements() const;
  std::string formatElement(int64_t bufferIndex) const;
  double readAsDouble(int64_t bufferIndex) const;
  void printDim(llvm::raw_ostream &os, unsigned dim, int64_t offset) const;

  mlir::Type type; // element type of a memref, or the scalar type
  unsigned index = 0;
  unsigned byteWidth = 0;
  bool isView = false;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  int64_t bufferElements = 0;
  std::vector<uint64_t> buffer;    // element storage, see elements()
  std::vector<int64_t> descriptor; // allocated, aligned, offset, sizes, strides
  void *descriptorAddress = nullptr;
  uint64_t scalar = 0;
  bool isResult = false;
  uint64_t plannedAddress = 0;
};

} // namespace pointwise::run

#endif // POINTWISE_TOOLS_PWRUN_HOSTARGUMENT_H
