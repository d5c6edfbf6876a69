//===- TensorAccess.h - Reading framework tensors without Python ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The table through which the C call path (FastCall.cpp) reads a framework's
// tensors, allocates outputs and finds the current stream without going
// through Python attributes. TorchTensors.cpp fills it for PyTorch; the
// Python side hands its address to `_fastcall.bind_tensors`. Plain C types
// only: the two modules are built separately (the torch one per torch
// version).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_PYTHON_TENSORACCESS_H
#define POINTWISE_PYTHON_TENSORACCESS_H

#include <cstdint>

/// Bumped whenever the layout of the structs below changes.
constexpr uint32_t kTensorAccessVersion = 3;

/// What the call path needs to know of one tensor.
struct PwTensorView {
  uint64_t data;          // address of the first element
  const int64_t *sizes;   // `rank` sizes, valid while the tensor lives
  const int64_t *strides; // `rank` strides in elements, likewise
  int64_t rank;
  int32_t scalarType; // the framework's dtype code
  int32_t device;     // CUDA device index
  int32_t contiguous; // row-major dense
};

struct PwTensorAccess {
  uint32_t version; // kTensorAccessVersion
  /// 1 with `view` filled when `tensor` is a CUDA tensor of the framework,
  /// 0 (no Python error set) when the call path should not handle it.
  int (*read)(PyObject *tensor, PwTensorView *view);
  /// A new contiguous CUDA tensor of `rank` sizes, dtype code `scalarType`,
  /// on `device`, on the framework's current stream, with the address of its
  /// first element in `*data` (so that the caller need not read it back);
  /// null (no Python error set) when it could not be made: the caller then
  /// falls back.
  PyObject *(*emptyContiguous)(const int64_t *sizes, int64_t rank,
                               int32_t scalarType, int32_t device,
                               uint64_t *data);
  /// The framework's current stream on `device`; null is its legacy default
  /// stream. Null with a Python error set when the stream cannot be found:
  /// the caller then raises rather than launch on another stream.
  void *(*currentStream)(int32_t device);
};

#endif // POINTWISE_PYTHON_TENSORACCESS_H
