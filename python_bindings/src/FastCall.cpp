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
// The module also holds FamilyCall (FamilyCall.cpp), the common call of an
// AOT library's family, and Launcher (Launcher.cpp), the launch of the
// general paths; what they share, the launch ABI included, is in
// CallSupport.h.
//
// Built against the stable ABI (Py_LIMITED_API 3.11): one binary serves
// Python 3.11 and later. It does not link the runtime: the Python side hands
// over the addresses of pwFamilyLaunch, pwExchangeDevice and pwSetStream, and
// the launch happens with the GIL released.
//
//===----------------------------------------------------------------------===//

#include "CallSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

using namespace pointwise::python;

namespace {

/// Per-call storage of `count` value-initialized items: inline for the
/// common counts, on the heap beyond (docs/Performance.md, row
/// `inline-buffers`).
template <typename T, size_t kInline = 8> class CallStorage {
public:
  explicit CallStorage(Py_ssize_t count) {
    if (count > static_cast<Py_ssize_t>(kInline)) {
      heap = std::make_unique<T[]>(count);
      items = heap.get();
    }
  }
  T &operator[](Py_ssize_t i) { return items[i]; }
  T *data() { return items; }

private:
  T inlineItems[kInline] = {};
  std::unique_ptr<T[]> heap;
  T *items = inlineItems;
};

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

PyObject *handOver(FastPath *self, PyObject *args, PyObject *outputs) {
  return PyObject_CallFunctionObjArgs(self->slow, args, outputs, Py_None,
                                      nullptr);
}

/// The plan for `key` ((dtypes, scalar types, rank, device)) from the plans
/// dict, remembered with its key for memoMatches. Borrowed; null when there
/// is none.
PyObject *findPlan(FastPath *self, PyObject *key) {
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

/// Whether the last plan found has this call's key: the same dtype and
/// scalar type objects (singletons, compared by identity), rank and device.
/// Compared item by item, so that the common call builds no key.
template <typename ScalarType>
bool memoMatches(FastPath *self, const TensorInfo *infos, Py_ssize_t numTensors,
                 Py_ssize_t numScalars, ScalarType scalarType, Py_ssize_t rank,
                 long device) {
  PyObject *key = self->memoKey;
  if (!key)
    return false;
  PyObject *dtypes = PyTuple_GetItem(key, 0);
  PyObject *scalarTypes = PyTuple_GetItem(key, 1);
  if (PyTuple_Size(dtypes) != numTensors ||
      PyTuple_Size(scalarTypes) != numScalars ||
      PyLong_AsSsize_t(PyTuple_GetItem(key, 2)) != rank ||
      PyLong_AsLong(PyTuple_GetItem(key, 3)) != device)
    return false;
  for (Py_ssize_t t = 0; t < numTensors; ++t)
    if (PyTuple_GetItem(dtypes, t) != infos[t].dtype)
      return false;
  for (Py_ssize_t s = 0; s < numScalars; ++s)
    if (PyTuple_GetItem(scalarTypes, s) != scalarType(s))
      return false;
  return true;
}

/// A new contiguous tensor shaped like `like`, of dtype `dtype`: from ATen's
/// allocator where the torch tensor reader is bound (docs/Performance.md, row
/// `torch-tensor-reader`), which also gives its address (`data`, with
/// `dataKnown` set), else `torch.empty_like` (row `output-empty-like`).
PyObject *allocateOutput(FastPath *self, PyObject *likeObject,
                         const TensorInfo &like, PyObject *dtype,
                         uint64_t &data, bool &dataKnown) {
  dataKnown = false;
  if (const PwTensorAccess *tensorAccess = boundTensorAccess()) {
    int32_t code = findDtypeCode(dtype);
    if (code >= 0)
      if (PyObject *result = tensorAccess->emptyContiguous(
              like.sizes, like.rank, code, static_cast<int32_t>(like.device),
              &data)) {
        dataKnown = true;
        return result;
      }
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

/// The call: fast(*args, **outputs), as the function's own __call__ (the
/// package installs this object as the call of the function's class, so a
/// call reaches C without a Python frame). Returns the output(s), or what
/// the general path returns.
PyObject *fastPathCall(PyObject *object, PyObject *args, PyObject *kwargs) {
  auto *self = reinterpret_cast<FastPath *>(object);
  // The outputs given as keywords; null when none. The general path takes
  // a dict, made only when a call without keywords hands over.
  PyObject *outputs = kwargs;
  Ref noOutputs;
  // From here on, anything unexpected (including a Python error in one of
  // the probes) hands the call over, with the error cleared.
  auto slow = [&]() -> PyObject * {
    if (!clearHandOverError())
      return nullptr;
    if (!outputs) {
      noOutputs.reset(PyDict_New());
      if (!noOutputs)
        return nullptr;
      outputs = noOutputs.get();
    }
    return handOver(self, args, outputs);
  };
  // Not bound to a runtime yet (bind() was never called): nothing to launch.
  if (!isRuntimeBound())
    return slow();
  if (PyTuple_Size(args) != self->numInputs)
    return slow();

  Py_ssize_t numTensors = PyTuple_Size(self->tensorPositions);
  PyObject *tensorType = self->tensorType;
  CallStorage<PyObject *> tensors(numTensors); // borrowed from args
  CallStorage<TensorInfo> infos(numTensors);
  for (Py_ssize_t t = 0; t < numTensors; ++t) {
    Py_ssize_t index =
        PyLong_AsSsize_t(PyTuple_GetItem(self->tensorPositions, t));
    tensors[t] = PyTuple_GetItem(args, index);
    if (!tensors[t] ||
        reinterpret_cast<PyObject *>(Py_TYPE(tensors[t])) != tensorType ||
        !readTensor(tensors[t], infos[t], /*withStrides=*/false) ||
        !infos[t].contiguous ||
        (t > 0 &&
         (!infos[t].sameShape(infos[0]) || infos[t].device != infos[0].device)))
      return slow();
  }
  const TensorInfo &first = infos[0];
  long device = first.device;

  Py_ssize_t rank = first.rank;
  Py_ssize_t numScalars = PyTuple_Size(self->scalarPositions);
  auto scalarType = [&](Py_ssize_t s) {
    Py_ssize_t index =
        PyLong_AsSsize_t(PyTuple_GetItem(self->scalarPositions, s));
    return reinterpret_cast<PyObject *>(Py_TYPE(PyTuple_GetItem(args, index)));
  };
  PyObject *plan = nullptr;
  if (memoMatches(self, infos.data(), numTensors, numScalars, scalarType, rank,
                  device)) {
    plan = self->memoPlan;
  } else {
    Ref dtypes(PyTuple_New(numTensors));
    Ref scalarTypes(PyTuple_New(numScalars));
    if (!dtypes || !scalarTypes)
      return nullptr;
    for (Py_ssize_t t = 0; t < numTensors; ++t) {
      Py_INCREF(infos[t].dtype);
      PyTuple_SetItem(dtypes.get(), t, infos[t].dtype); // steals
    }
    for (Py_ssize_t s = 0; s < numScalars; ++s) {
      PyObject *type = scalarType(s);
      Py_INCREF(type);
      PyTuple_SetItem(scalarTypes.get(), s, type);
    }
    Ref key(
        Py_BuildValue("(OOnl)", dtypes.get(), scalarTypes.get(), rank, device));
    if (!key)
      return nullptr;
    plan = findPlan(self, key.get());
  }
  // The plan (a tuple): (launcher, output dtypes, family address, scalar
  // pack codes (one str char per input, ' ' for tensors)).
  if (!plan || !PyTuple_Check(plan) || PyTuple_Size(plan) < 4)
    return slow();
  // Held for the whole call: allocating an output runs Python code (a torch
  // function mode, say) that may record another plan for this key or move
  // the memo, and the output dtypes, pack codes and family are borrowed
  // from this one.
  Py_INCREF(plan);
  Ref heldPlan(plan);
  PyObject *outDtypes = PyTuple_GetItem(plan, 1);
  void *family = PyLong_AsVoidPtr(PyTuple_GetItem(plan, 2));
  PyObject *codes = PyTuple_GetItem(plan, 3);
  if (!outDtypes || !family || !codes || !PyUnicode_Check(codes) ||
      PyTuple_Size(outDtypes) != self->numOutputs ||
      PyUnicode_GetLength(codes) != self->numInputs)
    return slow();

  // Outputs given as out0=..., None meaning absent; any other keyword goes
  // to the general path, which names the mistake.
  CallStorage<PyObject *> given(self->numOutputs); // borrowed; null: absent
  if (outputs && PyDict_Size(outputs) > 0) {
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
  CallStorage<Ref> results(self->numOutputs);
  CallStorage<uint64_t> outputData(self->numOutputs);
  for (Py_ssize_t k = 0; k < self->numOutputs; ++k) {
    PyObject *dtype = PyTuple_GetItem(outDtypes, k);
    if (!given[k]) {
      bool dataKnown;
      results[k].reset(allocateOutput(self, tensors[0], first, dtype,
                                      outputData[k], dataKnown));
      if (!results[k])
        return nullptr; // out of memory: torch's exception
      // Made by the table as asked (contiguous, of the first input's shape
      // and device, of `dtype`): nothing to read back.
      if (dataKnown)
        continue;
    } else {
      if (reinterpret_cast<PyObject *>(Py_TYPE(given[k])) != tensorType)
        return slow();
      Py_INCREF(given[k]);
      results[k].reset(given[k]);
    }
    if (!given[k] && !boundTensorAccess()) {
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
    if (!readTensor(results[k].get(), out, /*withStrides=*/false) ||
        !out.contiguous || out.dtype != dtype || !out.sameShape(first) ||
        out.device != device)
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

  // Pack: per memref operand its descriptor, per scalar one 8-byte word, in
  // argument order, outputs last.
  Py_ssize_t numOperands = self->numInputs + self->numOutputs;
  Py_ssize_t descriptorWords = 3 + 2 * rank;
  LaunchArguments launch;
  launch.reset(numTensors * descriptorWords + numScalars +
                   self->numOutputs * descriptorWords,
               numOperands);
  int64_t *words = launch.words();
  void **pointers = launch.pointers();
  size_t at = 0;
  auto packTensor = [&](uint64_t data) {
    writeDescriptor(&words[at], rank, data, 0, rank, first.sizes, strides);
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
  if (const PwTensorAccess *tensorAccess = boundTensorAccess()) {
    stream = tensorAccess->currentStream(static_cast<int32_t>(device));
    if (!stream && PyErr_Occurred())
      return nullptr;
  } else {
    Ref streamObject(PyObject_CallFunction(self->rawStream, "l", device));
    if (!streamObject)
      return nullptr;
    stream = PyLong_AsVoidPtr(streamObject.get());
    if (PyErr_Occurred())
      return nullptr;
  }

  int status = launchFamily(getBoundRuntime(), family, pointers,
                            static_cast<int>(device), stream);
  if (status)
    return raiseLaunchError(self->raiseError, status);
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
  PyObject_GC_UnTrack(object);
  fastPathClear(object);
  freeTrackedObject(object);
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
                    "one @pw.pointwise function; fast(*args, **outputs).")},
    {0, nullptr}};

PyType_Spec fastPathSpec = {"pointwise._fastcall.FastPath", sizeof(FastPath), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                            fastPathSlots};

/// bind(launch, exchange_device, set_stream): the runtime's entry points
/// (pwFamilyLaunch, pwExchangeDevice, pwSetStream), as addresses
/// (ctypes.cast(function, c_void_p).value).
PyObject *bind(PyObject *, PyObject *args) {
  PyObject *launch, *exchangeDevice, *setStream;
  if (!PyArg_ParseTuple(args, "OOO:bind", &launch, &exchangeDevice, &setStream))
    return nullptr;
  void *addresses[3] = {PyLong_AsVoidPtr(launch),
                        PyLong_AsVoidPtr(exchangeDevice),
                        PyLong_AsVoidPtr(setStream)};
  if (PyErr_Occurred())
    return nullptr;
  for (void *address : addresses)
    if (!address) {
      PyErr_SetString(PyExc_ValueError, "bind: a null entry point");
      return nullptr;
    }
  RuntimeEntries entries;
  entries.launch = reinterpret_cast<LaunchFn>(addresses[0]);
  entries.exchangeDevice = reinterpret_cast<ExchangeDeviceFn>(addresses[1]);
  entries.setStream = reinterpret_cast<SetStreamFn>(addresses[2]);
  bindRuntime(entries);
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
  }
  bindTensorAccess(table, objects);
  Py_RETURN_NONE;
}

/// Whether bind() gave the runtime's entry points; a RuntimeError naming
/// `method` otherwise.
bool requireBound(const BoundRuntime &bound, const char *method) {
  if (bound.entries.exchangeDevice)
    return true;
  PyErr_Format(PyExc_RuntimeError, "%s: bind() first", method);
  return false;
}

/// select(device, stream) -> (status, previous device): what the general
/// path calls before a launch, so that both paths share this thread's
/// record of the runtime's state; restore(device, previous) after it.
PyObject *select(PyObject *, PyObject *args) {
  int device;
  PyObject *streamObject;
  if (!PyArg_ParseTuple(args, "iO:select", &device, &streamObject))
    return nullptr;
  BoundRuntime bound = getBoundRuntime();
  if (!requireBound(bound, "select"))
    return nullptr;
  void *stream =
      streamObject == Py_None ? nullptr : PyLong_AsVoidPtr(streamObject);
  if (PyErr_Occurred())
    return nullptr;
  int previous = -1;
  int status = selectDeviceAndStream(bound, device, stream, previous);
  return Py_BuildValue("(ii)", status, previous);
}

/// restore(device, previous) -> status: ends the scope of select(device,
/// ...) that returned `previous`.
PyObject *restore(PyObject *, PyObject *args) {
  int device, previous;
  if (!PyArg_ParseTuple(args, "ii:restore", &device, &previous))
    return nullptr;
  BoundRuntime bound = getBoundRuntime();
  if (!requireBound(bound, "restore"))
    return nullptr;
  return PyLong_FromLong(restoreDevice(bound, device, previous));
}

PyMethodDef moduleMethods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(launch, exchange_device, set_stream): the runtime's entry "
     "points."},
    {"bind_tensors", bindTensors, METH_VARARGS,
     "bind_tensors(address, dtypes): the tensor access table (0: none)."},
    {"select", select, METH_VARARGS,
     "select(device, stream) -> (status, previous device): makes them current "
     "for this thread."},
    {"restore", restore, METH_VARARGS,
     "restore(device, previous) -> status: makes previous current again."},
    {nullptr, nullptr, 0, nullptr}};

int moduleExec(PyObject *module) {
  if (!internNames())
    return -1;
  PyObject *type = PyType_FromSpec(&fastPathSpec);
  if (!type)
    return -1;
  if (PyModule_AddObject(module, "FastPath", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  if (addFamilyCallType(module) < 0)
    return -1;
  return addLauncherType(module);
}

PyModuleDef_Slot moduleSlots[] = {
    {Py_mod_exec, reinterpret_cast<void *>(moduleExec)}, {0, nullptr}};

PyModuleDef moduleDefinition = {
    PyModuleDef_HEAD_INIT,
    "pointwise._fastcall",
    "The common calls of @pw.pointwise functions and AOT families, in C.",
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
