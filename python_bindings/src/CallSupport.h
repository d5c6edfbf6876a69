//===- CallSupport.h - What the C call paths share --------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The pieces that the C calls of `pointwise._fastcall` share: the runtime's
// entry points bound by `bind()`, the tensor access table bound by
// `bind_tensors()`, reading one tensor, and the launch ABI of
// `pwFamilyLaunch` (a descriptor per memref, an 8-byte slot per scalar, the
// launch with the GIL released), written once here. `FastCall.cpp` is the
// common call of a @pw.pointwise function, `FamilyCall.cpp` the common call
// of an AOT library's family, and `Launcher.cpp` the launch that the general
// paths of both make once they have read their arguments.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_PYTHON_CALLSUPPORT_H
#define POINTWISE_PYTHON_CALLSUPPORT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "TensorAccess.h"

#include <cstdint>
#include <vector>

namespace pointwise::python {

using LaunchFn = int (*)(const void *family, void **arguments);
using ExchangeDeviceFn = int (*)(int device, int *previous);
using SetStreamFn = void (*)(void *stream);

/// The runtime's entry points, bound once by `bind()`.
struct RuntimeEntries {
  LaunchFn launch = nullptr;
  ExchangeDeviceFn exchangeDevice = nullptr;
  SetStreamFn setStream = nullptr;
};

/// The runtime's entry points and the `bind()` that set them, copied while
/// the GIL is held: `bind()` writes them under the GIL, and the launch reads
/// them after releasing it.
struct BoundRuntime {
  RuntimeEntries entries;
  unsigned binding;
};

/// Sets the entry points (under the GIL).
void bindRuntime(const RuntimeEntries &entries);
BoundRuntime getBoundRuntime();
/// Whether `bind()` was called.
bool isRuntimeBound();

/// The packed arguments of one launch and the `void **` array pointing into
/// them, per call rather than per thread: reading a tensor's attributes can
/// run Python code (a torch function mode) that makes another call on the
/// same thread. Inline storage serves the common sizes.
class LaunchArguments {
public:
  LaunchArguments() = default;
  LaunchArguments(const LaunchArguments &) = delete;
  LaunchArguments &operator=(const LaunchArguments &) = delete;
  /// Zeroed room for `words` words and `count` pointers.
  void reset(size_t words, size_t count);
  int64_t *words() { return wordData; }
  void **pointers() { return pointerData; }

private:
  // docs/Performance.md, row `inline-buffers`.
  static constexpr size_t kInlineWords = 192;
  static constexpr size_t kInlinePointers = 16;
  int64_t inlineWords[kInlineWords];
  void *inlinePointers[kInlinePointers];
  std::vector<int64_t> heapWords;
  std::vector<void *> heapPointers;
  int64_t *wordData = inlineWords;
  void **pointerData = inlinePointers;
};

/// Before a call path hands a call over to the general path: clears the
/// errors its probes expect of arguments they do not handle (TypeError,
/// ValueError, AttributeError, OverflowError, IndexError) and returns true;
/// returns false, leaving it set, for any other error (KeyboardInterrupt,
/// MemoryError, a framework's RuntimeError), which the call then raises.
bool clearHandOverError();

/// Owns a reference (Py_XDECREF at scope exit).
class Ref {
public:
  Ref() = default;
  explicit Ref(PyObject *object) : object(object) {}
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
  ~Ref() { Py_XDECREF(object); }
  void reset(PyObject *value) {
    Py_XDECREF(object);
    object = value;
  }
  PyObject *release() {
    PyObject *value = object;
    object = nullptr;
    return value;
  }
  PyObject *get() const { return object; }
  explicit operator bool() const { return object != nullptr; }

private:
  PyObject *object = nullptr;
};

/// Interned attribute names, created by `internNames()` at module init.
struct Names {
  PyObject *shape, *dtype, *isCuda, *isContiguous, *isNeg, *getDevice, *dataPtr,
      *stride;
};
extern Names names;
/// False with a Python error set when interning failed.
bool internNames();

/// A new reference to `object.name()`, or null with an error set.
PyObject *callMethod(PyObject *object, PyObject *name);

/// The tensor access table bound by `bind_tensors`, or null: then tensors
/// are read through their Python attributes.
const PwTensorAccess *boundTensorAccess();
/// Binds `table` (null: none) with `dtypes[code]` the framework's dtype
/// object of the table's dtype code `code` (null entries for none); takes
/// new references.
void bindTensorAccess(const PwTensorAccess *table,
                      const std::vector<PyObject *> &dtypes);
/// The table's dtype code of dtype object `dtype`, or -1.
int32_t findDtypeCode(PyObject *dtype);

/// The most dims the call paths handle (more go to the general path).
constexpr Py_ssize_t kMaxRank = 16;

/// One tensor argument or output as a call path uses it.
struct TensorInfo {
  uint64_t data = 0;
  long device = -1;
  PyObject *dtype = nullptr; // borrowed: interned dtype objects live on
  bool contiguous = false;
  Py_ssize_t rank = 0;
  int64_t sizes[kMaxRank];
  int64_t strides[kMaxRank]; // in elements; read only when asked for

