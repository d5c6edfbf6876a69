"""The compiler, through libPointwiseC's C API (include/pointwise-c/Compiler.h),
and the caches of what it compiles.

``compile_families(source, options, label)`` returns a :class:`CompiledLibrary`
whose ``family(name)`` is the address of a ``pwFamily`` table for
``pwFamilyLaunch``. Compiled libraries are cached in memory (per process) and
on disk: ``$POINTWISE_CACHE_DIR``, by default ``$XDG_CACHE_HOME/pointwise``
or ``~/.cache/pointwise``, one file per (compiler build: the library's size
and modification time; host CPU; options; MLIR text), written atomically
(temporary file and rename) under an advisory lock, so threads and processes
compiling the same thing compile it once and never see a partial file.
Beside each ``X.pwlib`` a ``X.pwlib.sha256`` holds the SHA-256 of its
content, checked before the file is loaded: a file that does not match it
(damaged, torn, or left without its hash), that cannot be linked or that
lacks a family it should have is compiled again and replaced.

A library found in the disk cache is linked by the runtime
(``pwLibraryOpen``): a process whose libraries are all cached never loads
the compiler. Its key names the compiler library by its size and
modification time, found without loading it, and the host by the
runtime's CPU fingerprint, which the saved file repeats.

Families are compiled on demand: the library compiled first holds the
family tables alone (``variants=none``), and the first launch that chooses
a variant has the runtime call this module's variant loader
(``pwSetVariantLoader``), which compiles that one variant (or loads it from
the disk cache, where each variant has its own file) and adds it to the
family (``pwFamilyTakeVariants``), under a lock per variant: threads that
choose it at once wait for one compilation, and none launches it before its
entry is stored. A first call thus compiles one variant, whatever the rank.
``POINTWISE_ON_DEMAND=0`` compiles every variant of a family at once.

Setting ``POINTWISE_CACHE_DIR`` to an empty string disables the disk cache;
``POINTWISE_PROGRESS=0`` silences the line printed while compiling.
"""

import ctypes
import errno
import hashlib
import os
import sys
import tempfile
import threading
import time

from ._native import _disabled, cache_dir, open_library, write_atomically
from ._runtime import (PW_ERROR_INVALID_VALUE, PW_STRATEGY_LINEAR_NARROW,
                       PW_STRATEGY_TRANSPOSE, PointwiseError, VariantLoader,
                       _PwFamily, library_candidates, load_runtime)

__all__ = ["CompiledLibrary", "compile_families", "cache_dir",
           "load_compiler", "prefetch_compiler", "compiler_version",
           "clear_memory_cache", "variant_name"]

COMPILER_NAME = "libPointwiseC.so"

# Joins the disk cache's keys: files of an older layout (bitcode, without
# the hash beside them, or another header) are never looked at.
_CACHE_FORMAT = "pwlib+sha256+abi2+objects2"

_compiler = None
_compiler_lock = threading.Lock()


class _Compiler:
    """libPointwiseC.so, loaded with ctypes after the runtime it links."""

    def __init__(self, path):
        self.path = path
        self.lib = lib = open_library(path)
        c_int, c_void_p, c_char_p = ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p
        lib.pwcGetVersion.restype = c_char_p
        lib.pwcGetVersion.argtypes = []
        lib.pwcGetLastError.restype = c_char_p
        lib.pwcGetLastError.argtypes = []
        lib.pwcCompile.restype = c_int
        lib.pwcCompile.argtypes = [c_char_p, ctypes.c_size_t, c_char_p,
                                   ctypes.POINTER(c_void_p)]
        lib.pwcSave.restype = c_int
        lib.pwcSave.argtypes = [c_void_p, c_char_p]
        lib.pwcLoad.restype = c_int
        lib.pwcLoad.argtypes = [c_char_p, ctypes.POINTER(c_void_p)]
        lib.pwcGetFamily.restype = c_void_p
        lib.pwcGetFamily.argtypes = [c_void_p, c_char_p]
        lib.pwcAddVariants.restype = c_int
        lib.pwcAddVariants.argtypes = [c_void_p, c_char_p, c_void_p]
        lib.pwcLoadVariants.restype = c_int
        lib.pwcLoadVariants.argtypes = [c_void_p, c_char_p, c_char_p]
        lib.pwcDestroy.restype = None
        lib.pwcDestroy.argtypes = [c_void_p]
        lib.pwcGetHostTarget.restype = c_char_p
        lib.pwcGetHostTarget.argtypes = []
        self.version = lib.pwcGetVersion().decode()
        # The host's description, which every compilation needs: worked out
        # here, on the thread that loads the library.
        self.host_target = lib.pwcGetHostTarget().decode()

    def last_error(self):
        message = self.lib.pwcGetLastError()
        return message.decode("utf-8", "replace") if message else ""


