//===- FamilyCall.cpp - the call of an AOT family in C --------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// `pointwise._fastcall.FamilyCall`: the common call of a family of a
// pw-compile library (`KernelLibrary(...).family(name)(...)`), done in C
// in front of the general call `Family._general_call`, for host time per
// call below PyTorch eager's (docs/Performance.md, row `python-c-call`). The
// common call is: every memref argument an exact `torch.Tensor` on a CUDA
// device, of a dtype the argument accepts, any strides, of the argument's rank
// or one that leading size-1 dims or padding make it; every scalar a Python
// number that packs (bool, int, float). The call packs the memref descriptors
// and scalars exactly as the general call does and launches on the
// runtime's current device and stream with the GIL released. Anything else
// hands the call, unchanged, to the general call, which either handles it
// or raises the error that names the mistake: this file never changes a result,
// only its cost.
//
//===----------------------------------------------------------------------===//

#include "CallSupport.h"
#include "Pointwise/Runtime/Runtime.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

using namespace pointwise::python;

namespace {

/// What the call needs to know of one argument of the family.
struct ArgumentSpec {
  bool isMemref = false;
  /// Memrefs: the declared rank, sizes (-1 where dynamic) and the tuple of
  /// dtype objects the argument accepts (borrowed from `arguments`).
  Py_ssize_t rank = 0;
  std::vector<int64_t> staticSizes;
  PyObject *dtypes = nullptr;
  /// Memrefs whose type fixes a stride or the offset: the declared strides
  /// (none at rank 0) and offset (PW_DYNAMIC where dynamic) and the element
  /// size in bytes.
  bool hasStaticLayout = false;
  std::vector<int64_t> staticStrides;
  int64_t staticOffset = PW_DYNAMIC;
  int64_t elementBytes = 0;
  /// Scalars: the struct code the value is packed with.
  char code = 0;
  /// Where the argument's words start in the packed buffer.
  size_t offset = 0;
};

struct FamilyCall {
  PyObject_HEAD;
  void *family;                     // the pwFamily table
  std::vector<ArgumentSpec> *specs; // one per argument
  size_t words;                     // the packed buffer's size in words
  PyObject *arguments;              // the constructor's tuple
  PyObject *slow;                   // slow(*args, **kwargs)
  PyObject *tensorType;             // torch.Tensor
  PyObject *raiseError;             // raise_error(status): raises
};

bool acceptsDtype(const ArgumentSpec &spec, PyObject *dtype) {
  Py_ssize_t count = PyTuple_Size(spec.dtypes);
  for (Py_ssize_t i = 0; i < count; ++i)
    if (PyTuple_GetItem(spec.dtypes, i) == dtype)
      return true;
  return false;
}

/// Whether a view of `sizes` and `strides` has the declared strides of
/// `spec` (strides of dims of more than one element; any, when it is empty),
/// as `Family._check_static` and the runtime decide.
bool hasDeclaredStrides(const ArgumentSpec &spec, const int64_t *sizes,
                        const int64_t *strides) {
  for (Py_ssize_t d = 0; d < spec.rank; ++d)
    if (sizes[d] == 0)
      return true;
  for (Py_ssize_t d = 0; d < spec.rank; ++d)
    if (spec.staticStrides[d] != PW_DYNAMIC && sizes[d] > 1 &&
        strides[d] != spec.staticStrides[d])
      return false;
  return true;
}

/// Packs the descriptor of `tensor` for `spec` at `words`: (allocated,
/// aligned, offset, sizes, strides) at the declared rank, padded with
/// leading (1, stride 0) dims or stripped of leading size-1 dims, as
/// `Family._pad` does. The offset is 0, or the declared one with both
/// pointers moved back by as many elements. False when the shapes or strides
/// do not fit the declared type (the general path raises).
bool packMemref(const ArgumentSpec &spec, const TensorInfo &info,
                int64_t *words) {
  Py_ssize_t rank = spec.rank;
  Py_ssize_t first = 0; // the first of the tensor's dims that is packed
  while (info.rank - first > rank && info.sizes[first] == 1)
    ++first;
  if (info.rank - first > rank)
    return false;
  writeDescriptor(words, rank, info.data, 0, info.rank - first,
                  info.sizes + first, info.strides + first);
  int64_t *sizes = words + 3, *strides = words + 3 + rank;
  if (!spec.staticSizes.empty())
    for (Py_ssize_t d = 0; d < rank; ++d)
      if (spec.staticSizes[d] >= 0 && sizes[d] != spec.staticSizes[d])
        return false;
  if (!spec.hasStaticLayout)
    return true;
  if (!hasDeclaredStrides(spec, sizes, strides))
    return false;
  bool empty = std::find(sizes, sizes + rank, 0) != sizes + rank;
  if (spec.staticOffset != PW_DYNAMIC && spec.staticOffset != 0 && !empty) {
    // The general path reports offsets that do not fit below the data.
    uint64_t back = static_cast<uint64_t>(spec.staticOffset) *
                    static_cast<uint64_t>(spec.elementBytes);
    if (spec.staticOffset < 0 || spec.staticOffset > (int64_t(1) << 40) ||
        back > info.data)
      return false;
    words[0] = words[1] = static_cast<int64_t>(info.data - back);
    words[2] = spec.staticOffset;
  }
  return true;
}

PyObject *familyCallCall(PyObject *object, PyObject *args, PyObject *kwargs) {
  auto *self = reinterpret_cast<FamilyCall *>(object);
  if (!self->slow) {
    PyErr_SetString(PyExc_RuntimeError, "FamilyCall: cleared");
    return nullptr;
  }
  // From here on, anything unexpected (including a Python error in one of
  // the probes) hands the call over, with the error cleared.
  auto slow = [&]() -> PyObject * {
    if (!clearHandOverError())
      return nullptr;
    return PyObject_Call(self->slow, args, kwargs);
  };
  const std::vector<ArgumentSpec> &specs = *self->specs;
  if (!isRuntimeBound() || (kwargs && PyDict_Size(kwargs) > 0) ||
      PyTuple_Size(args) != static_cast<Py_ssize_t>(specs.size()))
    return slow();

  LaunchArguments launch;
  launch.reset(self->words, specs.size());
  void **pointers = launch.pointers();
  for (size_t i = 0; i < specs.size(); ++i) {
    const ArgumentSpec &spec = specs[i];
    PyObject *value = PyTuple_GetItem(args, static_cast<Py_ssize_t>(i));
    int64_t *at = launch.words() + spec.offset;
    pointers[i] = at;
    if (!spec.isMemref) {
      if (!packScalar(value, spec.code, *at))
        return slow();
      continue;
    }
    TensorInfo info;
    if (reinterpret_cast<PyObject *>(Py_TYPE(value)) != self->tensorType ||
        !readTensor(value, info, /*withStrides=*/true) ||
        !acceptsDtype(spec, info.dtype) || !packMemref(spec, info, at))
      return slow();
  }

  if (int status = launchFamily(getBoundRuntime(), self->family, pointers))
    return raiseLaunchError(self->raiseError, status);
  Py_RETURN_NONE;
}

/// Reads one entry of the constructor's `arguments`: a 1-character str (a
/// scalar's struct code) or a (rank, static sizes, dtypes) tuple, followed
/// for a type that fixes a stride or the offset by (static strides, static
/// offset, element bytes), PW_DYNAMIC where dynamic. False with a ValueError
/// set when it is neither.
bool readSpec(PyObject *entry, ArgumentSpec &spec) {
  if (PyUnicode_Check(entry)) {
    if (PyUnicode_GetLength(entry) != 1) {
      PyErr_SetString(PyExc_ValueError,
                      "FamilyCall: a scalar's code is one character");
      return false;
    }
    Py_UCS4 code = PyUnicode_ReadChar(entry, 0);
    spec.code = static_cast<char>(code);
    if (code == 0 || code > 0x7F || !std::strchr("?bhiqfd", spec.code)) {
      PyErr_Format(PyExc_ValueError,
                   "FamilyCall: scalar code %R is not one of ? b h i q f d",
                   entry);
      return false;
    }
    return true;
  }
  PyObject *sizes = nullptr, *dtypes = nullptr, *strides = nullptr;
  long long offset = PW_DYNAMIC, elementBytes = 0;
  if (!PyTuple_Check(entry) ||
      !PyArg_ParseTuple(entry, "nO!O!|O!LL", &spec.rank, &PyTuple_Type, &sizes,
                        &PyTuple_Type, &dtypes, &PyTuple_Type, &strides,
                        &offset, &elementBytes) ||
      spec.rank < 0 || spec.rank > kMaxRank ||
      (PyTuple_Size(sizes) != 0 && PyTuple_Size(sizes) != spec.rank) ||
      (strides && (PyTuple_Size(strides) != spec.rank || elementBytes < 1 ||
                   elementBytes > 8))) {
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError,
                    "FamilyCall: a memref is (rank <= 16, static sizes "
                    "(rank of them, -1 where dynamic, or none), dtypes) or "
                    "that and (static strides (rank of them), static offset, "
                    "element bytes 1 to 8)");
    return false;
  }
  spec.isMemref = true;
  spec.dtypes = dtypes;
  auto readInts = [](PyObject *tuple, std::vector<int64_t> &values) {
    for (Py_ssize_t d = 0; d < PyTuple_Size(tuple); ++d) {
      values.push_back(PyLong_AsLongLong(PyTuple_GetItem(tuple, d)));
      if (PyErr_Occurred())
        return false;
    }
    return true;
  };
  if (!readInts(sizes, spec.staticSizes))
    return false;
  if (!strides)
    return true;
  spec.hasStaticLayout = true;
  spec.staticOffset = offset;
  spec.elementBytes = elementBytes;
  return readInts(strides, spec.staticStrides);
}

