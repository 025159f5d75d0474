"""The torch fast path without a GPU, on a fake torch (fake_torch.py): what a call reads of its
tensors, which _core function it calls with what, and that anything unusual still goes the
general way, whose checks say what is wrong."""

import warnings

import pytest

import histtune


@pytest.fixture
def torch(fake_torch_module):
    return fake_torch_module


def _reads(*tensors):
    return sum(sum(t.reads.values()) for t in tensors)


def test_bincount_with_out_reads_each_attribute_once_and_no_shape_or_strides(torch, core):
    x = torch.Tensor([64], torch.uint8)
    out = torch.Tensor([256], torch.uint32, ptr=1 << 24)
    assert histtune.bincount(x, 256, out=out) is out
    assert core.calls == [("direct", (0, 1 << 20, 64, 256, 1 << 24, 7, 0))]
    assert x.reads == {"dtype": 1, "get_device": 1, "is_contiguous": 1, "data_ptr": 1,
                       "numel": 1}
    assert "stride" not in out.reads and all(v == 1 for v in out.reads.values())


def test_histogram_even_with_out_reads_no_shape_or_strides(torch, core):
    x = torch.Tensor([8, 8], torch.float32)
    out = torch.Tensor([16], torch.int32, ptr=1 << 24)
    assert histtune.histogram(x, 16, (0, 1), out=out) is out
    assert core.calls == [("even_f32", (1 << 20, 64, 16, 0.0, 1.0, 1 << 24, 7, 0))]
    assert "shape" not in x.reads and "stride" not in x.reads and _reads(x) == 5
    histtune.histogram(torch.Tensor([64], torch.int32), 4, (-8, 8), out=torch.Tensor(
        [4], torch.uint32), stream=9)
    assert core.calls[-1] == ("even_int", (3, 1 << 20, 64, 4, -8, 8, 1 << 20, 9, 0))


def test_new_outputs_are_uint32_on_the_samples_device(torch, core):
    result = histtune.bincount(torch.Tensor([64], torch.uint16, device=1), 10)
    assert (result._shape, result._dtype, result._device) == ((10,), torch.uint32, 1)
    assert core.calls[-1][1][4] == 1 << 24


def test_channels_read_shape_and_strides_once(torch, core):
    img = torch.Tensor([4, 6, 4], torch.uint8, strides=(32, 4, 1))  # padded rows
    out = torch.Tensor([3, 256], torch.uint32, ptr=1 << 24)
    assert histtune.histogram_channels(img, 256, channels=3, out=out) is out
    assert core.calls == [("channels", (0, 0, 1 << 20, 6, 4, 32, 4, 3, 256, 0, 0, 0, 1 << 24,
                                        7, 0))]
    assert all(v == 1 for v in img.reads.values()) and _reads(img) == 5


@pytest.mark.parametrize("x, out, error, message", [
    (lambda t: t.Tensor([64], t.uint8, strides=(2,)), lambda t: t.Tensor([8], t.uint32),
     ValueError, "not contiguous"),
    (lambda t: t.Tensor([64], t.float64), lambda t: t.Tensor([8], t.uint32), TypeError,
     "float64"),
    (lambda t: t.Tensor([64], t.uint8, device=-1), lambda t: t.Tensor([8], t.uint32),
     TypeError, "CUDA"),
    (lambda t: t.Tensor([64], t.uint8), lambda t: t.Tensor([9], t.uint32), ValueError,
     "shape"),
    (lambda t: t.Tensor([64], t.uint8), lambda t: t.Tensor([8], t.float32), TypeError,
     "uint32"),
    (lambda t: t.Tensor([64], t.uint8), lambda t: t.Tensor([8], t.uint32, strides=(2,)),
     ValueError, "not contiguous"),
    (lambda t: t.Tensor([64], t.uint8), lambda t: t.Tensor([8], t.uint32, device=1),
     ValueError, "GPU 1"),
])
def test_what_the_fast_path_does_not_take_is_checked_as_before(torch, core, x, out, error,
                                                                 message):
    with pytest.raises(error, match=message):
        histtune.bincount(x(torch), 8, out=out(torch))
    assert core.calls == []


def test_bad_arguments_on_tensors_say_what_is_wrong(torch, core):
    x = torch.Tensor([64], torch.uint8)
    with pytest.raises(ValueError, match="minlength"):
        histtune.bincount(x, 0)
    with pytest.raises(ValueError, match="integer bounds"):
        histtune.histogram(x, 4, (0.5, 8))
    with pytest.raises(ValueError, match="channels=5 but x has 4"):
        histtune.histogram_channels(torch.Tensor([16, 4], torch.uint8), 8, channels=5)
    assert core.calls == []


def test_torch_hooks_run_when_the_adapter_is_made_and_at_once_for_a_late_one(torch,
                                                                              monkeypatch):
    from histtune import _api, _arrays

    assert _api.use_torch in _arrays._TORCH_HOOKS  # the fast path registers itself
    monkeypatch.setattr(_arrays, "_TORCH_HOOKS", list(_arrays._TORCH_HOOKS))
    seen = []
    _arrays.on_torch(seen.append)  # the fixture made the adapter: the hook runs at once
    assert seen == [_arrays.torch_adapter()]
    monkeypatch.setattr(_arrays, "_ADAPTERS", {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fake has no torch.library: no custom ops
        made = _arrays.torch_adapter()  # a new adapter runs every hook again
    assert seen[-1] is made and len(seen) == 2
    assert _api._Tensor is torch.Tensor
