//===- FastCall.cpp - the call path of @pw.pointwise in C -----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// `pointwise._fastcall`: the common call of a @pw.pointwise function, done in
// C instead of Python, for host time per call below PyTorch eager's. The
// common call is: every tensor argument an exact `torch.Tensor`, contiguous,
// on one CUDA device, all of one shape; outputs absent (allocated here with
// `torch.empty_like`) or contiguous tensors of that shape, device and of the
// dtypes a general call planned for these argument types. Anything else, and
// any surprise on the way, hands the call to the general Python path
// unchanged, so this file never changes a result, only its cost.
//
// Built against the stable ABI (Py_LIMITED_API 3.11): one binary serves
// Python 3.11 and later. It does not link the runtime: the Python side hands
// over the addresses of pwFamilyLaunch, pwSetDevice and pwSetStream, and the
// launch happens with the GIL released.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using LaunchFn = int (*)(const void *family, void **arguments);
using SetDeviceFn = int (*)(int device);
using SetStreamFn = void (*)(void *stream);

/// The runtime's entry points, bound once by `bind()`.
struct RuntimeEntries {
  LaunchFn launch = nullptr;
  SetDeviceFn setDevice = nullptr;
  SetStreamFn setStream = nullptr;
};
RuntimeEntries runtime;

/// Bumped by every `bind()`: what a thread recorded under other entry
/// points says nothing about these.
std::atomic<unsigned> bindings{0};

/// The device and stream this thread last made current in the runtime (the
/// runtime's own state is per thread too), valid for `recordBinding`. Shared
/// by the general path through `select()`, so that the two paths never
/// disagree.
thread_local unsigned recordBinding = ~0u;
thread_local int currentDevice = -1;
thread_local void *currentStream = nullptr;

/// Per thread: the packed arguments of a launch and the `void **` array
/// pointing into them.
thread_local std::vector<int64_t> packedWords;
thread_local std::vector<void *> argumentPointers;

/// Interned names, created at module init.
struct Names {
  PyObject *shape, *dtype, *isCuda, *isContiguous, *getDevice, *dataPtr;
} names;

/// A new reference to `object.name()`, or null with an error set.
PyObject *callMethod(PyObject *object, PyObject *name) {
  return PyObject_CallMethodObjArgs(object, name, nullptr);
}

/// -1 with an error set, 0 or 1.
int isTrueMethod(PyObject *object, PyObject *name) {
  PyObject *result = callMethod(object, name);
  if (!result)
    return -1;
  int truth = result == Py_True;
  Py_DECREF(result);
  return truth;
}

/// Owns a reference (Py_XDECREF at scope exit).
class Ref {
public:
  Ref() = default;
  explicit Ref(PyObject *object) : object(object) {}
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
  ~Ref() { Py_XDECREF(object); }
  void reset(PyObject *value) {
    Py_XDECREF(object);
    object = value;
  }
  PyObject *release() {
    PyObject *value = object;
    object = nullptr;
    return value;
  }
  PyObject *get() const { return object; }
  explicit operator bool() const { return object != nullptr; }

private:
  PyObject *object = nullptr;
};

/// Makes `device` and `stream` current for this thread's launches, skipping
/// the runtime calls when they already are. 0, or the runtime's status.
int selectDeviceAndStream(int device, void *stream) {
  unsigned binding = bindings.load(std::memory_order_acquire);
  bool known = recordBinding == binding;
  if (!known || device != currentDevice) {
    recordBinding = ~0u; // unknown until both calls are done
    if (int status = runtime.setDevice(device))
      return status;
    currentDevice = device;
  }
  if (!known || stream != currentStream) {
    runtime.setStream(stream);
    currentStream = stream;
  }
  recordBinding = binding;
  return 0;
}

