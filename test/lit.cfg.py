# -*- Python -*-
# lit configuration of the pointwise regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "POINTWISE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pointwise_obj_root, "test")
# The GoogleTest suite has its own configuration in Unit/; helper scripts in
# lit-support/ are not tests.
# gpu-bundle/ holds the scripts of the GPU machine's runs, not tests.
config.excludes = ["Unit", "lit-support", "gpu-bundle", "CMakeLists.txt",
                   "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%pointwise_src_root", config.pointwise_src_root))
config.substitutions.append(("%pointwise_obj_root", config.pointwise_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%pointwise_plugin",
     os.path.join(config.pointwise_obj_root, "lib", "PointwisePlugin.so")))
config.substitutions.append(
    ("%lit_support", os.path.join(config.test_source_root, "lit-support")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.pointwise_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("mlir-opt", unresolved="fatal"),
         ToolSubst("pw-opt", unresolved="fatal"),
         ToolSubst("pw-run", unresolved="fatal"),
         ToolSubst("pw-compile", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas assembles every PTX the GPU tests produce. CI sets
# POINTWISE_REQUIRE_PTXAS=1 so that a missing CUDA toolkit fails the run
# instead of silently skipping those tests.
ptxas = shutil.which("ptxas", path=os.pathsep.join(
    [os.environ.get("CUDA_HOME", "/usr/local/cuda") + "/bin",
     os.environ.get("PATH", "")]))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
elif os.environ.get("POINTWISE_REQUIRE_PTXAS") == "1":
    lit_config.fatal("ptxas not found (set CUDA_HOME); the GPU tests need it")

# `cuda`: the runtime finds a driver and at least one device. Asked through
# libPointwiseRuntime itself, in a child process so that a broken driver
# cannot take lit down.
def _count_cuda_devices():
    import subprocess
    import sys
    library = os.path.join(config.pointwise_obj_root, "lib",
                           "libPointwiseRuntime.so")
    probe = ("import ctypes, sys\n"
             "lib = ctypes.CDLL(sys.argv[1])\n"
             "count = ctypes.c_int(0)\n"
             "print(count.value if lib.pwGetDeviceCount(ctypes.byref(count)) "
             "== 0 else 0)\n")
    try:
        result = subprocess.run([sys.executable, "-c", probe, library],
                                capture_output=True, text=True, timeout=60)
        return int(result.stdout.strip() or 0)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return 0

if _count_cuda_devices() > 0:
    config.available_features.add("cuda")
