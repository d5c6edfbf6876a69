//===- CallSupport.cpp - What the C call paths share ----------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "CallSupport.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <iterator>
#include <utility>

namespace pointwise::python {

namespace {
RuntimeEntries runtime;

/// Bumped by every `bind()`: what a thread recorded under other entry
/// points says nothing about these.
std::atomic<unsigned> bindings{0};

const PwTensorAccess *tensorAccess = nullptr;
/// `dtypeObjects[code]`: the framework's dtype object of the table's dtype
/// code `code` (or null); owned references.
std::vector<PyObject *> dtypeObjects;

/// -1 with an error set, 0 or 1.
int isTrueMethod(PyObject *object, PyObject *name) {
  PyObject *result = callMethod(object, name);
  if (!result)
    return -1;
  int truth = result == Py_True;
  Py_DECREF(result);
  return truth;
}

/// Reads a tuple of non-negative integers (a shape or strides) into
/// `values`; false when it is not one or is longer than kMaxRank.
bool readIntegers(PyObject *tuple, int64_t *values, Py_ssize_t &count,
                  bool nonNegative) {
  if (!tuple || !PyTuple_Check(tuple))
    return false;
  count = PyTuple_Size(tuple);
  if (count > kMaxRank)
    return false;
  for (Py_ssize_t d = 0; d < count; ++d) {
    values[d] = PyLong_AsLongLong(PyTuple_GetItem(tuple, d));
    if ((values[d] == -1 && PyErr_Occurred()) || (nonNegative && values[d] < 0))
      return false;
  }
  return true;
}

bool readThroughAttributes(PyObject *tensor, TensorInfo &info,
                           bool withStrides) {
  Ref isCuda(PyObject_GetAttr(tensor, names.isCuda));
  if (!isCuda || isCuda.get() != Py_True)
    return false;
  Ref shape(PyObject_GetAttr(tensor, names.shape));
  if (!readIntegers(shape.get(), info.sizes, info.rank, /*nonNegative=*/true))
    return false;
  if (withStrides) {
    Ref strides(callMethod(tensor, names.stride));
    Py_ssize_t count = 0;
    if (!readIntegers(strides.get(), info.strides, count,
                      /*nonNegative=*/false) ||
        count != info.rank)
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
  // A tensor with its negative bit set (x.conj().imag) holds its values
  // negated: the general paths resolve or reject it.
  if (isTrueMethod(tensor, names.isNeg) != 0)
    return false;
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
} // namespace

Names names;

void bindRuntime(const RuntimeEntries &entries) {
  runtime = entries;
  bindings.fetch_add(1, std::memory_order_acq_rel);
}

BoundRuntime getBoundRuntime() {
  return {runtime, bindings.load(std::memory_order_acquire)};
}

bool isRuntimeBound() { return runtime.launch != nullptr; }

void LaunchArguments::reset(size_t words, size_t count) {
  if (words > kInlineWords) {
    heapWords.assign(words, 0);
    wordData = heapWords.data();
  } else {
    std::memset(inlineWords, 0, words * sizeof(int64_t));
    wordData = inlineWords;
  }
  if (count > kInlinePointers) {
    heapPointers.assign(count, nullptr);
    pointerData = heapPointers.data();
  } else {
    pointerData = inlinePointers;
  }
}

bool clearHandOverError() {
  PyObject *error = PyErr_Occurred();
  if (!error)
    return true;
  for (PyObject *expected :
       {PyExc_TypeError, PyExc_ValueError, PyExc_AttributeError,
        PyExc_OverflowError, PyExc_IndexError})
    if (PyErr_GivenExceptionMatches(error, expected)) {
      PyErr_Clear();
      return true;
    }
  return false;
}

PyObject *raiseLaunchError(PyObject *raiseError, int status) {
  Ref raised(PyObject_CallFunction(raiseError, "i", status));
  if (!PyErr_Occurred())
    PyErr_Format(PyExc_RuntimeError, "pointwise: launch failed (status %d)",
                 status);
  return nullptr;
}

void freeTrackedObject(PyObject *object) {
  PyTypeObject *type = Py_TYPE(object);
  auto release = reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free));
  release(object);
  Py_DECREF(type);
}

bool internNames() {
  names.shape = PyUnicode_InternFromString("shape");
  names.dtype = PyUnicode_InternFromString("dtype");
  names.isCuda = PyUnicode_InternFromString("is_cuda");
  names.isContiguous = PyUnicode_InternFromString("is_contiguous");
  names.isNeg = PyUnicode_InternFromString("is_neg");
  names.getDevice = PyUnicode_InternFromString("get_device");
  names.dataPtr = PyUnicode_InternFromString("data_ptr");
  names.stride = PyUnicode_InternFromString("stride");
  return names.shape && names.dtype && names.isCuda && names.isContiguous &&
         names.isNeg && names.getDevice && names.dataPtr && names.stride;
}

PyObject *callMethod(PyObject *object, PyObject *name) {
  return PyObject_CallMethodObjArgs(object, name, nullptr);
}

const PwTensorAccess *boundTensorAccess() { return tensorAccess; }

void bindTensorAccess(const PwTensorAccess *table,
                      const std::vector<PyObject *> &dtypes) {
  for (PyObject *dtype : dtypes)
    Py_XINCREF(dtype);
  for (PyObject *dtype : dtypeObjects)
    Py_XDECREF(dtype);
  dtypeObjects = dtypes;
  tensorAccess = table;
}

int32_t findDtypeCode(PyObject *dtype) {
  for (size_t code = 0; code < dtypeObjects.size(); ++code)
    if (dtypeObjects[code] == dtype)
      return static_cast<int32_t>(code);
  return -1;
}

bool TensorInfo::sameShape(const TensorInfo &other) const {
  return rank == other.rank &&
         std::memcmp(sizes, other.sizes, rank * sizeof(int64_t)) == 0;
}

bool readTensor(PyObject *tensor, TensorInfo &info, bool withStrides) {
  if (!tensorAccess)
    return readThroughAttributes(tensor, info, withStrides);
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
  if (withStrides)
    std::memcpy(info.strides, view.strides, view.rank * sizeof(int64_t));
  return true;
}

namespace {

/// What a NumPy scalar is, for packScalar.
enum class NumpyScalar { None, Integer, Real, Bool };

/// The kind of `value` when it is one of NumPy's own scalar types (a static
/// type deriving from numpy.integer; numpy.float16, float32, float64 or
/// bool_), whose
/// conversions are NumPy's C code; None for anything else, a subclass
/// defined in Python included (a heap type, which may convert with Python
/// code). A static type deriving from numpy.integer is taken to convert in
/// C, as NumPy's own do (a third-party C type could do otherwise). Types
/// seen are remembered, so a NumPy scalar costs a few pointer comparisons
/// after its first call.
NumpyScalar numpyScalarKind(PyObject *value) {
  struct Seen {
    PyTypeObject *type;
    NumpyScalar kind;
  };
  static Seen seen[32];
  static int numSeen = 0;
  PyTypeObject *type = Py_TYPE(value);
  for (int i = 0; i < numSeen; ++i)
    if (seen[i].type == type)
      return seen[i].kind;
  if (PyType_GetFlags(type) & Py_TPFLAGS_HEAPTYPE)
    return NumpyScalar::None;
  // NumPy is loaded when one of its scalars exists; nothing is imported.
  NumpyScalar kind = NumpyScalar::None;
  PyObject *moduleName = PyUnicode_FromString("numpy");
  PyObject *numpy = moduleName ? PyImport_GetModule(moduleName) : nullptr;
  Py_XDECREF(moduleName);
  if (!numpy) {
    // Not (yet) imported, or the lookup failed: ask again next time.
    PyErr_Clear();
    return NumpyScalar::None;
  }
  // Integers of any width convert exactly (__index__); of the reals
  // float16, float32 and float64 (a Python float, here for its truth), not
  // longdouble (beyond float64's range it must stay an error where the
  // general call checks).
  struct Base {
    const char *attribute;
    NumpyScalar kind;
    bool exact;
  };
  static const Base bases[] = {{"integer", NumpyScalar::Integer, false},
                               {"float16", NumpyScalar::Real, true},
                               {"float32", NumpyScalar::Real, true},
                               {"float64", NumpyScalar::Real, true},
                               {"bool_", NumpyScalar::Bool, true}};
  for (const Base &base : bases) {
    PyObject *object = PyObject_GetAttrString(numpy, base.attribute);
    if (!object) {
      PyErr_Clear();
      continue;
    }
    bool matches =
        PyType_Check(object) &&
        (base.exact ? reinterpret_cast<PyObject *>(type) == object
                    : PyType_IsSubtype(
                          type, reinterpret_cast<PyTypeObject *>(object)));
    Py_DECREF(object);
    if (matches) {
      kind = base.kind;
      break;
    }
  }
  Py_DECREF(numpy);
  // Static types live as long as the process: remember the answer.
  if (numSeen < static_cast<int>(std::size(seen)))
    seen[numSeen++] = {type, kind};
  return kind;
}

} // namespace

bool packScalar(PyObject *value, char code, int64_t &word) {
  word = 0;
  // Exact ints and bools: their conversions are CPython's own.
  bool isInteger = PyLong_CheckExact(value) || PyBool_Check(value);
  // NumPy's scalars: their conversions are NumPy's C code, and they pack
  // as struct packs them (integers through __index__, reals through
  // __float__, truth through __bool__).
  NumpyScalar numpy = NumpyScalar::None;
  if (!isInteger && !PyFloat_CheckExact(value))
    numpy = numpyScalarKind(value);
  switch (code) {
  case '?':
    if (isInteger || PyFloat_CheckExact(value) || numpy != NumpyScalar::None) {
      int truth = PyObject_IsTrue(value);
      if (truth < 0) {
        PyErr_Clear();
        return false;
      }
      word = truth;
      return true;
    }
    return false;
  case 'b':
  case 'h':
  case 'i':
  case 'q':
  case 'B':
  case 'H':
  case 'I':
  case 'Q': {
    PyObject *index = nullptr;
    if (numpy == NumpyScalar::Integer) {
      index = PyNumber_Index(value);
      if (!index) {
        PyErr_Clear();
        return false;
      }
    } else if (!isInteger) {
      return false;
    }
    PyObject *number = index ? index : value;
    char lower = static_cast<char>(code | 0x20);
    int bits = lower == 'b' ? 8 : lower == 'h' ? 16 : lower == 'i' ? 32 : 64;
    if (code != lower) { // unsigned: 0 to 2^bits - 1
      unsigned long long natural = PyLong_AsUnsignedLongLong(number);
      Py_XDECREF(index);
      if (natural == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear(); // negative or beyond 64 bits
        return false;
      }
      if (bits < 64 && natural >> bits)
        return false;
      word = static_cast<int64_t>(natural);
      return true;
    }
    int overflow = 0;
    long long integer = PyLong_AsLongLongAndOverflow(number, &overflow);
    Py_XDECREF(index);
    if (overflow || (integer == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    if (bits < 64) {
      long long limit = 1LL << (bits - 1);
      if (integer < -limit || integer >= limit)
        return false;
    }
    // Little-endian: the low bytes of the word are the narrow value, the
    // rest zero (as Python's struct module pads it).
    word = bits < 64 ? static_cast<int64_t>(static_cast<uint64_t>(integer) &
                                            ((uint64_t(1) << bits) - 1))
                     : integer;
    return true;
  }
  case 'f':
  case 'd': {
    double real;
    if (PyFloat_Check(value)) {
      real = PyFloat_AsDouble(value); // a float's own value: no Python code
    } else if (numpy != NumpyScalar::None) {
      real = PyFloat_AsDouble(value); // NumPy's __float__, as struct reads it
      if (real == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
    } else if (isInteger) {
      real = PyLong_AsDouble(value);
      if (real == -1.0 && PyErr_Occurred()) {
        PyErr_Clear(); // beyond a double's range
        return false;
      }
    } else {
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

namespace {

/// The float16 bits of `value`, rounded to nearest even as Python's struct
/// packs "e"; false when a finite value rounds beyond float16's range.
bool toHalfBits(double value, uint16_t &bits) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  if (std::isnan(value)) {
    bits = sign | 0x7E00;
    return true;
  }
  if (std::isinf(value)) {
    bits = sign | 0x7C00;
    return true;
  }
  if (magnitude < std::ldexp(1.0, -14)) {
    // Subnormal: a multiple of 2^-24. The scaling is exact, and rounding
    // the exact value to an integer is the rounding to float16; 1024 is the
    // smallest normal number, whose bits follow on.
    bits =
        sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
    return true;
  }
  int exponent;
  double fraction = std::frexp(magnitude, &exponent); // [0.5, 1)
  // 11 significant bits: the exact significand scaled to [1024, 2048),
  // rounded to nearest even (the default rounding mode).
  double significand = std::nearbyint(std::ldexp(fraction, 11));
  if (significand == 2048.0) {
    significand = 1024.0;
    ++exponent;
  }
  int biased = exponent - 1 + 15;
  if (biased >= 31)
    return false;
  bits = sign | static_cast<uint16_t>(biased << 10) |
         static_cast<uint16_t>(static_cast<int>(significand) - 1024);
  return true;
}

/// The bfloat16 bits of float32 `narrow`, rounded to nearest even (NaNs
/// stay quiet NaNs).
uint16_t toBfloat16Bits(float narrow) {
  uint32_t bits;
  std::memcpy(&bits, &narrow, sizeof(bits));
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu))
    return static_cast<uint16_t>(((bits >> 16) & 0xFFFF) | 0x0040);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

bool isFloatCode(char code) {
  return code == 'f' || code == 'd' || code == 'e' || code == 'E';
}

} // namespace

bool convertScalar(PyObject *value, char code, int64_t &word) {
  if (!isFloatCode(code) || code == 'f' || code == 'd')
    if (packScalar(value, code, word))
      return true;
  word = 0;
  if (code == '?') {
    int truth = PyObject_IsTrue(value);
    if (truth < 0)
      return false;
    word = truth;
    return true;
  }
  if (isFloatCode(code)) {
    double real = PyFloat_AsDouble(value); // __float__, else __index__
    if (real == -1.0 && PyErr_Occurred())
      return false; // TypeError, or OverflowError for a huge int
    bool finite = std::isfinite(real);
    if (code == 'd') {
      std::memcpy(&word, &real, sizeof(real));
      return true;
    }
    if (code == 'e') {
      uint16_t bits;
      if (!toHalfBits(real, bits)) {
        PyErr_SetString(PyExc_OverflowError,
                        "float too large to pack with e format");
        return false;
      }
      word = bits;
      return true;
    }
    float narrow = static_cast<float>(real);
    if (finite && std::isinf(narrow)) {
      PyErr_SetString(PyExc_OverflowError,
                      "float too large to pack with f format");
      return false;
    }
    if (code == 'E') {
      word = toBfloat16Bits(narrow);
      return true;
    }
    std::memcpy(&word, &narrow, sizeof(narrow));
    return true;
  }
  if (!std::strchr("bhiqBHIQ", code) || code == 0) {
    PyErr_Format(PyExc_ValueError, "unknown scalar code '%c'", code);
    return false;
  }
  Ref index(PyNumber_Index(value)); // TypeError for non-integers
  if (!index)
    return false;
  if (!packScalar(index.get(), code, word)) {
    char lower = static_cast<char>(code | 0x20);
    int bits = lower == 'b' ? 8 : lower == 'h' ? 16 : lower == 'i' ? 32 : 64;
    if (code == lower)
      PyErr_Format(PyExc_OverflowError,
                   "%R is out of range for a %d-bit signed integer",
                   index.get(), bits);
    else
      PyErr_Format(PyExc_OverflowError,
                   "%R is out of range for a %d-bit unsigned integer",
                   index.get(), bits);
    return false;
  }
  return true;
}

void writeDescriptor(int64_t *words, Py_ssize_t rank, uint64_t data,
                     int64_t offset, Py_ssize_t viewRank, const int64_t *sizes,
                     const int64_t *strides) {
  auto address = static_cast<int64_t>(data);
  words[0] = address;
  words[1] = address;
  words[2] = offset;
  Py_ssize_t lead = rank - viewRank;
  for (Py_ssize_t d = 0; d < rank; ++d) {
    bool padded = d < lead;
    words[3 + d] = padded ? 1 : sizes[d - lead];
    words[3 + rank + d] = padded ? 0 : strides[d - lead];
  }
}

namespace {
/// The stream this thread last made current in the runtime, valid for
/// `recordBinding`.
thread_local unsigned recordBinding = ~0u;
thread_local void *currentStream = nullptr;
} // namespace

int selectDeviceAndStream(const BoundRuntime &bound, int device, void *stream,
                          int &previous) {
  // Every call: other code on the thread (torch.cuda.set_device, a device
  // guard) may have made another device current since the last one.
  previous = -1;
  if (int status = bound.entries.exchangeDevice(device, &previous))
    return status;
  if (recordBinding != bound.binding || stream != currentStream) {
    bound.entries.setStream(stream);
    currentStream = stream;
    recordBinding = bound.binding;
  }
  return 0;
}

int restoreDevice(const BoundRuntime &bound, int device, int previous) {
  if (previous < 0 || previous == device)
    return 0;
  return bound.entries.exchangeDevice(previous, nullptr);
}

int launchFamily(const BoundRuntime &bound, void *family, void **pointers,
                 int device, void *stream) {
  PyThreadState *released = PyEval_SaveThread();
  int status = 0;
  int previous = -1;
  if (device >= 0)
    status = selectDeviceAndStream(bound, device, stream, previous);
  if (!status)
    status = bound.entries.launch(family, pointers);
  if (device >= 0) {
    int restored = restoreDevice(bound, device, previous);
    if (!status)
      status = restored;
  }
  PyEval_RestoreThread(released);
  return status;
}

} // namespace pointwise::python
