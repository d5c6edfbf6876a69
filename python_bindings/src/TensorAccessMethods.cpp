//===- TensorAccessMethods.cpp - Python methods over a tensor table -------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "TensorAccessMethods.h"

#include <exception>
#include <vector>

namespace {

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

} // namespace

PyObject *probeTensor(const PwTensorAccess &access, PyObject *tensor) {
  PwTensorView view;
  if (!access.read(tensor, &view))
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

PyObject *emptyTensor(const PwTensorAccess &access, PyObject *args) {
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
      access.emptyContiguous(sizes.data(), rank, scalarType, device, &data);
  if (!result) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_RuntimeError, "empty: allocation failed");
    return nullptr;
  }
  return Py_BuildValue("(NK)", result, static_cast<unsigned long long>(data));
}

PyObject *currentStreamOf(const PwTensorAccess &access, PyObject *device) {
  long index = PyLong_AsLong(device);
  if (index == -1 && PyErr_Occurred())
    return nullptr;
  try {
    return PyLong_FromVoidPtr(
        access.currentStream(static_cast<int32_t>(index)));
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
    return nullptr;
  }
}