PyObject *familyCallNew(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static const char *keywords[] = {"family",      "arguments",   "slow",
                                   "tensor_type", "raise_error", nullptr};
  PyObject *familyObject, *arguments, *slow, *tensorType, *raiseError;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!OOO:FamilyCall",
                                   const_cast<char **>(keywords), &familyObject,
                                   &PyTuple_Type, &arguments, &slow,
                                   &tensorType, &raiseError))
    return nullptr;
  void *family = PyLong_AsVoidPtr(familyObject);
  if (PyErr_Occurred())
    return nullptr;
  if (!family) {
    PyErr_SetString(PyExc_ValueError, "FamilyCall: a null family");
    return nullptr;
  }
  auto specs = std::make_unique<std::vector<ArgumentSpec>>();
  size_t words = 0;
  for (Py_ssize_t i = 0; i < PyTuple_Size(arguments); ++i) {
    ArgumentSpec spec;
    if (!readSpec(PyTuple_GetItem(arguments, i), spec))
      return nullptr;
    spec.offset = words;
    words += spec.isMemref ? 3 + 2 * spec.rank : 1;
    specs->push_back(std::move(spec));
  }
  auto alloc = reinterpret_cast<allocfunc>(PyType_GetSlot(type, Py_tp_alloc));
  auto *self = reinterpret_cast<FamilyCall *>(alloc(type, 0));
  if (!self)
    return nullptr;
  self->family = family;
  self->specs = specs.release();
  self->words = words > 0 ? words : 1;
  PyObject **members[] = {&self->arguments, &self->slow, &self->tensorType,
                          &self->raiseError};
  PyObject *values[] = {arguments, slow, tensorType, raiseError};
  for (size_t m = 0; m < 4; ++m) {
    Py_INCREF(values[m]);
    *members[m] = values[m];
  }
  return reinterpret_cast<PyObject *>(self);
}