  bool sameShape(const TensorInfo &other) const;
};

/// Reads `tensor` (an exact instance of the framework's tensor type) through
/// the bound table when there is one, else through its attributes; with
/// `withStrides`, its strides too. False, with any Python error to be
/// cleared by the caller, when the call path should not handle it.
bool readTensor(PyObject *tensor, TensorInfo &info, bool withStrides);

/// Packs one scalar as the kernel expects it (`code` as in Python's struct
/// module: ? b h i q B H I Q f d), as struct packs it, for the values whose
/// conversion runs no Python code: bool and int (exact) for every code,
/// float for ? (exact) and for f and d (subclasses too: their value is read
/// directly), and NumPy's own scalar types (their conversions are NumPy's
/// C code): integers for every code, float16, float32 and bool_ for ?, f
/// and d.
/// False, with no Python error set, for any other value, one
/// that does not fit (out of the type's range, a float that rounds to
/// infinity) or a code not among those: the general path then packs or
/// reports it.
bool packScalar(PyObject *value, char code, int64_t &word);

/// Like packScalar, for any value that Python's struct module packs with
/// `code` (objects with __index__ for the integer codes, __float__ for the
/// float ones, any object's truth for ?), and for "e" (float16, rounded to
/// nearest even) and "E" (bfloat16: rounded to float32, then to its upper
/// 16 bits, to nearest even). False with TypeError (not a number of that
/// kind) or OverflowError (out of the type's range; a float that rounds to
/// infinity) set.
bool convertScalar(PyObject *value, char code, int64_t &word);

/// Writes the memref descriptor of a view at `words`: (allocated, aligned,
/// offset, sizes, strides) at rank `rank`, the view's `viewRank` <= `rank`
/// dims last and leading dims of size 1 and stride 0 before them, both
/// pointers `data`.
void writeDescriptor(int64_t *words, Py_ssize_t rank, uint64_t data,
                     int64_t offset, Py_ssize_t viewRank, const int64_t *sizes,
                     const int64_t *strides);

/// Makes `device` current for this thread's launches (pwExchangeDevice, a
/// scoped device guard: `previous` receives the device current before, -1
/// when none) and `stream`, skipping pwSetStream when it already is (the
/// runtime's stream is per thread, and so is the record of it). 0, or the
/// runtime's status.
int selectDeviceAndStream(const BoundRuntime &bound, int device, void *stream,
                          int &previous);

/// Ends the scope selectDeviceAndStream began for a launch on `device`: makes
/// `previous` current again where it is another device, as PyTorch's device
/// guard does, so that a call on tensors of another device leaves the
/// caller's current device as it was. 0, or the runtime's status.
int restoreDevice(const BoundRuntime &bound, int device, int previous);

/// Calls pwFamilyLaunch(family, pointers) with the GIL released, on `device`
/// and `stream` when `device` >= 0 (then leaving the thread's current device
/// as it found it). The status.
int launchFamily(const BoundRuntime &bound, void *family, void **pointers,
                 int device = -1, void *stream = nullptr);

/// Raises the error of launch status `status` through `raiseError` (a
/// callable of the package that raises), or a RuntimeError naming the
/// status when it returns without raising. Returns null for the caller to
/// return.
PyObject *raiseLaunchError(PyObject *raiseError, int status);

/// The end of a garbage-collected heap type's dealloc, after its members
/// are released: untracked before, then freed, then the type's reference
/// dropped.
void freeTrackedObject(PyObject *object);

/// Registers `pointwise._fastcall.FamilyCall` in `module`; -1 on error.
int addFamilyCallType(PyObject *module);
/// Registers `pointwise._fastcall.Launcher` in `module`; -1 on error.
int addLauncherType(PyObject *module);

} // namespace pointwise::python

#endif // POINTWISE_PYTHON_CALLSUPPORT_H
