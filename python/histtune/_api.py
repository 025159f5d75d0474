"""histtune's public functions: histogram, bincount, histogram_channels, histogram_rows,
histogram_segments and last_choice.

Each reads its arrays through their framework's adapter (_arrays.py), checks what the C++ API
cannot see (dtypes, shapes, strides, the output), and makes one call of histtune's C++ API
(_core) on the caller's stream. Bins, bounds and sizes are checked by the C++ API itself, so a
Python call refuses exactly what a C++ call refuses, with the same message.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

from . import _arrays, _core, _weighted
from ._arrays import SAMPLE_TYPES, Array
from ._calls import (DIRECT, EVEN, FLOAT32, FLOAT_CODES, MAX_BINS, RANGE, SAMPLE_BYTES, TYPE_NAMES,
                     UINT64, counts_output, direct_needs_integers, even_bounds, finish,
                     is_bin_count, positive_count, read_edges, read_samples, require_contiguous,
                     wide_keyword)


class Choice(NamedTuple):
    """What the last call on this thread ran and how its configuration was found.

    ``level`` is the graded lookup's answer: ``exact`` (tuned for this GPU and problem),
    ``same_model`` (this problem, tuned on another GPU of this model), ``nearest_shape``,
    ``same_arch`` or ``default`` (nothing usable in the tuning database).
    ``summary`` is the C++ ``FamilyChoice::summary()``, e.g. ``"exact tpb1024.vpt2..."``.
    """

    family: str
    config: str
    level: str
    unverified: bool
    stale: str
    detail: str
    summary: str

    def __str__(self) -> str:
        return self.summary


def last_choice() -> Optional[Choice]:
    """The configuration the last successful call on this thread ran, or None before any.

    >>> histtune.bincount(x, 256)
    >>> histtune.last_choice().summary      # e.g. 'exact tpb1024.vpt2.vec16.pc1...'
    """
    d = _core.last_choice()
    return Choice(**d) if d else None


# torch.compiler.is_compiling once torch is loaded (set by _arrays' torch adapter): an import
# statement per call would cost most of a microsecond. _ops: torch.ops.histtune once _torch.py
# registered the custom ops. Module globals, which torch.compile reads as constants.
_is_compiling = None
_ops = None

# The torch fast path (use_torch): a call on a torch.Tensor reads each attribute it needs once,
# in the public function itself, and calls _core directly; anything it does not expect (another
# type, dtype or device, a non-contiguous array or output, odd arguments) goes the general way,
# which reads everything again and says what is wrong. Each attribute read costs 0.15-0.4 us.
_Tensor = None  # torch.Tensor: subclasses go the general way
_codes: dict = {}  # torch dtype -> sample type, per call's family (see use_torch)
_new_counts = _raw_stream = None
_out_dtypes: tuple = ()


def use_torch(adapter: Any) -> None:
    """Enables the torch fast path (an _arrays.on_torch hook: once torch's adapter is made)."""
    global _Tensor, _new_counts, _raw_stream, _out_dtypes, _is_compiling
    torch, count_dtype, raw_stream = adapter.torch, adapter.count_dtype, adapter.raw_stream
    dtypes = {getattr(torch, name, None): code for name, code in SAMPLE_TYPES.items()}
    dtypes.pop(None, None)
    _codes["histogram"] = dtypes
    _codes["bincount"] = {d: c for d, c in dtypes.items() if c not in FLOAT_CODES}
    _codes["histogram_channels"] = dtypes
    _out_dtypes = (count_dtype, torch.int32)
    _new_counts = lambda shape, device: torch.empty(shape, dtype=count_dtype,  # noqa: E731
                                                    device=device)
    _raw_stream = raw_stream
    _is_compiling = torch.compiler.is_compiling
    _Tensor = torch.Tensor


def _torch_out(out: Any, shape: tuple, device: int) -> Optional[Tuple[Any, int]]:
    """(result, pointer) of a torch call on `device`: a new uint32 tensor, or `out` where it is
    valid (dtype, device, shape, contiguous); None sends the call the general way."""
    if out is None:
        result = _new_counts(shape, device)
        return result, result.data_ptr()
    if (type(out) is _Tensor and out.dtype in _out_dtypes and out.get_device() == device
            and out.shape == shape and out.is_contiguous()):
        return out, out.data_ptr()
    return None



def _torch_compiling(x: Any) -> bool:
    # Once torch's adapter exists, its is_compiling (which dynamo knows by identity, whatever
    # name calls it) is the cheapest test; before, type(x).__module__ keeps torch unimported for
    # other frameworks.
    if _is_compiling is not None:
        return _is_compiling()
    if not type(x).__module__.startswith("torch"):
        return False
    import torch

    return torch.compiler.is_compiling()


def _not_compiled(x: Any, name: str) -> None:
    if _torch_compiling(x):
        raise NotImplementedError(f"histtune.{name}: weights= is not supported under "
                                  "torch.compile yet; call it outside the compiled region")


def _compiled(op: str, out: Any, stream: Any, *args: Any):
    """Under torch.compile: the custom op (histtune/_torch.py), an opaque node of the graph."""
    if stream is not None:
        raise ValueError("histtune: stream= is not supported under torch.compile; "
                         "use `with torch.cuda.stream(s):` around the compiled call")
    if _ops is None:
        raise RuntimeError("histtune: the torch custom ops are not registered: import torch "
                           "before histtune, or make one eager call, before compiling")
    result = getattr(_ops, op)(*args)
    if out is None:
        return result
    out.copy_(result)
    return out


def bincount(x: Any, minlength: int, *, weights: Any = None, deterministic: bool = False,
             max_abs_weight: float = 0.0, out: Any = None, stream: Any = None,
             counts_dtype: Any = None) -> Any:
    """Counts of each value: value v counts in bin v, for v in [0, minlength).

    Exactly ``minlength`` bins: values >= minlength (and negative values) are not counted.
    Unlike ``torch.bincount`` it never reads the data's maximum, so it never synchronises with
    the host and can be captured in a CUDA graph. Integer samples (uint8, uint16, uint32,
    int32, int8, int16, int64, uint64), any shape, contiguous. Returns uint32 counts in x's framework on x's device
    (or ``out``), computed on the caller's current stream (or ``stream``). 64-bit counts,
    for more than 2^32 - 1 samples: ``counts_dtype`` uint64 or int64 (a name or a dtype), or
    an ``out`` of that dtype (see ``histogram``).

    >>> x = torch.randint(0, 256, (1 << 20,), dtype=torch.uint8, device="cuda")
    >>> counts = histtune.bincount(x, 256)       # torch.uint32, shape (256,)

    ``weights=`` as in ``histogram`` (``torch.bincount(weights=)``): each value adds its weight.
    """
    if weights is not None:
        if counts_dtype is not None:
            raise ValueError("histtune.bincount: counts_dtype= counts; weights= sums into bins of "
                             "the weights' type")
        _not_compiled(x, "bincount")
        return _weighted.call(x, minlength, None, weights, deterministic, max_abs_weight, out,
                              stream, direct=True)
    if deterministic or max_abs_weight:
        raise ValueError("histtune.bincount: deterministic= and max_abs_weight= go with weights=")
    if counts_dtype is not None and _torch_compiling(x):
        raise ValueError("histtune: counts_dtype= is not supported under torch.compile")
    if type(x) is _Tensor and counts_dtype is None:
        if _is_compiling():
            return _compiled("bincount", out, stream, x, minlength)
        code, device = _codes["bincount"].get(x.dtype), x.get_device()
        if code is not None and device >= 0 and x.is_contiguous():
            bins = minlength if type(minlength) is int and 0 < minlength <= MAX_BINS \
                else positive_count(minlength, "minlength")
            s = _raw_stream(device) if stream is None else _arrays.stream_handle(stream)
            made = _torch_out(out, (bins,), device)
            if made is not None:
                _core.direct(code, x.data_ptr(), x.numel(), bins, made[1], s, device)
                return made[0]
    elif _torch_compiling(x):
        return _compiled("bincount", out, stream, x, minlength)
    a, code, s = read_samples(x, stream, "bincount")
    if code in FLOAT_CODES:
        raise TypeError(f"histtune.bincount counts integer samples; for {a.dtype} use "
                        "histogram(x, bins, range=(lo, hi))")
    require_contiguous(a, "x")
    bins = positive_count(minlength, "minlength")
    result, counts, wide = counts_output(a, out, (bins,), counts_dtype)
    _core.direct(code, a.ptr, a.size, bins, counts, s, a.device, **wide_keyword(wide))
    return finish(a, result, s)


def histogram(x: Any, bins: Any, range: Any = None, *, weights: Any = None,
              deterministic: bool = False, max_abs_weight: float = 0.0, out: Any = None,
              stream: Any = None, counts_dtype: Any = None) -> Any:
    """Histogram of x: ``bins`` equal bins over ``range=(lo, hi)``, or between given edges.

    - ``histogram(x, bins, range=(lo, hi))``: even bins over [lo, hi). Integer samples are
      binned exactly (bin = (s - lo) * bins // (hi - lo); lo and hi must be integers, of the
      samples' type for int64 and uint64, any such range exact); float32, float16 and
      bfloat16 as the GPU computes them, bin = (s - lo) * (bins / (hi - lo)) in float, float64
      the same in double (see docs/python.md); NaN and infinities of float16, bfloat16 and
      float64 are never counted. Samples outside [lo, hi), and NaN, are not counted. The range is
      required: histtune never reads the data's minimum and maximum.
    - ``histogram(x, edges)``: range binning, bin i counts edges[i] <= s < edges[i + 1];
      ``edges`` is a CUDA array of x's dtype, strictly ascending (not checked: that would
      synchronise), bins + 1 long.

    Returns the counts only (uint32, x's framework and device, or ``out``), not NumPy's
    (counts, edges): the edges of even bins are ``linspace(lo, hi, bins + 1)`` and those of
    range binning the caller's own. Samples: uint8, uint16, uint32, int32, float32, int8,
    int16, float16, bfloat16 (torch), int64, uint64, float64, any shape, contiguous. Runs on the caller's current stream (or ``stream``), without synchronising.

    64-bit counts: ``counts_dtype="uint64"`` (or ``"int64"``, or a framework's dtype:
    ``torch.int64``, ``numpy.uint64``) returns counts of that dtype, and so does an ``out`` of
    that dtype; then x may hold more than 2^32 - 1 samples (uint32 counts refuse that). The
    same bins, through the C++ calls with ``uint64_t*`` counts. Not for JAX arrays.

    ``weights=w`` (an array of x's size, float32, float64, int32 or int64, on x's device): each
    sample adds its weight instead of 1 (NumPy's weights=), into float32, float64 or int64 bins
    (int32 and int64 weights). Float sums are added in whatever order the GPU's atomics land,
    so their last bits may vary between runs; ``deterministic=True`` (float weights) gives the
    same bits every time (64-bit fixed point scaled for ``max_abs_weight``, a bound on |w| the
    caller guarantees, or 0 to measure it with one more pass over the weights). A NaN weight
    makes its bin NaN (deterministic: an infinite one, or one beyond max_abs_weight, too).

    >>> x = torch.rand(1 << 24, device="cuda")
    >>> counts = histtune.histogram(x, 256, range=(0.0, 1.0))
    >>> edges = torch.tensor([0.0, 0.1, 0.5, 1.0], device="cuda")
    >>> counts = histtune.histogram(x, edges)     # 3 bins
    >>> big = histtune.histogram(x, 256, range=(0.0, 1.0), counts_dtype=torch.int64)
    >>> sums = histtune.histogram(x, 256, range=(0.0, 1.0), weights=torch.rand_like(x))
    """
    if weights is not None:
        if counts_dtype is not None:
            raise ValueError("histtune.histogram: counts_dtype= counts; weights= sums into bins of "
                             "the weights' type")
        _not_compiled(x, "histogram")
        return _weighted.call(x, bins, range, weights, deterministic, max_abs_weight, out, stream)
    if deterministic or max_abs_weight:
        raise ValueError("histtune.histogram: deterministic= and max_abs_weight= go with weights=")
    if counts_dtype is not None and _torch_compiling(x):
        raise ValueError("histtune: counts_dtype= is not supported under torch.compile")
    if type(x) is _Tensor and type(bins) is int and counts_dtype is None and not _is_compiling():
        code, device = _codes["histogram"].get(x.dtype), x.get_device()
        if code is not None and device >= 0 and x.is_contiguous():
            nbins = bins if 0 < bins <= MAX_BINS else positive_count(bins, "bins")
            lo, hi = even_bounds(range, TYPE_NAMES[code])
            s = _raw_stream(device) if stream is None else _arrays.stream_handle(stream)
            made = _torch_out(out, (nbins,), device)
            if made is not None:
                _even(code, x.data_ptr(), x.numel(), nbins, lo, hi, made[1], s, device)
                return made[0]
    if _torch_compiling(x):
        if is_bin_count(bins):  # the bounds as floats: integer ones are checked at run time
            return _compiled("histogram_even", out, stream, x, int(bins),
                             *even_bounds(range, "float32"))
        return _compiled("histogram_range", out, stream, x, bins)
    a, code, s = read_samples(x, stream, "histogram")
    require_contiguous(a, "x")
    if is_bin_count(bins):
        nbins = positive_count(bins, "bins")
        lo, hi = even_bounds(range, a.dtype)
        result, counts, wide = counts_output(a, out, (nbins,), counts_dtype)
        _even(code, a.ptr, a.size, nbins, lo, hi, counts, s, a.device, wide)
        return finish(a, result, s)
    if range is not None:
        raise ValueError("histtune.histogram: give either bin edges or a bin count with "
                         "range=(lo, hi), not both")
    e = read_edges(bins, a, s)
    result, counts, wide = counts_output(a, out, (e.size - 1,), counts_dtype)
    _core.range(code, a.ptr, a.size, e.size - 1, e.ptr, counts, s, a.device, **wide_keyword(wide))
    return finish(a, result, s)


def _even(code, ptr, size, nbins, lo, hi, counts, stream, device, wide=False) -> None:
    w = wide_keyword(wide)
    if code == FLOAT32:
        _core.even_f32(ptr, size, nbins, lo, hi, counts, stream, device, **w)
    elif code in FLOAT_CODES:  # float16, bfloat16 (float bounds) and float64 (double)
        _core.even_float(code, ptr, size, nbins, lo, hi, counts, stream, device, **w)
    elif code == UINT64:  # bounds up to 2^64 - 1
        _core.even_u64(ptr, size, nbins, lo, hi, counts, stream, device, **w)
    else:
        _core.even_int(code, ptr, size, nbins, lo, hi, counts, stream, device, **w)


def _image(shape: tuple, strides: tuple, code: int) -> Tuple[int, int, int, int]:
    """(row_pixels, num_rows, row_pitch_bytes, channels) of [rows, C] or [H, W, C] samples
    (strides in elements, code: the sample type).

    [rows, C] is one image row of `rows` pixels, or, with rows apart by more than C samples,
    `rows` image rows of one pixel; [H, W, C] is H image rows of W pixels."""
    if len(shape) == 2:
        (h, c), (s_h, s_c) = shape, strides
        w, s_w = 1, c
    elif len(shape) == 3:
        (h, w, c), (s_h, s_w, s_c) = shape, strides
    else:
        raise ValueError(f"histtune.histogram_channels: x must be [rows, channels] or "
                         f"[height, width, channels], got shape {tuple(shape)}")
    if (s_c != 1 and c > 1) or (s_w != c and w > 1) or (s_h < w * c and h > 1):
        raise ValueError(f"histtune.histogram_channels: the channels of a pixel and the pixels "
                         f"of a row must be contiguous and rows must not overlap, got strides "
                         f"{tuple(strides)} (in elements) for shape {tuple(shape)}: pass "
                         "x.contiguous()")
    if h <= 1 or s_h == w * c:
        return w * h, 1, 0, c
    return w, h, s_h * SAMPLE_BYTES[code], c


def _channel_bins(bins: Any, range: Any, channels: Optional[int], c: int, dtype: str):
    """(active channels, bins, binning, lo, hi) of a call with a bin count."""
    active = c if channels is None else positive_count(channels, "channels")
    if active > c:
        raise ValueError(f"histtune.histogram_channels: channels={active} but x has {c}")
    nbins = bins if type(bins) is int and 0 < bins <= MAX_BINS else positive_count(bins, "bins")
    if range is None:
        direct_needs_integers(dtype)
        return active, nbins, DIRECT, 0, 0
    return (active, nbins, EVEN) + even_bounds(range, dtype)


def histogram_channels(x: Any, bins: Any, range: Any = None, *, channels: Optional[int] = None,
                       weights: Any = None, deterministic: bool = False,
                       max_abs_weight: float = 0.0, out: Any = None, stream: Any = None,
                       counts_dtype: Any = None) -> Any:
    """One histogram per channel of [rows, C] samples (images: [height, width, C]).

    The first ``channels`` channels (default: all C) are counted, each into its own
    histogram: the result has shape (channels, bins). Binning per channel:
    ``range=(lo, hi)`` even bins (as ``histogram``); ``bins`` an edges array: range binning;
    ``range=None`` with a bin count: value v counts in bin v (integer samples, as
    ``bincount``). Samples of every dtype ``histogram`` takes, with its rules (NaN and
    infinities of the float types are never counted). Images may have padded rows (a row
    stride above width x C, e.g. a crop ``img[:, :w]``): the padding is never read. Returns
    uint32 counts in x's framework (or ``out``), on the caller's current stream (or
    ``stream``). 64-bit counts (more than 2^32 - 1 rows): ``counts_dtype`` or ``out`` as in
    ``histogram``.

    ``weights=w``: one weight per PIXEL (w of shape x.shape[:-1], e.g. [height, width]), as
    NumPy's ``histogram(img[..., c], weights=w)`` for each channel c: pixel i adds w[i] to the
    bin of each of its channels' samples. Sums, modes and NaN rules as ``histogram``'s
    ``weights=`` (``deterministic=``, ``max_abs_weight=``); the result (channels, bins) is of the
    weights' bin type. Weighted images must be packed (no row padding: pass x.contiguous()).

    >>> img = torch.randint(0, 256, (4608, 8192, 4), dtype=torch.uint8, device="cuda")
    >>> rgb = histtune.histogram_channels(img, 256, channels=3)     # (3, 256), RGB of RGBA
    >>> cols = histtune.histogram_channels(data, 256, range=(0, 256))  # data: [rows, 512]
    >>> sums = histtune.histogram_channels(img, 256, channels=3, weights=mask)  # mask: [H, W]
    """
    if weights is not None:
        _not_compiled(x, "histogram_channels")
        _no_counts_dtype(counts_dtype, "histogram_channels")
        return _weighted_channels(x, bins, range, channels, weights, deterministic,
                                  max_abs_weight, out, stream)
    _unweighted(deterministic, max_abs_weight, "histogram_channels")
    if counts_dtype is not None and _torch_compiling(x):
        raise ValueError("histtune: counts_dtype= is not supported under torch.compile")
    if type(x) is _Tensor and type(bins) is int and counts_dtype is None and not _is_compiling():
        code, device = _codes["histogram_channels"].get(x.dtype), x.get_device()
        if code is not None and device >= 0:
            row_pixels, num_rows, pitch, c = _image(x.shape, x.stride(), code)
            active, nbins, binning, lo, hi = _channel_bins(bins, range, channels, c,
                                                           TYPE_NAMES[code])
            s = _raw_stream(device) if stream is None else _arrays.stream_handle(stream)
            made = _torch_out(out, (active, nbins), device)
            if made is not None:
                _core.channels(code, binning, x.data_ptr(), row_pixels, num_rows, pitch, c,
                               active, nbins, lo, hi, 0, made[1], s, device)
                return made[0]
    if _torch_compiling(x):
        return _compiled_channels(x, bins, range, channels, out, stream)
    a, code, s = read_samples(x, stream, "histogram_channels")
    row_pixels, num_rows, pitch, c = _image(a.shape, a.strides, code)
    levels = 0
    if is_bin_count(bins):
        active, nbins, binning, lo, hi = _channel_bins(bins, range, channels, c, a.dtype)
    else:
        active = c if channels is None else positive_count(channels, "channels")
        if active > c:
            raise ValueError(f"histtune.histogram_channels: channels={active} but x has {c}")
        if range is not None:
            raise ValueError("histtune.histogram_channels: give either bin edges or a bin "
                             "count, not both")
        e = read_edges(bins, a, s)
        nbins, binning, levels, lo, hi = e.size - 1, RANGE, e.ptr, 0, 0
    result, counts, wide = counts_output(a, out, (active, nbins), counts_dtype)
    _core.channels(code, binning, a.ptr, row_pixels, num_rows, pitch, c, active, nbins, lo, hi,
                   levels, counts, s, a.device, **wide_keyword(wide))
    return finish(a, result, s)


def _no_counts_dtype(counts_dtype: Any, name: str) -> None:
    if counts_dtype is not None:
        raise ValueError(f"histtune.{name}: counts_dtype= counts; weights= sums into bins of "
                         "the weights' type")


def _unweighted(deterministic: Any, max_abs_weight: Any, name: str) -> None:
    if deterministic is not False or max_abs_weight != 0.0:
        raise ValueError(f"histtune.{name}: deterministic= and max_abs_weight= go with weights=")


def _weighted_channels(x, bins, range, channels, weights, deterministic, max_abs_weight, out,
                       stream):
    """histogram_channels(..., weights=): one weight a pixel, packed pixels."""
    a, code, s = read_samples(x, stream, "histogram_channels")
    row_pixels, num_rows, pitch, c = _image(a.shape, a.strides, code)
    if pitch != 0:
        raise ValueError("histtune.histogram_channels: weighted images must be packed (rows "
                         "without padding): pass x.contiguous()")
    pixels = row_pixels * num_rows
    wc = _weighted.read_weights(weights, a, s, pixels, "histogram_channels",
                                f"x has {pixels} pixels: one weight per pixel, shape "
                                f"{tuple(a.shape[:-1])}")
    require_contiguous(wc[0], "weights")
    if is_bin_count(bins):
        active, nbins, binning, lo, hi = _channel_bins(bins, range, channels, c, a.dtype)
        binned = (nbins, binning, lo, hi, 0)
    else:
        active = c if channels is None else positive_count(channels, "channels")
        if active > c:
            raise ValueError(f"histtune.histogram_channels: channels={active} but x has {c}")
        nbins, binning, (lo, hi), levels = _row_bins(bins, range, a, s)
        binned = (nbins, binning, lo, hi, levels)
    return _weighted.shaped("histogram_channels", a, code, s, wc, binned, (active, binned[0]),
                            out, deterministic, max_abs_weight, pixels, channels=c,
                            active=active)


def _compiled_channels(x, bins, range, channels, out, stream):
    if is_bin_count(bins):
        lo, hi = (None, None) if range is None else even_bounds(range, "float32")
        return _compiled("histogram_channels", out, stream, x, int(bins), lo, hi, None, channels)
    return _compiled("histogram_channels", out, stream, x, 0, None, None, bins, channels)


def _row_bins(bins: Any, range: Any, a: Array, s: int):
    """(bins, binning, bounds, levels) of a call of rows: a bin count with range=(lo, hi) is
    even binning, without it value v counts in bin v; an edges array is range binning."""
    if not is_bin_count(bins):
        if range is not None:
            raise ValueError("histtune: give either bin edges or a bin count with range=(lo, hi), "
                             "not both")
        e = read_edges(bins, a, s)
        return e.size - 1, RANGE, (0, 0), e.ptr
    nbins = positive_count(bins, "bins")
    if range is None:
        direct_needs_integers(a.dtype)
        return nbins, DIRECT, (0, 0), 0
    return nbins, EVEN, even_bounds(range, a.dtype), 0


def histogram_rows(x: Any, bins: Any, range: Any = None, *, weights: Any = None,
                   deterministic: bool = False, max_abs_weight: float = 0.0, out: Any = None,
                   stream: Any = None, counts_dtype: Any = None) -> Any:
    """One histogram per row of a [B, N] array: the result has shape (B, bins).

    Binning per row as ``histogram_channels``: ``range=(lo, hi)`` even bins (as ``histogram``);
    ``bins`` an edges array: range binning; ``range=None`` with a bin count: value v counts in
    bin v (integer samples, as ``bincount``). The rows may be a strided view (``x[:, :n]`` of a
    wider array): each row's elements must be contiguous, the rows at least N apart; what lies
    between rows is never read. Samples of every dtype ``histogram`` takes, with its rules.
    Returns uint32 counts in x's framework on x's device (or ``out``), on the caller's current
    stream (or ``stream``), without synchronising. 64-bit counts (rows of more than 2^32 - 1
    samples): ``counts_dtype`` or ``out`` as in ``histogram``.

    >>> x = torch.randint(0, 256, (4096, 65536), dtype=torch.uint8, device="cuda")
    >>> h = histtune.histogram_rows(x, 256)                    # (4096, 256)
    ``weights=w`` ([B, N] as x, with x's strides): each sample adds its weight, as
    ``histogram``'s ``weights=`` (modes, NaN rules, ``deterministic=``, ``max_abs_weight=``);
    the result (B, bins) is of the weights' bin type.

    >>> a = torch.randn(65536, 1024, device="cuda")
    >>> h = histtune.histogram_rows(a, 64, range=(-4.0, 4.0))  # (65536, 64)
    >>> g = histtune.histogram_rows(a, 64, range=(-4.0, 4.0), weights=grad)  # grad: [65536, 1024]
    """
    if weights is not None:
        _not_compiled(x, "histogram_rows")
        _no_counts_dtype(counts_dtype, "histogram_rows")
    else:
        _unweighted(deterministic, max_abs_weight, "histogram_rows")
    a, code, s = read_samples(x, stream, "histogram_rows")
    if len(a.shape) != 2:
        raise ValueError(f"histtune.histogram_rows: x must be [rows, n], got shape "
                         f"{tuple(a.shape)}")
    (rows, n), (s_row, s_col) = a.shape, a.strides
    if (s_col != 1 and n > 1) or (rows > 1 and s_row < n):
        raise ValueError(f"histtune.histogram_rows: each row's elements must be contiguous and "
                         f"rows must not overlap, got strides {tuple(a.strides)} (in elements) "
                         f"for shape {tuple(a.shape)}: pass x.contiguous()")
    nbins, binning, (lo, hi), levels = _row_bins(bins, range, a, s)
    stride = s_row if rows > 1 else 0
    if weights is not None:
        wc = _weighted.read_weights(weights, a, s, a.size, "histogram_rows",
                                    f"x has {a.size}: one weight per sample")
        w_row, w_col = wc[0].strides if len(wc[0].shape) == 2 else (0, 0)
        if tuple(wc[0].shape) != tuple(a.shape) or (n > 1 and w_col != 1) or (
                rows > 1 and w_row != s_row):
            raise ValueError(f"histtune.histogram_rows: weights must be laid out as x (shape "
                             f"{tuple(a.shape)}, strides {tuple(a.strides)} in elements), got "
                             f"shape {tuple(wc[0].shape)}, strides {tuple(wc[0].strides)}")
        return _weighted.shaped("histogram_rows", a, code, s, wc, (nbins, binning, lo, hi, levels),
                                (rows, nbins), out, deterministic, max_abs_weight, n, rows=rows,
                                row_stride=stride)
    result, counts, wide = counts_output(a, out, (rows, nbins), counts_dtype)
    _core.rows(code, binning, a.ptr, rows, n, s_row if rows > 1 else 0, nbins, lo, hi, levels,
               counts, s, a.device, **wide_keyword(wide))
    return finish(a, result, s)


def histogram_segments(x: Any, offsets: Any, bins: Any, range: Any = None, *,
                       weights: Any = None, deterministic: bool = False,
                       max_abs_weight: float = 0.0, out: Any = None, stream: Any = None,
                       counts_dtype: Any = None) -> Any:
    """One histogram per segment of x: segment r holds x[offsets[r]:offsets[r + 1]].

    ``offsets`` is a CUDA int64 array of B + 1 offsets (CSR offsets, as torch's and CUB's
    segmented calls take them); the result has shape (B, bins). Binning as ``histogram_rows``.
    The offsets are not checked (that would synchronise): on the GPU each is clamped to
    [0, x.numel()] and a segment whose end comes before its begin is empty. x: any shape,
    contiguous, read as one run of samples. 64-bit counts (more than 2^32 - 1 samples):
    ``counts_dtype`` or ``out`` as in ``histogram``.

    >>> lengths = torch.randint(0, 2048, (100000,), device="cuda")
    >>> offsets = torch.cat([lengths.new_zeros(1), lengths.cumsum(0)])
    ``weights=w`` (x's size, contiguous): each sample adds its weight, as ``histogram``'s
    ``weights=``; the result (B, bins) is of the weights' bin type.

    >>> h = histtune.histogram_segments(values, offsets, 256)  # (100000, 256)
    """
    if weights is not None:
        _not_compiled(x, "histogram_segments")
        _no_counts_dtype(counts_dtype, "histogram_segments")
    else:
        _unweighted(deterministic, max_abs_weight, "histogram_segments")
    a, code, s = read_samples(x, stream, "histogram_segments")
    require_contiguous(a, "x")
    o = _arrays.read(offsets, "offsets", s)
    if o.dtype != "int64":
        raise TypeError(f"histtune.histogram_segments: offsets must be int64, got {o.dtype}")
    if len(o.shape) != 1 or o.size < 1:
        raise ValueError(f"histtune.histogram_segments: offsets must be one-dimensional with "
                         f"B + 1 values, got shape {tuple(o.shape)}")
    require_contiguous(o, "offsets")
    if -1 not in (o.device, a.device) and o.device != a.device:
        raise ValueError(f"histtune: offsets are on GPU {o.device}, the samples on GPU {a.device}")
    segments = o.size - 1
    nbins, binning, (lo, hi), levels = _row_bins(bins, range, a, s)
    if weights is not None:
        wc = _weighted.read_weights(weights, a, s, a.size, "histogram_segments",
                                    f"x has {a.size}: one weight per sample")
        require_contiguous(wc[0], "weights")
        return _weighted.shaped("histogram_segments", a, code, s, wc,
                                (nbins, binning, lo, hi, levels), (segments, nbins), out,
                                deterministic, max_abs_weight, a.size, rows=segments,
                                offsets=o.ptr, segments=True)
    result, counts, wide = counts_output(a, out, (segments, nbins), counts_dtype)
    _core.segments(code, binning, a.ptr, a.size, segments, o.ptr, nbins, lo, hi, levels, counts,
                   s, a.device, **wide_keyword(wide))
    return finish(a, result, s)


_arrays.on_torch(use_torch)
