"""Shared fixtures of the package's tests: whether a GPU is here, and stand-in device arrays.

CPU tests run everywhere (ctest, CI). GPU tests skip, with the reason, where histtune finds no
CUDA device or the framework they need is not installed.
"""

import importlib
import sys
import warnings

import pytest

import fake_torch
import histtune
from histtune import _api, _arrays, _core, _joint, _weighted


def _gpu_reason():
    try:
        _core.device_count()
        return None
    except RuntimeError as e:
        return str(e)


NO_GPU = _gpu_reason()
requires_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a GPU: {NO_GPU}")


def framework(name):
    """The module, or a skip saying it is missing (GPU tests of that framework)."""
    if NO_GPU is not None:
        pytest.skip(f"needs a GPU: {NO_GPU}")
    try:
        return importlib.import_module(name)
    except ImportError:
        pytest.skip(f"needs {name}, which is not installed")


class FakeDeviceArray:
    """An object with __cuda_array_interface__ at a made-up device address: what histtune reads
    of a CUDA array, without a GPU. Calls that reach the GPU fail with 'no CUDA device'."""

    def __init__(self, shape, typestr="|u1", ptr=1 << 20, strides=None):
        self.__cuda_array_interface__ = {
            "data": (ptr, False), "shape": tuple(shape), "typestr": typestr,
            "strides": strides, "version": 3, "stream": None}


@pytest.fixture
def fake():
    return FakeDeviceArray


@pytest.fixture
def counts_out():
    """A stand-in uint32 output of the given shape (so that no output is allocated)."""
    return lambda *shape: FakeDeviceArray(shape, "<u4", ptr=1 << 24)


class _Core:
    """Records the _core calls instead of making them."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        # A keyword (counts64=True: 64-bit counts) is recorded after the arguments.
        return lambda *args, **kw: self.calls.append((name, args, kw) if kw else (name, args))


@pytest.fixture
def fake_torch_module(monkeypatch):
    """fake_torch's module as torch, histtune's torch adapter and fast path made for it."""
    torch = fake_torch.module()
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(_arrays, "_ADAPTERS", {})
    for name in ("_Tensor", "_codes", "_new_counts", "_raw_stream", "_out_dtypes",
                 "_is_compiling"):
        monkeypatch.setattr(_api, name, getattr(_api, name))
    monkeypatch.setattr(_api, "_codes", {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fake has no torch.library: no custom ops
        _arrays.torch_adapter()
    return torch


@pytest.fixture
def core(monkeypatch):
    """The _core calls the public functions make, recorded instead of made."""
    c = _Core()
    for module in (_api, _weighted, _joint):
        monkeypatch.setattr(module, "_core", c)
    return c


__all__ = ["histtune", "requires_gpu", "framework", "NO_GPU", "FakeDeviceArray"]
