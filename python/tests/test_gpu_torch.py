"""Every function, sample type and binning on the GPU with torch tensors, exact against the
NumPy references; outputs, streams, CUDA graphs and torch.compile."""

import numpy as np
import pytest

import histtune
import reference as ref
from conftest import framework

N = 100_003  # not a multiple of any vector width


@pytest.fixture(scope="module")
def torch():
    return framework("torch")


def cuda(torch, a):
    return torch.from_numpy(np.ascontiguousarray(a)).to("cuda")


def host(t):
    return t.cpu().numpy().astype(np.uint32)


@pytest.mark.parametrize("dtype", ref.INTEGER_DTYPES)
@pytest.mark.parametrize("bins", [1, 256, 1000])
def test_bincount_u8_u16_u32_i32(torch, dtype, bins):
    x = ref.samples(dtype, N, lo=-50 if dtype == "int32" else 0, hi=2 * bins)
    h = histtune.bincount(cuda(torch, x), bins)
    assert h.dtype == torch.uint32 and h.shape == (bins,) and h.is_cuda
    np.testing.assert_array_equal(host(h), ref.direct(x, bins))


@pytest.mark.parametrize("dtype", ref.DTYPES)
@pytest.mark.parametrize("bins", [7, 256])
def test_histogram_even(torch, dtype, bins):
    lo, hi = (0.25, 0.75) if dtype == "float32" else (3, 200)
    x = ref.samples(dtype, N, hi=None if dtype == "float32" else 250)
    h = histtune.histogram(cuda(torch, x), bins, range=(lo, hi))
    np.testing.assert_array_equal(host(h), ref.even(x, bins, lo, hi))


@pytest.mark.parametrize("dtype", ref.DTYPES)
def test_histogram_range(torch, dtype):
    lo, hi = (0.0, 1.0) if dtype == "float32" else (5, 240)
    x = ref.samples(dtype, N, hi=None if dtype == "float32" else 250)
    edges = ref.edges_for(dtype, 33, lo, hi)
    h = histtune.histogram(cuda(torch, x), cuda(torch, edges))
    assert h.shape == (33,)
    np.testing.assert_array_equal(host(h), ref.ranged(x, edges))


@pytest.mark.parametrize("dtype", ref.NEW_DTYPES)
def test_issue_25_types_bin_evenly_by_edges_and_by_value(torch, dtype):
    real = dtype.startswith("float")
    lo, hi = (-0.5, 0.75) if real else (-100, 100) if dtype.startswith("int") else (3, 200)
    if real:
        x = ref.samples(dtype, N, lo=lo, hi=hi)  # NaN and values outside sprinkled in
    else:
        x = ref.samples(dtype, N, lo=min(lo, 0), hi=250)
    t = cuda(torch, x)
    np.testing.assert_array_equal(host(histtune.histogram(t, 7, range=(lo, hi))),
                                  ref.even(x, 7, lo, hi))
    edges = ref.edges_for(dtype, 33, lo, hi)
    np.testing.assert_array_equal(host(histtune.histogram(t, cuda(torch, edges))),
                                  ref.ranged(x, edges))
    if not real:
        np.testing.assert_array_equal(host(histtune.bincount(t, 256)), ref.direct(x, 256))


def test_bfloat16_bins_its_float_values(torch):
    x = torch.from_numpy(ref.samples("float32", N, lo=-0.5, hi=0.75)).to("cuda").bfloat16()
    v = x.float().cpu().numpy()  # every bfloat16 is a float: the rule's input, exactly
    np.testing.assert_array_equal(host(histtune.histogram(x, 7, range=(-0.5, 0.75))),
                                  ref.even(v, 7, -0.5, 0.75))
    # 9 edges: bfloat16's 8 bits of mantissa keep them apart.
    edges = torch.from_numpy(ref.edges_for("float32", 9, -0.5, 0.75)).to("cuda").bfloat16()
    np.testing.assert_array_equal(host(histtune.histogram(x, edges)),
                                  ref.ranged(v, edges.float().cpu().numpy()))


@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
@pytest.mark.parametrize("binning", ["direct", "even", "range"])
@pytest.mark.parametrize("layout", ["rows", "image", "cropped"])
def test_histogram_channels(torch, dtype, binning, layout):
    shape = (37, 61, 4) if layout != "rows" else (2257, 4)
    x = ref.samples(dtype, int(np.prod(shape)), hi=300).reshape(shape)
    t = cuda(torch, x)
    if layout == "cropped":  # padded rows: the last 5 pixels of each row are not counted
        t, x = t[:, :56], x[:, :56]
    bins, kwargs = 256, {}
    if binning == "even":
        kwargs["range"] = (10, 260)
    elif binning == "range":
        edges = ref.edges_for(dtype, 20, 2, 250)
        bins = cuda(torch, edges)
    h = histtune.histogram_channels(t, bins, channels=3, **kwargs)
    for c in range(3):
        v = x[..., c]
        want = (ref.direct(v, 256) if binning == "direct" else
                ref.even(v, 256, 10, 260) if binning == "even" else ref.ranged(v, edges))
        np.testing.assert_array_equal(host(h[c]), want, err_msg=f"channel {c}")
    assert histtune.last_choice().family == "multichannel"


