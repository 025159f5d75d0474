"""What every call of histtune's Python functions shares, below the public functions (_api.py)
and the weighted and joint calls (_weighted.py, _joint.py): the C++ API's type and binning codes,
and the checks of samples, bins, bounds, edges and outputs, each raising the error a caller reads.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional, Tuple

from . import _arrays
from ._arrays import FLOAT_TYPES, SAMPLE_TYPES, Array

DIRECT, EVEN, RANGE = 0, 1, 2  # histtune::Binning
FLOAT32, UINT64 = SAMPLE_TYPES["float32"], SAMPLE_TYPES["uint64"]
FLOAT_CODES = frozenset(SAMPLE_TYPES[name] for name in FLOAT_TYPES)
TYPE_NAMES = {code: name for name, code in SAMPLE_TYPES.items()}
# Bytes of a sample of each SampleType value (the digits of its name are its bits).
SAMPLE_BYTES = {code: int("".join(filter(str.isdigit, name))) // 8
                for name, code in SAMPLE_TYPES.items()}
MAX_BINS = 2**32 - 1
WIDE_COUNTS = ("uint64", "int64")  # 64-bit counts (histogram, bincount): n may pass 2^32 - 1
INT64 = 2**63


def sample_type_of(a: Array, call: str, allowed: dict = SAMPLE_TYPES) -> int:
    code = allowed.get(a.dtype)
    if code is None:
        raise TypeError(f"histtune.{call}: samples of dtype {a.dtype} are not supported; "
                        f"it counts {', '.join(allowed)}")
    return code


def require_contiguous(a: Array, what: str) -> None:
    if not a.contiguous():
        raise ValueError(f"histtune: {what} is not contiguous (shape {a.shape}, strides "
                         f"{a.strides} in elements): pass a contiguous copy (x.contiguous(), "
                         "cupy.ascontiguousarray(x))")


def positive_count(v: Any, name: str) -> int:
    if isinstance(v, bool):
        raise TypeError(f"histtune: {name} must be an int, got a bool")
    if not isinstance(v, int):
        try:
            v = v.__index__()
        except (AttributeError, TypeError):
            raise TypeError(f"histtune: {name} must be an int, got {type(v).__name__}") from None
    if not 1 <= v <= MAX_BINS:
        raise ValueError(f"histtune: {name} must be in [1, 2^32 - 1], got {v}")
    return v


def is_bin_count(bins: Any) -> bool:
    """A bin count, not edges: an integer. (Arrays have __index__ too: torch and CuPy ones.)"""
    return isinstance(bins, numbers.Integral)


def even_bounds(range: Any, dtype: str) -> Tuple[Any, Any]:
    """(lo, hi) for samples of `dtype`: floats for the float types, else integers."""
    if range is None:
        raise ValueError("histtune.histogram: range=(lo, hi) is required with a bin count: "
                         "histtune never reads the data's minimum and maximum (that would "
                         "synchronise with the GPU); to count value v in bin v use "
                         "bincount(x, minlength)")
    real = dtype in FLOAT_TYPES
    try:
        lo, hi = range
        lo, hi = float(lo) if real else lo, float(hi) if real else hi
    except (TypeError, ValueError):
        raise TypeError(f"histtune: range must be a pair of numbers (lo, hi), got {range!r}") \
            from None
    if real:
        return lo, hi
    return integer_bound(lo, range, dtype), integer_bound(hi, range, dtype)


def integer_bound(v: Any, range: Any, dtype: str = "int") -> int:
    # Integer samples are binned exactly, in integers: the bounds must be integers too.
    if isinstance(v, float):
        if not v.is_integer():
            raise ValueError(f"histtune: integer samples need integer bounds, got range={range!r}")
        v = int(v)
    elif not isinstance(v, int):
        try:
            v = v.__index__()
        except (AttributeError, TypeError):
            raise TypeError(f"histtune: range must be numbers, got {range!r}") from None
    if dtype == "uint64":  # bounds of the samples' own type, exact (no 2^53 limit)
        if not 0 <= v < 2 * INT64:
            raise ValueError(f"histtune: even binning of uint64 samples needs bounds in "
                             f"[0, 2^64), got range={range!r}")
    elif not -INT64 <= v < INT64:
        what, limit = ("int64", "[-2^63, 2^63)") if dtype == "int64" else ("integer", "+-2^53")
        raise ValueError(f"histtune: even binning of {what} samples needs bounds within "
                         f"{limit}, got range={range!r}")
    return v


def stream_of(a: Array, stream: Optional[int]) -> int:
    return a.adapter.stream(a) if stream is None else stream


def output_array(a: Array, out: Any, shape: tuple, dtype: str = "uint32") -> Tuple[Any, int]:
    """The result array and its device pointer: a new one in x's framework, or `out`: uint32 (or
    int32) counts, or a weighted call's bins of `dtype`."""
    if dtype == "uint32":
        result, ptr, _ = out_or_new(a, out, shape, _arrays.COUNT_TYPES)
    else:
        result, ptr, _ = out_or_new(a, out, shape, (dtype,), dtype,
                                    what=f"{dtype} bins (those of the weights)")
    return result, ptr


