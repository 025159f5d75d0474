"""python -m histtune.bench: histtune against torch and CuPy, in one process, on the same inputs.

Prints issues 24, 25, 26 and 27's rows with each column measured here: medians of CUDA-event
timings of 5 calls back to back (100 for the launch-bound row, 2^16 samples) after a warm-up,
inputs larger than the L2 cache except that row, every histtune result checked exactly (against torch.bincount
for integers, against the float rule bin = (s - lo) * (bins / (hi - lo)) computed in float32 by
torch for floats; the joint rows against cupy.histogramdd too, their peer, as torch has no CUDA
histogramdd). Then the host time one call adds: a warm call from Python against the same
call made from C++ (histtune._core.warm_call_us), medians of many calls.

Needs torch; CuPy's columns read "-" without it. The configurations come from the tuning
database as for any call ($HISTTUNE_DB); each row names the lookup level that answered.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import histtune
from histtune import _core


def _median_ms(torch, fn, samples: int, calls: int = 5, warmup: int = 3) -> float:
    """Median over `samples` of the event time of `calls` back-to-back calls, per call. Several
    calls a sample, so that each call's host time (Python, the launch) overlaps the GPU work of
    the one before: the GPU's time per call, as `histtune bench` times it in C++."""
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(samples):
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def _cupy():
    try:
        import cupy

        return cupy
    except ImportError:
        return None


def _float_bins(torch, x, bins: int, lo: float, hi: float):
    """(bin, inside) of each sample by histtune's float even rule, in float32 as torch computes it
    (no fused multiply-add): what a torch user writes to bin floats before scatter_add_."""
    f32 = lambda v: torch.tensor(v, dtype=torch.float32, device=x.device)  # noqa: E731
    scale = f32(bins) / (f32(hi) - f32(lo))  # as the kernel: a float division of floats
    inside = (x >= lo) & (x < hi)
    return ((x - f32(lo)) * scale).to(torch.int64).clamp(0, bins - 1), inside


def _float_rule(torch, x, bins: int, lo: float, hi: float):
    b, inside = _float_bins(torch, x, bins, lo, hi)
    return torch.bincount(b[inside], minlength=bins)


def _check(name: str, got, want) -> str:
    if not bool((got.to(want.dtype) == want).all()):
        raise SystemExit(f"histtune.bench: {name}: histtune's counts differ from the reference")
    return "exact"


def _row_u8(torch, cp, n: int, samples: int, calls: int = 5):
    x = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
    xf = x.float()
    h = histtune.bincount(x, 256)
    check = _check("u8", h, torch.bincount(x, minlength=256))
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples, calls)  # noqa: E731
    cols = {"histtune": t(lambda: histtune.bincount(x, 256)),
            "torch.bincount": t(lambda: torch.bincount(x, minlength=256)),
            "torch.histc (float copy)": t(lambda: torch.histc(xf, 256, 0, 256))}
    if cp is not None:
        xc = cp.asarray(x)
        cols["cupy.bincount"] = t(lambda: cp.bincount(xc, minlength=256))
    return cols, level, check


def _row_f32(torch, cp, n: int, samples: int):
    x = torch.rand(n, device="cuda")
    h = histtune.histogram(x, 256, range=(0.0, 1.0))
    check = _check("f32", h, _float_rule(torch, x, 256, 0.0, 1.0))
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    cols = {"histtune": t(lambda: histtune.histogram(x, 256, range=(0.0, 1.0))),
            "torch.histc": t(lambda: torch.histc(x, 256, 0.0, 1.0))}
    if cp is not None:
        xc = cp.asarray(x)
        cols["cupy.histogram"] = t(lambda: cp.histogram(xc, 256, range=(0.0, 1.0)))
    return cols, level, check


def _row_large_bins(torch, n: int, bins: int, samples: int):
    """f32 even bins beyond shared memory (issue 27: >= 3x torch.histc)."""
    x = torch.rand(n, device="cuda") * 100  # the bounds of histtune bench's row
    h = histtune.histogram(x, bins, range=(0.0, 100.0))
    check = _check("f32 large bins", h, _float_rule(torch, x, bins, 0.0, 100.0))
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    return ({"histtune": t(lambda: histtune.histogram(x, bins, range=(0.0, 100.0))),
             "torch.histc": t(lambda: torch.histc(x, bins, 0.0, 100.0))}, level, check)


