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
// loaded, with three that are C++ but whose names have not changed across
// releases: at::_ops::is_neg::call and at::_ops::is_conj::call (a tensor
// whose negative or conjugate bit is set goes the attribute path, which
// resolves it) and THPVariable_Wrap (a new torch.Tensor of an ATen tensor).
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
#include <string>

namespace {

/// An AtenTensorHandle: the address of an at::Tensor.
using TensorHandle = void *;
/// An AOTITorchError: 0 on success.
using ShimError = int32_t;

/// The functions `bind` looks up.
struct ShimFunctions {
  ShimError (*getDataPtr)(TensorHandle, void **);
  ShimError (*getDim)(TensorHandle, int64_t *);
  ShimError (*getSizes)(TensorHandle, int64_t **);
  ShimError (*getStrides)(TensorHandle, int64_t **);
  ShimError (*getDtype)(TensorHandle, int32_t *);
  ShimError (*getDeviceType)(TensorHandle, int32_t *);
  ShimError (*getDeviceIndex)(TensorHandle, int32_t *);
  ShimError (*getLayout)(TensorHandle, int32_t *);
  ShimError (*emptyStrided)(int64_t, const int64_t *, const int64_t *, int32_t,
                            int32_t, int32_t, TensorHandle *);
  ShimError (*deleteTensor)(TensorHandle);
  ShimError (*currentCudaStream)(int32_t, void **);
  int32_t (*deviceTypeCuda)();
  int32_t (*layoutStrided)();
  /// at::_ops::is_neg::call and is_conj::call (const at::Tensor &).
  bool (*isNeg)(TensorHandle);
  bool (*isConj)(TensorHandle);
  /// THPVariable_Wrap (const at::TensorBase &, or by value in older
  /// releases, which the Itanium ABI passes as the address of a copy the
  /// caller owns and destroys: the same call).
  PyObject *(*wrap)(TensorHandle);
};

ShimFunctions shim;
/// Offset of the at::Tensor in a torch.Tensor object.
Py_ssize_t tensorOffset = 0;
int32_t cudaDeviceType = 0;
int32_t stridedLayout = 0;

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

int readTensor(PyObject *tensor, PwTensorView *view) {
  TensorHandle t = handleOf(tensor);
  try {
    int32_t deviceType = -1, layout = -1;
    if (shim.getDeviceType(t, &deviceType) || deviceType != cudaDeviceType ||
        shim.getLayout(t, &layout) || layout != stridedLayout ||
        shim.isNeg(t) || shim.isConj(t))
      return 0;
    int64_t rank = 0;
    int64_t *sizes = nullptr, *strides = nullptr;
    int32_t scalarType = -1, device = -1;
    void *data = nullptr;
    if (shim.getDim(t, &rank) || shim.getSizes(t, &sizes) ||
        shim.getStrides(t, &strides) || shim.getDtype(t, &scalarType) ||
        shim.getDeviceIndex(t, &device) || shim.getDataPtr(t, &data))
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

PyObject *emptyContiguous(const int64_t *sizes, int64_t rank,
                          int32_t scalarType, int32_t device, uint64_t *data) {
  if (rank < 0 || rank > kMaxRank)
    return nullptr;
  int64_t strides[kMaxRank];
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= sizes[d] > 1 ? sizes[d] : 1;
  }
  TensorHandle made = nullptr;
  try {
    // Out of memory and the like: the caller falls back to torch's own
    // allocation, which raises torch's exception.
    if (shim.emptyStrided(rank, sizes, strides, scalarType, cudaDeviceType,
                          device, &made) ||
        !made)
      return nullptr;
    void *address = nullptr;
    PyObject *wrapped = nullptr;
    if (!shim.getDataPtr(made, &address))
      wrapped = shim.wrap(made);
    shim.deleteTensor(made);
    if (!wrapped) {
      PyErr_Clear();
      return nullptr;
    }
    *data = reinterpret_cast<uint64_t>(address);
    return wrapped;
  } catch (...) {
    if (made)
      shim.deleteTensor(made);
    PyErr_Clear(); // the table's contract: null and no error set
    return nullptr;
  }
}

void *currentStream(int32_t device) {
  void *stream = nullptr;
  if (shim.currentCudaStream(device, &stream))
    return nullptr;
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

/// bind(libtorch_cpu path, libtorch_cuda path, libtorch_python path, offset
/// of the at::Tensor in a torch.Tensor) -> None, or a message saying what is
/// missing. The libraries must be loaded already (import torch).
PyObject *bind(PyObject *module, PyObject *args) {
  const char *cpuPath, *cudaPath, *pythonPath;
  Py_ssize_t offset;
  if (!PyArg_ParseTuple(args, "yyyn:bind", &cpuPath, &cudaPath, &pythonPath,
                        &offset))
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
  lookUp(cpu, "aoti_torch_get_layout", found.getLayout, missing);
  lookUp(cpu, "aoti_torch_empty_strided", found.emptyStrided, missing);
  lookUp(cpu, "aoti_torch_delete_tensor_object", found.deleteTensor, missing);
  lookUp(cpu, "aoti_torch_device_type_cuda", found.deviceTypeCuda, missing);
  lookUp(cpu, "aoti_torch_layout_strided", found.layoutStrided, missing);
  lookUp(cpu, "_ZN2at4_ops6is_neg4callERKNS_6TensorE", found.isNeg, missing);
  lookUp(cpu, "_ZN2at4_ops7is_conj4callERKNS_6TensorE", found.isConj, missing);
  lookUp(cuda, "aoti_torch_get_current_cuda_stream", found.currentCudaStream,
         missing);
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
  cudaDeviceType = shim.deviceTypeCuda();
  stridedLayout = shim.layoutStrided();
  setTensorAccess(module, &tensorAccess);
  Py_RETURN_NONE;
}

PyMethodDef moduleMethods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(libtorch_cpu, libtorch_cuda, libtorch_python, tensor offset) -> "
     "None, or what is missing."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDefinition = tensorAccessModuleDef(
    "pointwise._torchshim", "PyTorch tensors through torch's C shim.",
    moduleMethods);

} // namespace

PyMODINIT_FUNC PyInit__torchshim() {
  // No table until bind() finds what it needs.
  return createTensorAccessModule(&moduleDefinition, nullptr);
}