def _compiler_candidates(runtime_path):
    first = ([os.path.dirname(runtime_path)]
             if runtime_path and os.sep in runtime_path else [])
    return library_candidates(COMPILER_NAME, "POINTWISE_COMPILER", first)


def _find_compiler():
    """The path of libPointwiseC.so: ``$POINTWISE_COMPILER`` (the library or
    its directory), the runtime's directory, next to this package, or
    ``build/lib`` of the source tree."""
    candidates = _compiler_candidates(load_runtime().path)
    path = next((c for c in candidates if os.path.isfile(c)), None)
    if path is None:
        raise OSError(
            "cannot find %s (the pointwise compiler): set "
            "POINTWISE_COMPILER to it or its directory; looked in %s"
            % (COMPILER_NAME, ", ".join(candidates)))
    return os.path.abspath(path)


def load_compiler():
    """Loads libPointwiseC.so once per process (after the runtime)."""
    global _compiler
    with _compiler_lock:
        if _compiler is None:
            _compiler = _Compiler(_find_compiler())
        return _compiler


# What the disk cache's keys name the compiler and the host by, worked out
# once per process without loading the compiler: the library file's size
# and modification time (code generation, and the runtime functions
# compiled code calls, change between builds), and the runtime's
# fingerprint of the CPU, since the runtime refuses another CPU's machine
# code (a cache shared by machines keeps an entry per host).
_identity = None


def compiler_identity():
    global _identity
    if _identity is None:
        path = _find_compiler()
        stat = os.stat(path)
        fingerprint = load_runtime().lib.pwGetHostFingerprint().decode()
        _identity = "%s: %d bytes, mtime %d ns; host %s" % (
            COMPILER_NAME, stat.st_size, stat.st_mtime_ns, fingerprint)
    return _identity


# The thread prefetch_compiler started, if it did.
_prefetch_thread = None
_prefetch_started = False
_prefetch_lock = threading.Lock()


def prefetch_compiler():
    """Starts loading the compiler library on a daemon thread, once per
    process, so that the first call that compiles finds it loaded instead of
    waiting about 4 ms for the dynamic loader (a call whose library is in
    the disk cache needs no compiler), which runs with the GIL released (open_library), so
    other threads go on meanwhile (docs/Performance.md, row
    `compiler-prefetch`). The decorator calls it; ``POINTWISE_PREFETCH=0``
    turns it off. A failure is left for that first call to report, where
    load_compiler runs again."""
    global _prefetch_started, _prefetch_thread
    with _prefetch_lock:
        if _prefetch_started or _compiler is not None:
            return
        _prefetch_started = True
    if _disabled("POINTWISE_PREFETCH"):
        return

    def load():
        try:
            load_compiler()
        except Exception:  # reported by the call that needs the compiler
            pass

    _prefetch_thread = threading.Thread(
        target=load, name="pointwise-compiler-load", daemon=True)
    _prefetch_thread.start()


def _finish_prefetch_before_fork():
    """Waits for the prefetch thread before os.fork: a child forked while
    it holds the package's locks (loading the compiler or the runtime) would
    wait for them forever. A thread not started yet holds none."""
    thread = _prefetch_thread
    if thread is not None and thread.ident is not None and \
            thread is not threading.current_thread():
        thread.join()


