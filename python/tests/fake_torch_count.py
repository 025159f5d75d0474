"""python fake_torch_count.py: what one warm call reads of its torch tensors and how many
Python functions it runs, on fake_torch (no GPU, no torch needed), with _core stubbed out;
plus the time per call, whose attribute reads here are Python properties (torch's cost
0.15-0.4 us each). Run with PYTHONPATH naming the histtune package to measure."""

import sys
import time
import warnings

import fake_torch

sys.modules["torch"] = torch = fake_torch.module()
import histtune  # noqa: E402
from histtune import _api, _arrays  # noqa: E402

_api._core = type("Core", (), {"__getattr__": lambda self, n: lambda *a: None})()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _arrays.torch_adapter()

x = torch.Tensor([1024], torch.uint8)
img = torch.Tensor([64, 64, 4], torch.uint8)
xf = torch.Tensor([1024], torch.float32)
CASES = {
    "bincount(x, 256, out=)": lambda: histtune.bincount(x, 256, out=out1),
    "bincount(x, 256)": lambda: histtune.bincount(x, 256),
    "histogram(xf, 256, (0, 1), out=)": lambda: histtune.histogram(xf, 256, (0.0, 1.0),
                                                                   out=out1),
    "histogram_channels(img, 256, channels=3, out=)":
        lambda: histtune.histogram_channels(img, 256, channels=3, out=out3),
}
out1 = torch.Tensor([256], torch.uint32)
out3 = torch.Tensor([3, 256], torch.uint32)


def count(fn):
    for t in (x, img, xf, out1, out3):
        t.reads.clear()
    calls = {"py": 0, "c": 0}

    def profile(frame, event, arg):
        if event == "call" and not frame.f_code.co_filename.endswith(("fake_torch.py",
                                                                       "fake_torch_count.py")):
            calls["py"] += 1
        elif event == "c_call":
            calls["c"] += 1

    sys.setprofile(profile)
    fn()
    sys.setprofile(None)
    reads = sum(sum(t.reads.values()) for t in (x, img, xf, out1, out3))
    return reads, calls["py"], calls["c"]


for name, fn in CASES.items():
    fn()
    reads, py, c = count(fn)
    n, us = 5000, float("inf")
    for _ in range(5):  # the least of 5 runs: this machine's other work only adds time
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        us = min(us, (time.perf_counter() - t0) / n * 1e6)
    print(f"{name:48s} tensor reads {reads:2d}  histtune Python calls {py:2d}  "
          f"C calls {c:2d}  {us:.2f} us")
