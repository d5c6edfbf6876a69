//===- Launcher.cpp - the launch of the general call paths ----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// `pointwise._fastcall.Launcher`: the launch that the general call paths of
// the package make once they have read and checked their arguments (the
// general call of a @pw.pointwise function, `Family`'s call for what the
// common C call does not take, `instantiate`). It packs each memref as its
// descriptor and each scalar into its 8-byte slot, with the helpers that the
// common calls use (CallSupport.h), and calls pwFamilyLaunch with the GIL
// released. Python's own packing (`pointwise._native.PythonLauncher`) serves
// only where this module is not built.
//
//===----------------------------------------------------------------------===//

#include "CallSupport.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace pointwise::python;

namespace {

/// One argument of the launched function.
struct Slot {
  /// Memrefs: the declared rank; scalars: -1.
  Py_ssize_t rank = -1;
  /// Scalars: the launch code (as `pointwise.DType.pack`) and the type's
  /// name for messages.
  char code = 0;
  std::string typeName;
  /// Where the argument's words start in the packed buffer.
  size_t offset = 0;
};

struct Launcher {
  PyObject_HEAD;
  void *family;
  std::vector<Slot> *slots;
  size_t words;
  PyObject *name;       // str, for messages
  PyObject *raiseError; // raise_error(status): raises
};

/// Reads a shape or strides sequence of at most `rank` integers.
bool readDims(PyObject *sequence, int64_t *values, Py_ssize_t &count,
              Py_ssize_t rank) {
  count = PySequence_Size(sequence);
  if (count < 0)
    return false;
  if (count > rank) {
    PyErr_Format(PyExc_ValueError, "%zd dims for a memref of rank %zd", count,
                 rank);
    return false;
  }
  for (Py_ssize_t d = 0; d < count; ++d) {
    Ref item(PySequence_GetItem(sequence, d));
    if (!item)
      return false;
    values[d] = PyLong_AsLongLong(item.get());
    if (values[d] == -1 && PyErr_Occurred())
      return false;
  }
  return true;
}

/// Packs memref view `value`, a (pointer, offset, shape, strides) tuple, at
/// `words`. False with an error set when it is not one.
bool packView(PyObject *value, Py_ssize_t rank, int64_t *words) {
  PyObject *pointerObject, *offsetObject, *shape, *strides;
  if (!PyTuple_Check(value) || PyTuple_Size(value) != 4) {
    PyErr_SetString(PyExc_TypeError,
                    "a memref is a (pointer, offset, shape, strides) tuple");
    return false;
  }
  pointerObject = PyTuple_GetItem(value, 0);
  offsetObject = PyTuple_GetItem(value, 1);
  shape = PyTuple_GetItem(value, 2);
  strides = PyTuple_GetItem(value, 3);
  unsigned long long pointer = PyLong_AsUnsignedLongLong(pointerObject);
  if (PyErr_Occurred())
    return false;
  long long offset = PyLong_AsLongLong(offsetObject);
  if (offset == -1 && PyErr_Occurred())
    return false;
  // Families of rank above kMaxRank exist (nothing bounds a memref's rank);
  // their dims go to the heap.
  int64_t inlineSizes[kMaxRank], inlineSteps[kMaxRank];
  std::vector<int64_t> heapSizes, heapSteps;
  int64_t *sizes = inlineSizes, *steps = inlineSteps;
  if (rank > kMaxRank) {
    heapSizes.resize(rank);
    heapSteps.resize(rank);
    sizes = heapSizes.data();
    steps = heapSteps.data();
  }
  Py_ssize_t numSizes, numStrides;
  if (!readDims(shape, sizes, numSizes, rank) ||
      !readDims(strides, steps, numStrides, rank))
    return false;
  if (numSizes != numStrides) {
    PyErr_Format(PyExc_ValueError, "%zd sizes but %zd strides", numSizes,
                 numStrides);
    return false;
  }
  writeDescriptor(words, rank, pointer, offset, numSizes, sizes, steps);
  return true;
}

/// Re-raises the error set while packing argument `index` as that type,
/// with a message naming the function, the argument and the value.
void describeError(Launcher *self, Py_ssize_t index, PyObject *value,
                   const Slot &slot) {
  PyObject *type, *error, *traceback;
  PyErr_Fetch(&type, &error, &traceback);
  PyErr_NormalizeException(&type, &error, &traceback);
  Ref reason(error ? PyObject_Str(error) : nullptr);
  PyErr_Clear();
  if (slot.rank >= 0)
    PyErr_Format(type, "%U: argument #%zd: %S", self->name, index,
                 reason ? reason.get() : Py_None);
  else
    PyErr_Format(type, "%U: argument #%zd: cannot pass %R as a scalar %s (%S)",
                 self->name, index, value, slot.typeName.c_str(),
                 reason ? reason.get() : Py_None);
  Py_XDECREF(type);
  Py_XDECREF(error);
  Py_XDECREF(traceback);
}

PyObject *launcherCall(PyObject *object, PyObject *args, PyObject *kwargs) {
  auto *self = reinterpret_cast<Launcher *>(object);
  if (!self->slots || !self->raiseError) {
    PyErr_SetString(PyExc_RuntimeError, "Launcher: cleared");
    return nullptr;
  }
  const std::vector<Slot> &slots = *self->slots;
  if ((kwargs && PyDict_Size(kwargs) > 0) ||
      PyTuple_Size(args) != static_cast<Py_ssize_t>(slots.size())) {
    PyErr_Format(PyExc_TypeError, "%U: the launch takes %zu arguments, got %zd",
                 self->name, slots.size(), PyTuple_Size(args));
    return nullptr;
  }
  if (!isRuntimeBound()) {
    PyErr_SetString(PyExc_RuntimeError, "Launcher: bind() first");
    return nullptr;
  }
  LaunchArguments launch;
  launch.reset(self->words, slots.size());
  void **pointers = launch.pointers();
  for (size_t i = 0; i < slots.size(); ++i) {
    const Slot &slot = slots[i];
    PyObject *value = PyTuple_GetItem(args, static_cast<Py_ssize_t>(i));
    int64_t *at = launch.words() + slot.offset;
    pointers[i] = at;
    bool packed = slot.rank >= 0 ? packView(value, slot.rank, at)
                                 : convertScalar(value, slot.code, *at);
    if (!packed) {
      describeError(self, static_cast<Py_ssize_t>(i), value, slot);
      return nullptr;
    }
  }
  if (int status = launchFamily(getBoundRuntime(), self->family, pointers))
    return raiseLaunchError(self->raiseError, status);
  Py_RETURN_NONE;
}

/// Reads one entry of the constructor's `arguments`: a memref's rank (a
/// non-negative int) or a scalar's (code, type name). False with a ValueError
/// set when it is neither.
bool readSlot(PyObject *entry, Slot &slot) {
  if (PyLong_Check(entry)) {
    slot.rank = PyLong_AsSsize_t(entry);
    if (slot.rank >= 0 && slot.rank < (Py_ssize_t(1) << 20))
      return true;
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError,
                    "Launcher: a memref's rank is a non-negative int");
    return false;
  }
  const char *code = nullptr, *typeName = nullptr;
  if (!PyTuple_Check(entry) ||
      !PyArg_ParseTuple(entry, "ss", &code, &typeName) ||
      std::strlen(code) != 1 || !std::strchr("?bhiqBHIQeEfd", code[0])) {
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError,
                    "Launcher: an argument is a memref's rank or a scalar's "
                    "(code, type name), the code one of ? b h i q B H I Q e E "
                    "f d");
    return false;
  }
  slot.code = code[0];
  slot.typeName = typeName;
  return true;
}

