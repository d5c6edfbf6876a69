"""The one launch of the general call paths, without a GPU: the C launcher
(`pointwise._fastcall.Launcher`, python_bindings/src/Launcher.cpp) and its
Python stand-in for installs without the extension
(`pointwise._native.PythonLauncher`) are called with the same values, a
recording callback in place of pwFamilyLaunch: the same packed words, the
same errors. The scalar conversions are checked against Python's struct
module (float16 over many values, rounding ties and the range's edges)."""

import ctypes
import math
import random
import struct

import pytest

from pointwise import _dtypes, _native
from pointwise._runtime import load_runtime

LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                          ctypes.POINTER(ctypes.c_void_p))
FAMILY = 0xFA0000


class Recording:
    """pwFamilyLaunch's stand-in: records (family, words per argument)."""

    def __init__(self, specs, status=0):
        self.specs, self.status, self.launches = specs, status, []
        self.callback = LAUNCH(self.launch)

    def launch(self, family, args):
        words = []
        for i, spec in enumerate(self.specs):
            count = 3 + 2 * spec if isinstance(spec, int) else 1
            words.append(tuple((ctypes.c_int64 * count).from_address(args[i])))
        self.launches.append((family, words))
        return self.status


class FakeRuntime:
    """What PythonLauncher uses of the runtime."""

    def __init__(self, launch):
        self._launch = launch


@pytest.fixture
def launchers():
    """launchers(arguments, status=0): [(name, launcher, recording)] for
    the C launcher and the Python one."""
    runtime = load_runtime()
    module = _native.fastcall(runtime)
    if module is None:
        pytest.skip("pointwise._fastcall is not built (no Python headers)")
    bound = []

    def make(arguments, status=0):
        specs = [a if isinstance(a, int) else a for a in arguments]
        c_recording = Recording(specs, status)
        python_recording = Recording(specs, status)
        address = ctypes.cast(c_recording.callback, ctypes.c_void_p).value
        module.bind(address,
                    ctypes.cast(runtime.lib.pwExchangeDevice, ctypes.c_void_p).value,
                    ctypes.cast(runtime.lib.pwSetStream, ctypes.c_void_p).value)
        bound.append(c_recording)

        def raise_error(status):
            raise RuntimeError("status %d" % status)
        c = _native.make_launcher(runtime, FAMILY, arguments, "fn", raise_error)
        specs = tuple(a if isinstance(a, int) else (a.pack, a.mlir)
                      for a in arguments)
        python = _native.PythonLauncher(
            FakeRuntime(python_recording.callback), FAMILY, specs, "fn",
            raise_error)
        assert type(c).__name__ == "Launcher"
        return [("C", c, c_recording), ("Python", python, python_recording)]
    yield make
    cast = ctypes.cast
    module.bind(cast(runtime.lib.pwFamilyLaunch, ctypes.c_void_p).value,
                cast(runtime.lib.pwExchangeDevice, ctypes.c_void_p).value,
                cast(runtime.lib.pwSetStream, ctypes.c_void_p).value)


def outcomes(pairs, *values):
    """[(outcome, launches)] of each launcher called with `values`."""
    results = []
    for _, launcher, recording in pairs:
        try:
            outcome = ("ok", launcher(*values))
        except Exception as error:  # compared between the two
            outcome = (type(error), str(error))
        results.append((outcome, recording.launches[:]))
        recording.launches.clear()
    return results


def test_descriptors_are_padded_to_the_declared_rank(launchers):
    pairs = launchers([3, 0, 17])
    views = ((0x1000, 5, (4, 6), (6, 1)),
             (0x2000, 0, (), ()),
             (0x3000, -2, tuple(range(1, 18)), tuple(range(-8, 9))))
    (c, c_launches), (python, python_launches) = outcomes(pairs, *views)
    assert c == python == ("ok", None)
    assert c_launches == python_launches
    family, words = c_launches[0]
    assert family == FAMILY
    assert words[0] == (0x1000, 0x1000, 5, 1, 4, 6, 0, 6, 1)
    assert words[1] == (0x2000, 0x2000, 0)
    assert words[2] == (0x3000, 0x3000, -2) + tuple(range(1, 18)) + \
        tuple(range(-8, 9))


SCALARS = [
    (_dtypes.bool_, [True, False, 0, 2, 0.5]),
    (_dtypes.int8, [-128, 127, 0, True]),
    (_dtypes.int16, [-32768, 32767]),
    (_dtypes.int32, [-2**31, 2**31 - 1]),
    (_dtypes.int64, [-2**63, 2**63 - 1]),
    (_dtypes.uint8, [0, 255]),
    (_dtypes.uint16, [65535]),
    (_dtypes.uint32, [2**32 - 1]),
    (_dtypes.uint64, [2**64 - 1, 2**63]),
    (_dtypes.float16, [0.0, -0.0, 1.0, 65504.0, 65519.99, 6e-8, 2.0**-25,
                       3 * 2.0**-26, 1e-9, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11,
                       math.inf, -math.inf, math.nan, 7]),
    (_dtypes.bfloat16, [0.0, 1.0, -2.5, 3e38, 1.0 + 2.0**-8, math.nan,
                        -math.inf, 1e-40, 3]),
    (_dtypes.float32, [1.5, -0.0, 3.4028234663852886e+38, math.inf, 1e-46,
                       2**70, True]),
    (_dtypes.float64, [1e308, -1e-320, math.nan, 2**1000]),
]


