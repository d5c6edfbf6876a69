#!/usr/bin/env python3
"""Runs a differential GPU bundle on a GPU: every case's kernel family on the
dumped inputs, compared with the CPU reference lowering's dumped outputs.

    python3 DIR/differential_gpu_runner.py DIR
    python3 DIR/differential_gpu_runner.py DIR --sanitize-subset 20   # few cases
    python3 DIR/differential_gpu_runner.py DIR --dry-run   # no GPU needed

The bundle comes from `differential.py --gpu-bundle DIR` (docs/Testing.md).
This script needs Python 3.8+, its standard library and the `pointwise`
package next to it (ctypes over libPointwiseRuntime.so); on the GPU machine
also the NVIDIA driver. No MLIR, CUDA toolkit, NumPy or PyTorch.

Per case: one device buffer per memref argument, of the dumped buffer's
size, filled with the dumped input bytes; descriptors with the aligned
pointer at the buffer's start and the dumped offset, sizes and strides;
scalars as their dumped bits; pwFamilyLaunch(&pw_family_case_<index>, args);
then every buffer is read back whole and compared with the reference dump:
bit for bit, except the elements of a float output's view, which may differ
by the case's relative tolerance (|gpu - ref| <= tol * (1 + |ref|); NaN
matches any NaN). A *rounding-sensitive* output (cases.json: a float
comparison or fptosi of a value the GPU may round differently decides it)
may differ in at most max(2, 10 %) of its view's elements: a flipped
comparison changes a few elements, a bug most of them. Those differences are
reported as TOLERATED; --strict makes them failures.

Exit status: 0 when every case passed, 1 on any failure, 2 when the bundle
is malformed or there is no GPU.
"""

import argparse
import ctypes
import json
import lzma
import math
import os
import shutil
import struct
import sys
import tempfile
import time

BUNDLE_FORMAT = "pw-differential-gpu-1"
DUMP_FORMAT = "pw-run-dump-1"
RUNTIME = "libPointwiseRuntime.so"
ELEMENT_TYPES = ("i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32",
                 "f64")
BYTE_WIDTH = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2,
              "bf16": 2, "f32": 4, "f64": 8}
SENSITIVE_FRACTION = 0.10
SENSITIVE_MINIMUM = 2


class BundleError(Exception):
    """The bundle is malformed: a builder bug or a damaged copy."""


