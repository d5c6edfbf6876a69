"""Test setup: ``import pointwise`` from python_bindings/, and the tools.

With ``POINTWISE_TEST_INSTALLED=1`` the tests import the package that Python
finds instead, which must be an installed distribution (``pip install``,
docs/Python.md "Installing"): its files are checked against the
distribution's record, and the report header names it.

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
INSTALLED = os.environ.get("POINTWISE_TEST_INSTALLED", "0") not in ("0", "")

if not INSTALLED and str(BINDINGS) not in sys.path:
    sys.path.insert(0, str(BINDINGS))


def _installed_package():
    """The directory of the installed distribution `pointwise` that
    ``import pointwise`` loads; exits pytest when the import loads anything
    else (a source tree, a copy)."""
    import importlib.metadata

    try:
        distribution = importlib.metadata.distribution("pointwise")
    except importlib.metadata.PackageNotFoundError:
        pytest.exit("POINTWISE_TEST_INSTALLED: no installed distribution "
                    "'pointwise' (pip install it)", returncode=4)
    import pointwise
    package = pathlib.Path(pointwise.__file__).resolve().parent
    recorded = {pathlib.Path(distribution.locate_file(f)).resolve()
                for f in distribution.files or ()}
    for name in ("__init__.py", "libPointwiseRuntime.so", "libPointwiseC.so"):
        if package / name not in recorded:
            pytest.exit("POINTWISE_TEST_INSTALLED: %s is not part of the "
                        "installed distribution %s" % (
                            package / name, distribution.locate_file("")),
                        returncode=4)
    return package


def pytest_sessionstart(session):
    if INSTALLED:
        _installed_package()


def pytest_report_header(config):
    import pointwise
    return "pointwise: %s%s" % ("installed package " if INSTALLED else "",
                                pathlib.Path(pointwise.__file__).parent)


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