def out_or_new(a: Array, out: Any, shape: tuple, dtypes: tuple, dtype: Optional[str] = None,
               what: Optional[str] = None) -> Tuple[Any, int, str]:
    """(result, pointer, dtype name): a new array of `dtype` (default uint32) in x's framework,
    or `out`, which must hold one of `dtypes` (`what` names them in the error; counts if None)."""
    if out is None:
        result = a.adapter.empty(a, shape) if dtype is None else a.adapter.empty(a, shape, dtype)
        return result, pointer_of(result), dtype or "uint32"
    if a.adapter.name == "jax":
        raise TypeError("histtune: out= is not supported for JAX arrays (they are immutable)")
    fast = getattr(a.adapter, "out_pointer", None)
    if fast is not None and type(out) is type(a.obj) and _arrays.COUNT_TYPES[0] in dtypes:
        ptr = fast(out, shape, a)
        if ptr is not None:
            return out, ptr, "uint32"  # the fast check takes 32-bit counts only
    o = _arrays.read(out, "out")
    if o.dtype not in dtypes and what is not None:
        raise TypeError(f"histtune: out must hold {what}, got {o.dtype}")
    if o.dtype not in dtypes:
        wide = " (or uint64, int64 for 64-bit counts)" if WIDE_COUNTS[0] in dtypes else ""
        raise TypeError(f"histtune: out must hold uint32 (or int32) counts{wide}, got {o.dtype}")
    if tuple(o.shape) != shape:
        raise ValueError(f"histtune: out must have shape {shape}, got {tuple(o.shape)}")
    require_contiguous(o, "out")
    if -1 not in (o.device, a.device) and o.device != a.device:
        raise ValueError(f"histtune: out is on GPU {o.device}, the samples on GPU {a.device}")
    return out, o.ptr, o.dtype


def counts_dtype_name(counts_dtype: Any) -> Optional[str]:
    """counts_dtype as a dtype name: uint32, int32, uint64 or int64 (a name, a NumPy, CuPy or
    torch dtype, or a NumPy scalar type), or None."""
    if counts_dtype is None:
        return None
    name = getattr(counts_dtype, "name", None)  # NumPy and CuPy dtypes
    if not isinstance(name, str) and isinstance(counts_dtype, type):
        name = counts_dtype.__name__  # numpy.uint64
    if not isinstance(name, str):
        name = str(counts_dtype).replace("torch.", "")
    if name not in _arrays.COUNT_TYPES + WIDE_COUNTS:
        raise TypeError(f"histtune: counts_dtype must be uint32, int32, uint64 or int64, got "
                        f"{counts_dtype!r}")
    return name


def counts_output(a: Array, out: Any, shape: tuple, counts_dtype: Any) -> Tuple[Any, int, bool]:
    """(result, pointer, 64-bit) of a counting call, which also counts in uint64 (or int64):
    where out= holds them, or counts_dtype asks for them (with out=, it must agree)."""
    want = counts_dtype_name(counts_dtype)
    result, ptr, dtype = out_or_new(a, out, shape, _arrays.COUNT_TYPES + WIDE_COUNTS,
                                    want if out is None else None)
    wide = dtype in WIDE_COUNTS
    if want is not None and (want in WIDE_COUNTS) != wide:
        raise TypeError(f"histtune: counts_dtype={want} but out holds {dtype} counts")
    return result, ptr, wide


def wide_keyword(wide: bool) -> dict:
    """The _core keyword of 64-bit counts (none for 32-bit ones)."""
    return {"counts64": True} if wide else {}


def pointer_of(result: Any) -> int:
    if hasattr(result, "data_ptr"):
        return result.data_ptr()
    if isinstance(result, _arrays._Pending):
        return result.ptr
    return _arrays.read(result, "out").ptr


def finish(a: Array, result: Any, stream: int) -> Any:
    if isinstance(result, _arrays._Pending):
        return a.adapter.finish(result, stream, a.device)
    return result


def read_samples(x: Any, stream: Any, call: str, types: dict = SAMPLE_TYPES):
    s = None if stream is None else _arrays.stream_handle(stream)
    a = _arrays.read(x, "x", s)
    return a, sample_type_of(a, call, types), stream_of(a, s)


def read_edges(edges: Any, a: Array, stream: int) -> Array:
    e = _arrays.read(edges, "edges", stream)
    if e.dtype != a.dtype:
        raise TypeError(f"histtune: edges must have the samples' dtype ({a.dtype}), got "
                        f"{e.dtype}")
    if len(e.shape) != 1 or e.size < 2:
        raise ValueError(f"histtune: edges must be one-dimensional with at least 2 values "
                         f"(bins + 1), got shape {tuple(e.shape)}")
    require_contiguous(e, "edges")
    return e


def direct_needs_integers(dtype: str) -> None:
    if dtype in FLOAT_TYPES:
        raise TypeError(f"histtune: {dtype} samples need range=(lo, hi) (value-is-bin counting "
                        "is for integer samples)")
