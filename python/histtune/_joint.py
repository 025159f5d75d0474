"""The joint calls: histogram2d(x, y, ...) and histogramdd(sample, ...), NumPy's signatures where
they fit, one call of the joint family (docs/api.md, "Joint histograms") through _core.joint."""

from __future__ import annotations

import numbers
from typing import Any, List, Optional, Tuple

from . import _arrays, _core
from ._calls import (EVEN, RANGE, even_bounds, finish, output_array, positive_count, read_edges,
                     require_contiguous, sample_type_of, stream_of)
from ._arrays import SAMPLE_TYPES, Array

MAX_DIMS = 4
_MAX_JOINT_BINS = (1 << 31) - 1
# Every sample type of at most 4 bytes, and float64 (not int64 nor uint64).
JOINT_TYPES = {k: v for k, v in SAMPLE_TYPES.items() if k not in ("int64", "uint64")}


def _per_dim(v: Any, dims: int, what: str) -> list:
    """v for each of `dims` dimensions: one value for all, or a sequence of `dims` of them."""
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or hasattr(v, "__cuda_array_interface__"):
        return [v] * dims
    values = list(v)
    if len(values) != dims:
        raise ValueError(f"histtune: {what} has {len(values)} entries for {dims} dimensions")
    return values


def _ranges(range: Any, dims: int, dtype: str) -> List[Tuple[Any, Any]]:
    if range is None:
        raise ValueError("histtune.histogramdd: range=[(lo, hi), ...] (one pair per dimension) is "
                         "required with bin counts: histtune never reads the data's minimum and "
                         "maximum (that would synchronise with the GPU)")
    pairs = list(range) if hasattr(range, "__len__") else [range]
    if len(pairs) != dims:
        raise ValueError(f"histtune: range has {len(pairs)} pairs for {dims} dimensions")
    out = []
    for pair in pairs:
        lo, hi = even_bounds(pair, dtype)
        if not lo < hi:
            raise ValueError(f"histtune: each range needs lo < hi, got {pair!r}")
        out.append((lo, hi))
    return out


def _columns(sample: Any, s: Optional[int]) -> Tuple[Optional[Array], List[Array]]:
    """(interleaved [N, D] array, None) or (None, D arrays of N values)."""
    if isinstance(sample, (list, tuple)):
        cols = [_arrays.read(c, f"sample[{d}]", s) for d, c in enumerate(sample)]
        if not cols or len(cols) > MAX_DIMS:
            raise ValueError(f"histtune: a joint histogram has 1 to {MAX_DIMS} dimensions, got "
                             f"{len(cols)} arrays")
        for d, c in enumerate(cols):
            require_contiguous(c, f"sample[{d}]")
            if c.dtype != cols[0].dtype or c.size != cols[0].size:
                raise ValueError("histtune: the arrays of a joint histogram share one dtype and "
                                 f"length, got {cols[0].dtype}[{cols[0].size}] and "
                                 f"{c.dtype}[{c.size}]")
            if -1 not in (c.device, cols[0].device) and c.device != cols[0].device:
                raise ValueError("histtune: the arrays of a joint histogram are on one GPU")
        return None, cols
    a = _arrays.read(sample, "sample", s)
    if len(a.shape) != 2 or not 1 <= a.shape[1] <= MAX_DIMS:
        raise ValueError(f"histtune.histogramdd: sample must be [N, D] with D in 1..{MAX_DIMS} "
                         f"(or a sequence of D arrays), got shape {tuple(a.shape)}")
    require_contiguous(a, "sample")
    return a, []


def _binning(bins: Any, range: Any, dims: int, first: Array, s: int):
    """(binning code, bin counts, lowers, uppers, edge arrays) of NumPy's bins= and range=."""
    per = _per_dim(bins, dims, "bins")
    if all(isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in per):
        counts = [positive_count(b, "bins") for b in per]
        pairs = _ranges(range, dims, first.dtype)
        return EVEN, counts, [float(lo) for lo, _ in pairs], \
            [float(hi) for _, hi in pairs], []
    if range is not None:
        raise ValueError("histtune: give either bin edges or bin counts with range=, not both")
    edges = [read_edges(e, first, s) for e in per]
    return RANGE, [e.size - 1 for e in edges], [], [], edges


def call(sample: Any, bins: Any, range: Any, out: Any, stream: Any, name: str) -> Any:
    s = None if stream is None else _arrays.stream_handle(stream)
    a, cols = _columns(sample, s)
    first = a if a is not None else cols[0]
    code = sample_type_of(first, name, JOINT_TYPES)
    st = stream_of(first, s)
    dims = a.shape[1] if a is not None else len(cols)
    n = a.shape[0] if a is not None else cols[0].size
    binning, counts, lower, upper, edges = _binning(bins, range, dims, first, st)
    total = 1
    for c in counts:
        total *= c
    if total > _MAX_JOINT_BINS:
        raise ValueError(f"histtune: the joint bins ({' x '.join(map(str, counts))}) exceed "
                         "2^31 - 1")
    result, ptr = output_array(first, out, tuple(counts))
    _core.joint(code, binning, a.ptr if a is not None else 0, [c.ptr for c in cols], n,
                counts, lower, upper, [e.ptr for e in edges], ptr, st, first.device)
    return finish(first, result, st)


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, *, out: Any = None,
                stream: Any = None) -> Any:
    """Joint histogram of D-dimensional samples (numpy.histogramdd), D from 1 to 4.

    ``sample`` is an [N, D] CUDA array (row-major tuples), or a sequence of D arrays of N values
    each. ``bins``: one count for every dimension, a count per dimension (with ``range``, one
    (lo, hi) pair per dimension: even bins over [lo, hi)), or an edges array per dimension
    (CUDA arrays of the samples' dtype, strictly ascending, not checked: that would
    synchronise). Each dimension bins as ``histogram`` bins it: hi itself is in no bin (NumPy's
    last bin takes it), and a tuple with any value outside, NaN or infinite, is not counted.
    Returns uint32 counts of shape (bins_0, ..., bins_D-1), the product below 2^31, in the
    samples' framework and device (or ``out``), on the caller's current stream (or ``stream``);
    not NumPy's (counts, edges).

    >>> xyz = torch.rand(1 << 24, 3, device="cuda")
    >>> counts = histtune.histogramdd(xyz, 32, range=[(0, 1)] * 3)   # shape (32, 32, 32)
    """
    return call(sample, bins, range, out, stream, "histogramdd")


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, *, out: Any = None,
                stream: Any = None) -> Any:
    """Joint histogram of pairs (numpy.histogram2d): x and y CUDA arrays of one dtype and length.

    ``bins``: a count for both, [bins_x, bins_y], or [x_edges, y_edges]; ``range``:
    [(x_lo, x_hi), (y_lo, y_hi)] with counts. Returns uint32 counts of shape (bins_x, bins_y),
    bin (i, j) counting x in x's bin i and y in y's bin j; as ``histogramdd`` otherwise.

    >>> counts = histtune.histogram2d(x, y, 64, range=[(0, 1), (0, 1)])
    """
    if isinstance(bins, (list, tuple)) and len(bins) != 2:
        raise ValueError(f"histtune.histogram2d: bins has {len(bins)} entries for 2 dimensions")
    return call((x, y), bins, range, out, stream, "histogram2d")

