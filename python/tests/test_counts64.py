"""64-bit counts: histogram and bincount with counts_dtype= or an out= of uint64 or int64 reach
the C++ calls with uint64_t* counts (_core's counts64=True), from a __cuda_array_interface__
stand-in and a fake torch; wrong dtypes, mismatches and the families without 64-bit counts are
refused clearly. CPU parts run everywhere; the GPU parts (torch and CuPy, against NumPy) skip
without a GPU."""

import numpy as np
import pytest

import histtune
import reference as ref
from conftest import NO_GPU, framework

X, OUT = 1 << 20, 1 << 24  # the stand-ins' device addresses
WIDE = {"counts64": True}


@pytest.mark.parametrize("typestr", ["<u8", "<i8"])
def test_a_64_bit_out_takes_the_64_bit_calls(fake, core, typestr):
    out = fake([8], typestr, ptr=OUT)
    histtune.bincount(fake([64]), 8, out=out)
    histtune.histogram(fake([64]), 8, range=(0, 256), out=out)
    histtune.histogram(fake([64], "<f4"), 8, range=(0, 1), out=out)
    histtune.histogram(fake([64], "<u8"), 8, range=(0, 2**64 - 1), out=out)
    histtune.histogram(fake([64], "<f8"), 8, range=(0, 1), out=out)
    histtune.histogram(fake([64]), fake([9], ptr=1 << 22), out=out)
    assert core.calls == [
        ("direct", (0, X, 64, 8, OUT, 0, -1), WIDE),
        ("even_int", (0, X, 64, 8, 0, 256, OUT, 0, -1), WIDE),
        ("even_f32", (X, 64, 8, 0.0, 1.0, OUT, 0, -1), WIDE),
        ("even_u64", (X, 64, 8, 0, 2**64 - 1, OUT, 0, -1), WIDE),
        ("even_float", (11, X, 64, 8, 0.0, 1.0, OUT, 0, -1), WIDE),
        ("range", (0, X, 64, 8, 1 << 22, OUT, 0, -1), WIDE)]


def test_32_bit_counts_call_as_before(fake, counts_out, core):
    histtune.bincount(fake([64]), 8, out=counts_out(8), counts_dtype="uint32")
    histtune.bincount(fake([64]), 8, out=fake([8], "<i4", ptr=OUT))
    assert core.calls == [("direct", (0, X, 64, 8, OUT, 0, -1))] * 2


@pytest.mark.parametrize("dtype", ["uint64", "int64", np.uint64, np.dtype("int64")])
def test_counts_dtype_names_and_dtypes(fake, core, dtype):
    histtune.bincount(fake([64]), 8, out=fake([8], "<u8", ptr=OUT), counts_dtype=dtype)
    assert core.calls == [("direct", (0, X, 64, 8, OUT, 0, -1), WIDE)]


def test_counts_dtype_is_checked(fake, counts_out):
    with pytest.raises(TypeError, match="counts_dtype must be uint32, int32, uint64 or int64"):
        histtune.bincount(fake([64]), 8, out=counts_out(8), counts_dtype="float32")
    with pytest.raises(TypeError, match="counts_dtype=uint32 but out holds uint64"):
        histtune.bincount(fake([64]), 8, out=fake([8], "<u8"), counts_dtype="uint32")
    with pytest.raises(TypeError, match="counts_dtype=int64 but out holds uint32"):
        histtune.histogram(fake([64]), 8, range=(0, 8), out=counts_out(8), counts_dtype="int64")
    with pytest.raises(TypeError, match="uint64, int64 for 64-bit counts"):
        histtune.bincount(fake([64]), 8, out=fake([8], "<f8"))


def test_the_families_of_channels_and_rows_take_64_bit_counts(fake, core):
    histtune.histogram_rows(fake([4, 16]), 8, out=fake([4, 8], "<u8", ptr=OUT))
    histtune.histogram_channels(fake([16, 4]), 8, out=fake([4, 8], "<i8", ptr=OUT))
    histtune.histogram_segments(fake([64], "<f8"), fake([5], "<i8", ptr=1 << 22), 8,
                                range=(0, 1), out=fake([4, 8], "<u8", ptr=OUT),
                                counts_dtype="uint64")
    histtune.histogram_channels(fake([16, 4]), 8, out=fake([4, 8], "<u4", ptr=OUT))
    assert [(call[0], call[2:]) for call in core.calls] == [
        ("rows", (WIDE,)), ("channels", (WIDE,)), ("segments", (WIDE,)), ("channels", ())]
    with pytest.raises(TypeError, match="counts_dtype=uint32 but out holds uint64"):
        histtune.histogram_rows(fake([4, 16]), 8, out=fake([4, 8], "<u8"), counts_dtype="uint32")
    with pytest.raises(TypeError, match="uint64, int64 for 64-bit counts"):
        histtune.histogram_channels(fake([16, 4]), 8, out=fake([4, 8], "<f8"))


