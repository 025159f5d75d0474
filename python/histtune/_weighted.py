"""The weighted calls: histogram(..., weights=) and bincount(..., weights=), one call of the
weighted families (docs/api.md, "Weighted histograms") through _core.weighted (looked up on
_api, where the tests record it)."""

from __future__ import annotations

from typing import Any

from . import _api, _arrays
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


def not_compiled(x: Any, name: str) -> None:
    if _api._torch_compiling(x):
        raise NotImplementedError(f"histtune.{name}: weights= is not supported under "
                                  "torch.compile yet; call it outside the compiled region")


def shaped(name: str, a: Any, code: int, s: int, wc: Any, binned: tuple, out_shape: tuple,
           out: Any, deterministic: bool, max_abs_weight: float, n: int, **shape: Any) -> Any:
    """A weighted call of rows, segments or pixels of channels (histtune::WeightedShape): wc the
    weights and their code (read_weights), binned = (bins, binning, lo, hi, levels), the result of
    out_shape in the weights' bin type; shape: _core.weighted's rows, row_stride, offsets,
    segments, channels, active."""
    w, wcode = wc
    bound = _mode(deterministic, max_abs_weight, name)
    nbins, binning, lo, hi, levels = binned
    result, ptr = _api._output(a, out, out_shape, WEIGHTED_BIN_TYPES[w.dtype])
    _api._core.weighted(code, wcode, binning, a.ptr, w.ptr, n, nbins, float(lo), float(hi),
                        levels, ptr, deterministic, bound, s, a.device, **shape)
    return _api._finish(a, result, s)


def call(x: Any, bins: Any, range: Any, weights: Any, deterministic: bool,
         max_abs_weight: float, out: Any, stream: Any, direct: bool = False) -> Any:
    """histogram(x, bins, range, weights=...) and bincount(x, n, weights=...): one call of the
    weighted family."""
    not_compiled(x, "histogram")
    a, code, s = _api._read_samples(x, stream, "histogram")
    _api._contiguous(a, "x")
    w, wcode = read_weights(weights, a, s, a.size, "histogram",
                             f"x has {a.size}: one weight per sample")
    _api._contiguous(w, "weights")
    bound = _mode(deterministic, max_abs_weight, "histogram")
    dtype = WEIGHTED_BIN_TYPES[w.dtype]
    if direct:
        if code in _api._FLOAT_CODES:
            raise TypeError(f"histtune.bincount counts integer samples; for {a.dtype} use "
                            "histogram(x, bins, range=(lo, hi), weights=w)")
        nbins = _api._count(bins, "minlength")
        result, ptr = _api._output(a, out, (nbins,), dtype)
        _api._core.weighted(code, wcode, _api._DIRECT, a.ptr, w.ptr, a.size, nbins, 0.0, 0.0, 0,
                            ptr, deterministic, bound, s, a.device)
        return _api._finish(a, result, s)
    if _api._is_count(bins):
        nbins = _api._count(bins, "bins")
        lo, hi = _api._bounds(range, a.dtype)
        result, ptr = _api._output(a, out, (nbins,), dtype)
        _api._core.weighted(code, wcode, _api._EVEN, a.ptr, w.ptr, a.size, nbins, float(lo),
                            float(hi), 0, ptr, deterministic, bound, s, a.device)
        return _api._finish(a, result, s)
    if range is not None:
        raise ValueError("histtune.histogram: give either bin edges or a bin count with "
                         "range=(lo, hi), not both")
    e = _api._edges(bins, a, s)
    result, ptr = _api._output(a, out, (e.size - 1,), dtype)
    _api._core.weighted(code, wcode, _api._RANGE, a.ptr, w.ptr, a.size, e.size - 1, 0.0, 0.0,
                        e.ptr, ptr, deterministic, bound, s, a.device)
    return _api._finish(a, result, s)
