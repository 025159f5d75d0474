"""python -m histtune.bench without a GPU: it says so and exits 3."""

import subprocess
import sys

import pytest

from conftest import NO_GPU


@pytest.mark.skipif(NO_GPU is None, reason="this machine has a GPU (the bench runs on the GPU "
                                          "machine, .ci/gpu-python run)")
def test_bench_without_a_gpu_says_no_cuda_device():
    r = subprocess.run([sys.executable, "-m", "histtune.bench"], capture_output=True, text=True)
    assert r.returncode == 3 and "no CUDA device" in r.stderr


def test_bench_help():
    r = subprocess.run([sys.executable, "-m", "histtune.bench", "--help"], capture_output=True,
                       text=True)
    assert r.returncode == 0 and "--samples" in r.stdout
