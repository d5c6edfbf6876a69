//===- TorchShim.cpp - PyTorch tensors through torch's stable C shim ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// `pointwise._torchshim`: fills the table of TensorAccess.h for any torch
// release whose libraries export the AOTInductor C shim
// (torch/csrc/inductor/aoti_torch/c/shim.h: aoti_torch_get_sizes,
// aoti_torch_empty_strided, aoti_torch_get_current_cuda_stream...), where
// pointwise._torchtensors (TorchTensors.cpp, built against one release's
// headers) is not built for the running torch. It is built without torch:
// `bind` looks the functions up in the torch libraries the process has
// loaded, with a few that are C++ but whose names have not changed across
// releases: at::native::is_neg and at::native::is_conj (the kernels
// themselves, which read the tensor's bits without a trip through the
// dispatcher; at::_ops::is_neg::call and is_conj::call where a release
// lacks them: a tensor whose negative or conjugate bit is set goes the
// attribute path, which resolves it) and THPVariable_Wrap (a new
// torch.Tensor of an ATen tensor). Outputs on the current device come from
// at::detail::empty_generic with the CUDA allocator, given the key set of
// a CUDA tensor, which the package reads from torch
// (`torch._C.DispatchKeySet`) and the check compares with a tensor torch
// made; elsewhere, or where that is missing, from at::detail::empty_cuda
// where the release exports it under the name of its std::optional
// signature; else from the shim (docs/Performance.md, rows
// `torch-shim-empty-cuda` and `torch-empty-current-device`).
//
// An AtenTensorHandle is an `at::Tensor *`, and a torch.Tensor object holds
// its at::Tensor (one pointer to the TensorImpl) at a fixed offset, which
// the package finds by looking for `Tensor._cdata` (the TensorImpl's
// address) in the object and hands to `bind`. Before the call path uses the
// table, the package compares what `probe` reads with torch's attributes
// (pointwise._native._check_torch_tensors), as it does for
// pointwise._torchtensors.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "TensorAccess.h"
#include "TensorAccessMethods.h"

#include <dlfcn.h>

#include <cstdint>
#include <initializer_list>
#include <string>

