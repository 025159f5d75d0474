"""The public functions without a GPU: what they accept, what they refuse and how they say it."""

import inspect
import subprocess
import sys

import numpy as np
import pytest

import histtune
from conftest import NO_GPU

PUBLIC = ["histogram", "bincount", "histogram_channels", "histogram_rows", "histogram_segments",
          "last_choice"]


def test_imports_without_a_gpu_and_names_its_functions():
    assert set(PUBLIC) <= set(histtune.__all__)
    assert histtune.__version__


@pytest.mark.parametrize("name", PUBLIC)
def test_every_function_has_a_docstring_with_an_example(name):
    doc = getattr(histtune, name).__doc__
    assert doc and ">>> " in doc, f"{name} needs a docstring with an example"


def test_signatures_follow_numpy_and_torch():
    params = lambda f: list(inspect.signature(f).parameters)  # noqa: E731
    weighted = ["weights", "deterministic", "max_abs_weight"]  # issue 26, keyword-only
    # counts_dtype: 64-bit counts (issue 25), keyword-only after numpy's and torch's arguments.
    assert params(histtune.histogram) == ["x", "bins", "range", *weighted, "out", "stream",
                                          "counts_dtype"]
    assert params(histtune.bincount) == ["x", "minlength", *weighted, "out", "stream",
                                         "counts_dtype"]
    # Rows, segments and channels take the weights too (issue 26), keyword-only, as histogram.
    assert params(histtune.histogram_channels) == ["x", "bins", "range", "channels", *weighted,
                                                   "out", "stream", "counts_dtype"]
    assert params(histtune.histogram_rows) == ["x", "bins", "range", *weighted, "out", "stream",
                                               "counts_dtype"]
    assert params(histtune.histogram_segments) == ["x", "offsets", "bins", "range", *weighted,
                                                   "out", "stream", "counts_dtype"]
    for f in (histtune.histogram, histtune.bincount, histtune.histogram_channels):
        sig = inspect.signature(f)
        assert sig.parameters["out"].kind == inspect.Parameter.KEYWORD_ONLY
        assert sig.parameters["stream"].kind == inspect.Parameter.KEYWORD_ONLY
    for f in (histtune.histogram, histtune.bincount):
        kind = inspect.signature(f).parameters["counts_dtype"].kind
        assert kind == inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("x", [np.zeros(16, np.uint8), np.zeros((4, 3), np.uint16)])
def test_numpy_arrays_are_refused_clearly(x):
    with pytest.raises(TypeError, match="host memory.*CUDA arrays"):
        histtune.bincount(x, 256)
    with pytest.raises(TypeError, match="host memory"):
        histtune.histogram(x, 16, range=(0, 256))
    with pytest.raises(TypeError, match="host memory"):
        histtune.histogram_channels(x, 256)


@pytest.mark.parametrize("x", [[1, 2, 3], 7, b"abc"])
def test_python_values_are_refused(x):
    with pytest.raises(TypeError, match="CUDA arrays"):
        histtune.bincount(x, 4)


def test_objects_that_are_no_arrays_are_refused():
    with pytest.raises(TypeError, match="not a CUDA array"):
        histtune.bincount(object(), 4)


@pytest.mark.parametrize("typestr", ["|b1", "<c8", "<c16", ">i4"])
def test_unsupported_dtypes_are_type_errors(fake, counts_out, typestr):
    with pytest.raises(TypeError, match="not supported"):
        histtune.histogram(fake([64], typestr), 8, range=(0, 8), out=counts_out(8))


def test_bincount_refuses_floats(fake, counts_out):
    with pytest.raises(TypeError, match="integer samples"):
        histtune.bincount(fake([64], "<f4"), 8, out=counts_out(8))


def test_channels_take_every_sample_type_and_no_other(fake, counts_out):
    with pytest.raises(TypeError, match="uint8, uint16, uint32, int32, float32, int8, int16, "
                                        "float16, bfloat16, int64, uint64, float64"):
        histtune.histogram_channels(fake([64, 4], "<c8"), 8, out=counts_out(4, 8))


@pytest.mark.parametrize("bins, error", [(0, ValueError), (-1, ValueError), (2**32, ValueError),
                                         (2.5, TypeError), (True, TypeError)])
def test_bad_bin_counts(fake, counts_out, bins, error):
    with pytest.raises(error, match="minlength"):
        histtune.bincount(fake([64]), bins, out=counts_out(8))


