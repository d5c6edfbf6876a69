"""Test setup: ``import pointwise`` from python_bindings/, and the tools.

The tools come from the build directory, ``$POINTWISE_BUILD_DIR`` (by
default ``<repo>/build``); tests that need a tool are skipped when it is
absent.
"""

import os
import pathlib
import sys

import pytest

BINDINGS = pathlib.Path(__file__).resolve().parents[1]
REPO = BINDINGS.parent

if str(BINDINGS) not in sys.path:
    sys.path.insert(0, str(BINDINGS))


def build_dir():
    return pathlib.Path(os.environ.get("POINTWISE_BUILD_DIR", REPO / "build"))


def _tool(name):
    path = build_dir() / "bin" / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"{name} not found at {path} (set POINTWISE_BUILD_DIR)")
    return str(path)


@pytest.fixture(scope="session")
def pw_opt():
    """The path of pw-opt; skips the test when it is not built."""
    return _tool("pw-opt")


@pytest.fixture(scope="session")
def pw_compile():
    """The path of pw-compile; skips the test when it is not built."""
    return _tool("pw-compile")


@pytest.fixture(scope="session")
def pw_run():
    """The path of pw-run; skips the test when it is not built."""
    return _tool("pw-run")


@pytest.fixture
def quiet_shared_cache(tmp_path_factory, monkeypatch):
    """No progress lines, and one disk cache for the whole pytest run
    (in its base temporary directory): a module that uses it compiles each
    function once. Modules take it with
    ``pytestmark = pytest.mark.usefixtures("quiet_shared_cache")``."""
    monkeypatch.setenv("POINTWISE_PROGRESS", "0")
    monkeypatch.setenv("POINTWISE_CACHE_DIR",
                       str(tmp_path_factory.getbasetemp() / "pointwise-cache"))