def _row_i64(torch, cp, n: int, samples: int):
    """int64 ids (what torch holds token ids in) against torch.bincount."""
    x = torch.randint(0, 256, (n,), dtype=torch.int64, device="cuda")
    h = histtune.bincount(x, 256)
    check = _check("i64", h, torch.bincount(x, minlength=256))
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    cols = {"histtune": t(lambda: histtune.bincount(x, 256)),
            "torch.bincount": t(lambda: torch.bincount(x, minlength=256))}
    if cp is not None:
        xc = cp.asarray(x)
        cols["cupy.bincount"] = t(lambda: cp.bincount(xc, minlength=256))
    return cols, level, check


def _rows_peers(torch, x, bins: int, to_bins):
    """torch's two workarounds for a histogram per row: scatter_add_ of ones into [B, bins]
    (the one PyTorch's issues suggest) and one bincount of bins offset by row."""
    rows = x.shape[0]
    offsets = torch.arange(rows, device="cuda", dtype=torch.int64).unsqueeze(1) * bins

    def scatter_add():
        b, w = to_bins(x)
        return torch.zeros(rows, bins, dtype=torch.int64, device="cuda").scatter_add_(1, b, w)

    def offset_bincount():
        b, w = to_bins(x)
        flat = (b + offsets).flatten()
        return torch.bincount(flat, weights=None if w is None else w.flatten(),
                              minlength=rows * bins).view(rows, bins)
    return scatter_add, offset_bincount


def _row_batched(torch, rows: int, n: int, samples: int, floats: bool):
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    if floats:
        bins, lo, hi = 64, -4.0, 4.0
        x = torch.randn(rows, n, device="cuda")

        def to_bins(v):
            b, inside = _float_bins(torch, v, bins, lo, hi)
            return b, inside.to(torch.int64)
        run = lambda: histtune.histogram_rows(x, bins, range=(lo, hi))  # noqa: E731
    else:
        bins = 256
        x = torch.randint(0, 256, (rows, n), dtype=torch.uint8, device="cuda")

        def to_bins(v):
            b = v.to(torch.int64)
            return b, torch.ones_like(b)
        run = lambda: histtune.histogram_rows(x, bins)  # noqa: E731
    scatter_add, offset_bincount = _rows_peers(torch, x, bins, to_bins)
    check = _check("rows", run(), scatter_add())
    level = histtune.last_choice().level
    return ({"histtune": t(run), "torch scatter_add_": t(scatter_add),
             "torch offset bincount": t(offset_bincount)}, level, check)


def _row_weighted(torch, n: int, samples: int, deterministic: bool):
    """Weighted sums (issue 26): f32 samples and f32 weights into 256 even bins over [0, 100)
    against torch.bincount(weights=) of the bins torch computes by the same rule. Checked against
    the sums in float64 (relative 1e-4 of the bin's sum); deterministic: two calls bit-equal."""
    x = torch.rand(n, device="cuda") * 100
    w = torch.rand(n, device="cuda")

    def torch_sums():
        b, inside = _float_bins(torch, x, 256, 0.0, 100.0)
        return torch.bincount(b, weights=w * inside, minlength=256)

    kw = {"deterministic": True, "max_abs_weight": 1.0} if deterministic else {}
    run = lambda: histtune.histogram(x, 256, range=(0.0, 100.0), weights=w, **kw)  # noqa: E731
    b, inside = _float_bins(torch, x, 256, 0.0, 100.0)
    want = torch.bincount(b, weights=w.double() * inside, minlength=256)
    got = run()
    if not bool(torch.allclose(got.double(), want, rtol=1e-4, atol=0)):
        raise SystemExit("histtune.bench: weighted sums differ from the float64 reference")
    check = "within 1e-4"
    if deterministic:
        if not bool((run() == got).all()):
            raise SystemExit("histtune.bench: deterministic sums differ between two calls")
        check += ", bit-equal twice"
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    return ({"histtune": t(run), "torch.bincount(weights=)": t(torch_sums)}, level, check)


