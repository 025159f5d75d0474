"""A stand-in for torch without a GPU: a module whose Tensor counts every attribute read, so that
tests (and a micro-benchmark) can see what histtune reads of a tensor per call.

Only what histtune's torch adapter and fast path use is here: dtypes, Tensor's attribute
reads (dtype, get_device, data_ptr, numel, is_contiguous, shape, stride), empty, the raw
current stream and torch.compiler.is_compiling."""

import types


class _Dtype:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class Tensor:
    """A CUDA tensor at a made-up address; `reads` counts its attribute reads by name."""

    def __init__(self, shape, dtype, device=0, strides=None, ptr=1 << 20):
        self._shape, self._dtype, self._device, self._ptr = tuple(shape), dtype, device, ptr
        if strides is None:
            strides, expect = [], 1
            for extent in reversed(self._shape):
                strides.insert(0, expect)
                expect *= extent
        self._strides = tuple(strides)
        self.reads = {}

    def _read(self, name):
        self.reads[name] = self.reads.get(name, 0) + 1

    @property
    def dtype(self):
        self._read("dtype")
        return self._dtype

    @property
    def shape(self):
        self._read("shape")
        return self._shape

    @property
    def device(self):
        self._read("device")
        return f"cuda:{self._device}" if self._device >= 0 else "cpu"

    def get_device(self):
        self._read("get_device")
        return self._device

    def data_ptr(self):
        self._read("data_ptr")
        return self._ptr

    def numel(self):
        self._read("numel")
        n = 1
        for extent in self._shape:
            n *= extent
        return n

    def stride(self):
        self._read("stride")
        return self._strides

    def is_contiguous(self):
        self._read("is_contiguous")
        expect = 1
        for extent, stride in zip(reversed(self._shape), reversed(self._strides)):
            if extent != 1 and stride != expect:
                return False
            expect *= extent
        return True


Tensor.__module__ = "torch"  # histtune picks its adapter by the type's module


def module():
    """A fresh fake torch module (put it in sys.modules["torch"] for histtune to find)."""
    torch = types.ModuleType("torch")
    for name in ("uint8", "uint16", "uint32", "int32", "float32", "float64", "int8", "int16",
                 "float16", "bfloat16", "int64", "uint64", "bool"):
        setattr(torch, name, _Dtype(name))
    torch.Tensor = Tensor
    torch.compiler = types.SimpleNamespace(is_compiling=lambda: False)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 7)
    torch.empty = lambda shape, dtype, device: Tensor(shape, dtype, device, ptr=1 << 24)
    return torch