int familyCallTraverse(PyObject *object, visitproc visit, void *arg) {
  auto *self = reinterpret_cast<FamilyCall *>(object);
  Py_VISIT(self->arguments);
  Py_VISIT(self->slow);
  Py_VISIT(self->tensorType);
  Py_VISIT(self->raiseError);
  Py_VISIT(reinterpret_cast<PyObject *>(Py_TYPE(object)));
  return 0;
}

int familyCallClear(PyObject *object) {
  auto *self = reinterpret_cast<FamilyCall *>(object);
  Py_CLEAR(self->slow);
  Py_CLEAR(self->tensorType);
  Py_CLEAR(self->raiseError);
  // `arguments` owns the dtype tuples the specs borrow: it stays until
  // dealloc, and a cleared object hands every call over.
  return 0;
}

void familyCallDealloc(PyObject *object) {
  PyObject_GC_UnTrack(object);
  familyCallClear(object);
  auto *self = reinterpret_cast<FamilyCall *>(object);
  Py_CLEAR(self->arguments);
  delete self->specs;
  self->specs = nullptr;
  freeTrackedObject(object);
}

PyType_Slot familyCallSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(familyCallNew)},
    {Py_tp_call, reinterpret_cast<void *>(familyCallCall)},
    {Py_tp_traverse, reinterpret_cast<void *>(familyCallTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(familyCallClear)},
    {Py_tp_dealloc, reinterpret_cast<void *>(familyCallDealloc)},
    {Py_tp_doc,
     const_cast<char *>(
         "FamilyCall(family, arguments, slow, tensor_type, raise_error): the "
         "common call of one AOT family; call it with the family's "
         "arguments. `arguments` has one entry per argument: a scalar's "
         "struct code ('?', 'b', 'h', 'i', 'q', 'f' or 'd') or a memref's "
         "(rank, static sizes or (), accepted dtype objects).")},
    {0, nullptr}};

PyType_Spec familyCallSpec = {
    "pointwise._fastcall.FamilyCall", sizeof(FamilyCall), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, familyCallSlots};

} // namespace

int pointwise::python::addFamilyCallType(PyObject *module) {
  PyObject *type = PyType_FromSpec(&familyCallSpec);
  if (!type)
    return -1;
  if (PyModule_AddObject(module, "FamilyCall", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}
