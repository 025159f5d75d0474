"""histogram2d and histogramdd: what they pass to _core.joint without a GPU (recorded by the
`core` fixture) and what they refuse before any call; on a GPU (CuPy), the counts against
numpy.histogramdd and numpy.histogram2d on the same data."""

import numpy as np
import pytest

import histtune
from conftest import framework

U8, F32, F64 = 0, 4, 11  # histtune::SampleType
EVEN, RANGE = 1, 2


def test_histogram2d_passes_each_array_bins_and_range(fake, core):
    x = fake((1000,), "<f4", ptr=1 << 20)
    y = fake((1000,), "<f4", ptr=1 << 21)
    out = fake((64, 32), "<u4", ptr=1 << 24)
    histtune.histogram2d(x, y, [64, 32], range=[(0, 1), (-1, 1)], out=out)
    name, args = core.calls[-1]
    assert name == "joint"
    assert args[:9] == (F32, EVEN, 0, [1 << 20, 1 << 21], 1000, [64, 32], [0.0, -1.0],
                        [1.0, 1.0], [])
    assert args[9] == 1 << 24


def test_histogramdd_passes_interleaved_tuples(fake, core):
    xyz = fake((500, 3), "|u1", ptr=1 << 20)
    out = fake((16, 16, 16), "<u4", ptr=1 << 24)
    histtune.histogramdd(xyz, 16, range=[(0, 256)] * 3, out=out)
    args = core.calls[-1][1]
    assert args[:9] == (U8, EVEN, 1 << 20, [], 500, [16, 16, 16], [0.0] * 3, [256.0] * 3, [])


def test_histogramdd_takes_a_sequence_of_arrays_and_edges(fake, core):
    cols = [fake((10,), "<f8", ptr=(d + 1) << 20) for d in range(2)]
    edges = [fake((5,), "<f8", ptr=1 << 23), fake((3,), "<f8", ptr=1 << 22)]
    out = fake((4, 2), "<u4", ptr=1 << 24)
    histtune.histogramdd(cols, edges, out=out)
    args = core.calls[-1][1]
    assert args[:9] == (F64, RANGE, 0, [1 << 20, 2 << 20], 10, [4, 2], [], [], [1 << 23, 1 << 22])


@pytest.mark.parametrize("call, match", [
    (lambda f: histtune.histogramdd(f((10, 5), "<f4"), 4, range=[(0, 1)] * 5), "D in 1..4"),
    (lambda f: histtune.histogramdd(f((10, 0), "<f4"), 4, range=[]), "D in 1..4"),
    (lambda f: histtune.histogramdd(f((10, 2), "<f4"), 65536, range=[(0, 1)] * 2), "exceed 2"),
    (lambda f: histtune.histogramdd(f((10, 2), "<f4"), 4), "range=.* is required"),
    (lambda f: histtune.histogramdd(f((10, 2), "<f4"), 4, range=[(1, 0), (0, 1)]), "lo < hi"),
    (lambda f: histtune.histogramdd(f((10, 2), "<f4"), 4, range=[(0, 1)]), "1 pairs for 2"),
    (lambda f: histtune.histogramdd(f((10, 2), "<f4"), [4, 4, 4], range=[(0, 1)] * 2),
     "3 entries for 2"),
    (lambda f: histtune.histogram2d(f((10,), "<f4"), f((9,), "<f4"), 4, range=[(0, 1)] * 2),
     "one dtype and length"),
    (lambda f: histtune.histogram2d(f((10,), "<f4"), f((10,), "<f8"), 4, range=[(0, 1)] * 2),
     "one dtype and length"),
    (lambda f: histtune.histogramdd(f((10,), "<f4"), 4, range=[(0, 1)]), "must be \\[N, D\\]"),
])
def test_bad_input_is_refused_before_any_call(fake, core, call, match):
    with pytest.raises(ValueError, match=match):
        call(fake)
    assert not core.calls


def test_unsupported_dtypes_are_type_errors(fake, core):
    with pytest.raises(TypeError, match="int64 are not supported"):
        histtune.histogramdd(fake((10, 2), "<i8"), 4, range=[(0, 10)] * 2)
    with pytest.raises(TypeError, match="edges must have the samples' dtype"):
        histtune.histogramdd(fake((10, 1), "<f4"), [fake((5,), "<f8")])
    assert not core.calls


def test_histogram2d_is_exported():
    assert "histogram2d" in histtune.__all__ and "histogramdd" in histtune.__all__


# ---- on a GPU --------------------------------------------------------------------------------

N = 100_003


def test_cupy_histogram2d_against_numpy():
    """Values at bin centres (and some out of range): NumPy's float64 edges and histtune's float
    arithmetic put every one in the same bin."""
    cp = framework("cupy")
    rng = np.random.default_rng(7)
    x = ((rng.integers(-3, 67, N) + 0.5) / 64).astype(np.float32)
    y = ((rng.integers(-3, 35, N) + 0.5) / 32).astype(np.float32)
    want, _, _ = np.histogram2d(x, y, [64, 32], range=[(0, 1), (0, 1)])
    got = histtune.histogram2d(cp.asarray(x), cp.asarray(y), [64, 32], range=[(0, 1), (0, 1)])
    assert got.shape == (64, 32)
    np.testing.assert_array_equal(cp.asnumpy(got), want.astype(np.uint32))


@pytest.mark.parametrize("dims, bins", [(2, 256), (3, 16), (4, 8)])
def test_cupy_histogramdd_of_bytes_against_numpy(dims, bins):
    cp = framework("cupy")
    rng = np.random.default_rng(dims)
    sample = rng.integers(0, 256, (N, dims), dtype=np.uint8)
    want, _ = np.histogramdd(sample, bins, range=[(0, 256)] * dims)
    got = histtune.histogramdd(cp.asarray(sample), bins, range=[(0, 256)] * dims)
    np.testing.assert_array_equal(cp.asnumpy(got), want.astype(np.uint32))
    cols = [cp.asarray(np.ascontiguousarray(sample[:, d])) for d in range(dims)]
    np.testing.assert_array_equal(cp.asnumpy(histtune.histogramdd(cols, bins,
                                                                  range=[(0, 256)] * dims)),
                                  want.astype(np.uint32))


def test_cupy_histogramdd_edges_against_numpy():
    cp = framework("cupy")
    rng = np.random.default_rng(3)
    sample = rng.random((N, 3))  # float64
    edges = [np.array([0, 0.1, 0.5, 0.9]), np.linspace(0, 1, 11) ** 2, np.array([0.25, 0.75])]
    want, _ = np.histogramdd(sample, edges)
    # NumPy's last bin takes its upper edge; no value here is exactly on one.
    got = histtune.histogramdd(cp.asarray(sample), [cp.asarray(e) for e in edges])
    np.testing.assert_array_equal(cp.asnumpy(got), want.astype(np.uint32))