def _row_joint(torch, cp, n: int, dims: int, bins: int, u8: bool, samples: int):
    """Joint histograms (issue 26): n tuples of `dims` values, interleaved [n, dims], into bins^dims
    bins against cupy.histogramdd of the same array (torch has no CUDA histogramdd). u8 values
    over [0, 256), or float32 values at bin centres over [0, 1) (so that NumPy's edges and the
    kernel's float rule agree): checked exactly against torch's count by histtune's rule, and
    against cupy.histogramdd."""
    if u8:
        x = torch.randint(0, 256, (n, dims), dtype=torch.uint8, device="cuda")
        lo, hi = 0, 256
    else:
        x = (torch.randint(0, bins, (n, dims), device="cuda").float() + 0.5) / bins
        lo, hi = 0.0, 1.0
    rng = [(lo, hi)] * dims
    run = lambda: histtune.histogramdd(x, bins, range=rng)  # noqa: E731
    got = run()
    index = torch.zeros(n, dtype=torch.int64, device="cuda")
    keep = torch.ones(n, dtype=torch.bool, device="cuda")
    for d in range(dims):
        b, inside = _float_bins(torch, x[:, d].float(), bins, float(lo), float(hi))
        index, keep = index * bins + b, keep & inside
    want = torch.bincount(index[keep], minlength=bins ** dims).reshape((bins,) * dims)
    check = _check("joint", got, want)
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    cols = {"histtune": t(run)}
    if cp is not None:
        xc = cp.asarray(x)
        peer = lambda: cp.histogramdd(xc, bins, range=rng)[0]  # noqa: E731
        if not bool((cp.asarray(got).astype(cp.float64) == peer()).all()):
            raise SystemExit("histtune.bench: joint counts differ from cupy.histogramdd")
        check += ", = cupy.histogramdd"
        cols["cupy.histogramdd"] = t(peer)
    return cols, level, check


def _row_columns(torch, rows: int, cols: int, samples: int):
    x = torch.randint(0, 256, (rows, cols), dtype=torch.uint8, device="cuda")
    offsets = torch.arange(cols, device="cuda", dtype=torch.int64) * 256

    def offset_bincount():
        return torch.bincount((x.to(torch.int64) + offsets).flatten(), minlength=cols * 256)

    h = histtune.histogram_channels(x, 256)
    check = _check("columns", h.flatten(), offset_bincount())
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    return ({"histtune": t(lambda: histtune.histogram_channels(x, 256)),
             "torch offset bincount": t(offset_bincount)}, level, check)


def _row_rgb(torch, height: int, width: int, samples: int):
    img = torch.randint(0, 256, (height, width, 3), dtype=torch.uint8, device="cuda")

    def three_bincounts():
        return torch.stack([torch.bincount(img[..., c].flatten(), minlength=256)
                            for c in range(3)])

    h = histtune.histogram_channels(img, 256)
    check = _check("rgb", h, three_bincounts())
    level = histtune.last_choice().level
    t = lambda f: _median_ms(torch, f, samples)  # noqa: E731
    return ({"histtune": t(lambda: histtune.histogram_channels(img, 256)),
             "torch 3 x bincount": t(three_bincounts)}, level, check)


def host_overhead(torch, calls: int = 20000, n: int = 1024) -> dict:
    """Median host microseconds of one warm call: from C++, from Python with out=, without."""
    x = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
    out = torch.empty(256, dtype=getattr(torch, "uint32", torch.int32), device="cuda")
    histtune.bincount(x, 256, out=out)
    stream = torch.cuda.current_stream().cuda_stream
    cpp = _core.warm_call_us(0, x.data_ptr(), n, 256, out.data_ptr(), stream, calls)
    torch.cuda.synchronize()

    def per_call(fn) -> float:
        us = []
        for i in range(calls):
            t0 = time.perf_counter_ns()
            fn()
            us.append((time.perf_counter_ns() - t0) / 1000)
            if i % 256 == 255:  # keep the launch queue short: a full queue blocks the host
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        return statistics.median(us)

    return {"C++ warm call": cpp,
            "Python, out=": per_call(lambda: histtune.bincount(x, 256, out=out)),
            "Python, new output": per_call(lambda: histtune.bincount(x, 256)),
            "torch.empty(256) alone": per_call(
                lambda: torch.empty(256, dtype=out.dtype, device="cuda"))}