/// Packs one scalar as the kernel expects it (`code` as in Python's
/// struct module). False when the value does not fit: the general path then
/// reports it.
bool packScalar(PyObject *value, char code, int64_t &word) {
  word = 0;
  switch (code) {
  case '?': {
    int truth = PyObject_IsTrue(value);
    if (truth < 0)
      return false;
    word = truth;
    return true;
  }
  case 'b':
  case 'h':
  case 'i':
  case 'q': {
    if (!PyLong_Check(value))
      return false;
    int overflow = 0;
    long long integer = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow || (integer == -1 && PyErr_Occurred()))
      return false;
    int bits = code == 'b' ? 8 : code == 'h' ? 16 : code == 'i' ? 32 : 64;
    if (bits < 64) {
      long long limit = 1LL << (bits - 1);
      if (integer < -limit || integer >= limit)
        return false;
    }
    // Little-endian: the low bytes of the word are the narrow value.
    word = integer;
    return true;
  }
  case 'f':
  case 'd': {
    double real = PyFloat_AsDouble(value);
    if (real == -1.0 && PyErr_Occurred())
      return false;
    if (code == 'd') {
      static_assert(sizeof(double) == sizeof(int64_t));
      std::memcpy(&word, &real, sizeof(real));
    } else {
      float narrow = static_cast<float>(real);
      std::memcpy(&word, &narrow, sizeof(narrow));
    }
    return true;
  }
  default:
    return false;
  }
}

/// A FastPath object: one per @pw.pointwise function.
struct FastPath {
  PyObject_HEAD;
  Py_ssize_t numInputs;
  Py_ssize_t numOutputs;
  PyObject *tensorPositions; // tuple of input indices that are tensors
  PyObject *scalarPositions; // tuple of input indices that are scalars
  PyObject *outputNames;     // tuple of "out0", "out1", ...
  PyObject *plans;           // dict, shared with the Python side
  PyObject *slow;            // slow(args, outputs, None)
  PyObject *tensorType;      // torch.Tensor
  PyObject *emptyLike;       // torch.empty_like
  PyObject *rawStream;       // torch._C._cuda_getCurrentRawStream
  PyObject *raiseError;      // raise_error(status): raises, never returns
};

PyObject *handOver(FastPath *self, PyObject *args, PyObject *outputs) {
  return PyObject_CallFunctionObjArgs(self->slow, args, outputs, Py_None,
                                      nullptr);
}