def find_pointwise(bundle):
    """Makes the `pointwise` package importable: the bundle's copy, else
    the source tree's (when run from test/lit-support)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for directory in (bundle, here,
                      os.path.join(here, "..", "..", "python_bindings")):
        if os.path.isdir(os.path.join(directory, "pointwise")):
            sys.path.insert(0, os.path.abspath(directory))
            return
    raise BundleError("no pointwise package in %s or next to %s"
                      % (bundle, here))


# ===------------------------------------------------------------------------===
# The bundle, validated without a GPU
# ===------------------------------------------------------------------------===

def view_offsets(sizes, strides, offset):
    """Every element offset the view addresses."""
    offsets = [offset]
    for size, stride in zip(sizes, strides):
        offsets = [o + i * stride for o in offsets for i in range(size)]
    return offsets


def view_range(sizes, strides, offset):
    """(lowest, highest) element offset of a view, None when empty."""
    if any(s == 0 for s in sizes):
        return None
    low = high = offset
    for size, stride in zip(sizes, strides):
        reach = (size - 1) * stride
        if reach < 0:
            low += reach
        else:
            high += reach
    return low, high


class Argument:
    """One argument of a case, from its input and reference manifests."""

    def __init__(self, entry, directory, reference_directory, where):
        self.index = entry["index"]
        self.kind = entry["kind"]
        self.type = entry["type"]
        self.byte_width = entry["byte_width"]
        self.where = "%s: argument #%d" % (where, self.index)
        if self.kind == "scalar":
            self.bits = int(entry["bits"])
            self.value = entry.get("value", "")
            if self.type not in ELEMENT_TYPES:
                raise BundleError("%s: a kernel family cannot take a scalar "
                                  "of type %s" % (self.where, self.type))
            if self.bits >> (8 * self.byte_width):
                raise BundleError("%s: bits %d exceed the byte width %d"
                                  % (self.where, self.bits, self.byte_width))
            return
        if self.kind != "memref":
            raise BundleError("%s: unknown kind %r" % (self.where, self.kind))
        if self.type not in ELEMENT_TYPES or \
                BYTE_WIDTH[self.type] != self.byte_width:
            raise BundleError("%s: element type %s of %d bytes" % (
                self.where, self.type, self.byte_width))
        self.sizes = [int(s) for s in entry["sizes"]]
        self.strides = [int(s) for s in entry["strides"]]
        self.offset = int(entry["offset"])
        self.elements = int(entry["buffer_elements"])
        self.bytes = int(entry["bytes"])
        self.input_path = os.path.join(directory, entry["file"])
        self.reference_path = os.path.join(reference_directory, entry["file"])
        if len(self.sizes) != len(self.strides):
            raise BundleError("%s: %d sizes, %d strides" % (
                self.where, len(self.sizes), len(self.strides)))
        if self.bytes != self.elements * self.byte_width:
            raise BundleError("%s: %d bytes for %d elements of %s" % (
                self.where, self.bytes, self.elements, self.type))
        reach = view_range(self.sizes, self.strides, self.offset)
        if reach and (reach[0] < 0 or reach[1] >= self.elements):
            raise BundleError("%s: the view reaches elements %d to %d of a "
                              "buffer of %d" % (self.where, reach[0],
                                                reach[1], self.elements))
        for path in (self.input_path, self.reference_path):
            if not os.path.isfile(path):
                raise BundleError("%s: missing %s" % (self.where, path))
            if os.path.getsize(path) != self.bytes:
                raise BundleError("%s: %s has %d bytes, the manifest says %d"
                                  % (self.where, path, os.path.getsize(path),
                                     self.bytes))
        self.compare = None      # the case's compare entry

    @property
    def is_memref(self):
        return self.kind == "memref"

    def describe(self):
        if not self.is_memref:
            return "%s = %s" % (self.type, self.value)
        sizes = "x".join(map(str, self.sizes)) or "()"
        return "%s@%s+%d x%s" % (sizes, ",".join(map(str, self.strides)),
                                 self.offset, self.type)

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        raise BundleError("cannot read %s %s: %s" % (what, path, error))


class Case:
    def __init__(self, bundle, entry):
        self.entry = entry
        self.id = entry["id"]
        self.origin = entry.get("origin", self.id)
        self.library = entry["library"]
        self.function = entry["function"]
        where = "%s (%s)" % (self.id, self.origin)
        inputs_path = os.path.join(bundle, entry["inputs"])
        reference_path = os.path.join(bundle, entry["reference"])
        inputs = load_json(inputs_path, "input manifest")
        reference = load_json(reference_path, "reference manifest")
        for manifest, path in ((inputs, inputs_path),
                               (reference, reference_path)):
            if manifest.get("format") != DUMP_FORMAT:
                raise BundleError("%s: %s is not a pw-run dump (format %r)"
                                  % (where, path, manifest.get("format")))
        if inputs.get("contents") != "inputs" or \
                reference.get("contents") != "reference outputs":
            raise BundleError("%s: the dumps hold %r and %r, not inputs and "
                              "reference outputs" % (
                                  where, inputs.get("contents"),
                                  reference.get("contents")))
        # The reference dump describes the same views (its buffers differ).
        if inputs["arguments"] != reference["arguments"]:
            raise BundleError("%s: the input and reference manifests "
                              "describe different arguments" % where)
        self.arguments = [
            Argument(e, os.path.dirname(inputs_path),
                     os.path.dirname(reference_path), where)
            for e in inputs["arguments"]]
        if [a.index for a in self.arguments] != \
                list(range(len(self.arguments))):
            raise BundleError("%s: arguments out of order" % where)
        memrefs = {a.index for a in self.arguments if a.is_memref}
        compared = set()
        for compare in entry["compare"]:
            index = compare["argument"]
            if index not in memrefs:
                raise BundleError("%s: compare entry for argument #%d, which "
                                  "is not a memref" % (where, index))
            argument = self.arguments[index]
            if compare["type"] != argument.type:
                raise BundleError("%s: argument #%d is %s in cases.json and "
                                  "%s in the dump" % (where, index,
                                                      compare["type"],
                                                      argument.type))
            argument.compare = compare
            compared.add(index)
        if compared != memrefs:
            raise BundleError("%s: no comparison for arguments %s" % (
                where, sorted(memrefs - compared)))


def load_bundle(bundle):
    manifest = load_json(os.path.join(bundle, "cases.json"), "bundle manifest")
    if manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError("%s/cases.json: format %r, expected %r" % (
            bundle, manifest.get("format"), BUNDLE_FORMAT))
    return manifest


def select_cases(manifest, args):
    entries = manifest["cases"]
    if args.only:
        wanted = set(args.only)
        chosen = [e for e in entries
                  if e["id"] in wanted or str(e["index"]) in wanted]
        missing = wanted - {e["id"] for e in chosen} - \
            {str(e["index"]) for e in chosen}
        if missing:
            raise BundleError("no case %s in the bundle" % ", ".join(
                sorted(missing)))
        entries = chosen
    if args.sanitize_subset is not None and \
            args.sanitize_subset < len(entries):
        # Spread over the bundle, so every library takes part.
        count = max(0, args.sanitize_subset)
        step = len(entries) / count if count else 1
        entries = [entries[int(i * step)] for i in range(count)]
    return entries


# ===------------------------------------------------------------------------===
# Libraries
# ===------------------------------------------------------------------------===

class Libraries:
    """The bundle's kernel libraries, unpacked next to a link to the
    runtime (their $ORIGIN rpath finds it there) on first use."""

    def __init__(self, bundle, runtime):
        self.bundle = bundle
        self.runtime = runtime
        self.loaded = {}
        self.scratch = None

    def path(self, name):
        path = os.path.join(self.bundle, name)
        if not os.path.isfile(path):
            raise BundleError("missing library %s" % path)
        if not name.endswith(".xz"):
            return path
        if self.scratch is None:
            self.scratch = tempfile.mkdtemp(prefix="pw-gpu-bundle-")
            os.symlink(os.path.abspath(os.path.join(self.bundle, RUNTIME)),
                       os.path.join(self.scratch, RUNTIME))
        unpacked = os.path.join(self.scratch, name[:-len(".xz")])
        if not os.path.exists(unpacked):
            try:
                with lzma.open(path) as source, open(unpacked, "wb") as target:
                    shutil.copyfileobj(source, target, 1 << 20)
            except (OSError, lzma.LZMAError) as error:
                raise BundleError("cannot unpack %s: %s" % (path, error))
        return unpacked

    def library(self, name):
        from pointwise import KernelLibrary
        library = self.loaded.get(name)
        if library is None:
            library = self.loaded[name] = KernelLibrary(self.path(name),
                                                        self.runtime)
        return library

    def close(self):
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


def check_family(case, family):
    """The family table must match the dumped arguments."""
    where = "%s (%s)" % (case.id, case.origin)
    if family.num_arguments != len(case.arguments):
        raise BundleError("%s: the family takes %d arguments, the dump has %d"
                          % (where, family.num_arguments, len(case.arguments)))
    for info, argument in zip(family.arguments, case.arguments):
        if info.is_memref != argument.is_memref or \
                info.element_type != argument.type:
            raise BundleError("%s: argument #%d is %r in the family and %s in "
                              "the dump" % (where, argument.index, info,
                                            argument.describe()))
        if argument.is_memref:
            if info.rank != len(argument.sizes):
                raise BundleError("%s: argument #%d has rank %d in the family "
                                  "and %d in the dump" % (
                                      where, argument.index, info.rank,
                                      len(argument.sizes)))
            for static, size in zip(info.static_sizes, argument.sizes):
                if static >= 0 and static != size:
                    raise BundleError("%s: argument #%d: static size %d, "
                                      "dumped size %d" % (
                                          where, argument.index, static, size))
        expected_output = argument.is_memref and \
            argument.compare["role"] != "input"
        if expected_output != (argument.index in family.outputs):
            raise BundleError("%s: argument #%d is %san output of the family"
                              % (where, argument.index,
                                 "" if argument.index in family.outputs
                                 else "not "))


# ===------------------------------------------------------------------------===
# Comparing buffers
# ===------------------------------------------------------------------------===

def decode(type_name, data):
    """The elements of a buffer as Python numbers."""
    if type_name == "bf16":
        halves = struct.unpack("<%dH" % (len(data) // 2), data)
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in halves]
    code = {"i1": "B", "i8": "b", "i16": "h", "i32": "i", "i64": "q",
            "f16": "e", "f32": "f", "f64": "d"}[type_name]
    width = BYTE_WIDTH[type_name]
    return list(struct.unpack("<%d%s" % (len(data) // width, code), data))


def close_enough(got, expected, tolerance):
    if math.isnan(got) or math.isnan(expected):
        return math.isnan(got) and math.isnan(expected)
    if got == expected:
        return True              # also +0 and -0, equal infinities
    return abs(got - expected) <= tolerance * (1 + abs(expected))


class Mismatch:
    def __init__(self, argument, differing, total, examples, tolerated):
        self.argument = argument
        self.differing = differing
        self.total = total
        self.examples = examples     # (offset, in view, got, expected)
        self.tolerated = tolerated


def compare_buffer(argument, got, expected, max_examples):
    """None when `got` matches, else a Mismatch."""
    if got == expected:
        return None
    width = argument.byte_width
    compare = argument.compare
    tolerance = compare["tolerance"]
    is_output = compare["role"] != "input"
    in_view = set(view_offsets(argument.sizes, argument.strides,
                               argument.offset)) if is_output else set()
    got_values = decode(argument.type, got)
    expected_values = decode(argument.type, expected)
    differing, examples, in_view_differing = 0, [], 0
    for element in range(argument.elements):
        start = element * width
        if got[start:start + width] == expected[start:start + width]:
            continue
        inside = element in in_view
        if inside and tolerance and close_enough(
                got_values[element], expected_values[element], tolerance):
            continue
        differing += 1
        in_view_differing += inside
        if len(examples) < max_examples:
            examples.append((element, inside, got_values[element],
                             expected_values[element]))
    if not differing:
        return None
    tolerated = False
    if compare.get("rounding_sensitive") and differing == in_view_differing:
        limit = max(SENSITIVE_MINIMUM,
                    int(SENSITIVE_FRACTION * len(in_view)))
        tolerated = differing <= limit
    return Mismatch(argument, differing, argument.elements, examples,
                    tolerated)


def format_value(value):
    if isinstance(value, float):
        return "%.9g" % value
    return str(value)


# ===------------------------------------------------------------------------===
# Running on the GPU
# ===------------------------------------------------------------------------===

class DeviceError(Exception):
    """A runtime call failed; `fatal` when the context may be unusable."""

    def __init__(self, message, fatal=False):
        super().__init__(message)
        self.fatal = fatal


class Device:
    def __init__(self, runtime):
        self.runtime = runtime
        lib = runtime.lib
        self.lib = lib
        self.launch = lib["pwFamilyLaunch"]     # a function object of our own
        self.launch.restype = ctypes.c_int
        self.launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def check(self, status, what, fatal=False):
        if status:
            raise DeviceError("%s: %s: %s" % (
                what, self.runtime.status_name(status),
                self.runtime.last_error_message()), fatal)

    def usable(self):
        """Whether the context still works after a failure (a fault in a
        kernel makes it unusable until the process exits)."""
        return self.lib.pwDeviceSynchronize() == 0

    def malloc(self, size):
        pointer = ctypes.c_void_p()
        self.check(self.lib.pwMalloc(ctypes.byref(pointer), size), "pwMalloc")
        return pointer.value or 0

    def free(self, pointer):
        if pointer:
            self.lib.pwFree(pointer)

    def upload(self, pointer, data):
        if data:
            self.check(self.lib.pwMemcpyHostToDevice(pointer, data,
                                                     len(data)),
                       "pwMemcpyHostToDevice")

    def download(self, pointer, size):
        buffer = ctypes.create_string_buffer(size)
        if size:
            self.check(self.lib.pwMemcpyDeviceToHost(buffer, pointer, size),
                       "pwMemcpyDeviceToHost", fatal=True)
        return buffer.raw

    def synchronize(self):
        self.check(self.lib.pwDeviceSynchronize(), "pwDeviceSynchronize",
                   fatal=True)


class Result:
    def __init__(self, case):
        self.case = case
        self.error = ""
        self.mismatches = []
        self.variant = ""
        self.kind = ""       # "i32 linear", for the summary

    @property
    def failed(self):
        return bool(self.error) or any(not m.tolerated
                                       for m in self.mismatches)


def family_address(library, function):
    """The address of the pw_family_<function> table."""
    return ctypes.addressof(ctypes.c_char.in_dll(library.lib,
                                                 "pw_family_" + function))


def run_case(device, library, family, case, max_examples, strict):
    """Launches one case and compares its buffers."""
    result = Result(case)
    pointers = []
    try:
        words = []           # per argument: its int64 words
        keep = []
        for argument in case.arguments:
            if not argument.is_memref:
                words.append([argument.bits])
                continue
            data = argument.read(argument.input_path)
            pointer = device.malloc(len(data))
            pointers.append(pointer)
            device.upload(pointer, data)
            argument.pointer = pointer
            words.append([pointer, pointer, argument.offset] +
                         argument.sizes + argument.strides)
        storage = [(ctypes.c_int64 * len(w))(
            *[x - (1 << 64) if x >= 1 << 63 else x for x in w])
            for w in words]
        keep.extend(storage)
        args = (ctypes.c_void_p * max(1, len(storage)))(
            *[ctypes.addressof(s) for s in storage])
        status = device.launch(family_address(library, case.function), args)
        chosen = device.runtime.last_variant()
        variant = family.variant(chosen) if status == 0 else None
        result.variant = repr(variant) if variant else \
            ("nothing launched" if status == 0 else "")
        if status == 0:
            result.kind = "i%d %s" % (variant.index_bitwidth,
                                      variant.strategy) if variant \
                else "empty (nothing launched)"
        device.check(status, "pwFamilyLaunch")
        device.synchronize()
        for argument in case.arguments:
            if not argument.is_memref:
                continue
            got = device.download(argument.pointer, argument.bytes)
            expected = argument.read(argument.reference_path)
            mismatch = compare_buffer(argument, got, expected, max_examples)
            if mismatch:
                if strict:
                    mismatch.tolerated = False
                result.mismatches.append(mismatch)
    except DeviceError as error:
        result.error = str(error)
        if error.fatal or not device.usable():
            raise
    finally:
        for pointer in pointers:
            device.free(pointer)
    return result


def report(result, bundle):
    case = result.case
    head = "%s (%s)" % (case.id, case.origin)
    lines = []
    if result.error:
        lines.append("FAIL %s: %s" % (head, result.error))
    for m in result.mismatches:
        a = m.argument
        label = "TOLERATED" if m.tolerated else "FAIL"
        note = " (rounding-sensitive: a float comparison or fptosi may flip)" \
            if a.compare.get("rounding_sensitive") else ""
        tolerance = a.compare["tolerance"]
        lines.append("%s %s: argument #%d (%s, %s%s): %d of %d buffer "
                     "elements differ%s%s" % (
                         label, head, a.index, a.describe(),
                         a.compare["role"],
                         ", tolerance %g" % tolerance if tolerance else "",
                         m.differing, m.total,
                         " beyond the tolerance" if tolerance else "", note))
        for offset, inside, got, expected in m.examples:
            lines.append("    element offset %d%s: %s (gpu) != %s (reference)"
                         % (offset, "" if inside else " (outside the view)",
                            format_value(got), format_value(expected)))
    if lines and (result.failed or result.mismatches):
        lines.append("    variant: %s; library %s, function %s; case: %s"
                     % (result.variant or "-", case.library, case.function,
                        os.path.join(bundle, case.entry["source"])))
    return lines


def dry_run(bundle, cases, libraries_by_name):
    """Everything but the device: manifests, files, family indexes and,
    where the runtime loads, the family tables."""
    from pointwise import _runtime
    problems = []
    runtime = None
    try:
        runtime = _runtime.load_runtime(os.path.join(bundle, RUNTIME))
    except OSError as error:
        print("dry run: cannot load %s (%s); checking files only"
              % (RUNTIME, error))
    libraries = Libraries(bundle, runtime)
    try:
        for name in sorted(libraries_by_name):
            path = libraries.path(name)
            if runtime is None:
                if not os.path.isfile(path):
                    problems.append("%s: no such library" % path)
                continue
            library = libraries.library(name)
            families = set(library.family_names())
            for case in libraries_by_name[name]:
                if case.function not in families or \
                        not hasattr(library.lib, case.function):
                    problems.append("%s: %s exports no family %s or no "
                                    "entry point %s"
                                    % (case.id, name, case.function,
                                       case.function))
                    continue
                family = libraries.library(name).family(case.function)
                try:
                    check_family(case, family)
                except BundleError as error:
                    problems.append(str(error))
    finally:
        libraries.close()
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle", help="the bundle directory")
    parser.add_argument("--list", action="store_true",
                        help="list the cases and exit (no GPU needed)")
    parser.add_argument("--dry-run", action="store_true",
                        help="validate the manifests, buffers and libraries "
                             "without a GPU, and exit")
    parser.add_argument("--sanitize-subset", type=int, metavar="K",
                        help="run only K cases spread over the bundle (for "
                             "compute-sanitizer runs)")
    parser.add_argument("--only", action="append", default=[],
                        metavar="CASE", help="run only this case (case_12 or "
                        "12; repeatable)")
    parser.add_argument("--strict", action="store_true",
                        help="rounding-sensitive differences fail too")
    parser.add_argument("--max-examples", type=int, default=4,
                        help="differing elements printed per argument")
    parser.add_argument("--device", type=int, default=None,
                        help="CUDA device ordinal (default: "
                        "$POINTWISE_DEVICE or 0)")
    args = parser.parse_args(argv)
    bundle = os.path.abspath(args.bundle)

    try:
        manifest = load_bundle(bundle)
        entries = select_cases(manifest, args)
        cases = [Case(bundle, e) for e in entries]
    except (BundleError, KeyError, TypeError) as error:
        print("differential-gpu: malformed bundle: %s%s" % (
            "missing key " if isinstance(error, KeyError) else "", error))
        return 2
    by_library = {}
    for case in cases:
        by_library.setdefault(case.library, []).append(case)
    left_out = manifest.get("left_out", [])

    if args.list:
        for case in cases:
            print("%s (%s): %s %s(%s)" % (
                case.id, case.origin, case.library, case.function,
                ", ".join(a.describe() for a in case.arguments)))
            for a in case.arguments:
                if a.is_memref and a.compare["role"] != "input":
                    print("    output #%d %s: %s%s" % (
                        a.index, a.type,
                        "tolerance %g" % a.compare["tolerance"]
                        if a.compare["tolerance"] else "bit for bit",
                        ", rounding-sensitive"
                        if a.compare["rounding_sensitive"] else ""))
        print("%d cases in %d libraries (seed %s); %d generated cases left "
              "out" % (len(cases), len(by_library), manifest.get("seed"),
                       len(left_out)))
        return 0

    try:
        find_pointwise(bundle)
    except BundleError as error:
        print("differential-gpu: malformed bundle: %s" % error)
        return 2

    if args.dry_run:
        problems = dry_run(bundle, cases, by_library)
        for problem in problems:
            print("differential-gpu: malformed bundle: %s" % problem)
        if problems:
            return 2
        print("dry run: %d cases in %d libraries: manifests, buffers and "
              "family tables agree" % (len(cases), len(by_library)))
        return 0

    from pointwise import _runtime
    runtime = _runtime.load_runtime(os.path.join(bundle, RUNTIME))
    try:
        count = runtime.device_count()
    except _runtime.PointwiseError as error:
        print("differential-gpu: no GPU: %s" % error)
        return 2
    if count == 0:
        print("differential-gpu: no GPU: the driver reports 0 devices")
        return 2
    if args.device is not None:
        runtime.set_device(args.device)
    device_index = args.device if args.device is not None else \
        int(os.environ.get("POINTWISE_DEVICE", "0"))
    print("differential-gpu: %d cases (seed %s) on %s (%s)" % (
        len(cases), manifest.get("seed"), runtime.device_name(device_index),
        runtime.device_arch(device_index)), flush=True)

    device = Device(runtime)
    libraries = Libraries(bundle, runtime)
    results = []
    aborted = None
    start = time.monotonic()
    try:
        for number, case in enumerate(cases):
            try:
                library = libraries.library(case.library)
                family = library.family(case.function)
                check_family(case, family)
            except (BundleError, LookupError, OSError, ValueError) as error:
                result = Result(case)
                result.error = "cannot load the family: %s" % error
                results.append(result)
                print("\n".join(report(result, bundle)), flush=True)
                continue
            try:
                result = run_case(device, library, family, case,
                                  args.max_examples, args.strict)
            except DeviceError as error:
                result = Result(case)
                result.error = str(error)
                aborted = case
            results.append(result)
            lines = report(result, bundle)
            if lines:
                print("\n".join(lines), flush=True)
            if aborted:
                print("differential-gpu: the device context is unusable "
                      "after %s; %d cases not run (run them with --only)"
                      % (case.id, len(cases) - number - 1), flush=True)
                break
            if (number + 1) % 50 == 0:
                print("[%d/%d] %d failed, %.1f s" % (
                    number + 1, len(cases),
                    sum(r.failed for r in results),
                    time.monotonic() - start), flush=True)
    finally:
        libraries.close()

    failed = sum(r.failed for r in results)
    not_run = len(cases) - len(results)
    tolerated = sum(1 for r in results if not r.failed
                    and any(m.tolerated for m in r.mismatches))
    passed = len(results) - failed
    print("%d cases: %d passed, %d failed%s%s (%.1f s)" % (
        len(cases), passed, failed + not_run,
        " (%d not run)" % not_run if not_run else "",
        "; %d passed with tolerated rounding-sensitive differences"
        % tolerated if tolerated else "", time.monotonic() - start))
    kinds = {}
    for r in results:
        if r.kind:
            kinds[r.kind] = kinds.get(r.kind, 0) + 1
    if kinds:
        print("variants the runtime chose: " + ", ".join(
            "%d %s" % (n, k) for k, n in sorted(kinds.items())))
    if left_out:
        reasons = {}
        for entry in left_out:
            reasons[entry["reason"]] = reasons.get(entry["reason"], 0) + 1
        print("left out when the bundle was built: " + ", ".join(
            "%d %s" % (n, r) for r, n in sorted(reasons.items())))
    return 1 if failed or not_run else 0


if __name__ == "__main__":
    sys.exit(main())
