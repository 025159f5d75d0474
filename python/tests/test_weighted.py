"""weights= without a GPU: what histogram and bincount pass to _core.weighted (recorded by the
`core` fixture), and what they refuse before any call: dtypes, lengths, outputs, modes."""

import pytest

import histtune

F32, F64, I32, I64 = 1, 2, 3, 4  # histtune::WeightType
DIRECT, EVEN, RANGE = 0, 1, 2


def test_histogram_passes_the_weights_and_their_bins(fake, core):
    x = fake((1000,), "<f4")
    w = fake((1000,), "<f4", ptr=1 << 22)
    out = fake((256,), "<f4", ptr=1 << 24)
    histtune.histogram(x, 256, range=(0, 100), weights=w, out=out)
    name, args = core.calls[-1]
    assert name == "weighted"
    assert args[:9] == (4, F32, EVEN, 1 << 20, 1 << 22, 1000, 256, 0.0, 100.0)
    assert args[10:13] == (1 << 24, False, 0.0)


def test_deterministic_mode_and_bound_reach_the_call(fake, core):
    x = fake((10,), "<f4")
    w = fake((10,), "<f8", ptr=1 << 22)
    out = fake((8,), "<f8", ptr=1 << 24)
    histtune.histogram(x, 8, range=(0, 1), weights=w, deterministic=True, max_abs_weight=4,
                       out=out)
    args = core.calls[-1][1]
    assert args[1] == F64 and args[11:13] == (True, 4.0)


def test_bincount_weights_take_integer_samples_into_int64_bins(fake, core):
    x = fake((10,), "|u1")
    w = fake((10,), "<i4", ptr=1 << 22)
    out = fake((256,), "<i8", ptr=1 << 24)
    histtune.bincount(x, 256, weights=w, out=out)
    args = core.calls[-1][1]
    assert args[:3] == (0, I32, DIRECT)
    with pytest.raises(TypeError, match="integer samples"):
        histtune.bincount(fake((10,), "<f4"), 256, weights=w, out=out)


def test_range_binning_takes_edges(fake, core):
    x = fake((10,), "<f4")
    w = fake((10,), "<f4", ptr=1 << 22)
    edges = fake((5,), "<f4", ptr=1 << 23)
    out = fake((4,), "<f4", ptr=1 << 24)
    histtune.histogram(x, edges, weights=w, out=out)
    args = core.calls[-1][1]
    assert args[2] == RANGE and args[6] == 4 and args[9] == 1 << 23


@pytest.mark.parametrize("typestr", ["<f2", "|u1", "<u4"])
def test_unsupported_weight_dtypes_are_type_errors(fake, core, typestr):
    with pytest.raises(TypeError, match="weights of dtype"):
        histtune.histogram(fake((10,), "<f4"), 4, range=(0, 1), weights=fake((10,), typestr))
    assert not core.calls


def test_weights_of_another_length_are_refused(fake, core):
    with pytest.raises(ValueError, match="weights has 9 elements, x has 10"):
        histtune.histogram(fake((10,), "<f4"), 4, range=(0, 1), weights=fake((9,), "<f4"))
    assert not core.calls


def test_out_must_hold_the_weights_bins(fake, core):
    with pytest.raises(TypeError, match="out must hold float64 bins"):
        histtune.histogram(fake((10,), "<f4"), 4, range=(0, 1), weights=fake((10,), "<f8"),
                           out=fake((4,), "<f4"))
    with pytest.raises(TypeError, match="out must hold int64 bins"):
        histtune.bincount(fake((10,), "|u1"), 4, weights=fake((10,), "<i8"),
                          out=fake((4,), "<u4"))
    assert not core.calls


def test_modes_need_weights(fake, core):
    with pytest.raises(ValueError, match="go with weights="):
        histtune.histogram(fake((10,), "<f4"), 4, range=(0, 1), deterministic=True)
    with pytest.raises(TypeError, match="deterministic must be a bool"):
        histtune.histogram(fake((10,), "<f4"), 4, range=(0, 1), weights=fake((10,), "<f4"),
                           deterministic=1, out=fake((4,), "<f4"))


