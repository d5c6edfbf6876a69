//===- TensorAccessMethods.h - Python methods over a tensor table -*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The methods through which the package checks a tensor access table
// (TensorAccess.h) against torch's attributes before the call path uses it
// (pointwise._native._check_torch_tensors): the same for every module that
// fills one (TorchTensors.cpp, TorchShim.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_PYTHON_TENSORACCESSMETHODS_H
#define POINTWISE_PYTHON_TENSORACCESSMETHODS_H

#include "TensorAccess.h"

/// probe(tensor) -> None, or (data address, sizes, dtype code, device,
/// contiguous, strides) as `access` reads them. `tensor` must be an exact
/// torch.Tensor (the caller checks).
PyObject *probeTensor(const PwTensorAccess &access, PyObject *tensor);

/// empty(sizes, dtype code, device) -> (torch.Tensor, address of its first
/// element as `access` reports it): the table's allocation.
PyObject *emptyTensor(const PwTensorAccess &access, PyObject *args);

/// stream(device) -> int: the table's current stream.
PyObject *currentStreamOf(const PwTensorAccess &access, PyObject *device);

#endif // POINTWISE_PYTHON_TENSORACCESSMETHODS_H
