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
