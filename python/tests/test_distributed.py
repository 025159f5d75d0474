"""histtune.distributed: argument checks and the calls it makes, against a stand-in
torch.distributed (CPU, everywhere); and a real two-process NCCL group (torch.multiprocessing
spawn) where torch and two GPUs are present, exact against the one-GPU histogram of the
concatenated shards."""

import os
import socket
import subprocess
import sys
import types

import pytest

import histtune
import histtune.distributed as hd
from histtune import _api

from conftest import NO_GPU


class FakeCounts:
    """A stand-in int64 counts tensor: its shape and new_empty are all _combine reads."""

    def __init__(self, bins):
        self.shape = (bins,)

    def new_empty(self, shape):
        return FakeCounts(shape[0])


FakeCounts.__module__ = "torch"


def fake_dist(initialized=True, backend="nccl", rank=0, world=2):
    """A stand-in torch.distributed that records its collectives."""
    d = types.ModuleType("torch.distributed")
    d.calls = []
    d.ReduceOp = types.SimpleNamespace(SUM="sum")
    d.is_available = lambda: True
    d.is_initialized = lambda: initialized
    d.get_backend = lambda group=None: backend
    d.get_rank = lambda group=None: rank
    d.get_world_size = lambda group=None: world
    d.all_reduce = lambda t, op, group: d.calls.append(("all_reduce", t, op, group))
    d.reduce_scatter_tensor = lambda o, i, op, group: d.calls.append(
        ("reduce_scatter_tensor", o.shape, i, op, group))
    return d


@pytest.fixture
def dist(monkeypatch):
    """Installs a fake torch.distributed; returns a function that makes (and installs) one."""

    def install(**kw):
        d = fake_dist(**kw)
        torch = sys.modules.get("torch") or types.ModuleType("torch")
        monkeypatch.setitem(sys.modules, "torch", torch)
        monkeypatch.setattr(torch, "distributed", d, raising=False)
        monkeypatch.setitem(sys.modules, "torch.distributed", d)
        return d

    return install


@pytest.fixture
def local(monkeypatch):
    """The local histogram calls, recorded; each returns FakeCounts of its bins."""
    calls = []

    def histogram(x, bins, range=None, **kw):
        calls.append(("histogram", bins, range, kw))
        return FakeCounts(bins)

    def bincount(x, minlength, **kw):
        calls.append(("bincount", minlength, kw))
        return FakeCounts(minlength)

    monkeypatch.setattr(_api, "histogram", histogram)
    monkeypatch.setattr(_api, "bincount", bincount)
    return calls


def test_importing_it_does_not_import_torch():
    code = "import sys, histtune.distributed; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], env=os.environ).returncode == 0


@pytest.mark.parametrize("bins", [1, 2, 7, 255, 256, 1000003])
@pytest.mark.parametrize("world", [1, 2, 3, 8])
def test_bin_slices_cover_every_bin_once_in_rank_order(bins, world):
    slices = [hd.bin_slice(bins, r, world) for r in range(world)]
    assert [f for f, _ in slices] == [sum(c for _, c in slices[:r]) for r in range(world)]
    assert sum(c for _, c in slices) == bins
    assert max(c for _, c in slices) - min(c for _, c in slices) <= 1


def test_bin_slice_as_cpp():  # tests/nccl/test_arguments.cpp's values
    assert hd.bin_slice(256, 1, 2) == (128, 128)
    assert hd.bin_slice(255, 0, 2) == (0, 127) and hd.bin_slice(255, 1, 2) == (127, 128)
    with pytest.raises(ValueError, match="needs 0 <= rank < world_size"):
        hd.bin_slice(8, 2, 2)


def test_bad_arguments_are_refused_before_anything_runs(dist, local):
    d = dist()
    x = FakeCounts(64)  # a "torch" object standing for the shard
    with pytest.raises(ValueError, match="combine must be one of all_reduce, reduce_scatter"):
        hd.bincount(x, 8, combine="sum")
    with pytest.raises(ValueError, match="out= goes with combine='all_reduce'"):
        hd.histogram(x, 8, range=(0, 8), out=FakeCounts(8), combine="reduce_scatter")
    with pytest.raises(TypeError, match="x must be a CUDA torch.Tensor"):
        hd.bincount(object(), 8)
    assert local == [] and d.calls == []


def test_no_process_group_or_another_backend_is_refused_first(dist, local):
    dist(initialized=False)
    with pytest.raises(RuntimeError, match="no process group: call torch.distributed"):
        hd.bincount(FakeCounts(64), 8)
    dist(backend="gloo")
    with pytest.raises(RuntimeError, match="backend is gloo"):
        hd.histogram(FakeCounts(64), 8, range=(0, 8))
    assert local == []


def test_all_reduce_sums_the_int64_local_counts_in_place(dist, local):
    d = dist()
    counts = hd.histogram(FakeCounts(64), 16, range=(0.0, 1.0), group="g")
    assert local == [("histogram", 16, (0.0, 1.0), {"out": None, "counts_dtype": "int64"})]
    assert d.calls == [("all_reduce", counts, "sum", "g")]


def test_reduce_scatter_of_equal_slices_is_one_reduce_scatter(dist, local):
    d = dist(rank=1, world=4)
    mine = hd.bincount(FakeCounts(64), 256, combine="reduce_scatter")
    assert local == [("bincount", 256, {"out": None, "counts_dtype": "int64"})]
    assert mine.shape == (64,)
    assert d.calls[0][0] == "reduce_scatter_tensor" and d.calls[0][1] == (64,)


def test_combine_counts_checks_its_combine(dist):
    dist()
    with pytest.raises(ValueError, match="combine must be one of"):
        hd.combine_counts(FakeCounts(8), combine="all")


def _two_gpu_reason():
    if NO_GPU is not None:
        return f"needs 2 GPUs: {NO_GPU}"
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        return "needs torch, which is not installed"
    if torch.cuda.device_count() < 2:
        return f"needs 2 GPUs, torch sees {torch.cuda.device_count()}"
    if not dist.is_available() or not dist.is_nccl_available():
        return "needs torch.distributed with NCCL"
    return None


def test_two_process_nccl_group_gets_the_concatenations_histogram():
    reason = _two_gpu_reason()
    if reason:
        pytest.skip(reason)
    import torch.multiprocessing as mp

    import distributed_worker

    with socket.socket() as s:  # a free port for the group's rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(distributed_worker.run, args=(2, port), nprocs=2, join=True)
