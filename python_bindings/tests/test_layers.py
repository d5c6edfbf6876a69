"""The package's modules import downward only: each module of LAYERS may
import (at module level or inside a function) only the modules listed
before it, so that the runtime's bindings never depend on the decorator
built on them. Read from the sources with `ast`."""

import ast
import pathlib

import pointwise

# Lowest first.
LAYERS = ["_dtypes", "_native", "_runtime", "_arrays", "_compiler",
          "_promotion", "_trace", "_torch_op", "_pointwise", "__init__"]


def imported_modules(path):
    """The package modules that the file at `path` imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                names.add(node.module.split(".")[0])
            else:
                names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith("pointwise."):
            names.add(node.module.split(".")[1])
    return names


def test_every_module_is_in_a_layer():
    package = pathlib.Path(pointwise.__file__).parent
    assert sorted(p.stem for p in package.glob("*.py")) == sorted(LAYERS)


def test_layers_import_downward_only():
    package = pathlib.Path(pointwise.__file__).parent
    for position, name in enumerate(LAYERS):
        below = set(LAYERS[:position])
        upward = imported_modules(package / (name + ".py")) - below
        assert not upward, "%s imports %s" % (name, sorted(upward))
