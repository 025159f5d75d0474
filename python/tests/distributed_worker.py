"""One rank of test_distributed's two-process group (torch.multiprocessing.spawn imports this
module in each child), or of a torchrun group
(`NCCL_NVLS_ENABLE=0 torchrun --nproc-per-node 2 python/tests/distributed_worker.py`): every call
of histtune.distributed against the one-GPU histogram of the concatenated shards, exactly."""

import os

import histtune
import histtune.distributed as hd

N = (1 << 20) + 3  # per rank, plus 7 x rank: shards of unequal, odd sizes


def shards(torch, world):
    """Every rank's shard, the same in every process: uint8 values and float32 samples."""
    ints, floats = [], []
    for r in range(world):
        g = torch.Generator().manual_seed(30 + r)
        ints.append(torch.randint(0, 256, (N + 7 * r,), generator=g, dtype=torch.uint8))
        floats.append(torch.rand(N + 7 * r, generator=g) * 1.25 - 0.125)  # some outside [0, 1)
    return ints, floats


def run(rank, world, port=None):
    """One rank: spawned by test_distributed (port given), or started by torchrun (its
    environment names the rendezvous)."""
    import torch
    import torch.distributed as dist

    if port is not None:
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    try:
        ints, floats = shards(torch, world)
        x, xf = ints[rank].cuda(), floats[rank].cuda()
        whole, whole_f = torch.cat(ints).cuda(), torch.cat(floats).cuda()  # the one-GPU data
        for bins in (256, 255):  # equal slices, and not
            want = histtune.bincount(whole, bins, counts_dtype="int64")
            assert torch.equal(want.cpu(), torch.bincount(torch.cat(ints).long(),
                                                          minlength=256)[:bins])
            got = hd.bincount(x, bins)
            assert got.dtype == torch.int64 and torch.equal(got, want), f"all_reduce, {bins} bins"
            first, count = hd.bin_slice(bins, rank, world)
            mine = hd.bincount(x, bins, combine="reduce_scatter")
            assert torch.equal(mine, want[first:first + count]), f"reduce_scatter, {bins} bins"
        want = histtune.histogram(whole_f, 100, range=(0.0, 1.0), counts_dtype="int64")
        out = torch.full((100,), -1, dtype=torch.int64, device="cuda")
        got = hd.histogram(xf, 100, range=(0.0, 1.0), out=out)
        assert got is out and torch.equal(out, want), "histogram, all_reduce into out"
        first, count = hd.bin_slice(100, rank, world)
        mine = hd.histogram(xf, 100, range=(0.0, 1.0), combine="reduce_scatter")
        assert torch.equal(mine, want[first:first + count]), "histogram, reduce_scatter"
        torch.cuda.synchronize()
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":  # under torchrun: one process per GPU, ranks from its environment
    run(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
    print(f"rank {os.environ['RANK']} of {os.environ['WORLD_SIZE']}: exact", flush=True)
