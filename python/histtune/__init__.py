"""histtune: autotuned CUDA histograms for torch, CuPy, JAX and Numba arrays.

    >>> import torch, histtune
    >>> x = torch.randint(0, 256, (1 << 24,), dtype=torch.uint8, device="cuda")
    >>> counts = histtune.bincount(x, 256)                  # torch.uint32 on x's device
    >>> h = histtune.histogram(x.float(), 64, range=(0, 256))
    >>> histtune.last_choice().summary                       # which kernel ran, how it was found

Every call runs on the caller's current stream (torch's, CuPy's; ``stream=`` to choose), never
synchronises with the host, and can be captured in a CUDA graph after one call outside it. The
kernels' configurations come from histtune's tuning database ($HISTTUNE_DB, then
~/.local/share/histtune/histtune.db), as for the C++ library; see docs/python.md.
"""

import sys

from . import _core
from ._api import (Choice, bincount, histogram, histogram_channels, histogram_rows,
                   histogram_segments, last_choice)
from ._joint import histogram2d, histogramdd

__version__ = _core.__version__
__all__ = ["histogram", "bincount", "histogram_channels", "histogram_rows", "histogram_segments",
           "histogram2d", "histogramdd", "last_choice", "Choice"]

if "torch" in sys.modules:  # torch.compile finds the custom ops (else: on the first torch call)
    from ._arrays import torch_adapter

    torch_adapter()