def _reset_locks_in_child():
    """The child of a fork has one thread: no other holds these."""
    global _compiler_lock, _prefetch_lock
    _compiler_lock = threading.Lock()
    _prefetch_lock = threading.Lock()


os.register_at_fork(before=_finish_prefetch_before_fork,
                    after_in_child=_reset_locks_in_child)


def compiler_version():
    return load_compiler().version


def variant_name(family, rank, index_bitwidth, strategy, transposed_argument):
    """The name of a variant (getVariantName of include/Pointwise/Compiler/
    Family.h), from its row of the family table: what ``variants=`` takes."""
    if strategy == PW_STRATEGY_TRANSPOSE:
        kind = "transpose%d" % transposed_argument
    elif strategy == PW_STRATEGY_LINEAR_NARROW:
        kind = "linear_narrow"
    else:
        kind = "linear"
    return "%s__r%d_i%d_%s" % (family, rank, index_bitwidth, kind)


class CompiledLibrary:
    """Families compiled (a ``pwcLibrary`` of the compiler) or linked from
    the disk cache (a ``pwLibrary`` of the runtime). Kept for the life of
    the process (GPU modules are unloaded when it exits). A library
    compiled on demand (`on_demand`: the source, options and label to
    compile its variants with) compiles each variant when a launch first
    chooses it."""

    def __init__(self, compiler, handle, origin, on_demand=None):
        # compiler: the _Compiler of a pwcLibrary, None for a pwLibrary.
        self._compiler = compiler
        self._handle = handle
        self.origin = origin  # "compiled", "disk" or "memory"
        self._families = {}
        self._lock = threading.Lock()
        self._on_demand = on_demand
        # Per family name, its _OnDemandFamily (variant loader and record).
        self.on_demand_families = {}
        # Libraries whose variants this one's tables took: their code lives
        # as long as these tables.
        self._donors = []

    def _lookup(self, name):
        if self._compiler is None:
            address = load_runtime().lib.pwLibraryGetSymbol(
                self._handle, b"pw_family_" + name.encode())
            if not address:
                raise LookupError("the library has no family named '%s'"
                                  % name)
            return address
        address = self._compiler.lib.pwcGetFamily(self._handle, name.encode())
        if not address:
            raise LookupError(self._compiler.last_error())
        return address

    def close(self):
        """Frees the library's code (only for one no table points into)."""
        if self._handle is None:
            return
        if self._compiler is None:
            load_runtime().lib.pwLibraryClose(self._handle)
        else:
            self._compiler.lib.pwcDestroy(self._handle)
        self._handle = None

    def take_variants(self, name, donor):
        """Stores in family `name` the variant entries `donor` (another
        CompiledLibrary of the same function) has, and keeps `donor`."""
        runtime = load_runtime()
        status = runtime.lib.pwFamilyTakeVariants(self.family(name),
                                                  donor.family(name))
        if status:
            raise PointwiseError(status, runtime.last_error_message())
        self._donors.append(donor)

    def family(self, name):
        """The address of the ``pwFamily`` table of function `name`."""
        address = self._families.get(name)
        if address is not None:
            return address
        with self._lock:
            address = self._families.get(name)
            if address is None:
                address = self._lookup(name)
                if self._on_demand is not None:
                    self.on_demand_families[name] = _OnDemandFamily(
                        self, name, address)
                self._families[name] = address
        return address


