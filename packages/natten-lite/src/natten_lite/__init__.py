"""natten-lite: neighborhood attention (NATTEN 0.21 API) that installs everywhere.

Faster Neighborhood Attention: Reducing the O(n^2) Cost of Self Attention at the Threadblock Level
(Hassani, Hwu, Shi; NeurIPS 2024) - https://arxiv.org/abs/2403.04690.

``na1d/na2d/na3d`` (also under ``natten_lite.functional``), ``attention``, ``merge_attentions``,
the ``NeighborhoodAttention1D/2D/3D`` layers and NATTEN's top-level switches (``HAS_LIBNATTEN``,
determinism, KV parallelism, memory preference, Flex compile guards; ``natten_lite.context``),
all with NATTEN 0.21's names, positions and defaults; window/mask helpers in
``natten_lite.masks`` and the tile-work simulator ``natten_lite.sim``. Kernels come from
``papershelf_kernels.neighborhood``.
"""

from importlib.metadata import version as _version

from . import context, functional, masks, sim
from .context import (
    HAS_LIBNATTEN,
    allow_flex_compile,
    allow_flex_compile_backprop,
    are_deterministic_algorithms_enabled,
    disable_flex_compile,
    disable_flex_compile_backprop,
    get_memory_usage_preference,
    is_flex_compile_allowed,
    is_flex_compile_backprop_allowed,
    is_kv_parallelism_in_fused_na_enabled,
    is_memory_usage_default,
    is_memory_usage_strict,
    is_memory_usage_unrestricted,
    set_memory_usage_preference,
    use_deterministic_algorithms,
    use_kv_parallelism_in_fused_na,
)
from .functional import attention, merge_attentions, na1d, na2d, na3d
from .modules import NeighborhoodAttention1D, NeighborhoodAttention2D, NeighborhoodAttention3D

__version__ = _version("natten-lite")
__all__ = [
    "HAS_LIBNATTEN",
    "NeighborhoodAttention1D",
    "NeighborhoodAttention2D",
    "NeighborhoodAttention3D",
    "__version__",
    "allow_flex_compile",
    "allow_flex_compile_backprop",
    "are_deterministic_algorithms_enabled",
    "attention",
    "context",
    "disable_flex_compile",
    "disable_flex_compile_backprop",
    "functional",
    "get_memory_usage_preference",
    "is_flex_compile_allowed",
    "is_flex_compile_backprop_allowed",
    "is_kv_parallelism_in_fused_na_enabled",
    "is_memory_usage_default",
    "is_memory_usage_strict",
    "is_memory_usage_unrestricted",
    "masks",
    "merge_attentions",
    "na1d",
    "na2d",
    "na3d",
    "set_memory_usage_preference",
    "sim",
    "use_deterministic_algorithms",
    "use_kv_parallelism_in_fused_na",
]