/// The call: fast(args, outputs). Returns the output(s), or what the general
/// path returns.
PyObject *fastPathCall(PyObject *object, PyObject *callArgs, PyObject *) {
  auto *self = reinterpret_cast<FastPath *>(object);
  PyObject *args = nullptr, *outputs = nullptr;
  if (!PyArg_UnpackTuple(callArgs, "fast", 2, 2, &args, &outputs))
    return nullptr;
  if (!PyTuple_Check(args) || !PyDict_Check(outputs)) {
    PyErr_SetString(PyExc_TypeError, "fast(args: tuple, outputs: dict)");
    return nullptr;
  }
  // From here on, anything unexpected (including a Python error in one of
  // the probes) hands the call over, with the error cleared.
  auto slow = [&]() -> PyObject * {
    PyErr_Clear();
    return handOver(self, args, outputs);
  };
  if (PyTuple_Size(args) != self->numInputs)
    return slow();

  Py_ssize_t numTensors = PyTuple_Size(self->tensorPositions);
  PyObject *tensorType = self->tensorType;
  std::vector<PyObject *> tensors(numTensors); // borrowed from args
  for (Py_ssize_t t = 0; t < numTensors; ++t) {
    Py_ssize_t index =
        PyLong_AsSsize_t(PyTuple_GetItem(self->tensorPositions, t));
    tensors[t] = PyTuple_GetItem(args, index);
    if (!tensors[t] ||
        reinterpret_cast<PyObject *>(Py_TYPE(tensors[t])) != tensorType)
      return slow();
  }
  PyObject *first = tensors[0];
  Ref shape(PyObject_GetAttr(first, names.shape));
  if (!shape || !PyTuple_Check(shape.get()))
    return slow();
  Ref isCuda(PyObject_GetAttr(first, names.isCuda));
  if (!isCuda || isCuda.get() != Py_True)
    return slow();
  Ref deviceObject(callMethod(first, names.getDevice));
  if (!deviceObject)
    return slow();
  long device = PyLong_AsLong(deviceObject.get());
  if (device < 0)
    return slow();

  Ref dtypes(PyTuple_New(numTensors));
  if (!dtypes)
    return nullptr;
  for (Py_ssize_t t = 0; t < numTensors; ++t) {
    PyObject *tensor = tensors[t];
    if (t > 0) {
      Ref other(PyObject_GetAttr(tensor, names.shape));
      if (!other ||
          PyObject_RichCompareBool(other.get(), shape.get(), Py_EQ) != 1)
        return slow();
      Ref otherDevice(callMethod(tensor, names.getDevice));
      if (!otherDevice || PyLong_AsLong(otherDevice.get()) != device)
        return slow();
    }
    if (isTrueMethod(tensor, names.isContiguous) != 1)
      return slow();
    PyObject *dtype = PyObject_GetAttr(tensor, names.dtype);
    if (!dtype)
      return slow();
    PyTuple_SetItem(dtypes.get(), t, dtype); // steals
  }
  Py_ssize_t numScalars = PyTuple_Size(self->scalarPositions);
  Ref scalarTypes(PyTuple_New(numScalars));
  if (!scalarTypes)
    return nullptr;
  for (Py_ssize_t s = 0; s < numScalars; ++s) {
    Py_ssize_t index =
        PyLong_AsSsize_t(PyTuple_GetItem(self->scalarPositions, s));
    PyObject *type =
        reinterpret_cast<PyObject *>(Py_TYPE(PyTuple_GetItem(args, index)));
    Py_INCREF(type);
    PyTuple_SetItem(scalarTypes.get(), s, type);
  }
  Py_ssize_t rank = PyTuple_Size(shape.get());
  Ref key(
      Py_BuildValue("(OOnl)", dtypes.get(), scalarTypes.get(), rank, device));
  if (!key)
    return nullptr;
  // The plan (a tuple): (launcher, output dtypes, family address, scalar
  // pack codes (one str char per input, ' ' for tensors)).
  PyObject *plan = PyDict_GetItemWithError(self->plans, key.get());
  if (!plan || !PyTuple_Check(plan) || PyTuple_Size(plan) < 4)
    return slow();
  PyObject *outDtypes = PyTuple_GetItem(plan, 1);
  void *family = PyLong_AsVoidPtr(PyTuple_GetItem(plan, 2));
  PyObject *codes = PyTuple_GetItem(plan, 3);
  if (!outDtypes || !family || !codes || !PyUnicode_Check(codes) ||
      PyTuple_Size(outDtypes) != self->numOutputs ||
      PyUnicode_GetLength(codes) != self->numInputs)
    return slow();

  // Outputs given as out0=..., None meaning absent; any other keyword goes
  // to the general path, which names the mistake.
  std::vector<PyObject *> given(self->numOutputs, nullptr); // borrowed
  if (PyDict_Size(outputs) > 0) {
    PyObject *name, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(outputs, &position, &name, &value)) {
      Py_ssize_t k = 0;
      for (; k < self->numOutputs; ++k)
        if (PyObject_RichCompareBool(
                name, PyTuple_GetItem(self->outputNames, k), Py_EQ) == 1)
          break;
      if (k == self->numOutputs)
        return slow();
      if (value != Py_None)
        given[k] = value;
    }
  }
  PyObject *firstDtype = PyTuple_GetItem(dtypes.get(), 0);
  std::vector<Ref> results(self->numOutputs);
  for (Py_ssize_t k = 0; k < self->numOutputs; ++k) {
    PyObject *dtype = PyTuple_GetItem(outDtypes, k);
    if (!given[k]) {
      // The layout rule of contiguous inputs is the contiguous layout, which
      // is what empty_like gives a contiguous tensor.
      if (dtype == firstDtype) {
        results[k].reset(
            PyObject_CallFunctionObjArgs(self->emptyLike, first, nullptr));
      } else {
        Ref positional(PyTuple_Pack(1, first));
        Ref keywords(Py_BuildValue("{sO}", "dtype", dtype));
        if (!positional || !keywords)
          return nullptr;
        results[k].reset(
            PyObject_Call(self->emptyLike, positional.get(), keywords.get()));
      }
      if (!results[k])
        return nullptr; // out of memory: torch's exception
      continue;
    }
    PyObject *out = given[k];
    if (reinterpret_cast<PyObject *>(Py_TYPE(out)) != tensorType)
      return slow();
    Ref outShape(PyObject_GetAttr(out, names.shape));
    Ref outDtype(PyObject_GetAttr(out, names.dtype));
    if (!outShape || !outDtype || outDtype.get() != dtype ||
        PyObject_RichCompareBool(outShape.get(), shape.get(), Py_EQ) != 1 ||
        isTrueMethod(out, names.isContiguous) != 1)
      return slow();
    Ref outDevice(callMethod(out, names.getDevice));
    if (!outDevice || PyLong_AsLong(outDevice.get()) != device)
      return slow();
    Py_INCREF(out);
    results[k].reset(out);
  }

  // Sizes and contiguous strides (a size-1 dim's stride is never used).
  std::vector<int64_t> sizes(rank), strides(rank);
  for (Py_ssize_t d = 0; d < rank; ++d) {
    sizes[d] = PyLong_AsLongLong(PyTuple_GetItem(shape.get(), d));
    if (sizes[d] < 0)
      return slow();
  }
  int64_t stride = 1;
  for (Py_ssize_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= sizes[d] > 0 ? sizes[d] : 1;
  }

  // Pack: per memref operand (allocated, aligned, offset, sizes, strides),
  // per scalar one 8-byte word, in argument order, outputs last.
  Py_ssize_t numOperands = self->numInputs + self->numOutputs;
  Py_ssize_t descriptorWords = 3 + 2 * rank;
  std::vector<int64_t> &words = packedWords;
  std::vector<void *> &pointers = argumentPointers;
  words.assign(numTensors * descriptorWords + numScalars +
                   self->numOutputs * descriptorWords,
               0);
  pointers.resize(numOperands);
  size_t at = 0;
  auto packTensor = [&](PyObject *tensor) -> bool {
    Ref pointer(callMethod(tensor, names.dataPtr));
    if (!pointer)
      return false;
    auto address =
        static_cast<int64_t>(PyLong_AsUnsignedLongLong(pointer.get()));
    if (PyErr_Occurred())
      return false;
    words[at] = address;
    words[at + 1] = address;
    words[at + 2] = 0;
    for (Py_ssize_t d = 0; d < rank; ++d) {
      words[at + 3 + d] = sizes[d];
      words[at + 3 + rank + d] = strides[d];
    }
    at += descriptorWords;
    return true;
  };
  for (Py_ssize_t i = 0; i < self->numInputs; ++i) {
    pointers[i] = &words[at];
    PyObject *value = PyTuple_GetItem(args, i);
    Py_UCS4 code = PyUnicode_ReadChar(codes, i);
    if (code == ' ') {
      if (!packTensor(value))
        return slow();
    } else {
      int64_t word;
      if (!packScalar(value, static_cast<char>(code), word))
        return slow();
      words[at++] = word;
    }
  }
  for (Py_ssize_t k = 0; k < self->numOutputs; ++k) {
    pointers[self->numInputs + k] = &words[at];
    if (!packTensor(results[k].get()))
      return slow();
  }

  Ref streamObject(PyObject_CallFunction(self->rawStream, "l", device));
  if (!streamObject)
    return nullptr;
  void *stream = PyLong_AsVoidPtr(streamObject.get());
  if (PyErr_Occurred())
    return nullptr;

  int status;
  PyThreadState *released = PyEval_SaveThread();
  status = selectDeviceAndStream(static_cast<int>(device), stream);
  if (!status)
    status = runtime.launch(family, pointers.data());
  PyEval_RestoreThread(released);
  if (status) {
    Ref raised(PyObject_CallFunction(self->raiseError, "i", status));
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_RuntimeError, "pointwise: launch failed (status %d)",
                   status);
    return nullptr;
  }
  if (self->numOutputs == 1)
    return results[0].release();
  PyObject *tuple = PyTuple_New(self->numOutputs);
  if (!tuple)
    return nullptr;
  for (Py_ssize_t k = 0; k < self->numOutputs; ++k)
    PyTuple_SetItem(tuple, k, results[k].release());
  return tuple;
}

