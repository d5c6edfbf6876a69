"""pointwise: one scalar Python function, compiled into kernels for strided
pointwise operations on tensors of any rank, strides and broadcasting, on
the CPU (NumPy, PyTorch) and the GPU (PyTorch, CuPy, DLPack).

    import pointwise as pw

    @pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def axpy(x, y, alpha):
        return x * alpha + y

    z = axpy(a, b, 0.5)              # broadcasting, promotion, allocation
    axpy(a, b, 0.5, out0=a)          # preallocated / in-place outputs

See docs/Python.md. The package needs libPointwiseRuntime.so and, to
compile, libPointwiseC.so (the compiler with MLIR linked in); compiled
kernels are cached under ``$POINTWISE_CACHE_DIR`` (default
``~/.cache/pointwise``).

The lower layer (``KernelLibrary``, ``Family``, ``Strided``) calls the kernel
families of ahead-of-time compiled libraries (``pw-compile -o X.so``).
"""

from ._runtime import (  # noqa: F401
    ArgumentInfo, ElementType, Family, KernelLibrary, PointwiseError,
    Runtime, Status, Strided, VariantInfo, device_count, device_name,
    get_stream, last_variant, load_runtime, set_stream, synchronize,
    PW_SUCCESS, PW_ERROR_INVALID_VALUE, PW_ERROR_NO_DRIVER,
    PW_ERROR_NO_DEVICE, PW_ERROR_DRIVER, PW_ERROR_LAYOUT, PW_ERROR_NOT_FOUND,
    PW_ERROR_OUT_OF_MEMORY,
)
from ._dtypes import (  # noqa: F401
    DType, as_dtype, promote_types, result_type,
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
    bfloat16, float32, float64,
)
from ._trace import (  # noqa: F401
    TracingError, exp, exp2, log, log2, log1p, sqrt, rsqrt, sin, cos, tan,
    tanh, erf, sigmoid, floor, ceil, round, maximum, minimum, where, isnan,
    isinf, fma,
)
from ._arrays import StridedBuffer  # noqa: F401
from ._pointwise import LayoutError, PointwiseFunction, pointwise  # noqa: F401
from ._compiler import cache_dir, compiler_version  # noqa: F401
