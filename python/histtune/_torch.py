"""histtune's functions as torch.library custom ops, for torch.compile.

Under ``torch.compile`` (fullgraph=True included) the public functions call these ops, which the
compiler keeps as opaque nodes: their fake implementations give the result's shape and dtype
without running anything, and at run time they make the eager call on the current stream. Eager
calls do not go through them (an op call costs microseconds of dispatch). Imported by histtune
when torch is loaded.
"""

from typing import Optional

import torch

from . import _api

_COUNTS = getattr(torch, "uint32", torch.int32)
# No `from __future__ import annotations` here: custom_op reads the annotations as types.


@torch.library.custom_op("histtune::bincount", mutates_args=())
def bincount(x: torch.Tensor, minlength: int) -> torch.Tensor:
    return _api.bincount(x, minlength)


@bincount.register_fake
def _(x, minlength):
    return x.new_empty((minlength,), dtype=_COUNTS)


@torch.library.custom_op("histtune::histogram_even", mutates_args=())
def histogram_even(x: torch.Tensor, bins: int, lower: float, upper: float) -> torch.Tensor:
    return _api.histogram(x, bins, (lower, upper))


@histogram_even.register_fake
def _(x, bins, lower, upper):
    return x.new_empty((bins,), dtype=_COUNTS)


@torch.library.custom_op("histtune::histogram_range", mutates_args=())
def histogram_range(x: torch.Tensor, edges: torch.Tensor) -> torch.Tensor:
    return _api.histogram(x, edges)


@histogram_range.register_fake
def _(x, edges):
    return x.new_empty((edges.shape[0] - 1,), dtype=_COUNTS)


@torch.library.custom_op("histtune::histogram_channels", mutates_args=())
def histogram_channels(x: torch.Tensor, bins: int, lower: Optional[float],
                       upper: Optional[float], edges: Optional[torch.Tensor],
                       channels: Optional[int]) -> torch.Tensor:
    if edges is not None:
        return _api.histogram_channels(x, edges, channels=channels)
    bounds = None if lower is None else (lower, upper)
    return _api.histogram_channels(x, bins, bounds, channels=channels)


@histogram_channels.register_fake
def _(x, bins, lower, upper, edges, channels):
    nbins = bins if edges is None else edges.shape[0] - 1
    return x.new_empty((x.shape[-1] if channels is None else channels, nbins), dtype=_COUNTS)


_api._ops = torch.ops.histtune  # what the public functions call under torch.compile
