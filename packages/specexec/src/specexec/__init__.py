"""SpecExec: massively parallel speculative decoding with large best-first draft trees.

SpecExec: Massively Parallel Speculative Decoding for Interactive LLM Inference on Consumer
Devices (Svirschevski, May, Chen, Chen, Jia, Ryabinin; NeurIPS 2024) -
https://arxiv.org/abs/2406.02532

A draft model grows a "cache" tree of the ``budget`` most probable continuations (best-first),
the target scores the whole tree in one forward with tree attention, and one independent target
sample per node decides the accepted path, so the output is exactly the target's distribution.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from .cost import OffloadCostModel
from .generate import (
    GenerationStats,
    autoregressive_generate,
    chain_speculative_generate,
    specexec_generate,
)
from .models import prune_cache
from .sampling import warp_probs
from .toy import MarkovLM
from .tree import DraftTree, build_tree, expected_tokens_per_pass, validate_tree

try:
    __version__ = _version("specexec")
except PackageNotFoundError:  # running from a source tree (e.g. gpu_check.py)
    __version__ = "0+unknown"
__all__ = [
    "DraftTree",
    "GenerationStats",
    "MarkovLM",
    "OffloadCostModel",
    "__version__",
    "autoregressive_generate",
    "build_tree",
    "chain_speculative_generate",
    "expected_tokens_per_pass",
    "prune_cache",
    "specexec_generate",
    "validate_tree",
    "warp_probs",
]
