"""The weighted calls: histogram(..., weights=) and bincount(..., weights=), one call of the
weighted families (docs/api.md, "Weighted histograms") through _core.weighted."""

from __future__ import annotations

from typing import Any

from . import _arrays, _core
from ._calls import (DIRECT, EVEN, FLOAT_CODES, RANGE, even_bounds, finish, is_bin_count,
                     output_array, positive_count, read_edges, read_samples, require_contiguous)
from ._arrays import WEIGHT_TYPES, WEIGHTED_BIN_TYPES


def read_weights(weights: Any, a: Any, s: int, count: int, name: str, what: str):
    """(weights, their type code): `count` weights of a supported dtype on a's device."""
    w = _arrays.read(weights, "weights", s)
    wcode = WEIGHT_TYPES.get(w.dtype)
    if wcode is None:
        raise TypeError(f"histtune.{name}: weights of dtype {w.dtype} are not supported; "
                        f"it takes {', '.join(WEIGHT_TYPES)}")
    if w.size != count:
        raise ValueError(f"histtune.{name}: weights has {w.size} elements, {what}")
    if -1 not in (w.device, a.device) and w.device != a.device:
        raise ValueError(f"histtune: weights are on GPU {w.device}, the samples on GPU {a.device}")
    return w, wcode


def _mode(deterministic: Any, max_abs_weight: Any, name: str) -> float:
    if not isinstance(deterministic, bool):
        raise TypeError(f"histtune.{name}: deterministic must be a bool")
    return float(max_abs_weight)


def shaped(name: str, a: Any, code: int, s: int, wc: Any, binned: tuple, out_shape: tuple,
           out: Any, deterministic: bool, max_abs_weight: float, n: int, **shape: Any) -> Any:
    """A weighted call of rows, segments or pixels of channels (histtune::WeightedShape): wc the
    weights and their code (read_weights), binned = (bins, binning, lo, hi, levels), the result of
    out_shape in the weights' bin type; shape: _core.weighted's rows, row_stride, offsets,
    segments, channels, active."""
    w, wcode = wc
    bound = _mode(deterministic, max_abs_weight, name)
    nbins, binning, lo, hi, levels = binned
    result, ptr = output_array(a, out, out_shape, WEIGHTED_BIN_TYPES[w.dtype])
    _core.weighted(code, wcode, binning, a.ptr, w.ptr, n, nbins, float(lo), float(hi),
                   levels, ptr, deterministic, bound, s, a.device, **shape)
    return finish(a, result, s)


def call(x: Any, bins: Any, range: Any, weights: Any, deterministic: bool,
         max_abs_weight: float, out: Any, stream: Any, direct: bool = False) -> Any:
    """histogram(x, bins, range, weights=...) and bincount(x, n, weights=...): one call of the
    weighted family."""
    a, code, s = read_samples(x, stream, "histogram")
    require_contiguous(a, "x")
    w, wcode = read_weights(weights, a, s, a.size, "histogram",
                            f"x has {a.size}: one weight per sample")
    require_contiguous(w, "weights")
    bound = _mode(deterministic, max_abs_weight, "histogram")
    dtype = WEIGHTED_BIN_TYPES[w.dtype]
    if direct:
        if code in FLOAT_CODES:
            raise TypeError(f"histtune.bincount counts integer samples; for {a.dtype} use "
                            "histogram(x, bins, range=(lo, hi), weights=w)")
        nbins = positive_count(bins, "minlength")
        result, ptr = output_array(a, out, (nbins,), dtype)
        _core.weighted(code, wcode, DIRECT, a.ptr, w.ptr, a.size, nbins, 0.0, 0.0, 0,
                       ptr, deterministic, bound, s, a.device)
        return finish(a, result, s)
    if is_bin_count(bins):
        nbins = positive_count(bins, "bins")
        lo, hi = even_bounds(range, a.dtype)
        result, ptr = output_array(a, out, (nbins,), dtype)
        _core.weighted(code, wcode, EVEN, a.ptr, w.ptr, a.size, nbins, float(lo),
                       float(hi), 0, ptr, deterministic, bound, s, a.device)
        return finish(a, result, s)
    if range is not None:
        raise ValueError("histtune.histogram: give either bin edges or a bin count with "
                         "range=(lo, hi), not both")
    e = read_edges(bins, a, s)
    result, ptr = output_array(a, out, (e.size - 1,), dtype)
    _core.weighted(code, wcode, RANGE, a.ptr, w.ptr, a.size, e.size - 1, 0.0, 0.0,
                   e.ptr, ptr, deterministic, bound, s, a.device)
    return finish(a, result, s)