def test_out_and_int32_out(torch):
    x = cuda(torch, ref.samples("uint8", N))
    out = torch.empty(256, dtype=torch.int32, device="cuda")
    assert histtune.bincount(x, 256, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), ref.direct(x.cpu().numpy(), 256))


def test_empty_input_gives_zeros(torch):
    h = histtune.bincount(torch.empty(0, dtype=torch.uint8, device="cuda"), 16)
    assert int(h.to(torch.int64).sum()) == 0


def test_last_choice_names_the_configuration(torch):
    histtune.bincount(cuda(torch, ref.samples("uint8", N)), 256)
    c = histtune.last_choice()
    assert c.family == "hist1d" and c.level in ("exact", "same_model", "nearest_shape", "same_arch", "default")
    assert c.summary.startswith(c.level) and c.config in c.summary


def test_cpu_tensors_are_refused(torch):
    with pytest.raises(TypeError, match="move it"):
        histtune.bincount(torch.zeros(8, dtype=torch.uint8), 4)


def test_unsupported_torch_dtype(torch):
    with pytest.raises(TypeError, match="bool"):
        histtune.histogram(torch.zeros(8, dtype=torch.bool, device="cuda"), 4, range=(0, 1))


def test_non_default_stream(torch):
    x = cuda(torch, ref.samples("uint16", 1 << 20))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        h = histtune.bincount(x, 4096)  # on s, torch's current stream here
        h2 = histtune.histogram(x, 100, range=(0, 65536), stream=s)
    torch.cuda.current_stream().wait_stream(s)
    np.testing.assert_array_equal(host(h), ref.direct(x.cpu().numpy(), 4096))
    np.testing.assert_array_equal(host(h2), ref.even(x.cpu().numpy(), 100, 0, 65536))


def test_cuda_graph_capture_and_replay(torch):
    x = cuda(torch, ref.samples("uint8", 1 << 18, seed=1))
    out = torch.empty(256, dtype=torch.uint32, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        histtune.bincount(x, 256, out=out)  # the warm-up call: resolves and loads the kernel
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        histtune.bincount(x, 256, out=out)
    for seed in (2, 3):
        fresh = ref.samples("uint8", 1 << 18, seed=seed)
        x.copy_(cuda(torch, fresh))
        g.replay()
        torch.cuda.synchronize()
        np.testing.assert_array_equal(host(out), ref.direct(fresh, 256))


def test_first_call_during_capture_is_refused_and_the_capture_survives(torch):
    x = cuda(torch, ref.samples("uint8", 12345))
    out = torch.empty(77, dtype=torch.uint32, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # ends the capture without an error: it stayed valid
        with pytest.raises(ValueError, match="outside the capture"):
            histtune.bincount(x, 77, out=out)  # a shape never called before
    histtune.bincount(x, 77, out=out)
    np.testing.assert_array_equal(host(out), ref.direct(x.cpu().numpy(), 77))


def test_torch_compile_fullgraph(torch):
    x = cuda(torch, ref.samples("uint8", N))
    f32 = cuda(torch, ref.samples("float32", N))
    img = cuda(torch, ref.samples("uint8", 64 * 64 * 4).reshape(64, 64, 4))

    def f(x, f32, img):
        a = histtune.bincount(x, 256)
        b = histtune.histogram(f32 * 0.5, 64, range=(0.0, 1.0))  # after an op torch compiles
        c = histtune.histogram_channels(img, 256, channels=3)
        return a, b, c

    a, b, c = torch.compile(f, fullgraph=True)(x, f32, img)
    np.testing.assert_array_equal(host(a), ref.direct(x.cpu().numpy(), 256))
    np.testing.assert_array_equal(host(b), ref.even((f32 * 0.5).cpu().numpy(), 64, 0.0, 1.0))
    np.testing.assert_array_equal(host(c[1]), ref.direct(img.cpu().numpy()[..., 1], 256))


def test_custom_ops_have_fake_implementations(torch):
    x = cuda(torch, ref.samples("uint8", 1000))
    for op, args in ((torch.ops.histtune.bincount.default, (x, 256)),
                     (torch.ops.histtune.histogram_even.default, (x, 16, 0.0, 256.0)),
                     (torch.ops.histtune.histogram_channels.default,
                      (x.reshape(250, 4), 256, None, None, None, 3))):
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor"))