@pytest.mark.parametrize("dtype,values", SCALARS, ids=lambda x: getattr(x, "name", ""))
def test_scalars_pack_alike(launchers, dtype, values):
    pairs = launchers([dtype])
    for value in values:
        (c, c_launches), (python, python_launches) = outcomes(pairs, value)
        assert c == python == ("ok", None), value
        assert c_launches == python_launches, (value, c_launches,
                                               python_launches)


BAD_SCALARS = [
    (_dtypes.int8, 128), (_dtypes.int8, -129), (_dtypes.uint8, -1),
    (_dtypes.uint64, 2**64), (_dtypes.int64, 2**63), (_dtypes.int32, 1.5),
    (_dtypes.int32, "3"), (_dtypes.float32, 1e39), (_dtypes.float32, "x"),
    (_dtypes.float16, 65520.0), (_dtypes.float16, 1e6),
    (_dtypes.bfloat16, 1e39), (_dtypes.bfloat16, None),
    (_dtypes.float64, 10**400),
]


@pytest.mark.parametrize("dtype,value", BAD_SCALARS,
                         ids=lambda x: getattr(x, "name", repr(x)))
def test_bad_scalars_raise_alike(launchers, dtype, value):
    pairs = launchers([1, dtype])
    view = (0x1000, 0, (3,), (1,))
    (c, c_launches), (python, python_launches) = outcomes(pairs, view, value)
    assert c_launches == python_launches == []
    assert c[0] is python[0] and c[0] in (TypeError, OverflowError), (c, python)
    prefix = "fn: argument #1: cannot pass %r as a scalar %s (" % (
        value, dtype.mlir)
    assert c[1].startswith(prefix) and python[1].startswith(prefix), \
        (c, python)


def test_bad_views_and_counts_raise_alike(launchers):
    pairs = launchers([2])
    for values in [((0x1000, 0, (2, 3, 4), (12, 4, 1)),),
                   ((0x1000, 0, (2, 3), (1,)),),
                   ([0x1000, 0, (2,), (1,)],),
                   ((0x1000, 0, (2,)),),
                   ()]:
        (c, _), (python, _) = outcomes(pairs, *values)
        assert c[0] is python[0] and c[0] in (TypeError, ValueError), \
            (values, c, python)
    (c, _), (python, _) = outcomes(pairs, (0x1000, 0, (2, 3, 4), (1, 1, 1)))
    assert c == python
    assert c[1] == "fn: argument #0: 3 dims for a memref of rank 2"


def test_launch_status_goes_to_raise_error(launchers):
    pairs = launchers([1], status=4)
    (c, c_launches), (python, python_launches) = outcomes(
        pairs, (0x1000, 0, (3,), (1,)))
    assert c == python == (RuntimeError, "status 4")
    assert len(c_launches) == len(python_launches) == 1


def test_float16_rounds_as_struct(launchers):
    """Round to nearest even over random doubles of every float16 binade,
    the subnormals, the ties, and the edge of the range."""
    pairs = launchers([_dtypes.float16])
    c_launcher, c_recording = pairs[0][1], pairs[0][2]
    rng = random.Random(7)
    values = []
    for exponent in range(-27, 16):
        for _ in range(40):
            values.append(rng.uniform(1, 2) * 2.0**exponent)
    # Ties between two float16 values: odd multiples of half an ulp.
    for exponent in (-24, -20, -14, -10, 0, 10, 15):
        ulp = 2.0**(exponent - 10) if exponent >= -14 else 2.0**-24
        for k in range(1, 40, 2):
            values.append(2.0**exponent + k * ulp / 2)
    values += [65504.0, 65519.0, 65519.999, 2.0**-24, 2.0**-25, 2.0**-25 * 1.5]
    for value in values:
        for signed in (value, -value):
            c_launcher(signed)
            word = c_recording.launches.pop()[1][0][0]
            assert word == struct.unpack("<H", struct.pack("<e", signed))[0], \
                signed


def test_without_the_extension_the_python_launcher_serves(monkeypatch):
    monkeypatch.setattr(_native, "_fastcall", False)
    runtime = load_runtime()
    launcher = _native.make_launcher(runtime, FAMILY, [1, _dtypes.float32],
                                     "fn", print)
    assert isinstance(launcher, _native.PythonLauncher)
