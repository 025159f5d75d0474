"""How histtune reads its callers' arrays and makes its results.

Each framework is one adapter: how to read an array as a device pointer, shape, strides (in
elements), dtype and device; which stream its caller works on; how to make the counts array in it.
Adapters are chosen by the array's type once, then cached: torch, CuPy, JAX (DLPack), numba and
any other object with ``__cuda_array_interface__`` or ``__dlpack__``.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Optional

from . import _core

# The sample types of the C++ API, by NumPy dtype name, with their SampleType value (bfloat16:
# torch's name, and DLPack's bfloat; NumPy and CuPy have no such dtype).
SAMPLE_TYPES = {"uint8": 0, "uint16": 1, "uint32": 2, "int32": 3, "float32": 4, "int8": 5,
                "int16": 6, "float16": 7, "bfloat16": 8, "int64": 9, "uint64": 10, "float64": 11}
FLOAT_TYPES = ("float32", "float16", "bfloat16", "float64")  # binned in floating point
COUNT_TYPES = ("uint32", "int32")  # counts are uint32; int32 holds the same bits
# Weighted calls: the weights' dtypes with their WeightType value, and the bins' dtype of each.
WEIGHT_TYPES = {"float32": 1, "float64": 2, "int32": 3, "int64": 4}
WEIGHTED_BIN_TYPES = {"float32": "float32", "float64": "float64", "int32": "int64",
                      "int64": "int64"}
_DLPACK_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat"}
_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13
CUDA_STREAM_LEGACY = 1  # cudaStreamLegacy, and DLPack's "legacy default stream"


class Array:
    """One array as the kernels see it. ``device`` is -1 where the array does not say. Shape and
    strides (in elements) may be given as None: they are then read from the torch tensor `obj`
    when first asked for (each read costs a few hundred ns, and most calls never ask)."""

    __slots__ = ("ptr", "_shape", "_strides", "dtype", "device", "obj", "adapter", "stream",
                 "size", "is_contiguous")

    def __init__(self, ptr, shape, strides, dtype, device, obj, adapter, size=None,
                 is_contiguous=None):
        self.ptr, self._shape, self._strides = ptr, shape, strides
        self.dtype, self.device, self.obj, self.adapter = dtype, device, obj, adapter
        self.stream = None  # the stream a DLPack export was made for
        if size is None:
            size = 1
            for extent in shape:
                size *= extent
        self.size, self.is_contiguous = size, is_contiguous

    @property
    def shape(self) -> tuple:
        if self._shape is None:
            self._shape = tuple(self.obj.shape)
        return self._shape

    @property
    def strides(self) -> tuple:
        if self._strides is None:
            self._strides = tuple(self.obj.stride())
        return self._strides

    def contiguous(self) -> bool:
        """C order (dimensions of extent 1 may have any stride)."""
        if self.is_contiguous is not None:
            return self.is_contiguous
        expect = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expect:
                return False
            expect *= extent
        return True


def _where(x: Any) -> str:
    return type(x).__module__.split(".")[0]


def _host_error(what: str, x: Any) -> TypeError:
    return TypeError(
        f"histtune: {what} is a {type(x).__module__}.{type(x).__qualname__} in host memory; "
        "histtune counts CUDA arrays (torch, CuPy, JAX, Numba): move it to the GPU first, "
        "e.g. torch.as_tensor(x, device='cuda') or cupy.asarray(x)")


class _Torch:
    name = "torch"

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self.count_dtype = getattr(torch, "uint32", torch.int32)
        self.out_dtypes = (self.count_dtype, torch.int32)
        self._raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        # The current stream's handle on a device, for the public functions' fast path.
        self.raw_stream = self._raw_stream or (
            lambda device: torch.cuda.current_stream(device).cuda_stream)
        self._names: dict = {}

    def dtype_name(self, dtype) -> str:
        name = self._names.get(dtype)
        if name is None:
            name = self._names[dtype] = str(dtype).replace("torch.", "")
        return name

    def array(self, x, what: str) -> Array:
        device = x.get_device()  # -1 for host (and meta) tensors
        if device < 0:
            raise TypeError(f"histtune: {what} is a torch tensor on {x.device}; histtune counts "
                            "CUDA arrays: move it with x.cuda() or x.to('cuda')")
        return Array(x.data_ptr(), None, None, self.dtype_name(x.dtype), device, x, self,
                     x.numel(), x.is_contiguous())

    def out_pointer(self, out, shape: tuple, a: Array) -> Optional[int]:
        """out's pointer when it is a valid output for `a` (the common case, checked in a few
        attribute reads), else None: the caller's full checks then say what is wrong."""
        if (out.dtype in self.out_dtypes and out.get_device() == a.device
                and out.shape == shape and out.is_contiguous()):
            return out.data_ptr()
        return None

    def stream(self, a: Array) -> int:
        if self._raw_stream is not None:
            return self._raw_stream(a.device)
        return self.torch.cuda.current_stream(a.device).cuda_stream

    def empty(self, a: Array, shape: tuple, dtype: Optional[str] = None):
        t = self.count_dtype if dtype in (None, "uint32") else getattr(self.torch, dtype, None)
        if t is None:
            raise TypeError(f"histtune: this torch has no {dtype}: use counts_dtype=torch.int64")
        return self.torch.empty(shape, dtype=t, device=a.device)


