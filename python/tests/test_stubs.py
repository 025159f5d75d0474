"""The type stubs: _core.pyi names every function of the module, and the package is typed."""

import ast
import pathlib

import histtune
from histtune import _core

PACKAGE = pathlib.Path(histtune.__file__).parent


def test_core_stub_matches_the_module():
    tree = ast.parse((PACKAGE / "_core.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    exported = {n for n in dir(_core) if not n.startswith("_") and callable(getattr(_core, n))}
    assert stubbed == exported


def test_package_is_marked_typed():
    assert (PACKAGE / "py.typed").exists()


def test_public_functions_are_annotated():
    for name in ("histogram", "bincount", "histogram_channels", "last_choice"):
        assert getattr(histtune, name).__annotations__, name
