"""The weighted calls: histogram(..., weights=) and bincount(..., weights=), one call of the
weighted families (docs/api.md, "Weighted histograms") through _core.weighted (looked up on
_api, where the tests record it)."""

from __future__ import annotations

from typing import Any

from . import _api, _arrays
from ._arrays import WEIGHT_TYPES, WEIGHTED_BIN_TYPES


def call(x: Any, bins: Any, range: Any, weights: Any, deterministic: bool,
         max_abs_weight: float, out: Any, stream: Any, direct: bool = False) -> Any:
    """histogram(x, bins, range, weights=...) and bincount(x, n, weights=...): one call of the
    weighted family."""
    if _api._torch_compiling(x):
        raise NotImplementedError("histtune.histogram: weights= is not supported under "
                                  "torch.compile yet; call it outside the compiled region")
    a, code, s = _api._read_samples(x, stream, "histogram")
    _api._contiguous(a, "x")
    w = _arrays.read(weights, "weights", s)
    wcode = WEIGHT_TYPES.get(w.dtype)
    if wcode is None:
        raise TypeError(f"histtune.histogram: weights of dtype {w.dtype} are not supported; "
                        f"it takes {', '.join(WEIGHT_TYPES)}")
    if w.size != a.size:
        raise ValueError(f"histtune.histogram: weights has {w.size} elements, x has {a.size}: "
                         "one weight per sample")
    _api._contiguous(w, "weights")
    if -1 not in (w.device, a.device) and w.device != a.device:
        raise ValueError(f"histtune: weights are on GPU {w.device}, the samples on GPU {a.device}")
    if not isinstance(deterministic, bool):
        raise TypeError("histtune.histogram: deterministic must be a bool")
    bound = float(max_abs_weight)
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