namespace {

/// An AtenTensorHandle: the address of an at::Tensor.
using TensorHandle = void *;
/// An AOTITorchError: 0 on success.
using ShimError = int32_t;

/// The arguments and result of at::detail::empty_cuda, as the Itanium ABI
/// passes them; the mangled name `bind` looks up fixes their C++ types.
/// c10::ArrayRef<int64_t>: a pointer and a length.
struct ArrayRefArgument {
  const int64_t *data;
  size_t length;
};
/// std::optional<c10::Device>: DeviceType and DeviceIndex (int8_t each),
/// then whether it holds one.
struct OptionalDevice {
  int8_t type;
  int8_t index;
  bool engaged;
};
/// std::optional<c10::MemoryFormat>: the format (int8_t), then whether it
/// holds one. Disengaged means contiguous.
struct OptionalMemoryFormat {
  int8_t format;
  bool engaged;
};
/// c10::DispatchKeySet: its 64 bits.
struct KeySetArgument {
  uint64_t repr;
};
/// at::Tensor: one pointer to the TensorImpl. Its destructor is not
/// trivial, so it is returned through a pointer the caller passes, as
/// at::Tensor is; the object is released with aoti_torch_delete_tensor_object
/// (an AtenTensorHandle is an at::Tensor allocated with new), never by this
/// destructor.
struct ReturnedTensor {
  void *impl;
  ~ReturnedTensor() {}
};

/// The functions `bind` looks up.
struct ShimFunctions {
  ShimError (*getDataPtr)(TensorHandle, void **);
  ShimError (*getDim)(TensorHandle, int64_t *);
  ShimError (*getSizes)(TensorHandle, int64_t **);
  ShimError (*getStrides)(TensorHandle, int64_t **);
  ShimError (*getDtype)(TensorHandle, int32_t *);
  ShimError (*getDeviceType)(TensorHandle, int32_t *);
  ShimError (*getDeviceIndex)(TensorHandle, int32_t *);
  /// Null where the release lacks it (before torch 2.9): see readTensor.
  ShimError (*getLayout)(TensorHandle, int32_t *);
  ShimError (*emptyStrided)(int64_t, const int64_t *, const int64_t *, int32_t,
                            int32_t, int32_t, TensorHandle *);
  ShimError (*deleteTensor)(TensorHandle);
  ShimError (*currentCudaStream)(int32_t, void **);
  int32_t (*deviceTypeCuda)();
  int32_t (*layoutStrided)();
  /// at::native::is_neg and is_conj, else at::_ops::is_neg::call and
  /// is_conj::call (const at::Tensor &).
  bool (*isNeg)(TensorHandle);
  bool (*isConj)(TensorHandle);
  /// at::detail::empty_cuda(IntArrayRef, ScalarType, optional<Device>,
  /// optional<MemoryFormat>), or null: outputs then come from emptyStrided.
  struct ReturnedTensor (*emptyCuda)(struct ArrayRefArgument, int8_t,
                                     struct OptionalDevice,
                                     struct OptionalMemoryFormat);
  /// at::detail::empty_generic(IntArrayRef, Allocator *, DispatchKeySet,
  /// ScalarType, optional<MemoryFormat>), at::cuda::getCUDADeviceAllocator
  /// and c10::cuda::current_device, or null (all three or none): outputs
  /// on the current device then come from emptyCuda.
  struct ReturnedTensor (*emptyGeneric)(struct ArrayRefArgument, void *,
                                        struct KeySetArgument, int8_t,
                                        struct OptionalMemoryFormat);
  void *(*cudaAllocator)();
  int8_t (*currentDevice)();
  /// THPVariable_Wrap (const at::TensorBase &, or by value in older
  /// releases, which the Itanium ABI passes as the address of a copy the
  /// caller owns and destroys: the same call).
  PyObject *(*wrap)(TensorHandle);
};

ShimFunctions shim;
/// Offset of the at::Tensor in a torch.Tensor object.
Py_ssize_t tensorOffset = 0;
int32_t cudaDeviceType = 0;
/// DispatchKeySet(DispatchKey::CUDA) as torch computes it; 0 when the
/// package could not read it, and outputs come from emptyCuda.
uint64_t cudaKeySet = 0;
int32_t stridedLayout = 0;
/// torch's complex scalar types (aoti_torch_dtype_complex32, 64, 128), when
/// the release exports all three.
int32_t complexTypes[3] = {};
bool complexTypesKnown = false;

/// The largest rank the shim allocates (torch allows 64 dimensions).
constexpr int64_t kMaxRank = 64;

TensorHandle handleOf(PyObject *tensor) {
  return reinterpret_cast<char *>(tensor) + tensorOffset;
}

/// PyTorch's is_contiguous: dense row-major, ignoring dimensions of size 1;
/// an empty tensor is contiguous.
bool isContiguous(const int64_t *sizes, const int64_t *strides, int64_t rank) {
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return true;
  int64_t expected = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (sizes[d] == 1)
      continue;
    if (strides[d] != expected)
      return false;
    expected *= sizes[d];
  }
  return true;
}

/// Whether a tensor of `scalarType` can have its conjugate bit set: a
/// complex one, or any when the release does not name its complex types.
bool mayBeConjugate(int32_t scalarType) {
  if (!complexTypesKnown)
    return true;
  for (int32_t complex : complexTypes)
    if (scalarType == complex)
      return true;
  return false;
}

int readTensor(PyObject *tensor, PwTensorView *view) {
  TensorHandle t = handleOf(tensor);
  try {
    int32_t deviceType = -1, layout = -1, scalarType = -1;
    // Only a complex tensor carries a conjugate bit: is_conj is asked of
    // those alone. Without aoti_torch_get_layout a tensor of another layout
    // than strided (sparse, which is all a CUDA tensor can be) is turned
    // away below by aoti_torch_get_strides, which those layouts refuse
    // (torch logs the refusal).
    if (shim.getDeviceType(t, &deviceType) || deviceType != cudaDeviceType ||
        (shim.getLayout &&
         (shim.getLayout(t, &layout) || layout != stridedLayout)) ||
        shim.getDtype(t, &scalarType) || shim.isNeg(t) ||
        (mayBeConjugate(scalarType) && shim.isConj(t)))
      return 0;
    int64_t rank = 0;
    int64_t *sizes = nullptr, *strides = nullptr;
    int32_t device = -1;
    void *data = nullptr;
    if (shim.getDim(t, &rank) || shim.getSizes(t, &sizes) ||
        shim.getStrides(t, &strides) || shim.getDeviceIndex(t, &device) ||
        shim.getDataPtr(t, &data))
      return 0;
    view->data = reinterpret_cast<uint64_t>(data);
    view->sizes = sizes;
    view->strides = strides;
    view->rank = rank;
    view->scalarType = scalarType;
    view->device = device;
    view->contiguous = isContiguous(sizes, strides, rank);
    return 1;
  } catch (...) {
    return 0; // not a tensor this path handles; the attribute path decides
  }
}

