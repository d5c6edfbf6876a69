//===- TensorAccessMethods.cpp - Modules that fill a tensor table ---------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "TensorAccessMethods.h"

#include <cstdint>
#include <vector>

namespace {

/// The table of `module`, or null with RuntimeError set.
const PwTensorAccess *accessOf(PyObject *module) {
  auto *state = static_cast<TensorAccessState *>(PyModule_GetState(module));
  if (state && state->access)
    return state->access;
  if (!PyErr_Occurred())
    PyErr_SetString(PyExc_RuntimeError,
                    "this tensor reader has no table (bind() first)");
  return nullptr;
}

/// A new tuple of `count` integers, or null with an error set.
PyObject *toTuple(const int64_t *values, int64_t count) {
  PyObject *tuple = PyTuple_New(count);
  if (!tuple)
    return nullptr;
  for (int64_t d = 0; d < count; ++d) {
    PyObject *value = PyLong_FromLongLong(values[d]);
    if (!value) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SetItem(tuple, d, value);
  }
  return tuple;
}

PyObject *table(PyObject *module, PyObject *) {
  const PwTensorAccess *access = accessOf(module);
  return access ? PyLong_FromVoidPtr(const_cast<PwTensorAccess *>(access))
                : nullptr;
}

PyObject *probe(PyObject *module, PyObject *tensor) {
  const PwTensorAccess *access = accessOf(module);
  if (!access)
    return nullptr;
  PwTensorView view;
  if (!access->read(tensor, &view))
    Py_RETURN_NONE;
  PyObject *sizes = toTuple(view.sizes, view.rank);
  if (!sizes)
    return nullptr;
  PyObject *strides = toTuple(view.strides, view.rank);
  if (!strides) {
    Py_DECREF(sizes);
    return nullptr;
  }
  return Py_BuildValue("(KNiiON)", static_cast<unsigned long long>(view.data),
                       sizes, view.scalarType, view.device,
                       view.contiguous ? Py_True : Py_False, strides);
}

PyObject *empty(PyObject *module, PyObject *args) {
  const PwTensorAccess *access = accessOf(module);
  if (!access)
    return nullptr;
  PyObject *sizesObject;
  int scalarType, device;
  if (!PyArg_ParseTuple(args, "O!ii:empty", &PyTuple_Type, &sizesObject,
                        &scalarType, &device))
    return nullptr;
  Py_ssize_t rank = PyTuple_Size(sizesObject);
  std::vector<int64_t> sizes(rank);
  for (Py_ssize_t d = 0; d < rank; ++d) {
    sizes[d] = PyLong_AsLongLong(PyTuple_GetItem(sizesObject, d));
    if (PyErr_Occurred())
      return nullptr;
  }
  uint64_t data = 0;
  PyObject *result =
      access->emptyContiguous(sizes.data(), rank, scalarType, device, &data);
  if (!result) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_RuntimeError, "empty: allocation failed");
    return nullptr;
  }
  return Py_BuildValue("(NK)", result, static_cast<unsigned long long>(data));
}

PyObject *stream(PyObject *module, PyObject *device) {
  const PwTensorAccess *access = accessOf(module);
  if (!access)
    return nullptr;
  long index = PyLong_AsLong(device);
  if (index == -1 && PyErr_Occurred())
    return nullptr;
  if (index < 0 || index > INT32_MAX) {
    PyErr_Format(PyExc_ValueError, "stream: no device %ld", index);
    return nullptr;
  }
  void *found = access->currentStream(static_cast<int32_t>(index));
  if (!found && PyErr_Occurred())
    return nullptr;
  return PyLong_FromVoidPtr(found);
}

PyMethodDef commonMethods[] = {
    {"table", table, METH_NOARGS,
     "table() -> int: the address of the tensor access table."},
    {"probe", probe, METH_O,
     "probe(tensor) -> (data, sizes, dtype code, device, contiguous, "
     "strides) or None."},
    {"empty", empty, METH_VARARGS,
     "empty(sizes, dtype code, device) -> a new contiguous CUDA tensor and "
     "its address."},
    {"stream", stream, METH_O, "stream(device) -> the current stream."},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyObject *createTensorAccessModule(PyModuleDef *definition,
                                   const PwTensorAccess *access) {
  PyObject *module = PyModule_Create(definition);
  if (!module)
    return nullptr;
  if (PyModule_AddFunctions(module, commonMethods) < 0) {
    Py_DECREF(module);
    return nullptr;
  }
  setTensorAccess(module, access);
  return module;
}

void setTensorAccess(PyObject *module, const PwTensorAccess *access) {
  static_cast<TensorAccessState *>(PyModule_GetState(module))->access = access;
}
