"""Python access to pointwise kernel families (see _runtime.py).

This package needs no MLIR: it loads libPointwiseRuntime.so and the shared
libraries that ``pw-compile`` writes, with ctypes.
"""

from ._runtime import (  # noqa: F401
    ArgumentInfo, ElementType, Family, KernelLibrary, PointwiseError,
    Runtime, Status, Strided, VariantInfo, device_count, device_name,
    get_stream, last_variant, load_runtime, set_stream, synchronize,
    PW_SUCCESS, PW_ERROR_INVALID_VALUE, PW_ERROR_NO_DRIVER,
    PW_ERROR_NO_DEVICE, PW_ERROR_DRIVER, PW_ERROR_LAYOUT, PW_ERROR_NOT_FOUND,
    PW_ERROR_OUT_OF_MEMORY,
)