def test_torch_counts_dtype_makes_a_64_bit_tensor(fake_torch_module, core):
    torch = fake_torch_module
    x = torch.Tensor([64], torch.uint8)
    h = histtune.histogram(x, 8, range=(0, 8), counts_dtype=torch.int64)
    assert h.dtype is torch.int64 and h.shape == (8,)
    out = torch.Tensor([8], torch.uint64, ptr=OUT)
    assert histtune.bincount(x, 8, out=out) is out
    assert core.calls == [("even_int", (0, X, 64, 8, 0, 8, OUT, 7, 0), WIDE),
                          ("direct", (0, X, 64, 8, OUT, 7, 0), WIDE)]


@pytest.mark.skipif(NO_GPU is None, reason="this machine has a GPU")
def test_the_module_takes_the_64_bit_keyword(fake):
    """No recorder: the binding itself accepts counts64 (and then finds no device here)."""
    with pytest.raises(RuntimeError, match="no CUDA device"):
        histtune.bincount(fake([64]), 8, out=fake([8], "<u8"))


# ---- on the GPU --------------------------------------------------------------------------------

N = 100_003


@pytest.mark.parametrize("dtype", ["uint8", "int64", "float32", "float64"])
def test_torch_64_bit_counts_match_numpy(dtype):
    torch = framework("torch")
    lo, hi = (0.25, 0.75) if dtype.startswith("float") else (3, 200)
    x = ref.samples(dtype, N, hi=None if dtype.startswith("float") else 250)
    t = torch.from_numpy(x).to("cuda")
    h = histtune.histogram(t, 64, range=(lo, hi), counts_dtype=torch.int64)
    assert h.dtype == torch.int64 and h.shape == (64,)
    np.testing.assert_array_equal(h.cpu().numpy(), ref.even(x, 64, lo, hi))
    if not dtype.startswith("float"):
        out = torch.empty(256, dtype=torch.int64, device="cuda")
        assert histtune.bincount(t, 256, out=out) is out
        np.testing.assert_array_equal(out.cpu().numpy(), ref.direct(x, 256))


def test_cupy_64_bit_counts_match_numpy():
    cupy = framework("cupy")
    x = ref.samples("uint16", N, hi=5000)
    h = histtune.bincount(cupy.asarray(x), 4096, counts_dtype="uint64")
    assert h.dtype == cupy.uint64
    np.testing.assert_array_equal(cupy.asnumpy(h), ref.direct(x, 4096))


@pytest.mark.parametrize("dtype", ["int8", "float16", "int64", "uint64", "float64"])
def test_torch_channels_rows_and_segments_of_issue_25_types_match_numpy(dtype):
    """The families of channels and rows with every new dtype, in 32-bit and 64-bit counts."""
    torch = framework("torch")
    floating = dtype.startswith("float")
    lo, hi = (0.25, 0.75) if floating else (0, 100)
    x = ref.samples(dtype, 4 * 4099, hi=None if floating else 120).reshape(4099, 4)
    t = torch.from_numpy(x).to("cuda")
    for counts_dtype in (None, torch.int64):
        h = histtune.histogram_channels(t, 32, range=(lo, hi), channels=3,
                                        counts_dtype=counts_dtype)
        for c in range(3):
            np.testing.assert_array_equal(h[c].cpu().numpy(), ref.even(x[:, c], 32, lo, hi))
        rows = t.T.contiguous()  # [4, 4099]
        h = histtune.histogram_rows(rows, 32, range=(lo, hi), counts_dtype=counts_dtype)
        for r in range(4):
            np.testing.assert_array_equal(h[r].cpu().numpy(), ref.even(x[:, r], 32, lo, hi))
        offsets = torch.tensor([0, 5, 5, 9000, 16396], dtype=torch.int64, device="cuda")
        flat = x.ravel()
        h = histtune.histogram_segments(t.reshape(-1), offsets, 32, range=(lo, hi),
                                        counts_dtype=counts_dtype)
        for r, (a, b) in enumerate([(0, 5), (5, 5), (5, 9000), (9000, 16396)]):
            np.testing.assert_array_equal(h[r].cpu().numpy(), ref.even(flat[a:b], 32, lo, hi))
