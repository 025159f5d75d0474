"""histtune.distributed: one histogram of data sharded across the ranks of a torch.distributed
process group (NCCL backend), as histtune::nccl does in C++.

    # torchrun --nproc-per-node 2 script.py   (NCCL_NVLS_ENABLE=0: see the README)
    import torch, torch.distributed as dist
    import histtune.distributed as hd
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
    x = ...                                              # this rank's shard, on its GPU
    counts = hd.histogram(x, 256, range=(0.0, 1.0))      # int64: every rank's samples, every rank
    mine = hd.bincount(x.to(torch.uint8), 256, combine="reduce_scatter")  # this rank's bins only

Each rank histograms its shard with histtune.histogram or histtune.bincount in int64 counts
(``counts_dtype="int64"``: no total over many ranks can overflow), then the counts are summed
over the group on the caller's current stream: ``torch.distributed.all_reduce`` (every rank gets
every bin), or ``reduce_scatter_tensor`` (rank r gets the totals of its bins only,
``bin_slice(bins, r, world_size)``, for bin counts too large to replicate). Nothing synchronises
with the host. Every rank passes the same bins and range (NCCL would wait forever otherwise).
Importing this module does not import torch; the calls do.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _api

COMBINES = ("all_reduce", "reduce_scatter")


def bin_slice(bins: int, rank: int, world_size: int) -> Tuple[int, int]:
    """(first, count): the bins rank `rank` of `world_size` holds under reduce_scatter,
    [rank * bins // world_size, (rank + 1) * bins // world_size), as histtune::nccl::bin_slice."""
    if not 0 <= rank < world_size:
        raise ValueError(f"histtune.distributed: rank {rank} of {world_size} ranks "
                         "(needs 0 <= rank < world_size)")
    first = rank * bins // world_size
    return first, (rank + 1) * bins // world_size - first


def histogram(x: Any, bins: int, range: Any = None, *, group: Any = None,
              combine: str = "all_reduce", out: Any = None) -> Any:
    """histtune.histogram of this rank's shard `x` (a CUDA torch.Tensor), summed over `group`
    (the default group when None). ``bins`` a count with ``range=(lo, hi)``, or edges (a tensor
    on x's device), as histtune.histogram. Returns int64 counts: all
    of them (combine="all_reduce", into ``out`` when given), or this rank's slice of the bins
    (combine="reduce_scatter", a new tensor of bin_slice(bins, rank, world_size)[1] bins)."""
    _check(x, combine, out)
    dist = _process_group(group)
    counts = _api.histogram(x, bins, range, out=out, counts_dtype="int64")
    return _combine(dist, counts, group, combine)


def bincount(x: Any, minlength: int, *, group: Any = None, combine: str = "all_reduce",
             out: Any = None) -> Any:
    """histtune.bincount of this rank's shard, summed over `group`: as histogram above."""
    _check(x, combine, out)
    dist = _process_group(group)
    counts = _api.bincount(x, minlength, out=out, counts_dtype="int64")
    return _combine(dist, counts, group, combine)


def combine_counts(counts: Any, *, group: Any = None, combine: str = "all_reduce") -> Any:
    """Counts this rank already has (a 1D int64 CUDA tensor), summed over `group`: in place for
    all_reduce (returns `counts`), or this rank's slice as a new tensor for reduce_scatter."""
    _check_combine(combine)
    return _combine(_process_group(group), counts, group, combine)


def _combine(dist: Any, counts: Any, group: Any, combine: str) -> Any:
    if combine == "all_reduce":
        dist.all_reduce(counts, op=dist.ReduceOp.SUM, group=group)
        return counts
    bins, rank, world = counts.shape[0], dist.get_rank(group), dist.get_world_size(group)
    count = bin_slice(bins, rank, world)[1]
    if bins % world == 0:
        mine = counts.new_empty((count,))
        dist.reduce_scatter_tensor(mine, counts, op=dist.ReduceOp.SUM, group=group)
        return mine
    # Unequal slices: each rank's slice padded with zeros to the widest, then one reduce-scatter.
    width = -(-bins // world)
    mine = counts.new_empty((width,))
    dist.reduce_scatter_tensor(mine, _padded(counts, world, width), op=dist.ReduceOp.SUM,
                               group=group)
    return mine[:count]


def _padded(counts: Any, world: int, width: int) -> Any:
    """counts laid out as `world` rows of `width`: row r holds rank r's slice, then zeros."""
    import torch

    bins = counts.shape[0]
    r = torch.arange(world, device=counts.device).unsqueeze(1)
    j = torch.arange(width, device=counts.device).unsqueeze(0)
    first = r * bins // world
    index = torch.where(j < (r + 1) * bins // world - first, first + j, bins)
    return torch.cat([counts, counts.new_zeros((1,))])[index.reshape(-1)]


def _check_combine(combine: str) -> None:
    if combine not in COMBINES:
        raise ValueError(f"histtune.distributed: combine must be one of {', '.join(COMBINES)}, "
                         f"got {combine!r}")


def _check(x: Any, combine: str, out: Optional[Any]) -> None:
    _check_combine(combine)
    if type(x).__module__.split(".")[0] != "torch":
        raise TypeError("histtune.distributed: x must be a CUDA torch.Tensor (a torch.distributed "
                        f"group sums the counts), got {type(x).__name__}")
    if out is not None and combine != "all_reduce":
        raise ValueError("histtune.distributed: out= goes with combine='all_reduce' (a "
                         "reduce_scatter returns this rank's slice as a new tensor)")


def _process_group(group: Any) -> Any:
    """torch.distributed, once it is known to have an initialized group with NCCL."""
    try:
        import torch.distributed as dist
    except ImportError:
        raise ImportError("histtune.distributed needs torch (with torch.distributed)") from None
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("histtune.distributed: no process group: call "
                           "torch.distributed.init_process_group('nccl') first (torchrun sets "
                           "its environment)")
    backend = str(dist.get_backend(group))
    if "nccl" not in backend:
        raise RuntimeError(f"histtune.distributed: the process group's backend is {backend}; "
                           "histtune's counts are CUDA tensors: use the 'nccl' backend")
    return dist