/// The object members, tensorPositions to raiseError, as an array.
constexpr int kMembers = 9;
PyObject **members(FastPath *self) {
  static_assert(offsetof(FastPath, raiseError) -
                    offsetof(FastPath, tensorPositions) ==
                (kMembers - 1) * sizeof(PyObject *));
  return &self->tensorPositions;
}

PyObject *fastPathNew(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static const char *keywords[] = {"num_inputs",
                                   "num_outputs",
                                   "tensor_positions",
                                   "scalar_positions",
                                   "output_names",
                                   "plans",
                                   "slow",
                                   "tensor_type",
                                   "empty_like",
                                   "raw_stream",
                                   "raise_error",
                                   nullptr};
  Py_ssize_t numInputs, numOutputs;
  PyObject *values[kMembers];
  if (!PyArg_ParseTupleAndKeywords(
          args, kwargs, "nnO!O!O!O!OOOOO:FastPath",
          const_cast<char **>(keywords), &numInputs, &numOutputs, &PyTuple_Type,
          &values[0], &PyTuple_Type, &values[1], &PyTuple_Type, &values[2],
          &PyDict_Type, &values[3], &values[4], &values[5], &values[6],
          &values[7], &values[8]))
    return nullptr;
  if (PyTuple_Size(values[0]) < 1 || PyTuple_Size(values[2]) != numOutputs) {
    PyErr_SetString(PyExc_ValueError,
                    "FastPath: needs a tensor input and one name per output");
    return nullptr;
  }
  auto alloc = reinterpret_cast<allocfunc>(PyType_GetSlot(type, Py_tp_alloc));
  auto *self = reinterpret_cast<FastPath *>(alloc(type, 0));
  if (!self)
    return nullptr;
  self->numInputs = numInputs;
  self->numOutputs = numOutputs;
  PyObject **slots = members(self);
  for (int i = 0; i < kMembers; ++i) {
    Py_INCREF(values[i]);
    slots[i] = values[i];
  }
  return reinterpret_cast<PyObject *>(self);
}