/// A torch.Tensor of the ATen tensor `made` (an AtenTensorHandle this
/// function deletes), with its data address in `data`; null and no error
/// set on failure.
PyObject *wrapAndRelease(TensorHandle made, uint64_t *data) {
  void *address = nullptr;
  PyObject *wrapped = nullptr;
  try {
    if (!shim.getDataPtr(made, &address))
      wrapped = shim.wrap(made);
  } catch (...) {
    wrapped = nullptr;
  }
  shim.deleteTensor(made);
  if (!wrapped) {
    PyErr_Clear(); // the table's contract: null and no error set
    return nullptr;
  }
  *data = reinterpret_cast<uint64_t>(address);
  return wrapped;
}

/// A torch.Tensor of the at::Tensor that `make` returns, with its data
/// address in `data`; null and no error set on failure.
template <typename Make> PyObject *wrapReturned(Make make, uint64_t *data) {
  // The handle aoti_torch_delete_tensor_object deletes: an at::Tensor in
  // storage from the global operator new, which `make`'s result fills.
  void *slot = ::operator new(sizeof(ReturnedTensor));
  try {
    new (slot) ReturnedTensor(make());
  } catch (...) {
    // Out of memory and the like: the caller falls back to torch's own
    // allocation, which raises torch's exception.
    ::operator delete(slot);
    return nullptr;
  }
  return wrapAndRelease(slot, data);
}

PyObject *emptyThroughShim(const int64_t *sizes, int64_t rank,
                           int32_t scalarType, int32_t device, uint64_t *data);

/// emptyContiguous through ATen: on the current device (where the call's
/// inputs live unless the caller moved it) empty_generic with the CUDA
/// allocator, which is what empty_cuda comes down to there without its
/// device guard reading the device twice more and setting it back
/// (docs/Performance.md, row `torch-empty-current-device`); elsewhere
/// empty_cuda, or the shim where the release lacks it.
PyObject *emptyThroughAten(const int64_t *sizes, int64_t rank,
                           int32_t scalarType, int32_t device, uint64_t *data) {
  if (scalarType < INT8_MIN || scalarType > INT8_MAX || device < 0 ||
      device > INT8_MAX)
    return nullptr;
  ArrayRefArgument shape{sizes, static_cast<size_t>(rank)};
  auto type = static_cast<int8_t>(scalarType);
  bool current = false;
  if (shim.emptyGeneric) {
    try {
      current = shim.currentDevice() == device;
    } catch (...) {
      current = false; // empty_cuda's guard raises what is wrong
    }
  }
  if (current)
    return wrapReturned(
        [&] {
          return shim.emptyGeneric(shape, shim.cudaAllocator(), {cudaKeySet},
                                   type, {0, false});
        },
        data);
  if (!shim.emptyCuda)
    return emptyThroughShim(sizes, rank, scalarType, device, data);
  return wrapReturned(
      [&] {
        return shim.emptyCuda(shape, type,
                              {static_cast<int8_t>(cudaDeviceType),
                               static_cast<int8_t>(device), true},
                              {0, false});
      },
      data);
}

/// emptyContiguous through aoti_torch_empty_strided.
PyObject *emptyThroughShim(const int64_t *sizes, int64_t rank,
                           int32_t scalarType, int32_t device, uint64_t *data) {
  int64_t strides[kMaxRank];
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= sizes[d] > 1 ? sizes[d] : 1;
  }
  TensorHandle made = nullptr;
  // Out of memory and the like: the caller falls back to torch's own
  // allocation, which raises torch's exception.
  if (shim.emptyStrided(rank, sizes, strides, scalarType, cudaDeviceType,
                        device, &made) ||
      !made)
    return nullptr;
  return wrapAndRelease(made, data);
}

PyObject *emptyContiguous(const int64_t *sizes, int64_t rank,
                          int32_t scalarType, int32_t device, uint64_t *data) {
  if (rank < 0 || rank > kMaxRank)
    return nullptr;
  return shim.emptyCuda || shim.emptyGeneric
             ? emptyThroughAten(sizes, rank, scalarType, device, data)
             : emptyThroughShim(sizes, rank, scalarType, device, data);
}