PyObject *launcherNew(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static const char *keywords[] = {"family", "arguments", "name", "raise_error",
                                   nullptr};
  PyObject *familyObject, *arguments, *name, *raiseError;
  if (!PyArg_ParseTupleAndKeywords(
          args, kwargs, "OO!UO:Launcher", const_cast<char **>(keywords),
          &familyObject, &PyTuple_Type, &arguments, &name, &raiseError))
    return nullptr;
  void *family = PyLong_AsVoidPtr(familyObject);
  if (PyErr_Occurred())
    return nullptr;
  if (!family) {
    PyErr_SetString(PyExc_ValueError, "Launcher: a null family");
    return nullptr;
  }
  auto slots = std::make_unique<std::vector<Slot>>();
  size_t words = 0;
  for (Py_ssize_t i = 0; i < PyTuple_Size(arguments); ++i) {
    Slot slot;
    if (!readSlot(PyTuple_GetItem(arguments, i), slot))
      return nullptr;
    slot.offset = words;
    words += slot.rank >= 0 ? 3 + 2 * slot.rank : 1;
    slots->push_back(std::move(slot));
  }
  auto alloc = reinterpret_cast<allocfunc>(PyType_GetSlot(type, Py_tp_alloc));
  auto *self = reinterpret_cast<Launcher *>(alloc(type, 0));
  if (!self)
    return nullptr;
  self->family = family;
  self->slots = slots.release();
  self->words = words > 0 ? words : 1;
  Py_INCREF(name);
  self->name = name;
  Py_INCREF(raiseError);
  self->raiseError = raiseError;
  return reinterpret_cast<PyObject *>(self);
}

int launcherTraverse(PyObject *object, visitproc visit, void *arg) {
  auto *self = reinterpret_cast<Launcher *>(object);
  Py_VISIT(self->raiseError);
  Py_VISIT(reinterpret_cast<PyObject *>(Py_TYPE(object)));
  return 0;
}

int launcherClear(PyObject *object) {
  Py_CLEAR(reinterpret_cast<Launcher *>(object)->raiseError);
  return 0;
}

void launcherDealloc(PyObject *object) {
  PyObject_GC_UnTrack(object);
  launcherClear(object);
  auto *self = reinterpret_cast<Launcher *>(object);
  Py_CLEAR(self->name);
  delete self->slots;
  self->slots = nullptr;
  freeTrackedObject(object);
}

PyType_Slot launcherSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(launcherNew)},
    {Py_tp_call, reinterpret_cast<void *>(launcherCall)},
    {Py_tp_traverse, reinterpret_cast<void *>(launcherTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(launcherClear)},
    {Py_tp_dealloc, reinterpret_cast<void *>(launcherDealloc)},
    {Py_tp_doc,
     const_cast<char *>(
         "Launcher(family, arguments, name, raise_error): launches the "
         "pwFamily at address `family`; call it with one value per argument: "
         "a memref's (pointer, offset, shape, strides), at most its rank "
         "dims (leading dims of size 1 are added), or a scalar. "
         "`arguments` has per argument a memref's rank or a scalar's (code, "
         "type name).")},
    {0, nullptr}};

PyType_Spec launcherSpec = {"pointwise._fastcall.Launcher", sizeof(Launcher), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                            launcherSlots};

} // namespace

int pointwise::python::addLauncherType(PyObject *module) {
  PyObject *type = PyType_FromSpec(&launcherSpec);
  if (!type)
    return -1;
  if (PyModule_AddObject(module, "Launcher", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}