def _format(cols: dict, level: str, check: str) -> list:
    ms = lambda v: f"{v:.3f} ms"  # noqa: E731
    ours = f"{ms(cols['histtune'])} ({level}, {check})"
    torch_cols = ", ".join(f"`{k}` {ms(v)}" for k, v in cols.items() if k.startswith("torch"))
    cupy_cols = ", ".join(f"`{k}` {ms(v)}" for k, v in cols.items() if k.startswith("cupy"))
    best_torch = min((v for k, v in cols.items() if k.startswith("torch")), default=None)
    best_cupy = min((v for k, v in cols.items() if k.startswith("cupy")), default=None)
    speedup = f"{best_torch / cols['histtune']:.1f}x" if best_torch else "-"
    if not best_torch and best_cupy:  # no torch peer (joint histograms): against CuPy's
        speedup = f"{best_cupy / cols['histtune']:.1f}x (cupy)"
    return [ours, torch_cols or "-", cupy_cols or "-", speedup]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m histtune.bench", description=__doc__.split("\n")[0])
    p.add_argument("--samples", type=int, default=21, help="timed samples per median (21)")
    p.add_argument("--calls", type=int, default=20000, help="calls per host-overhead median")
    args = p.parse_args(argv)
    try:
        _core.device_count()
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 3
    try:
        import torch
    except ImportError:
        print("histtune.bench: needs torch (pip install torch)", file=sys.stderr)
        return 2
    cp, s = _cupy(), args.samples
    rows = [("u8, 256 bins, 2^28 samples", _row_u8(torch, cp, 1 << 28, s)),
            ("f32, 256 even bins, 2^26", _row_f32(torch, cp, 1 << 26, s)),
            ("[1048576, 512] u8, a histogram per column", _row_columns(torch, 1 << 20, 512, s)),
            ("RGB 4608 x 8192, 3 channels", _row_rgb(torch, 4608, 8192, s)),
            ("u8, 256 bins, 2^16 (launch-bound; Python to GPU)",
             _row_u8(torch, cp, 1 << 16, s, calls=100)),
            ("i64, 256 bins, 2^26", _row_i64(torch, cp, 1 << 26, s)),
            ("f32, 1048576 even bins, 2^24", _row_large_bins(torch, 1 << 24, 1 << 20, s)),
            ("batched [4096, 65536] u8, 256 bins per row",
             _row_batched(torch, 4096, 65536, s, floats=False)),
            ("batched [65536, 1024] f32, 64 even bins per row",
             _row_batched(torch, 65536, 1024, s, floats=True)),
            ("weighted f32 + f32 weights, 256 even bins, 2^26",
             _row_weighted(torch, 1 << 26, s, deterministic=False)),
            ("the same, deterministic (max_abs_weight=1)",
             _row_weighted(torch, 1 << 26, s, deterministic=True)),
            ("joint f32 pairs, 64 x 64 bins, 2^26", _row_joint(torch, cp, 1 << 26, 2, 64, False, s)),
            ("joint u8 pairs, 256 x 256 bins, 2^26",
             _row_joint(torch, cp, 1 << 26, 2, 256, True, s)),
            ("joint f32 triples, 32^3 bins, 2^24", _row_joint(torch, cp, 1 << 24, 3, 32, False, s))]
    print(f"histtune {histtune.__version__}, torch {torch.__version__}"
          + (f", cupy {cp.__version__}" if cp else "") + f", {torch.cuda.get_device_name()}")
    print("\n| workload | histtune | torch | cupy | vs best torch |\n|---|---|---|---|---|")
    for name, result in rows:
        print("| " + " | ".join([name] + _format(*result)) + " |")
    print("\nHost time per warm call (u8, 1024 samples, 256 bins; medians, microseconds):")
    overhead = host_overhead(torch, args.calls)
    for k, v in overhead.items():
        print(f"  {k:26s} {v:7.2f} us")
    added = overhead["Python, out="] - overhead["C++ warm call"]
    print(f"  Python adds {added:.2f} us with out= (target <= 3), "
          f"{overhead['Python, new output'] - overhead['C++ warm call']:.2f} us with a new output")
    return 0


if __name__ == "__main__":
    sys.exit(main())