def test_even_bins_need_a_range(fake, counts_out):
    with pytest.raises(ValueError, match="range=.*required.*synchronise"):
        histtune.histogram(fake([64], "<f4"), 8, out=counts_out(8))


@pytest.mark.parametrize("rng", [(0.5, 8), (0, float("nan")), (0, 2**64)])
def test_integer_samples_need_integer_bounds(fake, counts_out, rng):
    with pytest.raises(ValueError, match="integer bounds|2\\^53"):
        histtune.histogram(fake([64]), 8, range=rng, out=counts_out(8))


@pytest.mark.parametrize("rng, message", [((5, 1), "lower < upper"), ((3, 3), "lower < upper")])
def test_bad_ranges_carry_the_library_message(fake, counts_out, rng, message):
    # The C++ API checks bounds before touching the GPU: the same message with or without one.
    with pytest.raises(ValueError, match=message):
        histtune.histogram(fake([64]), 8, range=rng, out=counts_out(8))


@pytest.mark.parametrize("rng", [(0.0, float("inf")), (float("nan"), 1.0), (1.0, 1.0)])
def test_bad_float_ranges(fake, counts_out, rng):
    with pytest.raises(ValueError, match="bounds|lower < upper"):
        histtune.histogram(fake([64], "<f4"), 8, range=rng, out=counts_out(8))


def test_range_is_a_pair(fake, counts_out):
    with pytest.raises(TypeError, match="pair"):
        histtune.histogram(fake([64], "<f4"), 8, range=(1.0,), out=counts_out(8))


def test_edges_and_range_together_are_refused(fake, counts_out):
    with pytest.raises(ValueError, match="not both"):
        histtune.histogram(fake([64]), fake([9]), range=(0, 8), out=counts_out(8))


class FakeTensorEdges:
    """Edges as torch and CuPy arrays look: an array that also has __index__."""

    def __init__(self, fake, n):
        self.__cuda_array_interface__ = fake([n]).__cuda_array_interface__

    def __index__(self):
        raise TypeError("only integer tensors of a single element can be converted to an index")


def test_arrays_with_index_are_edges_not_bin_counts(fake, counts_out):
    with pytest.raises(ValueError, match="not both"):
        histtune.histogram(fake([64]), FakeTensorEdges(fake, 9), range=(0, 8), out=counts_out(8))
    with pytest.raises(ValueError, match="not both"):
        histtune.histogram_channels(fake([16, 4]), FakeTensorEdges(fake, 9), range=(0, 8),
                                    out=counts_out(4, 8))


def test_numpy_integers_are_bin_counts(fake):
    with pytest.raises(ValueError, match="range=.*required"):
        histtune.histogram(fake([64]), np.int64(8))


def test_edges_must_have_the_samples_dtype(fake, counts_out):
    with pytest.raises(TypeError, match="samples' dtype"):
        histtune.histogram(fake([64]), fake([9], "<f4"), out=counts_out(8))
    with pytest.raises(ValueError, match="at least 2"):
        histtune.histogram(fake([64]), fake([1]), out=counts_out(0))


def test_non_contiguous_samples_are_refused(fake, counts_out):
    with pytest.raises(ValueError, match="not contiguous"):
        histtune.bincount(fake([64], strides=(2,)), 8, out=counts_out(8))


def test_out_is_checked(fake):
    x = fake([64])
    with pytest.raises(TypeError, match="uint32"):
        histtune.bincount(x, 8, out=fake([8], "<f4"))
    with pytest.raises(ValueError, match="shape \\(8,\\)"):
        histtune.bincount(x, 8, out=fake([9], "<u4"))
    with pytest.raises(TypeError, match="host memory"):
        histtune.bincount(x, 8, out=np.zeros(8, np.uint32))


def test_other_producers_need_out(fake):
    with pytest.raises(ValueError, match="pass out="):
        histtune.bincount(fake([64]), 8)


@pytest.mark.parametrize("shape, strides, message", [
    ([64], None, "rows, channels"), ([2, 3, 4, 5], None, "rows, channels"),
    ([16, 4], (4, 2), "contiguous"), ([8, 8, 4], (16, 4, 1), "overlap")])
def test_channel_layouts(fake, counts_out, shape, strides, message):
    with pytest.raises(ValueError, match=message):
        histtune.histogram_channels(fake(shape, strides=strides), 8, out=counts_out(4, 8))