void *currentStream(int32_t device) {
  void *stream = nullptr;
  // torch's device indices are 8-bit: a larger one would name another.
  if (device < 0 || device > INT8_MAX ||
      shim.currentCudaStream(device, &stream)) {
    PyErr_Format(PyExc_RuntimeError,
                 "torch's C shim gave no current CUDA stream for device %d",
                 static_cast<int>(device));
    return nullptr;
  }
  return stream;
}

const PwTensorAccess tensorAccess = {kTensorAccessVersion, readTensor,
                                     emptyContiguous, currentStream};

/// Looks `name` up in `library`; records it in `missing` when absent.
template <typename Function>
void lookUp(void *library, const char *name, Function &function,
            std::string &missing) {
  function =
      library ? reinterpret_cast<Function>(dlsym(library, name)) : nullptr;
  if (!function)
    missing += std::string(missing.empty() ? "" : ", ") + name;
}

/// Looks up the first of `names` that `library` has; records the last one
/// in `missing` when it has none.
template <typename Function>
void lookUpFirst(void *library, std::initializer_list<const char *> names,
                 Function &function, std::string &missing) {
  std::string absent;
  for (const char *name : names) {
    absent.clear();
    lookUp(library, name, function, absent);
    if (function)
      return;
  }
  missing += (missing.empty() ? "" : ", ") + absent;
}

