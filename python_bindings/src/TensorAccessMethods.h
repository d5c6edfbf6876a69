//===- TensorAccessMethods.h - Modules that fill a tensor table -*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// What every module that fills a tensor access table (TensorAccess.h) has
// in common: TorchTensors.cpp and TorchShim.cpp. The module's state holds
// its table; the methods below read it, for the package to hand the table
// to the call path (`table`) and to check it against torch's attributes
// first (`probe`, `empty`, `stream`; pointwise._native._check_torch_tensors).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_PYTHON_TENSORACCESSMETHODS_H
#define POINTWISE_PYTHON_TENSORACCESSMETHODS_H

#include "TensorAccess.h"

/// The state of such a module (its PyModuleDef's m_size).
struct TensorAccessState {
  /// The module's table; null until it has one.
  const PwTensorAccess *access;
};

/// The definition of such a module, named `name`, with its own `methods`.
inline PyModuleDef tensorAccessModuleDef(const char *name, const char *doc,
                                         PyMethodDef *methods) {
  return {PyModuleDef_HEAD_INIT,
          name,
          doc,
          sizeof(TensorAccessState),
          methods,
          nullptr,
          nullptr,
          nullptr,
          nullptr};
}

/// A new module of `definition` (from tensorAccessModuleDef) with the
/// common methods added:
///   table() -> int: the table's address;
///   probe(tensor) -> None, or (data address, sizes, dtype code, device,
///     contiguous, strides) as the table reads an exact torch.Tensor;
///   empty(sizes, dtype code, device) -> (torch.Tensor, address of its first
///     element as the table reports it): the table's allocation;
///   stream(device) -> int: the table's current stream.
/// Each raises RuntimeError while the module has no table. Null with an
/// error set on failure.
PyObject *createTensorAccessModule(PyModuleDef *definition,
                                   const PwTensorAccess *access);

/// Gives `module` (made by createTensorAccessModule) its table.
void setTensorAccess(PyObject *module, const PwTensorAccess *access);

#endif // POINTWISE_PYTHON_TENSORACCESSMETHODS_H
