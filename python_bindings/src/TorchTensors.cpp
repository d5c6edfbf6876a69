//===- TorchTensors.cpp - PyTorch tensors for the C call path -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// `pointwise._torchtensors`: fills the table of TensorAccess.h for PyTorch,
// so that the C call paths read sizes, strides, dtype, device and data
// pointer from the tensor itself, allocate outputs with ATen's CUDA
// allocator and take the current stream from c10, where Python attribute
// reads cost about 0.1-0.2 µs each (docs/Performance.md, row
// `torch-tensor-reader`).
//
// Built against one torch version's C++ headers (PW_TORCH_VERSION and
// PW_TORCH_GIT name it) and Python's stable ABI 3.11. Python's own headers
// are used in their limited form, so torch's Python-facing headers (which
// need the full API) are not included: the layout of THPVariable below
// mirrors torch/csrc/autograd/python_variable.h of that version. The package
// loads this module only when the running torch is that very version, and
// only after `probe` reads a tensor it made exactly as torch's attributes
// describe it; otherwise the call path keeps reading attributes.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "TensorAccess.h"
#include "TensorAccessMethods.h"

#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAContextLight.h>
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

#ifndef PW_TORCH_VERSION
#error "PW_TORCH_VERSION (torch.__version__ of the headers) must be defined"
#endif
#ifndef PW_TORCH_GIT
#error "PW_TORCH_GIT (torch.version.git_version of the headers) must be defined"
#endif

/// libtorch_python's wrapper of a tensor into a new torch.Tensor reference.
__attribute__((visibility("default"))) PyObject *
THPVariable_Wrap(const at::TensorBase &var);

namespace {

/// torch.Tensor's instance layout (python_variable.h, struct THPVariable).
struct TorchVariable {
  PyObject_HEAD;
  at::Tensor cdata;
};

const at::Tensor &unpack(PyObject *tensor) {
  return reinterpret_cast<TorchVariable *>(tensor)->cdata;
}

int readTensor(PyObject *tensor, PwTensorView *view) try {
  const at::Tensor &t = unpack(tensor);
  if (!t.defined() || !t.is_cuda() || t.is_sparse() || t.is_quantized() ||
      t.is_neg() || t.is_conj() || !t.has_storage())
    return 0;
  c10::IntArrayRef sizes = t.sizes();
  // As Tensor.data_ptr() reads it: a copy-on-write tensor gets its own
  // storage first, since outputs are written through this address.
  view->data = reinterpret_cast<uint64_t>(t.mutable_data_ptr());
  view->sizes = sizes.data();
  view->strides = t.strides().data();
  view->rank = static_cast<int64_t>(sizes.size());
  view->scalarType = static_cast<int32_t>(t.scalar_type());
  view->device = t.get_device();
  view->contiguous = t.is_contiguous();
  return 1;
} catch (...) {
  // A tensor whose sizes ATen will not give (a nested tensor): the
  // attribute path decides.
  return 0;
}

PyObject *emptyContiguous(const int64_t *sizes, int64_t rank,
                          int32_t scalarType, int32_t device, uint64_t *data) {
  try {
    c10::IntArrayRef shape(sizes, static_cast<size_t>(rank));
    auto type = static_cast<c10::ScalarType>(scalarType);
    // On the current device, which is where a call's inputs live unless the
    // caller moved it, empty_cuda comes down to empty_generic with the CUDA
    // allocator; its device guard would read the device twice more and set
    // it back, about 0.1 µs of an allocating call (docs/Performance.md, row
    // `torch-empty-current-device`). The tensors given prove CUDA
    // initialized.
    at::Tensor made;
    if (c10::cuda::current_device() == device) {
      constexpr c10::DispatchKeySet cuda(c10::DispatchKey::CUDA);
      made =
          at::detail::empty_generic(shape, at::cuda::getCUDADeviceAllocator(),
                                    cuda, type, c10::MemoryFormat::Contiguous);
    } else {
      made = at::detail::empty_cuda(
          shape, type,
          c10::Device(c10::DeviceType::CUDA,
                      static_cast<c10::DeviceIndex>(device)),
          c10::MemoryFormat::Contiguous);
    }
    *data = reinterpret_cast<uint64_t>(made.const_data_ptr());
    return THPVariable_Wrap(std::move(made));
  } catch (...) {
    // Out of memory and the like: the caller falls back to torch's own
    // allocation, which raises torch's exception.
    return nullptr;
  }
}

void *currentStream(int32_t device) try {
  return c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device))
      .stream();
} catch (const std::exception &error) {
  // A device index c10 refuses.
  PyErr_SetString(PyExc_RuntimeError, error.what());
  return nullptr;
}

const PwTensorAccess tensorAccess = {kTensorAccessVersion, readTensor,
                                     emptyContiguous, currentStream};

/// built_for() -> (torch version, torch git version, table version).
PyObject *builtFor(PyObject *, PyObject *) {
  return Py_BuildValue("(ssI)", PW_TORCH_VERSION, PW_TORCH_GIT,
                       kTensorAccessVersion);
}

PyMethodDef moduleMethods[] = {
    {"built_for", builtFor, METH_NOARGS,
     "built_for() -> (torch version, git version, table version)."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDefinition = tensorAccessModuleDef(
    "pointwise._torchtensors", "PyTorch tensors for the C call path.",
    moduleMethods);

} // namespace

PyMODINIT_FUNC PyInit__torchtensors() {
  return createTensorAccessModule(&moduleDefinition, &tensorAccess);
}
