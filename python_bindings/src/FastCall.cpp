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

#include "TensorAccess.h"

#include <atomic>
#include <cmath>
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

/// The runtime's entry points and the `bind()` that set them, copied while
/// the GIL is held: `bind()` writes them under the GIL, and the launch reads
/// them after releasing it.
struct BoundRuntime {
  RuntimeEntries entries;
  unsigned binding;
};

BoundRuntime getBoundRuntime() {
  return {runtime, bindings.load(std::memory_order_acquire)};
}

/// Makes `device` and `stream` current for this thread's launches, skipping
/// the runtime calls when they already are. 0, or the runtime's status.
int selectDeviceAndStream(const BoundRuntime &bound, int device, void *stream) {
  bool known = recordBinding == bound.binding;
  if (!known || device != currentDevice) {
    recordBinding = ~0u; // unknown until both calls are done
    if (int status = bound.entries.setDevice(device))
      return status;
    currentDevice = device;
  }
  if (!known || stream != currentStream) {
    bound.entries.setStream(stream);
    currentStream = stream;
  }
  recordBinding = bound.binding;
  return 0;
}

/// Packs one scalar as the kernel expects it (`code` as in Python's
/// struct module). False, with no Python error set, when the value does not
/// fit (out of the type's range, a float that rounds to infinity): the
/// general path then reports it.
bool packScalar(PyObject *value, char code, int64_t &word) {
  word = 0;
  switch (code) {
  case '?': {
    int truth = PyObject_IsTrue(value);
    if (truth < 0) {
      PyErr_Clear();
      return false;
    }
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
    if (overflow || (integer == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
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
    if (real == -1.0 && PyErr_Occurred()) {
      PyErr_Clear(); // an int beyond a double's range
      return false;
    }
    if (code == 'd') {
      static_assert(sizeof(double) == sizeof(int64_t));
      std::memcpy(&word, &real, sizeof(real));
    } else {
      float narrow = static_cast<float>(real);
      if (std::isinf(narrow) && !std::isinf(real))
        return false; // rounds to infinity: out of float32's range
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
  PyObject *memoKey;         // the key of the last plan found, or null
  PyObject *memoPlan;        // that plan, or null
};

/// The tensor access table bound by `bind_tensors`, or null: then tensors
/// are read through their Python attributes. `dtypeObjects[code]` is the
/// framework's dtype object of the table's dtype code `code` (or null).
const PwTensorAccess *tensorAccess = nullptr;
std::vector<PyObject *> dtypeObjects; // owned references

/// The dtype code of dtype object `dtype` in `dtypeObjects`, or -1.
int32_t findDtypeCode(PyObject *dtype) {
  for (size_t code = 0; code < dtypeObjects.size(); ++code)
    if (dtypeObjects[code] == dtype)
      return static_cast<int32_t>(code);
  return -1;
}

/// The most dims the call path handles (more go to the general path).
constexpr Py_ssize_t kMaxRank = 16;

/// One tensor argument or output as the call path uses it.
struct TensorInfo {
  uint64_t data = 0;
  long device = -1;
  PyObject *dtype = nullptr; // borrowed: interned dtype objects live on
  bool contiguous = false;
  Py_ssize_t rank = 0;
  int64_t sizes[kMaxRank];

  bool sameShape(const TensorInfo &other) const {
    return rank == other.rank &&
           std::memcmp(sizes, other.sizes, rank * sizeof(int64_t)) == 0;
  }
};

/// Reads `tensor` (an exact tensorType) through its Python attributes. False,
/// with any Python error cleared by the caller, when the call path should
/// not handle it.
bool readThroughAttributes(PyObject *tensor, TensorInfo &info) {
  Ref isCuda(PyObject_GetAttr(tensor, names.isCuda));
  if (!isCuda || isCuda.get() != Py_True)
    return false;
  Ref shape(PyObject_GetAttr(tensor, names.shape));
  if (!shape || !PyTuple_Check(shape.get()))
    return false;
  info.rank = PyTuple_Size(shape.get());
  if (info.rank > kMaxRank)
    return false;
  for (Py_ssize_t d = 0; d < info.rank; ++d) {
    info.sizes[d] = PyLong_AsLongLong(PyTuple_GetItem(shape.get(), d));
    if (info.sizes[d] < 0)
      return false;
  }
  Ref device(callMethod(tensor, names.getDevice));
  if (!device)
    return false;
  info.device = PyLong_AsLong(device.get());
  if (info.device < 0)
    return false;
  int contiguous = isTrueMethod(tensor, names.isContiguous);
  if (contiguous < 0)
    return false;
  info.contiguous = contiguous == 1;
  Ref dtype(PyObject_GetAttr(tensor, names.dtype));
  if (!dtype)
    return false;
  info.dtype = dtype.get(); // dtype objects are immortal singletons of torch
  Ref pointer(callMethod(tensor, names.dataPtr));
  if (!pointer)
    return false;
  info.data = PyLong_AsUnsignedLongLong(pointer.get());
  return !PyErr_Occurred();
}

/// Reads `tensor` (an exact tensorType): through the bound table when there
/// is one, else through its attributes.
bool readTensor(PyObject *tensor, TensorInfo &info) {
  if (!tensorAccess)
    return readThroughAttributes(tensor, info);
  PwTensorView view;
  if (!tensorAccess->read(tensor, &view) || view.rank > kMaxRank ||
      view.scalarType < 0 ||
      static_cast<size_t>(view.scalarType) >= dtypeObjects.size() ||
      !dtypeObjects[view.scalarType] || view.device < 0)
    return false;
  info.data = view.data;
  info.device = view.device;
  info.dtype = dtypeObjects[view.scalarType];
  info.contiguous = view.contiguous != 0;
  info.rank = view.rank;
  std::memcpy(info.sizes, view.sizes, view.rank * sizeof(int64_t));
  return true;
}

PyObject *handOver(FastPath *self, PyObject *args, PyObject *outputs) {
  return PyObject_CallFunctionObjArgs(self->slow, args, outputs, Py_None,
                                      nullptr);
}

/// The plan for `key` ((dtypes, scalar types, rank, device)): the one found
/// last when its key is equal (pointer-equal items: dtype and type objects
/// are singletons), else from the plans dict. Borrowed; null when there is
/// none.
PyObject *findPlan(FastPath *self, PyObject *key) {
  if (self->memoKey && PyObject_RichCompareBool(self->memoKey, key, Py_EQ) == 1)
    return self->memoPlan;
  PyErr_Clear();
  PyObject *plan = PyDict_GetItemWithError(self->plans, key);
  if (!plan)
    return nullptr;
  Py_INCREF(key);
  Py_INCREF(plan);
  Py_XDECREF(self->memoKey);
  Py_XDECREF(self->memoPlan);
  self->memoKey = key;
  self->memoPlan = plan;
  return plan;
}

/// A new contiguous tensor shaped like `like`, of dtype `dtype`.
PyObject *allocateOutput(FastPath *self, PyObject *likeObject,
                         const TensorInfo &like, PyObject *dtype) {
  if (tensorAccess) {
    int32_t code = findDtypeCode(dtype);
    if (code >= 0)
      if (PyObject *result = tensorAccess->emptyContiguous(
              like.sizes, like.rank, code, static_cast<int32_t>(like.device)))
        return result;
    PyErr_Clear();
  }
  // The layout rule of contiguous inputs is the contiguous layout, which
  // is what empty_like gives a contiguous tensor.
  if (dtype == like.dtype)
    return PyObject_CallFunctionObjArgs(self->emptyLike, likeObject, nullptr);
  Ref positional(PyTuple_Pack(1, likeObject));
  Ref keywords(Py_BuildValue("{sO}", "dtype", dtype));
  if (!positional || !keywords)
    return nullptr;
  return PyObject_Call(self->emptyLike, positional.get(), keywords.get());
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
  // Not bound to a runtime yet (bind() was never called): nothing to launch.
  if (!runtime.launch)
    return slow();
  if (PyTuple_Size(args) != self->numInputs)
    return slow();

  Py_ssize_t numTensors = PyTuple_Size(self->tensorPositions);
  PyObject *tensorType = self->tensorType;
  std::vector<PyObject *> tensors(numTensors); // borrowed from args
  std::vector<TensorInfo> infos(numTensors);
  for (Py_ssize_t t = 0; t < numTensors; ++t) {
    Py_ssize_t index =
        PyLong_AsSsize_t(PyTuple_GetItem(self->tensorPositions, t));
    tensors[t] = PyTuple_GetItem(args, index);
    if (!tensors[t] ||
        reinterpret_cast<PyObject *>(Py_TYPE(tensors[t])) != tensorType ||
        !readTensor(tensors[t], infos[t]) || !infos[t].contiguous ||
        (t > 0 &&
         (!infos[t].sameShape(infos[0]) || infos[t].device != infos[0].device)))
      return slow();
  }
  const TensorInfo &first = infos[0];
  long device = first.device;

  Ref dtypes(PyTuple_New(numTensors));
  if (!dtypes)
    return nullptr;
  for (Py_ssize_t t = 0; t < numTensors; ++t) {
    Py_INCREF(infos[t].dtype);
    PyTuple_SetItem(dtypes.get(), t, infos[t].dtype); // steals
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
  Py_ssize_t rank = first.rank;
  Ref key(
      Py_BuildValue("(OOnl)", dtypes.get(), scalarTypes.get(), rank, device));
  if (!key)
    return nullptr;
  // The plan (a tuple): (launcher, output dtypes, family address, scalar
  // pack codes (one str char per input, ' ' for tensors)).
  PyObject *plan = findPlan(self, key.get());
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
  std::vector<Ref> results(self->numOutputs);
  std::vector<uint64_t> outputData(self->numOutputs);
  for (Py_ssize_t k = 0; k < self->numOutputs; ++k) {
    PyObject *dtype = PyTuple_GetItem(outDtypes, k);
    if (!given[k]) {
      results[k].reset(allocateOutput(self, tensors[0], first, dtype));
      if (!results[k])
        return nullptr; // out of memory: torch's exception
    } else {
      if (reinterpret_cast<PyObject *>(Py_TYPE(given[k])) != tensorType)
        return slow();
      Py_INCREF(given[k]);
      results[k].reset(given[k]);
    }
    if (!given[k] && !tensorAccess) {
      // Made above like the first input: only its address is new.
      Ref pointer(callMethod(results[k].get(), names.dataPtr));
      if (!pointer)
        return slow();
      outputData[k] = PyLong_AsUnsignedLongLong(pointer.get());
      if (PyErr_Occurred())
        return slow();
      continue;
    }
    TensorInfo out;
    if (!readTensor(results[k].get(), out) || !out.contiguous ||
        out.dtype != dtype || !out.sameShape(first) || out.device != device)
      return slow();
    outputData[k] = out.data;
  }

  // Contiguous strides (a size-1 dim's stride is never used).
  int64_t strides[kMaxRank];
  int64_t stride = 1;
  for (Py_ssize_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= first.sizes[d] > 0 ? first.sizes[d] : 1;
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
  auto packTensor = [&](uint64_t data) {
    auto address = static_cast<int64_t>(data);
    words[at] = address;
    words[at + 1] = address;
    words[at + 2] = 0;
    std::memcpy(&words[at + 3], first.sizes, rank * sizeof(int64_t));
    std::memcpy(&words[at + 3 + rank], strides, rank * sizeof(int64_t));
    at += descriptorWords;
  };
  Py_ssize_t nextTensor = 0;
  for (Py_ssize_t i = 0; i < self->numInputs; ++i) {
    pointers[i] = &words[at];
    Py_UCS4 code = PyUnicode_ReadChar(codes, i);
    if (code == ' ') {
      if (nextTensor >= numTensors ||
          PyTuple_GetItem(args, i) != tensors[nextTensor])
        return slow();
      packTensor(infos[nextTensor++].data);
    } else {
      int64_t word;
      if (!packScalar(PyTuple_GetItem(args, i), static_cast<char>(code), word))
        return slow();
      words[at++] = word;
    }
  }
  for (Py_ssize_t k = 0; k < self->numOutputs; ++k) {
    pointers[self->numInputs + k] = &words[at];
    packTensor(outputData[k]);
  }

  void *stream = nullptr;
  if (tensorAccess) {
    stream = tensorAccess->currentStream(static_cast<int32_t>(device));
  } else {
    Ref streamObject(PyObject_CallFunction(self->rawStream, "l", device));
    if (!streamObject)
      return nullptr;
    stream = PyLong_AsVoidPtr(streamObject.get());
    if (PyErr_Occurred())
      return nullptr;
  }

  int status;
  BoundRuntime bound = getBoundRuntime();
  PyThreadState *released = PyEval_SaveThread();
  status = selectDeviceAndStream(bound, static_cast<int>(device), stream);
  if (!status)
    status = bound.entries.launch(family, pointers.data());
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

/// The object members, tensorPositions to memoPlan, as an array (the
/// first kArguments set by the constructor).
constexpr int kArguments = 9;
constexpr int kMembers = 11;
PyObject **members(FastPath *self) {
  static_assert(offsetof(FastPath, memoPlan) -
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
  PyObject *values[kArguments];
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
  for (int i = 0; i < kArguments; ++i) {
    Py_INCREF(values[i]);
    slots[i] = values[i];
  }
  self->memoKey = self->memoPlan = nullptr;
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

/// bind_tensors(address, dtypes): reads tensors through the PwTensorAccess
/// table at `address` (0: through their attributes again); `dtypes[code]`
/// is the dtype object of the table's dtype code `code`, or None.
PyObject *bindTensors(PyObject *, PyObject *args) {
  PyObject *addressObject, *dtypes;
  if (!PyArg_ParseTuple(args, "OO!:bind_tensors", &addressObject, &PyTuple_Type,
                        &dtypes))
    return nullptr;
  void *address = PyLong_AsVoidPtr(addressObject);
  if (PyErr_Occurred())
    return nullptr;
  auto *table = static_cast<const PwTensorAccess *>(address);
  if (table && table->version != kTensorAccessVersion) {
    PyErr_Format(PyExc_ValueError,
                 "bind_tensors: table version %u, this module reads %u",
                 table->version, kTensorAccessVersion);
    return nullptr;
  }
  std::vector<PyObject *> objects;
  for (Py_ssize_t code = 0; code < PyTuple_Size(dtypes); ++code) {
    PyObject *dtype = PyTuple_GetItem(dtypes, code);
    objects.push_back(dtype == Py_None ? nullptr : dtype);
    Py_XINCREF(objects.back());
  }
  for (PyObject *dtype : dtypeObjects)
    Py_XDECREF(dtype);
  dtypeObjects = std::move(objects);
  tensorAccess = table;
  Py_RETURN_NONE;
}

/// select(device, stream): what the general path calls before a launch, so
/// that both paths share this thread's record of the runtime's state.
PyObject *select(PyObject *, PyObject *args) {
  int device;
  PyObject *streamObject;
  if (!PyArg_ParseTuple(args, "iO:select", &device, &streamObject))
    return nullptr;
  BoundRuntime bound = getBoundRuntime();
  if (!bound.entries.setDevice) {
    PyErr_SetString(PyExc_RuntimeError, "select: bind() first");
    return nullptr;
  }
  void *stream =
      streamObject == Py_None ? nullptr : PyLong_AsVoidPtr(streamObject);
  if (PyErr_Occurred())
    return nullptr;
  return PyLong_FromLong(selectDeviceAndStream(bound, device, stream));
}

PyMethodDef moduleMethods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(launch, set_device, set_stream): the runtime's entry points."},
    {"bind_tensors", bindTensors, METH_VARARGS,
     "bind_tensors(address, dtypes): the tensor access table (0: none)."},
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