int fastPathTraverse(PyObject *object, visitproc visit, void *arg) {
  PyObject **slots = members(reinterpret_cast<FastPath *>(object));
  for (int i = 0; i < kMembers; ++i)
    Py_VISIT(slots[i]);
  Py_VISIT(reinterpret_cast<PyObject *>(Py_TYPE(object)));
  return 0;
}

int fastPathClear(PyObject *object) {
  PyObject **slots = members(reinterpret_cast<FastPath *>(object));
  for (int i = 0; i < kMembers; ++i)
    Py_CLEAR(slots[i]);
  return 0;
}

void fastPathDealloc(PyObject *object) {
  PyTypeObject *type = Py_TYPE(object);
  PyObject_GC_UnTrack(object);
  fastPathClear(object);
  auto release = reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free));
  release(object);
  Py_DECREF(type);
}

PyType_Slot fastPathSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(fastPathNew)},
    {Py_tp_call, reinterpret_cast<void *>(fastPathCall)},
    {Py_tp_traverse, reinterpret_cast<void *>(fastPathTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(fastPathClear)},
    {Py_tp_dealloc, reinterpret_cast<void *>(fastPathDealloc)},
    {Py_tp_doc, const_cast<char *>(
                    "FastPath(num_inputs, num_outputs, tensor_positions, "
                    "scalar_positions, output_names, plans, slow, tensor_type, "
                    "empty_like, raw_stream, raise_error): the common call of "
                    "one @pw.pointwise function; fast(args, outputs).")},
    {0, nullptr}};

