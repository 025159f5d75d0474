"""Host references of histtune's binning rules in NumPy, for the GPU tests: the rules of
runtime/include/histtune/reference.hpp (and README "Using it from code"), written once more."""

import numpy as np

DTYPES = ["uint8", "uint16", "uint32", "int32", "float32"]
INTEGER_DTYPES = DTYPES[:4]
# Issue 25's types NumPy holds (bfloat16 is torch's alone).
NEW_DTYPES = ["int8", "int16", "int64", "uint64", "float16", "float64"]


def samples(dtype, n, lo=0, hi=None, seed=0):
    """n samples of dtype, uniform over [lo, hi) (the type's range by default); floats in
    [lo, hi) with NaN and values outside sprinkled in."""
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        hi = 1.0 if hi is None else hi
        x = rng.uniform(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo), n).astype(dtype)
        x[::97] = np.nan
        return x
    info = np.iinfo(dtype)
    hi = int(info.max) + 1 if hi is None else hi
    return rng.integers(max(lo, info.min), min(hi, int(info.max) + 1), n, dtype=np.int64) \
        .astype(dtype)


def direct(x, bins):
    v = x.astype(np.int64).ravel()
    return np.bincount(v[(v >= 0) & (v < bins)], minlength=bins).astype(np.uint32)


def even(x, bins, lo, hi, weights=None):
    """Counts, or with weights their sums per bin in float64 (histtune's bin rule either way)."""
    v = x.ravel()
    if v.dtype.kind == "f":  # float64 in double; float32 and the halfs (converted) in float
        ft = np.float64 if v.dtype == np.float64 else np.float32
        v = v.astype(ft)
        lo_f, hi_f = ft(lo), ft(hi)
        scale = ft(bins) / (hi_f - lo_f)
        inside = (v >= lo_f) & (v < hi_f)
        t = ((v[inside] - lo_f) * scale).astype(ft)
        b = np.minimum(t.astype(np.int64), bins - 1)
    else:
        d = v.astype(np.int64) - lo
        inside = (d >= 0) & (d < hi - lo)
        b = d[inside] * bins // (hi - lo)
    if weights is not None:
        w = weights.ravel()[inside].astype(np.float64)
        return np.bincount(b, weights=w, minlength=bins)
    return np.bincount(b, minlength=bins).astype(np.uint32)


def ranged(x, edges):
    v = x.ravel()
    inside = (v >= edges[0]) & (v < edges[-1])
    b = np.searchsorted(edges, v[inside], side="right") - 1
    return np.bincount(b, minlength=len(edges) - 1).astype(np.uint32)


def edges_for(dtype, bins, lo, hi):
    """bins + 1 strictly ascending edges of dtype from lo to hi, unevenly spaced."""
    t = np.linspace(0.0, 1.0, bins + 1) ** 2
    if dtype.startswith("float"):
        return (lo + (hi - lo) * t).astype(dtype)
    e = np.round(lo + (hi - lo) * t).astype(np.int64)
    for i in range(1, len(e)):
        e[i] = max(e[i], e[i - 1] + 1)
    return e.astype(dtype)