def test_rows_pass_weights_laid_out_as_the_samples(fake, core):
    # A strided view: rows 1500 elements apart, 1000 read a row; the weights as strided.
    x = fake((8, 1000), "<f4", strides=(6000, 4))
    w = fake((8, 1000), "<f4", ptr=1 << 22, strides=(6000, 4))
    out = fake((8, 64), "<f4", ptr=1 << 24)
    histtune.histogram_rows(x, 64, range=(-4, 4), weights=w, out=out)
    name, args, kw = core.calls[-1]
    assert name == "weighted"
    assert args[:9] == (4, F32, EVEN, 1 << 20, 1 << 22, 1000, 64, -4.0, 4.0)
    assert args[10:13] == (1 << 24, False, 0.0)
    assert kw == {"rows": 8, "row_stride": 1500}


def test_rows_refuse_weights_of_another_layout(fake, core):
    x = fake((8, 1000), "<f4", strides=(6000, 4))
    with pytest.raises(ValueError, match="laid out as x"):
        histtune.histogram_rows(x, 64, range=(-4, 4), weights=fake((8, 1000), "<f4"),
                                out=fake((8, 64), "<f4"))
    with pytest.raises(ValueError, match="weights has 7999 elements"):
        histtune.histogram_rows(fake((8, 1000), "<f4"), 64, range=(-4, 4),
                                weights=fake((7999,), "<f4"))
    with pytest.raises(ValueError, match="counts_dtype= counts"):
        histtune.histogram_rows(fake((8, 1000), "<f4"), 64, range=(-4, 4),
                                weights=fake((8, 1000), "<f4"), counts_dtype="uint64")
    with pytest.raises(ValueError, match="go with weights="):
        histtune.histogram_rows(fake((8, 1000), "<f4"), 64, range=(-4, 4), deterministic=True)
    assert not core.calls


def test_segments_pass_their_offsets_and_weights(fake, core):
    x = fake((5000,), "<u4")
    offsets = fake((11,), "<i8", ptr=1 << 21)
    w = fake((5000,), "<f8", ptr=1 << 22)
    out = fake((10, 256), "<f8", ptr=1 << 24)
    histtune.histogram_segments(x, offsets, 256, weights=w, deterministic=True, out=out)
    name, args, kw = core.calls[-1]
    assert args[:7] == (2, F64, DIRECT, 1 << 20, 1 << 22, 5000, 256)
    assert args[11] is True
    assert kw == {"rows": 10, "offsets": 1 << 21, "segments": True}
    with pytest.raises(ValueError, match="weights has 4999 elements"):
        histtune.histogram_segments(x, offsets, 256, weights=fake((4999,), "<f8"))


def test_channels_take_one_weight_per_pixel(fake, core):
    img = fake((48, 64, 4), "|u1")
    w = fake((48, 64), "<f4", ptr=1 << 22)
    out = fake((3, 256), "<f4", ptr=1 << 24)
    histtune.histogram_channels(img, 256, channels=3, weights=w, out=out)
    name, args, kw = core.calls[-1]
    assert args[:7] == (0, F32, DIRECT, 1 << 20, 1 << 22, 48 * 64, 256)
    assert kw == {"channels": 4, "active": 3}
    with pytest.raises(ValueError, match="one weight per pixel"):
        histtune.histogram_channels(img, 256, channels=3, weights=fake((48, 64, 4), "<f4"))
    # A padded image (row pitch above width x channels) is refused with weights.
    padded = fake((48, 64, 4), "|u1", strides=(512, 4, 1))
    with pytest.raises(ValueError, match="must be packed"):
        histtune.histogram_channels(padded, 256, weights=w)
    assert len(core.calls) == 1