PyType_Spec fastPathSpec = {"pointwise._fastcall.FastPath", sizeof(FastPath), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                            fastPathSlots};

/// bind(launch, set_device, set_stream): the runtime's entry points, as
/// addresses (ctypes.cast(function, c_void_p).value).
PyObject *bind(PyObject *, PyObject *args) {
  PyObject *launch, *setDevice, *setStream;
  if (!PyArg_ParseTuple(args, "OOO:bind", &launch, &setDevice, &setStream))
    return nullptr;
  void *addresses[3] = {PyLong_AsVoidPtr(launch), PyLong_AsVoidPtr(setDevice),
                        PyLong_AsVoidPtr(setStream)};
  if (PyErr_Occurred())
    return nullptr;
  for (void *address : addresses)
    if (!address) {
      PyErr_SetString(PyExc_ValueError, "bind: a null entry point");
      return nullptr;
    }
  runtime.launch = reinterpret_cast<LaunchFn>(addresses[0]);
  runtime.setDevice = reinterpret_cast<SetDeviceFn>(addresses[1]);
  runtime.setStream = reinterpret_cast<SetStreamFn>(addresses[2]);
  bindings.fetch_add(1, std::memory_order_acq_rel);
  Py_RETURN_NONE;
}

/// select(device, stream): what the general path calls before a launch, so
/// that both paths share this thread's record of the runtime's state.
PyObject *select(PyObject *, PyObject *args) {
  int device;
  PyObject *streamObject;
  if (!PyArg_ParseTuple(args, "iO:select", &device, &streamObject))
    return nullptr;
  if (!runtime.setDevice) {
    PyErr_SetString(PyExc_RuntimeError, "select: bind() first");
    return nullptr;
  }
  void *stream =
      streamObject == Py_None ? nullptr : PyLong_AsVoidPtr(streamObject);
  if (PyErr_Occurred())
    return nullptr;
  return PyLong_FromLong(selectDeviceAndStream(device, stream));
}

PyMethodDef moduleMethods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(launch, set_device, set_stream): the runtime's entry points."},
    {"select", select, METH_VARARGS,
     "select(device, stream) -> status: makes them current for this thread."},
    {nullptr, nullptr, 0, nullptr}};

int moduleExec(PyObject *module) {
  names.shape = PyUnicode_InternFromString("shape");
  names.dtype = PyUnicode_InternFromString("dtype");
  names.isCuda = PyUnicode_InternFromString("is_cuda");
  names.isContiguous = PyUnicode_InternFromString("is_contiguous");
  names.getDevice = PyUnicode_InternFromString("get_device");
  names.dataPtr = PyUnicode_InternFromString("data_ptr");
  if (!names.shape || !names.dtype || !names.isCuda || !names.isContiguous ||
      !names.getDevice || !names.dataPtr)
    return -1;
  PyObject *type = PyType_FromSpec(&fastPathSpec);
  if (!type)
    return -1;
  if (PyModule_AddObject(module, "FastPath", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}

PyModuleDef_Slot moduleSlots[] = {
    {Py_mod_exec, reinterpret_cast<void *>(moduleExec)}, {0, nullptr}};

PyModuleDef moduleDefinition = {
    PyModuleDef_HEAD_INIT,
    "pointwise._fastcall",
    "The common call of @pw.pointwise functions, in C.",
    0,
    moduleMethods,
    moduleSlots,
    nullptr,
    nullptr,
    nullptr};

} // namespace

PyMODINIT_FUNC PyInit__fastcall() {
  return PyModuleDef_Init(&moduleDefinition);
}