def test_more_channels_than_the_array_has(fake, counts_out):
    with pytest.raises(ValueError, match="channels=5 but x has 4"):
        histtune.histogram_channels(fake([16, 4]), 8, channels=5, out=counts_out(5, 8))


def test_stream_argument_types(fake, counts_out):
    with pytest.raises(TypeError, match="stream="):
        histtune.bincount(fake([64]), 8, out=counts_out(8), stream="default")


@pytest.mark.skipif(NO_GPU is None, reason="this machine has a GPU")
def test_first_call_without_a_gpu_says_no_cuda_device_in_one_line(fake, counts_out):
    with pytest.raises(RuntimeError) as e:
        histtune.bincount(fake([64]), 8, out=counts_out(8))
    assert "no CUDA device" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.skipif(NO_GPU is None, reason="this machine has a GPU")
def test_import_and_no_gpu_in_a_fresh_process():
    code = ("import histtune, sys\n"
            "try: histtune.histogram_channels(__import__('conftest').FakeDeviceArray([4, 4]), "
            "4, out=__import__('conftest').FakeDeviceArray([4, 4], '<u4'))\n"
            "except RuntimeError as e: print(e); sys.exit(3)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=__file__.rsplit("/", 1)[0])
    assert r.returncode == 3, r.stderr
    assert r.stdout.count("\n") == 1 and "no CUDA device" in r.stdout


def test_last_choice_before_any_call_is_none():
    assert histtune.last_choice() is None


def test_choice_prints_as_its_summary():
    c = histtune.Choice("hist1d", "tpb256", "default", False, "", "", "default tpb256")
    assert str(c) == "default tpb256"


@pytest.mark.parametrize("shape, strides, message", [
    ([64], None, "rows, n"), ([2, 3, 4], None, "rows, n"),
    ([4, 8], (16, 2), "contiguous"), ([4, 8], (4, 1), "overlap")])
def test_row_layouts(fake, counts_out, shape, strides, message):
    with pytest.raises(ValueError, match=message):
        histtune.histogram_rows(fake(shape, strides=strides), 8, out=counts_out(4, 8))


def test_float_rows_need_a_range(fake, counts_out):
    with pytest.raises(TypeError, match="range=\\(lo, hi\\)"):
        histtune.histogram_rows(fake([4, 8], "<f4"), 8, out=counts_out(4, 8))


def test_row_output_shape_is_rows_by_bins(fake):
    with pytest.raises(ValueError, match="shape \\(4, 8\\)"):
        histtune.histogram_rows(fake([4, 16]), 8, out=fake([8], "<u4"))


def test_segment_offsets_are_checked(fake, counts_out):
    x = fake([64])
    with pytest.raises(TypeError, match="int64"):
        histtune.histogram_segments(x, fake([5], "<i4"), 8, out=counts_out(4, 8))
    with pytest.raises(ValueError, match="one-dimensional"):
        histtune.histogram_segments(x, fake([5, 2], "<i8"), 8, out=counts_out(4, 8))
    with pytest.raises(ValueError, match="not contiguous"):
        histtune.histogram_segments(fake([64], strides=(2,)), fake([5], "<i8"), 8,
                                    out=counts_out(4, 8))
    # Checked by the C++ API before the GPU is asked for: the same message with or without one.
    with pytest.raises(ValueError, match="not aligned to its 8-byte offsets"):
        histtune.histogram_segments(x, fake([5], "<i8", ptr=(1 << 20) + 4), 8,
                                    out=counts_out(4, 8))


def test_rows_refusals_carry_the_library_message(fake, counts_out):
    with pytest.raises(ValueError, match="lower < upper"):
        histtune.histogram_rows(fake([4, 8]), 8, range=(5, 1), out=counts_out(4, 8))


@pytest.mark.skipif(NO_GPU is None, reason="this machine has a GPU")
def test_strided_rows_and_segments_reach_the_library(fake, counts_out):
    with pytest.raises(RuntimeError, match="no CUDA device"):
        histtune.histogram_rows(fake([4, 8], strides=(11, 1)), 8, out=counts_out(4, 8))
    with pytest.raises(RuntimeError, match="no CUDA device"):
        histtune.histogram_segments(fake([64]), fake([5], "<i8"), 8, range=(0, 8),
                                    out=counts_out(4, 8))