class _OnDemandFamily:
    """The variant loader of one family of an on-demand library: compiles a
    variant, or loads it from the disk cache, and adds it to the family."""

    def __init__(self, library, name, address):
        self.library = library
        self.name = name
        self.table = _PwFamily.from_address(address)
        self.locks = [threading.Lock() for _ in range(self.table.numVariants)]
        # Variant name -> "compiled" or "disk", in the order they arrived.
        self.loaded = {}
        self.loader = VariantLoader(self._loader_callback)
        # The table outlives every Python reference to its library (launchers
        # keep its address; clear_memory_cache forgets the library): so does
        # the loader the runtime calls.
        with _memory_lock:
            _loaders.append(self)
        load_runtime().set_variant_loader(address, self.loader)

    def _loader_callback(self, family, index, context, message, capacity):
        """The pwVariantLoader: load(index), its exception as the status
        and message the runtime reports."""
        try:
            self.load(index)
            return 0
        except BaseException as e:  # noqa: BLE001 (nothing may escape to C)
            if isinstance(e, PointwiseError):
                status, text = int(e.status), e.message
            else:
                status, text = PW_ERROR_INVALID_VALUE, "%s: %s" % (
                    type(e).__name__, e)
            text = text.encode("utf-8", "replace")[:max(0, capacity - 1)]
            ctypes.memmove(message, text + b"\0", len(text) + 1)
            return status or PW_ERROR_INVALID_VALUE

    def load(self, index):
        """Makes variant `index` of the family complete (once)."""
        if not 0 <= index < len(self.locks):
            raise PointwiseError(PW_ERROR_INVALID_VALUE,
                                 "no variant %d" % index)
        with self.locks[index]:
            row = self.table.variants[index]
            if row.entry:
                return
            name = variant_name(self.name, row.rank, row.indexBitwidth,
                                row.strategy, row.transposedArgument)
            library = self.library
            source, options, label = library._on_demand
            options += " variants=" + name
            # From the disk cache or compiled, the library's table takes
            # its entry.
            variant = _load_or_compile(
                _cache_key(source, options), source, options, label,
                (self.name,), variant=name[len(self.name) + 2:])
            try:
                library.take_variants(self.name, variant)
            except PointwiseError:
                variant.close()
                raise
            self.loaded[name] = variant.origin


_memory = {}
_memory_lock = threading.Lock()
# Every _OnDemandFamily made, for the life of the process.
_loaders = []
_key_locks = {}


def clear_memory_cache():
    """Forgets the compiled libraries of this process (tests use it to
    exercise the disk cache; families already bound stay valid)."""
    with _memory_lock:
        _memory.clear()


def _progress_enabled():
    return os.environ.get("POINTWISE_PROGRESS", "1") not in ("0", "", "no")


class _FileLock:
    """An advisory lock on `path` (fcntl), so that processes compiling the
    same library wait for one another instead of all compiling it."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def __enter__(self):
        try:
            import fcntl
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (ImportError, OSError):
            if self.fd is not None:
                os.close(self.fd)
            self.fd = None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            import fcntl
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
        return False


def on_demand_enabled():
    """Whether families compile their variants on demand
    (``POINTWISE_ON_DEMAND``, on unless ``0``)."""
    return os.environ.get("POINTWISE_ON_DEMAND", "1") not in ("0", "", "no")


def _cache_key(source, options):
    return hashlib.sha256(
        ("%s\0%s\0%s\0%s" % (_CACHE_FORMAT, compiler_identity(), options,
                             source)).encode()).hexdigest()


def compile_families(source, options, label, families=(), on_demand=None):
    """The CompiledLibrary of MLIR `source` compiled with `options` (the
    option string of pwcCompile), from the memory cache, the disk cache or
    the compiler. `label` names the work in the progress line; a library
    from the disk cache that lacks one of `families` counts as damaged.
    `on_demand` (default: on_demand_enabled()) compiles the family tables
    alone, and each variant when a launch first chooses it."""
    if on_demand is None:
        on_demand = on_demand_enabled()
    demand = (source, options, label) if on_demand else None
    if on_demand:
        options += " variants=none"
    key = _cache_key(source, options)
    with _memory_lock:
        library = _memory.get(key)
        if library is not None:
            return library
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        with _memory_lock:
            library = _memory.get(key)
        if library is None:
            library = _load_or_compile(key, source, options, label,
                                       families, demand)
            with _memory_lock:
                _memory[key] = library
    return library


def _load_or_compile(key, source, options, label, families, on_demand=None,
                     variant=None):
    directory = cache_dir()
    path = None
    if directory:
        try:
            os.makedirs(directory, exist_ok=True)
            path = os.path.join(directory, key[:40] + ".pwlib")
        except OSError:
            path = None  # unwritable cache: compile in memory only
    if path is None:
        return _compile(load_compiler(), source, options, label, None,
                        on_demand, variant)
    with _FileLock(path + ".lock"):
        library = _load(path, families, on_demand)
        if library is not None:
            return library
        # Absent, stale or damaged: compile again and replace it.
        return _compile(load_compiler(), source, options, label, path,
                        on_demand, variant)


def _digest_path(path):
    return path + ".sha256"


def _file_digest(path):
    """The SHA-256 (hex) of the file at `path`, None if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _load(path, families, on_demand=None):
    """The library cached at `path`, linked by the runtime, when its content
    has the SHA-256 recorded beside it, links and has every one of
    `families`; otherwise None."""
    # Read as bytes: a text file's codec lookup imports encodings.ascii,
    # about a quarter of a millisecond of a warm first call.
    try:
        with open(_digest_path(path), "rb") as f:
            recorded = f.read(65).strip().decode("ascii")
    except (OSError, UnicodeDecodeError):
        return None
    if len(recorded) != 64 or _file_digest(path) != recorded:
        return None
    runtime = load_runtime()
    handle = ctypes.c_void_p()
    if runtime.lib.pwLibraryOpen(path.encode(), ctypes.byref(handle)) != 0:
        return None
    library = CompiledLibrary(None, handle, "disk", on_demand)
    try:
        for name in families:
            library.family(name)
    except LookupError:
        for name in library.on_demand_families:
            runtime.set_variant_loader(library.family(name), None)
        library.close()
        return None
    return library


