"""CuPy, JAX and Numba arrays in and out, on their streams, exact against the NumPy references."""

import numpy as np
import pytest

import histtune
import reference as ref
from conftest import framework

N = 65_537


def test_cupy_in_cupy_out():
    cp = framework("cupy")
    x = ref.samples("uint16", N)
    h = histtune.bincount(cp.asarray(x), 1000)
    assert isinstance(h, cp.ndarray) and h.dtype == cp.uint32
    np.testing.assert_array_equal(cp.asnumpy(h), ref.direct(x, 1000))


def test_cupy_on_a_non_default_stream():
    cp = framework("cupy")
    x = ref.samples("float32", 1 << 20)
    with cp.cuda.Stream(non_blocking=True) as s:
        xc = cp.asarray(x)
        h = histtune.histogram(xc, 128, range=(0.0, 1.0))  # on s, CuPy's current stream
        s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(h), ref.even(x, 128, 0.0, 1.0))


def test_cupy_graph_capture():
    cp = framework("cupy")
    x = cp.asarray(ref.samples("uint8", N, seed=4))
    out = cp.empty(256, dtype=cp.uint32)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        histtune.bincount(x, 256, out=out)  # warm-up
        s.begin_capture()
        histtune.bincount(x, 256, out=out)
        g = s.end_capture()
        fresh = ref.samples("uint8", N, seed=5)
        x.set(fresh)
        g.launch()
        s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(out), ref.direct(fresh, 256))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32"])
def test_jax_in_jax_out(dtype):
    jnp = framework("jax.numpy")
    x = ref.samples(dtype, N, hi=None if dtype == "float32" else 200)
    xj = jnp.asarray(x)
    if dtype == "float32":
        h, want = histtune.histogram(xj, 50, range=(0.0, 1.0)), ref.even(x, 50, 0.0, 1.0)
    else:
        h, want = histtune.bincount(xj, 256), ref.direct(x, 256)
    assert type(h).__module__.startswith("jax") and h.dtype == jnp.uint32
    np.testing.assert_array_equal(np.asarray(h), want)
    np.testing.assert_array_equal(np.asarray(h + 0), want)  # JAX reads it on its own stream


def test_jax_channels_and_out_refused():
    jnp = framework("jax.numpy")
    x = ref.samples("uint8", 4096 * 4).reshape(4096, 4)
    h = histtune.histogram_channels(jnp.asarray(x), 256)
    assert h.shape == (4, 256)
    np.testing.assert_array_equal(np.asarray(h)[2], ref.direct(x[:, 2], 256))
    with pytest.raises(TypeError, match="immutable"):
        histtune.bincount(jnp.asarray(x), 8, out=h)


def test_numba_in_numba_out():
    cuda = framework("numba.cuda")
    x = ref.samples("uint32", N, hi=5000)
    h = histtune.bincount(cuda.to_device(x), 4096)
    np.testing.assert_array_equal(h.copy_to_host(), ref.direct(x, 4096))


