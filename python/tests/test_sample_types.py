"""The sample types of issue 25 without a GPU: int8, int16, float16, bfloat16 (torch), int64,
uint64 and float64 arrays reach the C++ API's call for their type, with their SampleType value
and their bounds exactly, from any framework (a __cuda_array_interface__ stand-in, a fake torch
on its fast path and the general way); bincount refuses the float types."""

import pytest

import histtune
from histtune import _arrays

# NumPy typestr, dtype name, SampleType value (histtune::SampleType).
NEW_TYPES = [("|i1", "int8", 5), ("<i2", "int16", 6), ("<f2", "float16", 7),
             ("<i8", "int64", 9), ("<u8", "uint64", 10), ("<f8", "float64", 11)]
INTEGERS = [t for t in NEW_TYPES if not t[1].startswith("float")]
FLOATS = [t for t in NEW_TYPES if t[1].startswith("float")]
X, OUT = 1 << 20, 1 << 24  # the stand-ins' device addresses


def test_every_sample_type_has_its_cpp_value():
    assert _arrays.SAMPLE_TYPES == {
        "uint8": 0, "uint16": 1, "uint32": 2, "int32": 3, "float32": 4, "int8": 5, "int16": 6,
        "float16": 7, "bfloat16": 8, "int64": 9, "uint64": 10, "float64": 11}
    assert _arrays._typestr_name("<f2") == "float16" and _arrays._typestr_name("|i1") == "int8"
    assert _arrays._DLPACK_CODES[4] + "16" == "bfloat16"  # DLPack's kDLBfloat


@pytest.mark.parametrize("typestr, name, code", INTEGERS)
def test_integer_types_bincount_and_bin_evenly(fake, counts_out, core, typestr, name, code):
    histtune.bincount(fake([64], typestr), 8, out=counts_out(8))
    histtune.histogram(fake([64], typestr), 8, range=(-8, 8) if name != "uint64" else (0, 8),
                       out=counts_out(8))
    lo = -8 if name != "uint64" else 0
    even = ("even_u64", (X, 64, 8, lo, 8, OUT, 0, -1)) if name == "uint64" else \
        ("even_int", (code, X, 64, 8, lo, 8, OUT, 0, -1))
    assert core.calls == [("direct", (code, X, 64, 8, OUT, 0, -1)), even]


@pytest.mark.parametrize("typestr, name, code", FLOATS)
def test_float_types_bin_evenly_and_refuse_bincount(fake, counts_out, core, typestr, name, code):
    histtune.histogram(fake([64], typestr), 8, range=(-1, 1), out=counts_out(8))
    assert core.calls == [("even_float", (code, X, 64, 8, -1.0, 1.0, OUT, 0, -1))]
    with pytest.raises(TypeError, match=f"integer samples; for {name} use histogram"):
        histtune.bincount(fake([64], typestr), 8, out=counts_out(8))


@pytest.mark.parametrize("typestr, name, code", NEW_TYPES)
def test_range_binning_takes_edges_of_the_samples_type(fake, counts_out, core, typestr, name,
                                                       code):
    histtune.histogram(fake([64], typestr), fake([9], typestr, ptr=1 << 22), out=counts_out(8))
    assert core.calls == [("range", (code, X, 64, 8, 1 << 22, OUT, 0, -1))]
    with pytest.raises(TypeError, match="samples' dtype"):
        histtune.histogram(fake([64], typestr), fake([9], "<u4"), out=counts_out(8))


def test_64_bit_integer_bounds_pass_exactly(fake, counts_out, core):
    """No rounding through a double: the bounds reach the C++ call as the integers given."""
    histtune.histogram(fake([64], "<i8"), 3, range=(-2**63, 2**63 - 1), out=counts_out(3))
    histtune.histogram(fake([64], "<u8"), 3, range=(2**60 + 1, 2**64 - 1), out=counts_out(3))
    assert core.calls == [("even_int", (9, X, 64, 3, -2**63, 2**63 - 1, OUT, 0, -1)),
                          ("even_u64", (X, 64, 3, 2**60 + 1, 2**64 - 1, OUT, 0, -1))]


@pytest.mark.parametrize("typestr, rng, message", [
    ("<u8", (0, 2**64), "uint64 samples needs bounds in \\[0, 2\\^64\\)"),
    ("<u8", (-1, 8), "uint64 samples needs bounds in \\[0, 2\\^64\\)"),
    ("<i8", (0, 2**63), "int64 samples needs bounds within \\[-2\\^63, 2\\^63\\)"),
    ("<i8", (0.5, 8), "integer bounds")])
def test_64_bit_integer_bounds_out_of_the_type_are_refused(fake, counts_out, core, typestr, rng,
                                                           message):
    with pytest.raises(ValueError, match=message):
        histtune.histogram(fake([64], typestr), 8, range=rng, out=counts_out(8))
    assert core.calls == []