/// bind(libtorch_cpu path, libtorch_cuda path, libtorch_python path, offset
/// of the at::Tensor in a torch.Tensor[, CUDA key set]) -> None, or a
/// message saying what is missing. The libraries must be loaded already
/// (import torch). The key set is DispatchKeySet(DispatchKey::CUDA)'s bits
/// (0, the default: outputs come from empty_cuda).
PyObject *bind(PyObject *module, PyObject *args) {
  const char *cpuPath, *cudaPath, *pythonPath;
  Py_ssize_t offset;
  unsigned long long keySet = 0;
  if (!PyArg_ParseTuple(args, "yyyn|K:bind", &cpuPath, &cudaPath, &pythonPath,
                        &offset, &keySet))
    return nullptr;
  // The table reads the functions below without a lock: they are set once.
  if (static_cast<TensorAccessState *>(PyModule_GetState(module))->access)
    return PyUnicode_FromString("bound already");
  if (offset < static_cast<Py_ssize_t>(sizeof(PyObject)) ||
      offset % static_cast<Py_ssize_t>(alignof(void *)) != 0)
    return PyUnicode_FromFormat("bad tensor offset %zd", offset);
  std::string missing;
  int flags = RTLD_NOW | RTLD_NOLOAD;
  void *cpu = dlopen(cpuPath, flags);
  void *cuda = dlopen(cudaPath, flags);
  void *python = dlopen(pythonPath, flags);
  if (!cpu || !cuda || !python) {
    std::string message = "torch's libraries are not loaded:";
    for (auto [library, path] :
         {std::pair{cpu, cpuPath}, {cuda, cudaPath}, {python, pythonPath}})
      if (!library)
        message += std::string(" ") + path;
    for (void *library : {cpu, cuda, python})
      if (library)
        dlclose(library);
    return PyUnicode_FromString(message.c_str());
  }
  ShimFunctions found{};
  lookUp(cpu, "aoti_torch_get_data_ptr", found.getDataPtr, missing);
  lookUp(cpu, "aoti_torch_get_dim", found.getDim, missing);
  lookUp(cpu, "aoti_torch_get_sizes", found.getSizes, missing);
  lookUp(cpu, "aoti_torch_get_strides", found.getStrides, missing);
  lookUp(cpu, "aoti_torch_get_dtype", found.getDtype, missing);
  lookUp(cpu, "aoti_torch_get_device_type", found.getDeviceType, missing);
  lookUp(cpu, "aoti_torch_get_device_index", found.getDeviceIndex, missing);
  lookUp(cpu, "aoti_torch_empty_strided", found.emptyStrided, missing);
  lookUp(cpu, "aoti_torch_delete_tensor_object", found.deleteTensor, missing);
  lookUp(cpu, "aoti_torch_device_type_cuda", found.deviceTypeCuda, missing);
  lookUp(cpu, "aoti_torch_layout_strided", found.layoutStrided, missing);
  lookUpFirst(cpu,
              {"_ZN2at6native6is_negERKNS_6TensorE",
               "_ZN2at4_ops6is_neg4callERKNS_6TensorE"},
              found.isNeg, missing);
  lookUpFirst(cpu,
              {"_ZN2at6native7is_conjERKNS_6TensorE",
               "_ZN2at4_ops7is_conj4callERKNS_6TensorE"},
              found.isConj, missing);
  lookUp(cuda, "aoti_torch_get_current_cuda_stream", found.currentCudaStream,
         missing);
  // Optional: releases whose empty_cuda takes c10's own optional type have
  // it under another name, and allocate through the shim.
  std::string optional;
  int32_t (*complexType[3])() = {};
  lookUp(cpu, "aoti_torch_get_layout", found.getLayout, optional);
  lookUp(cpu, "aoti_torch_dtype_complex32", complexType[0], optional);
  lookUp(cpu, "aoti_torch_dtype_complex64", complexType[1], optional);
  lookUp(cpu, "aoti_torch_dtype_complex128", complexType[2], optional);
  lookUp(cuda,
         "_ZN2at6detail10empty_cudaEN3c108ArrayRefIlEENS1_10ScalarTypeESt8"
         "optionalINS1_6DeviceEES5_INS1_12MemoryFormatEE",
         found.emptyCuda, optional);
  std::string genericMissing;
  lookUp(cpu,
         "_ZN2at6detail13empty_genericEN3c108ArrayRefIlEEPNS1_9AllocatorENS1_"
         "14DispatchKeySetENS1_10ScalarTypeESt8optionalINS1_12MemoryFormatEE",
         found.emptyGeneric, genericMissing);
  lookUp(cuda, "_ZN2at4cuda22getCUDADeviceAllocatorEv", found.cudaAllocator,
         genericMissing);
  lookUp(cuda, "_ZN3c104cuda14current_deviceEv", found.currentDevice,
         genericMissing);
  if (!genericMissing.empty() || keySet == 0) {
    found.emptyGeneric = nullptr;
    found.cudaAllocator = nullptr;
    found.currentDevice = nullptr;
  }
  std::string wrapMissing;
  lookUp(python, "_Z16THPVariable_WrapRKN2at10TensorBaseE", found.wrap,
         wrapMissing);
  if (!found.wrap)
    lookUp(python, "_Z16THPVariable_WrapN2at10TensorBaseE", found.wrap,
           missing);
  // The libraries stay loaded while torch is: the handles can go.
  for (void *library : {cpu, cuda, python})
    dlclose(library);
  if (!missing.empty())
    return PyUnicode_FromString(
        ("not in torch's libraries: " + missing).c_str());
  shim = found;
  tensorOffset = offset;
  cudaKeySet = found.emptyGeneric ? keySet : 0;
  cudaDeviceType = shim.deviceTypeCuda();
  stridedLayout = shim.layoutStrided();
  complexTypesKnown = complexType[0] && complexType[1] && complexType[2];
  for (int i = 0; complexTypesKnown && i < 3; ++i)
    complexTypes[i] = complexType[i]();
  setTensorAccess(module, &tensorAccess);
  Py_RETURN_NONE;
}

/// allocator() -> the functions outputs are allocated with, or None before
/// bind.
PyObject *allocator(PyObject *module, PyObject *) {
  if (!static_cast<TensorAccessState *>(PyModule_GetState(module))->access)
    Py_RETURN_NONE;
  const char *elsewhere =
      shim.emptyCuda ? "at::detail::empty_cuda" : "aoti_torch_empty_strided";
  if (!shim.emptyGeneric)
    return PyUnicode_FromString(elsewhere);
  return PyUnicode_FromFormat(
      "at::detail::empty_generic on the current device, %s elsewhere",
      elsewhere);
}

PyMethodDef moduleMethods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(libtorch_cpu, libtorch_cuda, libtorch_python, tensor offset[, "
     "CUDA key set]) -> None, or what is missing."},
    {"allocator", allocator, METH_NOARGS,
     "allocator() -> the functions outputs are allocated with, or None "
     "before bind."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDefinition = tensorAccessModuleDef(
    "pointwise._torchshim", "PyTorch tensors through torch's C shim.",
    moduleMethods);

} // namespace

PyMODINIT_FUNC PyInit__torchshim() {
  // No table until bind() finds what it needs.
  return createTensorAccessModule(&moduleDefinition, nullptr);
}
