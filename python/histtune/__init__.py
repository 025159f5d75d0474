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
import warnings

from . import _arrays, _core
from ._api import (Choice, bincount, histogram, histogram_channels, histogram_rows,
                   histogram_segments, last_choice)
from ._joint import histogram2d, histogramdd

__version__ = _core.__version__
__all__ = ["histogram", "bincount", "histogram_channels", "histogram_rows", "histogram_segments",
           "histogram2d", "histogramdd", "last_choice", "Choice"]


def _custom_ops(adapter) -> None:
    """Registers the torch custom ops (_torch.py), for torch.compile; eager calls work without."""
    try:
        from . import _torch  # noqa: F401
    except (ImportError, AttributeError, RuntimeError) as e:  # torch < 2.4: no custom_op
        warnings.warn(f"histtune: no torch custom ops, so no torch.compile support: {e}")


_arrays.on_torch(_custom_ops)
if "torch" in sys.modules:  # torch.compile finds the custom ops (else: on the first torch call)
    _arrays.torch_adapter()