def _save(compiler, handle, path):
    """Writes the library and, beside it, the SHA-256 of what was written
    (each atomically: a temporary file and a rename; the library first, so a
    crash in between leaves a hash that does not match). Returns an error
    message, or None."""
    temporary = None
    try:
        # A name no other thread or process uses (pwcSave renames onto it).
        fd, temporary = tempfile.mkstemp(".pwlib.tmp", ".pwc-",
                                         os.path.dirname(path))
        os.close(fd)
        if compiler.lib.pwcSave(handle, temporary.encode()) != 0:
            return compiler.last_error()
        digest = _file_digest(temporary)
        if digest is None:
            return "cannot read back %s" % temporary
        # The digest takes the library's permissions (pwcSave created that
        # file under the umask), so that a cache others may read is usable
        # by them.
        mode = os.stat(temporary).st_mode & 0o777
        os.replace(temporary, path)
        temporary = None
        write_atomically(_digest_path(path), (digest + "\n").encode("ascii"),
                         mode)
    except OSError as e:
        return str(e)
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
    return None


def _compile(compiler, source, options, label, path, on_demand=None,
             variant=None):
    """Compiles `source`; `label` (and `variant`, the name of the one
    variant compiled, without the family's) name it in the progress line,
    which the tables of an on-demand library (`on_demand`) do not print:
    they take no noticeable time, and their variants report theirs."""
    progress = _progress_enabled() and on_demand is None
    if progress:
        sys.stderr.write("pointwise: compiling %s ..." % label)
        sys.stderr.flush()
    start = time.monotonic()
    handle = ctypes.c_void_p()
    data = source.encode()
    status = compiler.lib.pwcCompile(data, len(data), options.encode(),
                                     ctypes.byref(handle))
    if progress:
        sys.stderr.write(" %s in %.1f s%s\n" % (
            "failed" if status else "done", time.monotonic() - start,
            " (variant %s)" % variant if variant else ""))
        sys.stderr.flush()
    if status:
        raise PointwiseError(status, "compiling %s%s failed: %s" % (
            label, ", variant %s," % variant if variant else "",
            compiler.last_error()))
    if path is not None:
        message = _save(compiler, handle, path)
        # A full or read-only disk must not fail the call.
        if message is not None and progress:
            sys.stderr.write("pointwise: not cached: %s\n" % message)
    return CompiledLibrary(compiler, handle, "compiled", on_demand)
