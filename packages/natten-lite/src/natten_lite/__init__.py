"""natten-lite: neighborhood attention (NATTEN 0.21 API) that installs everywhere.

Faster Neighborhood Attention: Reducing the O(n^2) Cost of Self Attention at the Threadblock Level
(Hassani, Hwu, Shi; NeurIPS 2024) - https://arxiv.org/abs/2403.04690.

``na1d/na2d/na3d`` (also under ``natten_lite.functional``), ``attention``, ``merge_attentions``,
the ``NeighborhoodAttention1D/2D/3D`` layers, window/mask helpers in ``natten_lite.masks`` and the
tile-work simulator ``natten_lite.sim``. Kernels come from ``papershelf_kernels.neighborhood``.
"""

from importlib.metadata import version as _version

from . import functional, masks, sim
from .functional import attention, merge_attentions, na1d, na2d, na3d
from .modules import NeighborhoodAttention1D, NeighborhoodAttention2D, NeighborhoodAttention3D

__version__ = _version("natten-lite")
__all__ = [
    "NeighborhoodAttention1D",
    "NeighborhoodAttention2D",
    "NeighborhoodAttention3D",
    "__version__",
    "attention",
    "functional",
    "masks",
    "merge_attentions",
    "na1d",
    "na2d",
    "na3d",
    "sim",
]