def test_cupy_rows_and_segments():
    cp = framework("cupy")
    x = ref.samples("uint8", 37 * 1000, seed=6).reshape(37, 1000)
    h = histtune.histogram_rows(cp.asarray(x)[:, :999], 256)  # a strided view: rows 1000 apart
    want = np.stack([ref.direct(row[:999], 256) for row in x])
    np.testing.assert_array_equal(cp.asnumpy(h), want)
    f = ref.samples("float32", 64 * 33, seed=7).reshape(64, 33)
    h = histtune.histogram_rows(cp.asarray(f), 16, range=(0.0, 1.0))
    np.testing.assert_array_equal(cp.asnumpy(h), np.stack([ref.even(r, 16, 0.0, 1.0) for r in f]))
    v = ref.samples("uint32", 5000, hi=300, seed=8)
    offsets = np.array([0, 0, 17, 17, 2500, 4999, 5000], dtype=np.int64)  # empty segments too
    h = histtune.histogram_segments(cp.asarray(v), cp.asarray(offsets), 300)
    want = np.stack([ref.direct(v[a:b], 300) for a, b in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_array_equal(cp.asnumpy(h), want)
    assert histtune.last_choice().family == "segmented"
    assert histtune.last_choice().config.startswith("seg.")


@pytest.mark.parametrize("wdtype", ["float32", "float64", "int64"])
def test_cupy_weighted_against_numpy(wdtype):
    """weights= (issue 26): integer-valued weights, so float sums are exact in any order, and
    the deterministic mode's bits are the same with the bound measured or given."""
    cp = framework("cupy")
    x = ref.samples("float32", N, seed=6)
    w = (np.arange(N) % 9 - 4).astype(wdtype)
    want = ref.even(x, 64, 0.0, 1.0, weights=w)
    h = histtune.histogram(cp.asarray(x), 64, range=(0.0, 1.0), weights=cp.asarray(w))
    assert h.dtype == np.dtype(wdtype)  # int64 weights: int64 bins, the floats their own
    np.testing.assert_array_equal(cp.asnumpy(h).astype(np.float64), want)
    if wdtype == "int64":
        return
    measured = histtune.histogram(cp.asarray(x), 64, range=(0.0, 1.0), weights=cp.asarray(w),
                                  deterministic=True)
    given = histtune.histogram(cp.asarray(x), 64, range=(0.0, 1.0), weights=cp.asarray(w),
                               deterministic=True, max_abs_weight=4.0)
    np.testing.assert_array_equal(cp.asnumpy(measured), cp.asnumpy(given))
    np.testing.assert_array_equal(cp.asnumpy(measured).astype(np.float64), want)


@pytest.mark.parametrize("deterministic", [False, True])
def test_cupy_weighted_rows_segments_and_channels_against_numpy(deterministic):
    """Weighted rows (a strided view), segments and pixels of channels (one weight a pixel):
    integer-valued weights, exact in every mode, against NumPy's weighted histogram per row,
    segment and channel."""
    cp = framework("cupy")
    rng = np.random.default_rng(8)
    wide = rng.integers(0, 300, (37, 1100)).astype(np.uint16)
    wwide = (rng.integers(-4, 5, (37, 1100))).astype(np.float32)
    x, w = wide[:, :1000], wwide[:, :1000]
    h = histtune.histogram_rows(cp.asarray(wide)[:, :1000], 300,
                                weights=cp.asarray(wwide)[:, :1000], deterministic=deterministic)
    want = np.stack([np.bincount(r, weights=q, minlength=300) for r, q in zip(x, w)])
    np.testing.assert_array_equal(cp.asnumpy(h).astype(np.float64), want)
    assert histtune.last_choice().family == ("weighted_det" if deterministic else "weighted")
    v = rng.standard_normal(100003).astype(np.float32)
    wv = rng.integers(-4, 5, 100003).astype(np.float64)
    offsets = np.sort(rng.integers(0, 100004, 51)).astype(np.int64)
    offsets[0], offsets[-1] = 0, 100003
    h = histtune.histogram_segments(cp.asarray(v), cp.asarray(offsets), 64, range=(-4.0, 4.0),
                                    weights=cp.asarray(wv), deterministic=deterministic)
    want = np.stack([ref.even(v[a:b], 64, -4.0, 4.0, weights=wv[a:b])
                     for a, b in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_array_equal(cp.asnumpy(h), want)
    img = rng.integers(0, 256, (120, 160, 4)).astype(np.uint8)
    wp = rng.integers(-4, 5, (120, 160)).astype(np.float32)
    h = histtune.histogram_channels(cp.asarray(img), 256, channels=3, weights=cp.asarray(wp),
                                    deterministic=deterministic)
    want = np.stack([np.bincount(img[..., c].ravel(), weights=wp.ravel(), minlength=256)
                     for c in range(3)])
    np.testing.assert_array_equal(cp.asnumpy(h).astype(np.float64), want)