@pytest.mark.parametrize("typestr, name, code", NEW_TYPES)
def test_channels_take_the_new_types_with_bounds_of_their_type(fake, counts_out, core, typestr,
                                                                name, code):
    """Integer bounds stay integers (exact past 2^53), floats are floats; pitched images give
    their row pitch in bytes of the type; direct binning is for integers only."""
    x = fake([16, 4], typestr)
    histtune.histogram_channels(x, 8, range=(0, 2**60) if name.startswith("int") or
                                name == "uint64" else (-1, 1), channels=3, out=counts_out(3, 8))
    lo, hi = (0, 2**60) if name in ("int8", "int16", "int64", "uint64") else (-1.0, 1.0)
    item = int(typestr[2:])
    img = fake([4, 2, 3], typestr, strides=(8 * item, 3 * item, item))
    histtune.histogram_channels(img, fake([9], typestr, ptr=1 << 22), out=counts_out(3, 8))
    assert core.calls == [("channels", (code, 1, X, 16, 1, 0, 4, 3, 8, lo, hi, 0, OUT, 0, -1)),
                          ("channels", (code, 2, X, 2, 4, 8 * item, 3, 3, 8, 0, 0, 1 << 22, OUT,
                                        0, -1))]
    assert type(core.calls[0][1][9]) is type(lo)
    if name.startswith("float"):
        with pytest.raises(TypeError, match=f"{name} samples need range"):
            histtune.histogram_channels(x, 8, out=counts_out(4, 8))


@pytest.mark.parametrize("dtype, code", [("int8", 5), ("int16", 6), ("int64", 9), ("uint64", 10)])
def test_torch_integer_types_take_the_fast_path(fake_torch_module, core, dtype, code):
    torch = fake_torch_module
    x = torch.Tensor([64], getattr(torch, dtype))
    out = torch.Tensor([8], torch.uint32, ptr=OUT)
    assert histtune.bincount(x, 8, out=out) is out
    histtune.histogram(x, 8, (0, 2**40), out=out)
    even = ("even_u64", (X, 64, 8, 0, 2**40, OUT, 7, 0)) if dtype == "uint64" else \
        ("even_int", (code, X, 64, 8, 0, 2**40, OUT, 7, 0))
    assert core.calls == [("direct", (code, X, 64, 8, OUT, 7, 0)), even]


@pytest.mark.parametrize("dtype, code", [("float16", 7), ("bfloat16", 8), ("float64", 11)])
def test_torch_float_types_take_the_fast_path_and_refuse_bincount(fake_torch_module, core, dtype,
                                                                    code):
    torch = fake_torch_module
    x = torch.Tensor([64], getattr(torch, dtype))
    out = torch.Tensor([8], torch.uint32, ptr=OUT)
    assert histtune.histogram(x, 8, (-1, 1), out=out) is out
    assert core.calls == [("even_float", (code, X, 64, 8, -1.0, 1.0, OUT, 7, 0))]
    histtune.histogram(x, torch.Tensor([9], getattr(torch, dtype), ptr=1 << 22), out=out)
    assert core.calls[-1] == ("range", (code, X, 64, 8, 1 << 22, OUT, 7, 0))
    with pytest.raises(TypeError, match=f"for {dtype} use histogram"):
        histtune.bincount(x, 8, out=out)


def test_torch_types_histtune_does_not_count_are_named(fake_torch_module, core):
    torch = fake_torch_module
    with pytest.raises(TypeError, match="dtype bool are not supported"):
        histtune.histogram(torch.Tensor([64], torch.bool), 8, (0, 8),
                           out=torch.Tensor([8], torch.uint32, ptr=OUT))
    assert core.calls == []


@pytest.mark.parametrize("typestr, name, code", NEW_TYPES)
def test_rows_and_segments_take_the_new_types_with_bounds_of_their_type(fake, counts_out, core,
                                                                         typestr, name, code):
    floating = name.startswith("float")
    rng = (-1, 1) if floating else (0, 2**60)
    histtune.histogram_rows(fake([4, 16], typestr), 8, range=rng, out=counts_out(4, 8))
    histtune.histogram_segments(fake([64], typestr), fake([5], "<i8", ptr=1 << 22), 8, range=rng,
                                out=counts_out(4, 8))
    lo, hi = (-1.0, 1.0) if floating else (0, 2**60)
    assert core.calls == [("rows", (code, 1, X, 4, 16, 16, 8, lo, hi, 0, OUT, 0, -1)),
                          ("segments", (code, 1, X, 64, 4, 1 << 22, 8, lo, hi, 0, OUT, 0, -1))]
    assert type(core.calls[0][1][7]) is type(lo)