class _CuPy:
    name = "cupy"

    def __init__(self) -> None:
        import cupy

        self.cupy = cupy

    def array(self, x, what: str) -> Array:
        item = x.itemsize
        return Array(x.data.ptr, x.shape, tuple(s // item for s in x.strides), x.dtype.name,
                     x.device.id, x, self)

    def _on(self, device: int):
        """The array's device as CuPy's current one, for as long as the with-block lasts."""
        cuda = self.cupy.cuda
        return contextlib.nullcontext() if cuda.runtime.getDevice() == device else cuda.Device(device)

    def stream(self, a: Array) -> int:
        # CuPy's current stream is that of the current device: the array's, for the call.
        with self._on(a.device):
            return self.cupy.cuda.get_current_stream().ptr

    def empty(self, a: Array, shape: tuple, dtype: Optional[str] = None):
        with self._on(a.device):
            return self.cupy.empty(shape, dtype=dtype or self.cupy.uint32)


def _typestr_name(typestr: str) -> str:
    kinds = {"u": "uint", "i": "int", "f": "float", "b": "bool", "c": "complex"}
    if len(typestr) < 3 or typestr[0] == ">":
        return typestr  # big-endian or unknown: named as given, refused as a sample type
    return kinds.get(typestr[1], typestr[1]) + str(int(typestr[2:]) * 8)


class _CudaArrayInterface:
    """Numba device arrays and any other ``__cuda_array_interface__`` (version 2 or 3)."""

    def __init__(self, framework: str) -> None:
        self.name = framework

    def array(self, x, what: str) -> Array:
        cai = x.__cuda_array_interface__
        shape = tuple(cai["shape"])
        typestr = cai["typestr"]
        itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
        strides = cai.get("strides")
        if strides is None:
            strides, expect = [], 1
            for extent in reversed(shape):
                strides.insert(0, expect)
                expect *= extent
        else:
            strides = [s // itemsize for s in strides]
        # The interface names no device: the call runs on the current one.
        return Array(cai["data"][0], shape, tuple(strides), _typestr_name(typestr), -1, x, self)

    def stream(self, a: Array) -> int:
        # The producer's stream, where the interface names one: work queued there has made the
        # data, so launching there needs no wait. Else the legacy default stream.
        s = a.obj.__cuda_array_interface__.get("stream")
        return s if s else 0

    def empty(self, a: Array, shape: tuple, dtype: Optional[str] = None):
        if not self.name.startswith("numba"):  # numba, numba_cuda
            raise ValueError(f"histtune: cannot make a {self.name} array for the counts: pass "
                             f"out=, a {dtype} CUDA array of the result's shape")
        import numpy
        from numba import cuda

        return cuda.device_array(shape, dtype=numpy.dtype(dtype or "uint32"))


class _DLPack:
    """JAX arrays and any other ``__dlpack__`` object: read by DLPack with the call's stream.

    Exporting with ``stream=S`` makes S wait for the array to be ready (DLPack's contract), so
    the host never waits. JAX's results are histtune-owned device buffers handed to JAX by
    DLPack (JAX arrays are immutable: ``out=`` is refused); other producers need ``out=``.
    """

    def __init__(self, framework: str) -> None:
        self.name = framework

    def array(self, x, what: str, stream: Optional[int] = None) -> Array:
        if stream is None:
            stream = self.default_stream(x)
        try:
            capsule = x.__dlpack__(stream=stream or CUDA_STREAM_LEGACY)
        except TypeError:
            capsule = x.__dlpack__()
        ptr, shape, strides, (code, bits, lanes), (dev_type, dev_id) = _core.describe(capsule)
        if dev_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            raise _host_error(what, x)
        dtype = _DLPACK_CODES.get(code, f"code{code}_") + str(bits) if lanes == 1 else "vector"
        a = Array(ptr, tuple(shape), tuple(strides), dtype, dev_id, x, self)
        a.stream = stream
        return a

    def default_stream(self, x) -> int:
        """JAX's stream for external work on x's device (what jax.dlpack.from_dlpack waits
        on): the data is ready there and JAX waits there for the result. Else the legacy
        default stream."""
        devices = getattr(x, "devices", None)
        try:
            (device,) = devices()
            return device.get_stream_for_external_ready_events() or CUDA_STREAM_LEGACY
        except Exception:  # not JAX, several devices, or a backend without the query
            return CUDA_STREAM_LEGACY

    def stream(self, a: Array) -> int:
        return a.stream

    def empty(self, a: Array, shape: tuple, dtype: Optional[str] = None):
        if dtype not in (None, "uint32"):
            raise TypeError(f"histtune: {self.name} arrays get uint32 counts only (histtune makes "
                            f"JAX's results as uint32): no weights= and no {dtype} counts; use "
                            "torch, CuPy or Numba arrays")
        if self.name != "jax":
            raise ValueError(f"histtune: cannot make a {self.name} array for the counts: pass "
                             "out=, a uint32 CUDA array of the result's shape")
        return _Pending(_core.device_counts(list(shape), a.device))

    def finish(self, result: "_Pending", stream: int, device: int):
        """The result in the caller's framework, ready for whichever stream it reads on."""
        result.stream, result.device = stream, device
        import jax.dlpack

        return jax.dlpack.from_dlpack(result)


class _Pending:
    """A histtune-made buffer whose DLPack export waits, on the consumer's stream, for the
    stream that computes it (no host synchronisation)."""

    def __init__(self, made) -> None:
        self.ptr, self.capsule = made  # _core.device_counts: (pointer, DLPack capsule)
        self.stream, self.device = CUDA_STREAM_LEGACY, -1

    def __dlpack__(self, stream=None, **kwargs):
        consumer = CUDA_STREAM_LEGACY if stream is None or stream == -1 else stream
        if stream != -1:
            _core.stream_wait(self.stream, consumer, self.device)
        return self.capsule  # a capsule is consumed once: JAX takes it here

    def __dlpack_device__(self):
        return (_KDL_CUDA, max(self.device, 0))


_ADAPTERS: dict = {}


def adapter_of(x: Any, what: str):
    """The adapter for x's type (cached), or TypeError for what histtune cannot read."""
    a = _ADAPTERS.get(type(x))
    if a is not None:
        return a
    where = _where(x)
    if where == "torch":
        a = torch_adapter()
    elif where == "cupy":
        a = _CuPy()
    elif where in ("jax", "jaxlib"):
        a = _DLPack("jax")
    elif where == "numpy" or isinstance(x, (list, tuple, int, float, memoryview, bytes)):
        raise _host_error(what, x)
    elif hasattr(x, "__cuda_array_interface__"):
        a = _CudaArrayInterface(where)
    elif hasattr(x, "__dlpack__"):
        a = _DLPack(where)
    else:
        raise TypeError(f"histtune: {what} is a {type(x).__module__}.{type(x).__qualname__}, "
                        "not a CUDA array: pass a torch tensor, CuPy, JAX or Numba array, or any "
                        "object with __cuda_array_interface__ or __dlpack__")
    _ADAPTERS[type(x)] = a
    return a


# What the modules above do once torch is loaded (the public functions' fast path, the custom ops
# for torch.compile), each handed the torch adapter when it is made: they register here
# (on_torch), so this module imports none of them.
_TORCH_HOOKS: list = []


def on_torch(hook) -> None:
    """Calls hook(adapter) when the torch adapter is made, and at once if it already is."""
    _TORCH_HOOKS.append(hook)
    torch = sys.modules.get("torch")
    a = _ADAPTERS.get(getattr(torch, "Tensor", None)) if torch is not None else None
    if a is not None:
        hook(a)


def torch_adapter() -> _Torch:
    """The one torch adapter (torch must be imported); making it runs the on_torch hooks."""
    torch = sys.modules["torch"]
    a = _ADAPTERS.get(torch.Tensor)
    if a is None:
        a = _ADAPTERS[torch.Tensor] = _Torch()
        for hook in _TORCH_HOOKS:
            hook(a)
    return a


def read(x: Any, what: str, stream: Optional[int] = None) -> Array:
    """x as an Array; DLPack producers export it for `stream` (their default when None)."""
    a = adapter_of(x, what)
    if isinstance(a, _DLPack):
        return a.array(x, what, stream)
    return a.array(x, what)


def stream_handle(stream: Any) -> int:
    """A cudaStream_t from an int, a torch.cuda.Stream, a CuPy stream or a __cuda_stream__."""
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return protocol()[1]
    raise TypeError(f"histtune: stream= takes a cudaStream_t as int, a torch.cuda.Stream, a "
                    f"CuPy stream or an object with __cuda_stream__; got {type(stream).__name__}")
